"""The feed pass's runs: plain entries read by one regular expression (in C), with no Python
handler per element.

Where expat (with the pass's handlers) has just read an entry's end tag, ``scan`` takes the
longest run of plain entries that follows: ``<item>`` or ``<entry>`` without attributes,
holding white space and the children of the grammar below only (values without markup, at
most one link, one guid or id, one date of each kind), checked as expat would check them
(strict UTF-8 or Latin-1, no character XML forbids, no "]]>" outside CDATA, references to
XML's five entities or allowed characters only; a "\\r" is left to expat). Each entry's link
and date are what the handlers give for that shape (``by_entry``, with their functions; the
usual shapes a column at a time, proven equal), and expat reads white space with the same
line ends instead of the run, so that its state and lines stay exact.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from itertools import accumulate, repeat
from operator import itemgetter, sub
from typing import Any, NamedTuple

from .compat import (
    EPOCH,
    MONTH_DASHED,
    FeedEntry,
    clean,
    entry_date,
    guid_is_url,
    is_html,
    link_text,
    new_entry,
    no_date,
    zone_offset,
)

_WS = "[ \t\n]*"
_VALUE = "[^<]*</"  # a value and its end tag's "</": present-but-empty is "</", absent ""
_AV = '="[^"<\t\n]*"'
# Text with CDATA sections: a section ends at the first "]]>", and holds no "<![CDATA[" here
# (so that one "]]>" per "<![CDATA[" proves that none is outside a section).
_TEXT = (r"[^<]*(?:<!\[CDATA\[[^\]<]*(?:(?:\](?!\]>)|<(?!!\[CDATA\[))[^\]<]*)*\]\]>[^<]*)*")
# A child of a plain entry, after its "<". Each kind read at most once per entry: an empty
# group marks it seen, and a second one fails the entry (``(?(n)(?!))``). (Each alternative
# but the first starts with its element's name: sre skips it on the first letter.)
TEXT_NAMES = "title|description|summary|content|category|comments|author|rights"
_CHILD = (
    f"({TEXT_NAMES})"  # 1
    f"(?:[ \t\n]+(?:type|domain){_AV})?>{_TEXT}</\\1>"
    f"|link(?(2)(?!))()(?:>({_VALUE})link>"  # 2 (seen), 3: RSS link text
    f"|((?:[ \t\n]+(?:rel|type|href|title|length){_AV})+){_WS}(?:/>|></link>))"  # 4
    f"|id>(?(5)(?!))(?(12)(?!))()({_VALUE})id>"  # 5, 6 (an <id> or a <guid>: one)
    f"|updated>(?(7)(?!))()({_VALUE})updated>"  # 7, 8
    f"|(pubDate|published)>(?(10)(?!))()({_VALUE})\\9>"  # 9, 10, 11
    f"|guid(?(5)(?!))(?(12)(?!))()((?:[ \t\n]+isPermaLink{_AV})?)>({_VALUE})guid>"  # 12-14
    f"|(author|contributor)>{_WS}(?:<(name|email|uri)>[^<]*</\\16>{_WS})*</\\15>"  # 15, 16
)
# The groups read (as indexes of findall's tuples: a group's number less one)
LINK, ATOM, ID, UPDATED, PUBLISHED, GUID_ATTRS, GUID, JUNK = 2, 3, 5, 7, 10, 12, 13, 16


@cache  # (compiled when first used: a small feed never is)
def _grammar(tag: str, prefixed: tuple[str, ...]) -> re.Pattern[str]:
    """The grammar for entries ``tag``, with the ``prefixed`` names read as text too."""
    names = TEXT_NAMES.replace("|rights", "".join("|" + n for n in prefixed) + "|rights")
    child = _CHILD.replace(f"({TEXT_NAMES})", f"({names})", 1)
    return re.compile(f"{_WS}<{tag}>(?:{_WS}<(?:{child}))*{_WS}</{tag}>|((?s:.+))")


# The local names the grammar reads, and the kind (compat.KIND) each must have in the
# document's default namespace for runs to start.
NAMES = {"link": "link", "guid": "guid", "id": "guid", "pubDate": "published",
         "published": "published", "updated": "updated", "title": "text",
         "description": "text", "summary": "text", "content": "text", "rights": "text",
         "category": "", "comments": "", "author": "", "contributor": "", "name": "",
         "email": "", "uri": ""}
# Prefixed names read as text when their prefix is bound to a namespace that gives them this
# kind (WordPress writes all of them in every item).
PREFIXED = {"dc:creator": "", "dc:subject": "", "content:encoded": "text",
            "wfw:commentRss": "", "slash:comments": ""}

_CDATA = re.compile(r"<!\[CDATA\[.*?\]\]>", re.S)
_REFERENCE = re.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);")
_NOT_NAMED = re.compile("&(?!(?:amp|lt|gt|quot|apos);)")
_BAD_REFERENCE = re.compile("&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)")
_NUMERIC = re.compile("&#(x[0-9a-fA-F]+|[0-9]+);")
_ATTR = re.compile('[ \t\n]+([a-zA-Z]+)="([^"]*)"')
# C0 controls XML forbids, and "\r" (which expat reads as a line end: left to it)
_C0 = bytes(set(range(0x20)) - {0x09, 0x0A})
_NOT_CHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")  # U+FFFE, U+FFFF in UTF-8
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_DECODE = {"UTF-8": "utf-8", "ISO-8859-1": "latin-1"}


class NotPlain(Exception):
    """A run holds something the grammar's answer does not cover."""


