"""XML as ``check`` reads it (``parse_xml``: what expat and the converter's MarkupGuard
refuse), and sitemaps and indexes by the sitemaps.org schemas.

The schemas are small (a root of ``##other`` elements then entries, an entry of fields in a
fixed order then ``##other`` elements), so ``_Schema`` checks their rules event by event, in flat
memory, rather than load a validator that needs the whole tree.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any
from xml.parsers import expat

from ..backends import fast
from ..errors import InputError
from ..extensions.deprecated import deprecated_tags
from ..extensions.news import in_window
from ..extensions.rules import NEWS_PER_FILE, check_extensions
from ..extensions.xmlin import UrlChildren, located
from ..model.rules import XML_SPACE
from ..readers.sitemap import SITEMAP_NS
from ..xmlutil import (
    MAX_VALUE,
    EntitiesForbidden,
    MarkupGuard,
    XMLRefused,
    XMLTooComplex,
    defused_parse,
    expat_input,
    safe_expat_parser,
)
from .locs import check_loc, judge_field, judge_lastmod
from .xmlfast import FastUrlset

if TYPE_CHECKING:
    from .diagnostics import Diagnostic, FileCheck

__all__ = ["check_encoding", "check_sitemap_xml", "is_utf16", "parse_xml"]

CHUNK = 1 << 16
_UTF16_START = re.compile(rb"(?:[\t\n\r ]\x00)*<\x00|(?:\x00[\t\n\r ])*\x00<")
_DECL_ENCODING = re.compile(rb"<\?xml[^>]*?\sencoding\s*=\s*[\"']([^\"']*)[\"']")
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
_XSI_OK = {f"{XSI_NS} schemaLocation", f"{XSI_NS} noNamespaceSchemaLocation"}
_ENTRY = {"urlset": "url", "sitemapindex": "sitemap"}
_FIELDS = {"url": ("loc", "lastmod", "changefreq", "priority"), "sitemap": ("loc", "lastmod")}
_KNOWN = {"urlset", "url", "sitemapindex", "sitemap", "loc", "lastmod", "changefreq", "priority"}


def is_utf16(head: bytes) -> bool:
    """A UTF-16 (or UTF-32) byte-order mark, or UTF-16 markup without one (XML 1.0, F)."""
    return head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:4] == b"\x00\x00\xfe\xff" or \
        _UTF16_START.match(head) is not None


def check_encoding(head: bytes, f: FileCheck) -> bool:
    """Report a declaration naming another encoding than UTF-8 (the rest is still checked);
    True for UTF-8."""
    body = head[3:] if head.startswith(codecs.BOM_UTF8) else head
    m = _DECL_ENCODING.match(body)
    if m is not None and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        name = m.group(1).decode("ascii", "replace")
        name = name if len(name) <= 64 else name[:64] + "..."  # (one line, however long)
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
              utf8: bool, feed: Callable[[bytes, bool], Any] | None = None,
              free: Callable[[], bool] | None = None) -> Iterator[Diagnostic]:
    """Feed ``stream`` to ``parser`` (through ``feed``, default ``parser.Parse``), yielding the
    diagnostics that are final; ``free``: MarkupGuard.scan's."""
    feed = feed or parser.Parse
    doctype: list[tuple[int, int]] = []  # where the DOCTYPE began, once seen

    def here() -> tuple[int, int]:
        return parser.CurrentLineNumber, parser.CurrentColumnNumber + 1

    parser.StartDoctypeDeclHandler = lambda *_: doctype.append(here())

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
            guard.scan(chunk, free)
            feed(chunk, not chunk)
            yield from f.pop_safe()
            if not chunk:
                break
        f.size(total, *here())
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
        f.error("dtd", *(doctype[0] if doctype else here()), f"{exc}; checking stopped here")
    except XMLTooComplex as exc:  # hostile: stop before it costs memory or time
        f.error("too-complex", *here(), f"{exc}; refused, checking stopped here")
    except UnicodeDecodeError as exc:  # transcoded by expat_input from another encoding
        f.error("encoding", *here(), f"bytes that are not {exc.encoding}: {exc.reason}")
    except LookupError as exc:  # expat asked Python for an encoding expat_input did not see
        f.error("encoding", 1, 1, f"{str(exc)[:200]}; checking stopped here")
    except InputError as exc:  # a gzip stream that breaks off, a read error
        f.error("input", *here(), exc.reason)
    f.bytes = total
    yield from f.pop_all()


