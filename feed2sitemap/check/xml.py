"""The XML half of ``check``: the sitemaps.org schemas as a streaming expat state machine.

sitemap.xsd and siteindex.xsd are small: a root holding ``##other`` extension elements and then one
or more entries; an entry holding its fields in a fixed order, then ``##other`` elements. Rather
than load a schema validator (which needs the whole tree), the same rules are checked here event
by event, so memory stays flat on a 50 MB file. Values are judged as the XSD judges them: anyURI
and the date types collapse whitespace, tChangeFreq (an xsd:string) does not.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from typing import IO, TYPE_CHECKING, Any
from xml.parsers import expat

from ..errors import InputError
from ..readers.sitemap import SITEMAP_NS
from ..record import CHANGEFREQS
from ..xmlutil import (
    MAX_VALUE,
    EntitiesForbidden,
    MarkupGuard,
    XMLRefused,
    XMLTooComplex,
    expat_input,
    safe_expat_parser,
)

if TYPE_CHECKING:
    from .diagnostics import Diagnostic, FileCheck

__all__ = ["check_encoding", "check_sitemap_xml", "parse_xml", "xsd_lastmod", "xsd_priority"]

CHUNK = 1 << 16
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
_XSI_OK = {f"{XSI_NS} schemaLocation", f"{XSI_NS} noNamespaceSchemaLocation"}
_ENTRY = {"urlset": "url", "sitemapindex": "sitemap"}
_FIELDS = {"url": ("loc", "lastmod", "changefreq", "priority"), "sitemap": ("loc", "lastmod")}
_KNOWN = {"urlset", "url", "sitemapindex", "sitemap", "loc", "lastmod", "changefreq", "priority"}
_XML_SPACE = " \t\n\r"

# xsd:date and xsd:dateTime (XML Schema 1.0 part 2, 3.2.7 and 3.2.9): a year of at least four
# digits (no leading zero beyond four, not 0000), seconds required, an optional zone.
_XSD_DATETIME = re.compile(
    r"(-?(?:[1-9]\d{4,}|\d{4}))-(\d\d)-(\d\d)"
    r"(?:T(\d\d):(\d\d):(\d\d)(\.\d+)?)?"
    r"(Z|[+-]\d\d:\d\d)?", re.ASCII)
_XSD_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", re.ASCII)
_UTF16_START = re.compile(rb"(?:[\t\n\r ]\x00)*<\x00|(?:\x00[\t\n\r ])*\x00<")
_DECL_ENCODING = re.compile(rb"<\?xml[^>]*?\sencoding\s*=\s*[\"']([^\"']*)[\"']")
_FAR_FUTURE = datetime.max.replace(tzinfo=timezone.utc)
_EARLIEST_ZONE = timezone(timedelta(hours=14))  # where a day begins first


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def xsd_lastmod(text: str) -> tuple[str | None, bool, datetime | None]:
    """Judge a <lastmod> as tLastmod does: (XSD error or None, time without zone, earliest instant).

    The instant is when the value begins (a date without a zone begins first at UTC+14), for the
    "in the future" warning; None when it cannot be placed.
    """
    value = text.strip(_XML_SPACE)
    m = _XSD_DATETIME.fullmatch(value)
    bad = f"{value[:60]!r} is neither an xsd:date (YYYY-MM-DD) nor an xsd:dateTime " \
          "(YYYY-MM-DDThh:mm:ss with an optional fraction and zone)"
    if m is None:
        return bad, False, None
    year, month, day, hh, mi, ss, frac, tz = m.groups()
    y, mo, d = int(year), int(month), int(day)
    days = (31, 29 if _leap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if y == 0 or not 1 <= mo <= 12 or not 1 <= d <= days[mo - 1]:
        return bad, False, None
    tzinfo: timezone | None = None
    if tz is not None:
        tzinfo = timezone.utc
        if tz != "Z":
            oh, om = int(tz[1:3]), int(tz[4:6])
            if om > 59 or oh > 14 or (oh == 14 and om):
                return bad, False, None
            tzinfo = timezone((-1 if tz[0] == "-" else 1) * timedelta(hours=oh, minutes=om))
    extra = timedelta(0)
    if hh is not None:
        h, mn, s = int(hh), int(mi), int(ss)
        if h == 24 and mn == 0 and s == 0 and not (frac or "0").strip(".0"):
            h, extra = 0, timedelta(days=1)  # 24:00:00 is the end of the day
        elif h > 23 or mn > 59 or s > 59:
            return bad, False, None
        if tzinfo is None:
            return None, True, None
    else:
        h = mn = s = 0
    if y > 9999:
        return None, False, _FAR_FUTURE
    if y < 1:
        return None, False, None
    start = datetime.combine(date(y, mo, d), datetime.min.time(), tzinfo or _EARLIEST_ZONE)
    try:
        return None, False, start + timedelta(hours=h, minutes=mn, seconds=s) + extra
    except OverflowError:
        return None, False, _FAR_FUTURE


def xsd_priority(text: str) -> str | None:
    """tPriority: an xsd:decimal (no exponent) from 0.0 to 1.0, both included."""
    value = text.strip(_XML_SPACE)
    if _XSD_DECIMAL.fullmatch(value) is None:
        return f"{value[:40]!r} is not a decimal number (xsd:decimal, e.g. 0.5)"
    if not 0 <= Decimal(value) <= 1:  # Decimal: "1.0000000001" must not round to 1.0
        return f"{value[:40]} is outside 0.0-1.0"
    return None


def is_utf16(head: bytes) -> bool:
    """A UTF-16 (or UTF-32) byte-order mark, or UTF-16 markup without one."""
    return head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:4] == b"\x00\x00\xfe\xff" or \
        _UTF16_START.match(head) is not None


def check_encoding(head: bytes, f: FileCheck) -> bool:
    """sitemaps.org: files must be UTF-8. Report a UTF-16 BOM or a declaration naming another
    encoding (expat then decodes it anyway, so the rest is still checked). True for UTF-8."""
    # (expat reads UTF-16 without a BOM or a declaration too, from its first "<": XML 1.0,
    # appendix F, so it must be caught here)
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or _UTF16_START.match(head):
        f.error("encoding", 1, 1, "the file is UTF-16; sitemaps.org requires UTF-8")
        return False
    body = head[3:] if head.startswith(codecs.BOM_UTF8) else head
    m = _DECL_ENCODING.match(body)
    if m is not None and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        name = m.group(1).decode("ascii", "replace")
        f.error("encoding", 1, m.start(1) + 1,
                f"the XML declaration names encoding {name!r}; sitemaps.org requires UTF-8")
        return False
    return True


def _bad_utf8_at(data: bytes, i: int) -> bool:
    if not 0 <= i < len(data):
        return False
    try:
        codecs.utf_8_decode(data[i:i + 4], "strict", False)
    except UnicodeDecodeError as exc:
        return exc.start == 0
    return False


def parse_xml(stream: IO[bytes], parser: Any, guard: MarkupGuard, f: FileCheck,
              utf8: bool) -> Iterator[Diagnostic]:
    """Feed ``stream`` to ``parser`` chunk by chunk, yielding the diagnostics that are final.

    Well-formedness, entity declarations, the guard's bounds (the converter's own: see xmlutil),
    bytes that are not UTF-8 and the profile's byte limit are reported here; the element
    handlers set on ``parser`` report the rest through ``f``.
    """
    doctype: list[tuple[int, int]] = []  # where the DOCTYPE began, once seen
    parser.StartDoctypeDeclHandler = lambda *_: doctype.append(
        (parser.CurrentLineNumber, parser.CurrentColumnNumber + 1))

    def end_doctype() -> None:
        line, col = doctype[0]
        f.error("dtd", line, col, "a DOCTYPE; sitemaps are not validated against DTDs and "
                "must not declare any")

    parser.EndDoctypeDeclHandler = end_doctype
    total = 0
    prev = chunk = b""
    try:
        while True:
            prev, chunk = chunk, stream.read(CHUNK)
            total += len(chunk)
            guard.scan(chunk)
            parser.Parse(chunk, not chunk)
            yield from f.pop_safe()
            if not chunk:
                break
        f.size(total, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
    except expat.ExpatError as exc:
        at = parser.ErrorByteIndex - (total - len(chunk) - len(prev))
        if utf8 and exc.code == expat.errors.codes[expat.errors.XML_ERROR_INVALID_TOKEN] \
                and _bad_utf8_at(prev + chunk, at):
            f.error("encoding", exc.lineno, exc.offset + 1,
                    "bytes that are not UTF-8; sitemaps.org requires UTF-8")
        else:
            f.error("not-well-formed", exc.lineno, exc.offset + 1,
                    f"not well-formed XML: {expat.ErrorString(exc.code)}")
    except EntitiesForbidden as exc:
        line, col = doctype[0] if doctype else (parser.CurrentLineNumber,
                                                parser.CurrentColumnNumber + 1)
        f.error("dtd", line, col, f"{exc}; checking stopped here")
    except XMLTooComplex as exc:  # hostile: stop before it costs memory or time
        f.error("too-complex", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1,
                f"{exc}; refused, checking stopped here")
    except UnicodeDecodeError as exc:  # transcoded by expat_input from another encoding
        f.error("encoding", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1,
                f"bytes that are not {exc.encoding}: {exc.reason}")
    except InputError as exc:  # a gzip stream that breaks off, a read error
        f.error("input", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1, exc.reason)
    yield from f.pop_all()


def check_sitemap_xml(stream: IO[bytes], f: FileCheck, utf8: bool) -> Iterator[Diagnostic]:
    """Check an XML sitemap or sitemap index against the schema and the protocol's rules."""
    try:
        stream, encoding = expat_input(stream)
    except XMLRefused as exc:
        f.error("encoding", 1, 1, f"{exc}; checking stopped here")
        yield from f.pop_all()
        return
    guard = MarkupGuard()
    p = safe_expat_parser(" ", guard, encoding)
    p.buffer_text = False  # each text piece then comes with its own position
    st = _State()

    def pos(offset: int = 0) -> tuple[int, int]:
        return p.CurrentLineNumber, p.CurrentColumnNumber + 1 + offset

    def refuse(line: int, col: int, e_ns: str, local: str, where: str) -> None:
        st.skip_at = st.depth  # its content is not looked at
        if not e_ns and st.ns:
            f.error("unknown-element", line, col, f"<{local}> has no namespace; the schema "
                    "allows only its own elements and those of other namespaces (extensions)")
        elif local in _KNOWN:
            f.error("unexpected-element", line, col, f"<{local}> is not allowed {where}")
        else:
            f.error("unknown-element", line, col,
                    f"<{local}> is not an element of the sitemaps.org schema")

    def attributes(attrs: dict[str, str], local: str, line: int, col: int) -> None:
        for name in attrs:
            if name not in _XSI_OK:
                f.error("attribute", line, col,
                        f"attribute {name.rpartition(' ')[2]!r} is not allowed on <{local}>")

    limit = f.profile.max_bytes  # compared inline: two calls per element add up on 50 MB

    def start(name: str, attrs: dict[str, str]) -> None:
        line, col = pos()
        if p.CurrentByteIndex > limit:
            f.size(p.CurrentByteIndex, line, col)
        st.depth += 1
        st.run = 0
        guard.depth(st.depth)
        guard.element(name, attrs)
        st.text_told = False
        if st.skip_at:
            return
        e_ns, _, local = name.rpartition(" ")
        mine = e_ns == st.ns
        if st.depth == 1:
            st.ns = e_ns
            if local not in _ENTRY:
                st.skip_at = 1
                f.error("root", line, col, f"the root element is <{local}>, not <urlset> "
                        "or <sitemapindex>")
                return
            st.root, st.root_at, st.entry_tag = local, (line, col), _ENTRY[local]
            f.start_root(local == "sitemapindex", line, col)
            if e_ns != SITEMAP_NS:
                f.error("namespace", line, col, f"<{local}> is in "
                        f"{repr(e_ns) if e_ns else 'no namespace'}, not {SITEMAP_NS}")
        elif st.depth == 2:
            if not (mine and local == st.entry_tag):
                if mine or not e_ns:
                    return refuse(line, col, e_ns, local, f"directly in <{st.root}>")
                st.skip_at = 2  # an extension element: allowed before the first entry
                if st.entries:
                    f.error("order", line, col, f"extension element <{local}> after a "
                            f"<{st.entry_tag}>; the schema allows them only before the first")
                return
            st.entries += 1
            st.entry_at, st.seen, st.last = (line, col), set(), -1
            f.entry(line, col)
        elif st.depth == 3:
            fields = _FIELDS[st.entry_tag]
            if not mine or local not in fields:
                if mine or not e_ns:
                    return refuse(line, col, e_ns, local, f"in <{st.entry_tag}>")
                st.skip_at, st.last = 3, len(fields)  # extensions come after the fields
                return
            idx = fields.index(local)
            if local in st.seen:
                f.error("duplicate-element", line, col,
                        f"a second <{local}> in this <{st.entry_tag}>")
            elif idx < st.last:
                f.error("order", line, col, f"<{local}> is out of order; the schema wants "
                        f"{', '.join(fields)}, then extension elements")
            st.seen.add(local)
            st.last = max(st.last, idx)
            st.field, st.field_at, st.parts, st.length = local, (line, col), [], 0
        else:
            st.skip_at = st.depth
            f.error("unexpected-element", line, col,
                    f"<{local}> inside <{st.field}>, which holds text only")
            return
        attributes(attrs, local, line, col)

    def chars(data: str) -> None:
        # A value, or the text between two tags (white space), over MAX_VALUE stops the check,
        # as it stops the converter: 10 GB of spaces would otherwise keep it busy for an hour.
        st.run += len(data)
        if st.run > MAX_VALUE:
            raise XMLTooComplex(f"a value or a run of white space longer than {MAX_VALUE:,} "
                                "characters")
        if st.skip_at:
            return
        if st.depth == 3:
            st.length += len(data)
            st.parts.append(data)
        elif not st.text_told and st.root:
            stripped = data.lstrip(_XML_SPACE)
            if stripped:
                st.text_told = True
                where = st.root if st.depth == 1 else st.entry_tag
                f.error("text-content", *pos(len(data) - len(stripped)),
                        f"text {stripped.rstrip()[:40]!r} in <{where}>, which holds elements only")

    def end(name: str) -> None:
        if p.CurrentByteIndex > limit:
            f.size(p.CurrentByteIndex, *pos())
        st.text_told = False
        st.run = 0
        if st.skip_at:
            if st.depth == st.skip_at:
                st.skip_at = 0
            st.depth -= 1
            return
        if st.depth == 3:
            _field(f, st, st.entry_tag == "sitemap")
        elif st.depth == 2:
            if "loc" not in st.seen:
                f.error("missing-loc", *st.entry_at, f"<{st.entry_tag}> without a <loc>")
            f.safe = pos()
        elif st.depth == 1 and st.root and not st.entries:
            f.error("empty-set", *st.root_at, f"<{st.root}> has no <{st.entry_tag}>; the "
                    "schema requires at least one")
        st.depth -= 1

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = chars
    yield from parse_xml(stream, p, guard, f, utf8)