class Run(NamedTuple):
    """Plain entries found at the start of a region."""

    found: list[tuple[str, ...]]  # the grammar's groups, by entry
    lines: list[int]  # each entry's start tag's line, counted from the region's first
    size: int  # bytes of the region the run takes
    stand_in: bytes  # what expat reads instead: white space with the same line ends


def scan(region: bytes, tag: str, encoding: str, prefixed: tuple[str, ...] = ()) -> Run | None:
    """The plain entries at the start of ``region`` (which starts between two entries), or
    None when there are none or expat would find anything wrong in them."""
    codec = _DECODE.get(encoding)
    if codec is None:
        return None
    ascii = region.isascii()
    try:
        text = region.decode("ascii" if ascii else codec)
    except UnicodeDecodeError:
        return None
    found = _grammar(tag, prefixed).findall(text)
    size = len(region)
    if found and found[-1][JUNK]:
        rest = found.pop()[JUNK]
        text = text[: len(text) - len(rest)]
        size -= len(rest) if ascii or codec == "latin-1" else len(rest.encode(codec))
    if not found:
        return None
    run = region[:size] if size < len(region) else region
    if (len(run.translate(None, _C0)) != size
            or not ascii and codec == "utf-8" and ("\ufffe" in text or "\uffff" in text)):
        return None
    if b"]]>" in run and run.count(b"]]>") != run.count(b"<![CDATA[") or "&" in text and not (
            _references_ok(text) or "]]>" in text and _references_ok(_CDATA.sub("", text))):
        return None
    # each entry's start tag's line, counted from the run's first, and the run's line ends
    # last (none when a "<item>" inside a CDATA section would make them wrong)
    parts = run.split(f"<{tag}>".encode())
    if len(parts) != len(found) + 1:
        return None
    lines = list(accumulate(map(bytes.count, parts, repeat(b"\n"))))
    breaks = lines.pop()
    stand_in = b"\n" * breaks + b" " * (len(text) - text.rfind("\n") - 1)
    return Run(found, lines, size, stand_in)


def _references_ok(text: str) -> bool:
    """Every "&" begins one of XML's five entity references or a character reference to a
    character XML allows (no entity is declared: entity declarations are refused)."""
    if not _NOT_NAMED.search(text):  # the usual text: one pass rather than two
        return True
    if _BAD_REFERENCE.search(text):
        return False
    try:
        for ref in set(_NUMERIC.findall(text)) if "&#" in text else ():
            _character_of(ref)
    except ValueError:
        return False
    return True