def check_sitemap_xml(stream: IO[bytes], f: FileCheck, utf8: bool) -> Iterator[Diagnostic]:
    try:
        stream, encoding = expat_input(stream)
    except XMLRefused as exc:
        f.error("encoding", 1, 1, f"{exc}; checking stopped here")
        return
    guard = MarkupGuard()
    p = safe_expat_parser(" ", guard, encoding)
    p.buffer_text = False  # each text piece then comes with its own position
    schema = _Schema(f, p, guard)
    p.StartElementHandler = schema.start
    p.EndElementHandler = schema.end
    p.CharacterDataHandler = schema.chars
    # the reference mode: every entry through the handlers, every byte through defusedxml
    feed = FastUrlset(schema, p, guard).feed if utf8 and fast("check entries") else \
        defused_parse(p, encoding)
    yield from parse_xml(stream, p, guard, f, utf8, feed)


class _Schema:
    """The schema's rules as expat handlers, and where the parser is."""

    def __init__(self, f: FileCheck, parser: Any, guard: MarkupGuard) -> None:
        self.f = f
        self.p = parser
        self.guard = guard
        self.limit = f.profile.max_bytes
        self.depth = 0
        self.skip_at = 0  # depth of an element whose content is skipped (extension, refused)
        self.ns = ""
        self.root = ""
        self.root_at = (1, 1)
        self.entry_tag = "url"
        self.entry_at = (1, 1)
        self.seen: set[str] = set()
        self.last = -1  # sequence position of the last field (len(fields) after an extension)
        self.field = ""
        self.field_at = (1, 1)
        self.parts: list[str] = []
        self.run = 0  # characters of text since the last tag
        self.text_told = False
        self.page: str | None = None  # the current <url>'s loc
        self.children = UrlChildren()  # the current <url>'s extensions, judged at its end
        self.ext_depth = 0  # how deep inside an extension element (0: not in one)
        self.ext_any = False  # this <url> had an extension element
        self.news = 0  # URLs with news in this file

    def ready(self) -> bool:
        """Between entries of a sitemaps.org <urlset>: where xmlfast.py may take over."""
        return self.depth == 1 and self.root == "urlset" and self.ns == SITEMAP_NS

    def after_entries(self) -> None:
        """What the last </url> of xmlfast.py's run of entries would have reset."""
        self.run = 0
        self.text_told = False

    def pos(self, offset: int = 0) -> tuple[int, int]:
        return self.p.CurrentLineNumber, self.p.CurrentColumnNumber + 1 + offset

    def start(self, name: str, attrs: dict[str, str]) -> None:
        p = self.p
        line, col = p.CurrentLineNumber, p.CurrentColumnNumber + 1
        if p.CurrentByteIndex > self.limit:
            self.f.size(p.CurrentByteIndex, line, col)
        self.depth = depth = self.depth + 1
        self.run = 0
        self.guard.depth(depth)
        self.guard.element(name, attrs)
        self.text_told = False
        if self.ext_depth:  # inside an extension element of a <url>
            self.ext_depth += 1
            self.children.start(name, attrs, line)
            return
        if self.skip_at:
            return
        e_ns, _, local = name.rpartition(" ")
        if depth == 3:
            checked = self._start_field(e_ns, local, line, col, attrs)
        elif depth == 2:
            checked = self._start_entry(e_ns, local, line, col)
        elif depth == 1:
            checked = self._start_root(e_ns, local, line, col)
        else:
            self.skip_at = depth
            self.f.error("unexpected-element", line, col,
                         f"<{local}> inside <{self.field}>, which holds text only")
            return
        if checked and attrs:
            for attr in attrs:
                if attr not in _XSI_OK:
                    self.f.error("attribute", line, col, f"attribute "
                                 f"{attr.rpartition(' ')[2]!r} is not allowed on <{local}>")

    def _start_root(self, e_ns: str, local: str, line: int, col: int) -> bool:
        self.ns = e_ns
        if local not in _ENTRY:
            self.skip_at = 1
            self.f.error("root", line, col, f"the root element is <{local}>, not <urlset> "
                         "or <sitemapindex>")
            return False
        self.root, self.root_at, self.entry_tag = local, (line, col), _ENTRY[local]
        self.f.start_root(local == "sitemapindex", line, col)
        if e_ns != SITEMAP_NS:
            self.f.error("namespace", line, col, f"<{local}> is in "
                         f"{repr(e_ns) if e_ns else 'no namespace'}, not {SITEMAP_NS}")
        return True

    def _start_entry(self, e_ns: str, local: str, line: int, col: int) -> bool:
        mine = e_ns == self.ns
        if not (mine and local == self.entry_tag):
            if mine or not e_ns:
                return self._refuse(line, col, e_ns, local, f"directly in <{self.root}>")
            self.skip_at = 2  # an extension element: allowed before the first entry
            if self.f.entries:
                self.f.error("order", line, col, f"extension element <{local}> after a "
                             f"<{self.entry_tag}>; the schema allows them only before the first")
            return False
        self.entry_at, self.seen, self.last = (line, col), set(), -1
        self.f.entry(line, col)
        return True

    def _start_field(self, e_ns: str, local: str, line: int, col: int,
                     attrs: dict[str, str]) -> bool:
        fields = _FIELDS[self.entry_tag]
        mine = e_ns == self.ns
        if not mine or local not in fields:
            if mine or not e_ns:
                return self._refuse(line, col, e_ns, local, f"in <{self.entry_tag}>")
            self.skip_at, self.last = 3, len(fields)  # extensions come after the fields
            if self.entry_tag == "url":
                self.ext_depth, self.ext_any = 1, True
                self.children.start(e_ns + " " + local, attrs, line)
            return False
        idx = fields.index(local)
        if local in self.seen:
            self.f.error("duplicate-element", line, col,
                         f"a second <{local}> in this <{self.entry_tag}>")
        elif idx < self.last:
            self.f.error("order", line, col, f"<{local}> is out of order; the schema wants "
                         f"{', '.join(fields)}, then extension elements")
        self.seen.add(local)
        self.last = max(self.last, idx)
        self.field, self.field_at, self.parts = local, (line, col), []
        return True

    def _refuse(self, line: int, col: int, e_ns: str, local: str, where: str) -> bool:
        self.skip_at = self.depth  # its content is not looked at
        if not e_ns and self.ns:
            self.f.error("unknown-element", line, col, f"<{local}> has no namespace; the "
                         "schema allows only its own elements and those of other namespaces "
                         "(extensions)")
        elif local in _KNOWN:
            self.f.error("unexpected-element", line, col, f"<{local}> is not allowed {where}")
        else:
            self.f.error("unknown-element", line, col,
                         f"<{local}> is not an element of the sitemaps.org schema")
        return False

    def chars(self, data: str) -> None:
        # a text over MAX_VALUE stops the check as it stops the converter (10 GB of spaces)
        self.run += len(data)
        if self.run > MAX_VALUE:
            raise XMLTooComplex(f"a value or a run of white space longer than {MAX_VALUE:,} "
                                "characters")
        if self.ext_depth:
            self.children.data(data)
        if self.skip_at:
            return
        if self.depth == 3:
            self.parts.append(data)
        elif not self.text_told and self.root:
            stripped = data.lstrip(XML_SPACE)
            if stripped:
                self.text_told = True
                where = self.root if self.depth == 1 else self.entry_tag
                self.f.error("text-content", *self.pos(len(data) - len(stripped)),
                             f"text {stripped.rstrip()[:40]!r} in <{where}>, which holds "
                             "elements only")

    def end(self, name: str) -> None:
        p = self.p
        if p.CurrentByteIndex > self.limit:
            self.f.size(p.CurrentByteIndex, *self.pos())
        self.text_told = False
        self.run = 0
        depth = self.depth
        self.depth = depth - 1
        if self.ext_depth:
            self.ext_depth -= 1
            self.children.end(name)
        if self.skip_at:
            if depth == self.skip_at:
                self.skip_at = 0
            return
        if depth == 3:
            self._end_field()
        elif depth == 2:
            seen = self.seen
            if "changefreq" in seen or "priority" in seen:
                self.f.notes.fields("changefreq" in seen, "priority" in seen)
            if self.ext_any:
                self._url_done(*self.entry_at)
            self.page = None
            if "loc" not in self.seen:
                self.f.error("missing-loc", *self.entry_at, f"<{self.entry_tag}> without a "
                             "<loc>")
            self.f.safe = self.pos()
        elif depth == 1 and self.root and not self.f.entries:
            self.f.error("empty-set", *self.root_at, f"<{self.root}> has no "
                         f"<{self.entry_tag}>; the schema requires at least one")

    def _end_field(self) -> None:
        f, text, (line, col) = self.f, "".join(self.parts), self.field_at
        if self.field == "loc":
            self.page = text.strip(XML_SPACE)
            check_loc(f, text, line, col, xsd=True, index=self.entry_tag == "sitemap",
                      truncated=len(text) > MAX_VALUE)
        elif self.entry_tag == "url":
            judge_field(f, self.field, text, line, col)
        else:  # an index's <lastmod>: no note, no fact (they are the URLs')
            judge_lastmod(f, text, line, col)

    def _url_done(self, line: int, col: int) -> None:
        """Judge the extensions of the <url> that ended by the converter's rules: what it would
        leave out is an error, what it only warns about a warning."""
        self.ext_any = False
        ext, problems, lines = self.children.finish()
        f, page = self.f, self.page
        if f.stats.facts is not None:
            f.stats.facts.extensions(ext)
        if ext.alternates and page is not None:  # for hreflang-reciprocal, after the last file
            links = f.stats.hreflang
            listed = [(alt.hreflang, alt.href, lines.get(("alternates", i), line))
                      for i, alt in enumerate(ext.alternates)]
            if not links.add(page, listed, f.file_no, col):
                f.warn("hreflang-limit", line, col, f"more than {links.limit:,} hreflang "
                       "alternates in this run: later ones are not checked for reciprocity")
        for p in problems + located(check_extensions(ext, page), lines):
            rule = f"ext-{p.kind}" if p.kind != "url" else "unknown-element"
            (f.warn if p.drops == "none" else f.error)(rule, p.line or line, col, p.message())
        for tag, kind, i in deprecated_tags(ext):
            why = "no longer in Google's News sitemap documentation" if kind == "news" else \
                "deprecated by Google in 2022 (Search Central blog, 2022-05-06)"
            f.notes.add("ext-deprecated", tag, lines.get((kind, i), line), col, f"<{tag}> is "
                        f"{why}: search engines ignore it; the converter's --drop-deprecated "
                        "leaves it out")
        if not ext.news:
            return
        self.news += 1
        if self.news == NEWS_PER_FILE + 1:
            f.error("news-limit", line, col, f"more than {NEWS_PER_FILE:,} URLs with news "
                    "in one sitemap; Google News reads at most that many")
        for news in ext.news:
            if news.publication_date is not None and not in_window(news.publication_date,
                                                                    f.now):
                f.warn("news-old", line, col, f"news published "
                       f"{news.publication_date.isoformat()} is older than two days; "
                       "Google News shows only recent articles")