class _State:
    """Where the parser is: the root, the current entry and the current field."""

    def __init__(self) -> None:
        self.depth = 0
        self.skip_at = 0  # depth of an element whose content is skipped (extension, refused)
        self.ns = ""
        self.root = ""
        self.root_at = (1, 1)
        self.entry_tag = "url"
        self.entries = 0
        self.entry_at = (1, 1)
        self.seen: set[str] = set()
        self.last = -1  # sequence position of the last field (len(fields) after an extension)
        self.field = ""
        self.field_at = (1, 1)
        self.parts: list[str] = []
        self.length = 0
        self.run = 0  # characters of text since the last tag
        self.text_told = False


def _field(f: FileCheck, st: _State, index: bool) -> None:
    text = "".join(st.parts)
    line, col = st.field_at
    name = st.field
    if name == "loc":
        f.loc(text, line, col, xsd=True, index=index, truncated=st.length > MAX_VALUE)
    elif name == "lastmod":
        problem, naive, instant = xsd_lastmod(text)
        if problem:
            f.error("lastmod-format", line, col, problem)
        elif naive:
            f.error("lastmod-timezone", line, col, f"{text.strip()[:40]!r} has a time without "
                    "a timezone; sitemaps.org requires one (Z or +hh:mm)")
        elif instant is not None and instant > f.now:
            f.warn("lastmod-future", line, col, f"lastmod {text.strip()[:40]} is in the future")
    elif name == "changefreq":
        if text not in CHANGEFREQS:  # xsd:string: no whitespace collapsing, case matters
            f.error("changefreq", line, col, f"{text[:40]!r} is not one of "
                    f"{', '.join(CHANGEFREQS)} (exactly, lower-case, no spaces)")
    elif name == "priority":
        problem = xsd_priority(text)
        if problem:
            f.error("priority", line, col, problem)