def _character_of(ref: str) -> str:
    code = int(ref[1:], 16) if ref[0] == "x" else int(ref)
    # XML 1.0's Char production: what a character reference may name
    if not (code in (9, 10, 13) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise ValueError(f"&#{ref}; names no XML character")
    return chr(code)


def _resolved(m: re.Match[str]) -> str:
    ref = m.group(1)
    return _NAMED[ref] if ref[0] != "#" else _character_of(ref[1:])


def _value(raw: str) -> str:
    """A value as expat gives it (its "</" cut off, references resolved), stripped."""
    value = raw[:-2]
    if "&" in value:
        value = _REFERENCE.sub(_resolved, value)
    return value.strip()


def entries(run: Run, base: str, resolve: Callable[[str, str], str],
            first_line: int) -> list[FeedEntry]:
    """Each entry's (link, date, line): a column at a time for the usual run, else by_entry."""
    lines = [first_line + n for n in run.lines]
    try:
        columns = list(zip(*run.found, strict=True))
        links = _link_column(columns, base, resolve)
        dates = _date_column(columns)
        return list(map(new_entry, repeat(FeedEntry), zip(links, dates, lines, strict=True)))
    except _ByEntry:
        return by_entry(run, base, resolve, lines)


def by_entry(run: Run, base: str, resolve: Callable[[str, str], str],
             lines: list[int]) -> list[FeedEntry]:
    """Each entry's (link, date, line) with the handlers' functions: the columns' plain twin."""
    out: list[FeedEntry] = []
    append = out.append
    for f, line in zip(run.found, lines, strict=True):
        alt: str | None = None
        link: str | None = None
        if f[LINK]:  # RSS's <link>: its text, resolved and repaired
            link = link_text(_value(f[LINK]), base, resolve)
            alt = link or None
        elif f[ATOM]:
            alt, link = _atom_link(f[ATOM], base, resolve)
        if alt is None and link is None and (f[ID] or f[GUID] and _permalink(f[GUID_ATTRS])):
            text = _value(f[ID] or f[GUID])  # a permalink guid (or Atom id) is the link
            link = clean(resolve(base, text)) if guid_is_url(text) else ""
        when = entry_date(clean(_value(f[UPDATED]))) if f[UPDATED] else None
        if when is None and f[PUBLISHED]:
            when = entry_date(clean(_value(f[PUBLISHED])), epoch_is_unknown=False)
        if when is None and no_date(clean(_value(raw)) for raw in (f[UPDATED], f[PUBLISHED])
                                    if raw) is not None:
            raise NotPlain  # (the handlers read it, and say which date is no date)
        append(new_entry(FeedEntry, (link if alt is None else alt, when, line)))
    return out


class _ByEntry(Exception):
    """The run's columns are not all of the shapes read a column at a time."""


def _link_column(columns: list[tuple[str, ...]], base: str,
                 resolve: Callable[[str, str], str]) -> list[Any]:
    """Every entry's link, when every entry has an RSS link, or every one an alternate Atom
    link (else the guid could count)."""
    rss, atom = columns[LINK], columns[ATOM]
    if "" not in rss and atom.count("") == len(atom):
        return rss_links(rss, lambda raw: link_text(_value(raw), base, resolve))
    if "" not in atom and rss.count("") == len(rss):
        def odd(raw: str) -> str | None:
            alt, link = _atom_link(raw[:-1], base, resolve)
            if alt is None and link is None:
                raise _ByEntry
            return link if alt is None else alt

        return atom_links(atom, odd)
    raise _ByEntry


def _date_column(columns: list[tuple[str, ...]]) -> Sequence[datetime | None]:
    """Every entry's date: updated when all have one that is a date, else published when
    all have one and none has updated."""
    updated, published = columns[UPDATED], columns[PUBLISHED]
    n = len(updated)
    if "" not in updated:
        values = dates(updated, True, lambda raw: entry_date(clean(_value(raw))))
    elif updated.count("") == n and "" not in published:
        values = dates(published, False,
                       lambda raw: entry_date(clean(_value(raw)), epoch_is_unknown=False))
    elif updated.count("") == n and published.count("") == n:
        return [None] * n
    else:
        raise _ByEntry
    if None in values:  # (published may count, or the date is no date: by_entry decides)
        raise _ByEntry
    return values


def _permalink(attrs: str) -> bool:
    """A <guid>'s isPermaLink, compared as feedparser does (case-sensitively)."""
    if not attrs:
        return True
    value = attrs.split('"')[1]
    if "&" in value:
        value = _REFERENCE.sub(_resolved, value)
    return value == "true"


def _atom_link(attrs: str, base: str,
               resolve: Callable[[str, str], str]) -> tuple[str | None, str | None]:
    """(alt, link) after an Atom <link ATTRS/>, as the pass's on_link sets them."""
    pairs = _ATTR.findall(attrs)
    d = dict(pairs)
    if len(d) != len(pairs) or "href" not in d:  # expat's duplicate attribute; a link read
        raise NotPlain("duplicate attribute or no href")  # as text: the handlers' cases
    if "&" in attrs:
        d = {k: _REFERENCE.sub(_resolved, v) for k, v in d.items()}
    rel = d["rel"].lower() if "rel" in d else "alternate"
    if "enclosure" in rel:  # an extension's: the handlers read the entry and note it
        raise NotPlain("an enclosure link")
    if rel != "alternate":
        return None, None
    href = resolve(base, d["href"])
    return href or None, href if is_html(d.get("type", "text/html")) else None


# The columns: values whose answer by the handlers' functions is known without calling them,
# proven by one regular expression over the whole column (a property test holds the two equal):
# a link that is an absolute http(s) URL (ASCII host) urljoin leaves as it is, with no
# reference but "&amp;" and nothing link_text repairs; a date of RFC 822's or W3C-DTF's usual
# shape, made ISO 8601 a column at a time by C-coded splits and slices (out of range, the epoch
# or year 1: entry_date's).

# What may follow in a path, and in a query or fragment: RFC 3986's characters but ";" (urljoin
# cuts a path's parameters), and the non-ASCII ones strip(), clean() and urljoin leave as they
# are: from U+00C0 (no byte a UTF-8 sequence continues with, which clean() would read as
# mojibake), white space but. (Written as what is left out: a range up to U+10FFFF costs sre
# 10 ms to compile.)
_SPACES = "\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_PATH = rf'[^\x00-\x20"#;<>?\[\\\]^`{{|}}\x7f-\xbf{_SPACES}]'
_QUERY = rf'[^\x00-\x20"#<>\[\\\]^`{{|}}\x7f-\xbf{_SPACES}]'
_ABS = rf"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/{_PATH}*)?(?:\?{_QUERY}+)?(?:#{_QUERY}+)?"
# Values as the grammar captures them, each followed by its end tag's "</" (Atom's attributes
# by a NUL, which no run holds)
_RSS_LINKS = re.compile(f"(?:{_ABS}</)*")
_ATOM_LINKS = re.compile(
    f'(?:(?:[ \t\n]+rel="alternate")?(?:[ \t\n]+type="text/html")?[ \t\n]+href="{_ABS}"\0)*')
_HREF = re.compile('href="([^"]*)"')
_AMP_NAME = re.compile("&[A-Za-z0-9_]+;")  # what link_text repairs
Odd = Callable[[str], Any]  # the handler path's answer for one value (with its separator)


def _column(joined: str, plain: re.Pattern[str], sep: str,
            bulk: Callable[[str], list[Any] | None], odd: Odd) -> list[Any]:
    """The values of a joined column, each ending in ``sep``: the stretches ``plain`` matches
    by ``bulk`` (None: by ``odd`` after all), every other value by ``odd``."""
    out: list[Any] = []
    pos, n = 0, len(joined)
    while pos < n:
        m = plain.match(joined, pos)
        end = m.end() if m else pos
        values = bulk(joined[pos:end]) if end > pos else []
        if values is None:
            values = [odd(v + sep) for v in joined[pos:end].split(sep)[:-1]]
        out += values
        if end == n:
            break
        pos = joined.index(sep, end) + len(sep)
        out.append(odd(joined[end:pos]))
    return out


def _bulk_links(text: str, sep: str) -> list[str] | None:
    """Plain links, with "&amp;" as "&" when that is their only reference and link_text would
    repair nothing, else None."""
    if "&" in text:
        if text.count("&") != text.count("&amp;"):
            return None
        text = text.replace("&amp;", "&")
        if _AMP_NAME.search(text):
            return None
    return text.split(sep)[:-1] if sep == "</" else _HREF.findall(text)


def rss_links(column: Sequence[str], odd: Odd) -> list[Any]:
    """The links of a column of RSS <link> texts; ``odd`` gives a value's that is not plain."""
    return _column("".join(column), _RSS_LINKS, "</", lambda t: _bulk_links(t, "</"), odd)


def atom_links(column: Sequence[str], odd: Odd) -> list[Any]:
    """The links of a column of Atom <link> attributes: the href where rel="alternate" and
    type="text/html" (or none) come in that order before it; ``odd`` gives any other's."""
    joined = "\0".join(column) + "\0"
    return _column(joined, _ATOM_LINKS, "\0", lambda t: _bulk_links(t, "\0"), odd)


_RFC822 = re.compile(r"(?:(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?\d\d? "
                     r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
                     r"\d\d:\d\d:\d\d (?:[+-]\d{4}|GMT|UT)</)*")
_WEEKDAYS = tuple(f"{d}, " for d in "Mon Tue Wed Thu Fri Sat Sun".split())
_DAY_T = {k: f"{d:02d}T" for d in range(1, 32) for k in (str(d), f"{d:02d}")}
_W3CDTF = re.compile(r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)</)*")
_ZERO = {"+0000", "GMT", "UT"}


def dates(column: Sequence[str], epoch_is_unknown: bool, odd: Odd) -> list[Any]:
    """entry_date of each value of a column (all present): the usual shapes in bulk, ``odd``
    for the others."""
    joined = "".join(column)
    rfc = not joined[:1].isdigit()  # (the first value's shape is taken for the column's)

    def bulk(text: str) -> list[datetime] | None:
        return _iso_dates(text, rfc, epoch_is_unknown) if text.isascii() else None

    return _column(joined, _RFC822 if rfc else _W3CDTF, "</", bulk, odd)


def _iso_dates(text: str, rfc: bool, epoch_is_unknown: bool) -> list[datetime] | None:
    n = text.count("</")
    made = _rfc822_isos(text, n) if rfc else _w3cdtf_isos(text, n)
    if made is None:
        return None
    isos, zones = made
    try:
        values = list(map(datetime.fromisoformat, isos))
        if zones is not None:  # (a subtraction, where astimezone would cost three times as much)
            offsets = {z: zone_offset(z) for z in set(zones)}
            if None in offsets.values():
                return None
            values = list(map(sub, values, map(offsets.__getitem__, zones)))
    except (ValueError, OverflowError):
        return None
    if min(values).year <= 1 or epoch_is_unknown and EPOCH in values:
        return None
    return values


def _rfc822_isos(text: str, n: int) -> tuple[list[str], list[str] | None] | None:
    """The ``n`` values of ``text`` (of _RFC822's shape) as ISO 8601 strings at offset zero,
    its fields put in ISO's order by slices; and their zones, None when every one is zero."""
    commas = text.count(",")  # (a comma only ends a weekday)
    if commas and commas != n:  # some with a weekday, some without
        for weekday in _WEEKDAYS:
            text = text.replace(weekday, "")
        commas = 0
    w = 6 if commas else 5  # [weekday,] day, month, year, clock, zone; ...; ""
    fields = text.replace("</", " ").split(" ")
    if len(fields) != w * n + 1:
        return None
    fields.pop()
    k = w - 5  # the day's index
    zones = fields[k + 4 :: w]
    iso = ["+00:00\0"] * (5 * n)
    iso[0::5] = fields[k + 2 :: w]
    try:
        iso[1::5] = map(MONTH_DASHED.__getitem__, fields[k + 1 :: w])
        iso[2::5] = map(_DAY_T.__getitem__, fields[k::w])  # (a day past 31: entry_date's)
    except KeyError:
        return None
    iso[3::5] = fields[k + 3 :: w]
    isos = "".join(iso).split("\0")
    isos.pop()
    return isos, None if set(zones) <= _ZERO else zones


def _w3cdtf_isos(text: str, n: int) -> tuple[list[str], list[str] | None]:
    """The ``n`` values of ``text`` (of _W3CDTF's shape) as ISO 8601 strings at offset zero,
    and their zones, None when every one is "Z"."""
    if text.count("Z</") == n:
        isos = text.replace("Z</", "+00:00</").split("</")
        isos.pop()
        return isos, None
    values = text.split("</")
    values.pop()
    clocks = list(map(itemgetter(slice(19)), values))
    return ("+00:00\0".join(clocks) + "+00:00").split("\0"), [v[19:] for v in values]
