"""The feed pass's runs: plain items read by one regular expression (in C), with no Python
handler per element (issue 18; the sitemap reader's sitemapfast.py is the model).

feedpass.py gives expat a feed in pieces. Within a piece, after expat (with its handlers) has
read up to an entry's end tag and left the pass between entries, ``scan`` looks at what follows:
the longest run of *plain* entries, each one ``<item>`` (RSS) or ``<entry>`` (Atom) without
attributes, white space and these children only (no other attribute, no comment, PI or other
element; values without markup):

- ``<link>TEXT</link>``, or ``<link ATTRS/>`` (also ``></link>``) with rel, type, href, title,
  length only, href among them, not rel="enclosure" (an extension's: feedpass notes it);
  at most one link per entry;
- ``<guid>TEXT</guid>`` (optionally ``isPermaLink="..."``) or ``<id>TEXT</id>``: at most one;
- ``<pubDate>`` or ``<published>``; ``<updated>``: TEXT, at most one of each kind;
- ``<title>``, ``<description>``, ``<summary>``, ``<content>``, ``<category>``,
  ``<comments>``, ``<author>``, ``<rights>`` (optionally ``type="..."`` or ``domain="..."``)
  with text and CDATA sections; ``<author>``/``<contributor>`` with ``<name>``, ``<email>``,
  ``<uri>`` children holding text.

Attribute values are double-quoted, without tab, newline or "<". The run is checked as expat
would check it: strict UTF-8 (or Latin-1, as expat was told), no character XML forbids, no
"]]>" outside CDATA, every "&" outside CDATA one of XML's five entities or a character
reference to an allowed character; no "\\r" (left to expat). Each entry's link and date are
then what feedparser's handlers give for that shape (the same functions as the handler path:
feedcompat.link_text, resolve, clean, feeddates.entry_date), and expat is given white space
with the same line ends instead of the run, so that its state, lines and well-formedness
checks of the rest are exact. Anything else is read by expat with the handlers, unchanged.
The entries of a run laid out as its first one are read by that layout's regex (feedlayout.py),
the others by the grammar: the same values either way.
FEED2SITEMAP_FEED_HANDLERS=1 turns runs off (feedfeeder.py; for differential tests).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from itertools import accumulate, repeat
from typing import TYPE_CHECKING, Any, NamedTuple

from .feedcompat import HTML_TYPES, clean, link_text, map_content_type
from .feeddates import entry_date
from .feedentries import FeedEntry

if TYPE_CHECKING:
    from .feedlayout import Layout

__all__ = ["NAMES", "PREFIXED", "NotPlain", "Run", "entries", "scan"]

_WS = "[ \t\n]*"
_VALUE = "[^<]*</"  # a value and its end tag's "</": present-but-empty is "</", absent ""
_AV = '="[^"<\t\n]*"'
# Text with CDATA sections: a section ends at the first "]]>", and holds no "<![CDATA[" here
# (so that one "]]>" per "<![CDATA[" proves that none is outside a section).
_TEXT = (r"[^<]*(?:<!\[CDATA\[[^\]<]*(?:(?:\](?!\]>)|<(?!!\[CDATA\[))[^\]<]*)*\]\]>[^<]*)*")
# A child of a plain entry, after its "<". Each kind read at most once per entry: an empty
# group marks it seen, and a second one fails the entry (``(?(n)(?!))``), which the handlers
# then read. (Each alternative but the first starts with its element's name, so that sre
# skips it on the name's first letter: a quarter of the scan's time.)
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
READ = frozenset((LINK, ATOM, ID, UPDATED, PUBLISHED, GUID_ATTRS, GUID))
_GRAMMAR: dict[str, re.Pattern[str]] = {}  # compiled when first used (a small feed never is)


def _grammar(tag: str, prefixed: tuple[str, ...]) -> re.Pattern[str]:
    """The grammar for entries ``tag``, with the ``prefixed`` names (of PREFIXED, bound as
    assumed in the document) read as text too."""
    key = tag + " " + " ".join(prefixed)
    pattern = _GRAMMAR.get(key)
    if pattern is None:
        child = _CHILD.replace(f"({TEXT_NAMES})", f"({text_names(prefixed)})", 1)
        pattern = _GRAMMAR[key] = re.compile(
            f"{_WS}<{tag}>(?:{_WS}<(?:{child}))*{_WS}</{tag}>|((?s:.+))")
    return pattern


def text_names(prefixed: tuple[str, ...]) -> str:
    """The names read as text (an alternation): TEXT_NAMES with the ``prefixed`` ones before
    its last."""
    return TEXT_NAMES.replace("|rights", "".join("|" + n for n in prefixed) + "|rights")


# The local names the grammar reads, and the kind (feedcompat.KIND) each must have for the
# document's default namespace: otherwise the pass takes no runs.
NAMES = {"link": "link", "guid": "guid", "id": "guid", "pubDate": "published",
         "published": "published", "updated": "updated", "title": "text",
         "description": "text", "summary": "text", "content": "text", "rights": "text",
         "category": "", "comments": "", "author": "", "contributor": "", "name": "",
         "email": "", "uri": ""}
# Prefixed names the grammar reads as text when their prefix is bound in the document to a
# namespace that gives them this kind (WordPress writes all of them in every item).
PREFIXED = {"dc:creator": "", "dc:subject": "", "content:encoded": "text",
            "wfw:commentRss": "", "slash:comments": ""}

_CDATA = re.compile(r"<!\[CDATA\[.*?\]\]>", re.S)
_REFERENCE = re.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);")
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

    columns: list[tuple[str, ...]]  # the grammar's groups but the last, by entry (READ's; the
    # others all "")
    n: int  # the number of entries
    by_layout: int  # how many of them the layout of the first read (feedlayout.py)
    lines: list[int]  # each entry's start tag's line, counted from the region's first
    size: int  # bytes of the region the run takes
    stand_in: bytes  # what expat reads instead: white space with the same line ends


def scan(region: bytes, tag: str, encoding: str, prefixed: tuple[str, ...] = (),
         layouts: bool = True) -> Run | None:
    """The plain entries at the start of ``region`` (which starts between two entries), or
    None when there are none or expat would find anything wrong in them. ``layouts``: the
    entries laid out as the first are read by its layout (feedlayout.py), the others by the
    grammar; else all by the grammar (the two give the same run)."""
    codec = _DECODE.get(encoding)
    if codec is None:
        return None
    ascii = region.isascii()
    try:
        text = region.decode("ascii" if ascii else codec)
    except UnicodeDecodeError:
        return None
    columns, n, by_layout, rest, laid = _entries(text, tag, prefixed, layouts)
    size = len(region)
    if rest:
        text = text[: len(text) - len(rest)]
        size -= len(rest) if ascii or codec == "latin-1" else len(rest.encode(codec))
    if not n:
        return None
    run = region[:size] if size < len(region) else region
    if (len(run.translate(None, _C0)) != size
            or not ascii and codec == "utf-8" and ("\ufffe" in text or "\uffff" in text)):
        return None
    if b"]]>" in run and run.count(b"]]>") != run.count(b"<![CDATA[") or "&" in text and not (
            _references_ok(text) or "]]>" in text and _references_ok(_CDATA.sub("", text))):
        return None
    lines = _lines(run, tag, n, laid)
    if lines is None:
        return None
    breaks = lines.pop()
    stand_in = b"\n" * breaks + b" " * (len(text) - text.rfind("\n") - 1)
    return Run(columns, n, by_layout, lines, size, stand_in)


def _lines(run: bytes, tag: str, n: int, laid: Layout | None) -> list[int] | None:
    """Each entry's start tag's line, counted from the run's first, and the run's line ends
    last; None when a "<item>" inside a CDATA section would make them wrong. When one layout
    read every entry and the run has just the line ends of its white space, entry i starts
    i times as many lines down: no entry is looked at."""
    if laid is not None:
        breaks = run.count(b"\n")
        if breaks == n * laid.breaks:
            step, lead = laid.breaks, laid.lead_breaks
            return [*(range(lead, lead + step * n, step) if step else [lead] * n), breaks]
    parts = run.split(f"<{tag}>".encode())
    if len(parts) != n + 1:
        return None
    return list(accumulate(map(bytes.count, parts, repeat(b"\n"))))


def _entries(text: str, tag: str, prefixed: tuple[str, ...], layouts: bool
             ) -> tuple[list[tuple[str, ...]], int, int, str, Layout | None]:
    """The plain entries at the start of ``text``: their columns (the grammar's groups, but
    the last), their number, how many the first's layout read, the text after them, and
    that layout when it read them all."""
    columns: list[tuple[str, ...]] = []
    n = 0
    rest = text
    layout = None
    if layouts:
        from .feedlayout import layout_of  # (imports this module)

        layout = layout_of(text, tag, prefixed)
        if layout is not None:
            columns, n, rest = layout.read(text)
    found = _grammar(tag, prefixed).findall(rest) if rest else []
    if found and found[-1][JUNK]:
        rest = found.pop()[JUNK]
    else:
        rest = ""
    if not found:
        return columns, n, n, rest, layout
    read = list(zip(*found, strict=True))
    unread = ("",) * len(found)  # (a group no step reads: the same whichever path read it)
    more = [read[k] if k in READ else unread for k in range(JUNK)]
    if n:
        more = [a + b for a, b in zip(columns, more, strict=True)]
    return more, n + len(found), n, rest, None


def _references_ok(text: str) -> bool:
    """Every "&" begins one of XML's five entity references or a character reference to a
    character XML allows (no entity is declared: entity declarations are refused)."""
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
    """A value as expat gives it (its "</" cut off, references resolved), stripped as
    feedparser strips it."""
    value = raw[:-2]
    if "&" in value:
        value = _REFERENCE.sub(_resolved, value)
    return value.strip()


_new_entry = tuple.__new__  # a FeedEntry without NamedTuple's Python-level __new__


def entries(run: Run, base: str, resolve: Callable[[str, str], str], first_line: int,
            html_types: dict[str, bool]) -> list[FeedEntry]:
    """Each entry's (link, date, line): what the handlers would have made of it."""
    lines = [first_line + n for n in run.lines]
    try:  # (the usual run: a column at a time, no Python code per plain value)
        links = _link_column(run.columns, base, resolve, html_types)
        dates = _date_column(run.columns)
        return list(map(_new_entry, repeat(FeedEntry), zip(links, dates, lines, strict=True)))
    except _ByEntry:
        pass
    out: list[FeedEntry] = []
    append = out.append
    for f, line in zip(zip(*run.columns, strict=True), lines, strict=True):
        alt: str | None = None
        link: str | None = None
        if f[LINK]:  # RSS's <link>: its text, resolved and repaired (feedcompat.link_text)
            link = link_text(_value(f[LINK]), base, resolve)
            alt = link or None
        elif f[ATOM]:
            alt, link = _atom_link(f[ATOM], base, resolve, html_types)
        if alt is None and link is None and (f[ID] or f[GUID] and _permalink(f[GUID_ATTRS])):
            text = _value(f[ID] or f[GUID])  # a permalink guid (or Atom id) is the link
            link = clean(resolve(base, text) if text else text)
        when = entry_date(clean(_value(f[UPDATED]))) if f[UPDATED] else None
        if when is None and f[PUBLISHED]:
            when = entry_date(clean(_value(f[PUBLISHED])), epoch_is_unknown=False)
        append(_new_entry(FeedEntry, (link if alt is None else alt, when, line)))
    return out


class _ByEntry(Exception):
    """The run's columns are not all of the shapes read a column at a time."""


def _link_column(columns: list[tuple[str, ...]], base: str,
                 resolve: Callable[[str, str], str], html_types: dict[str, bool]) -> list[Any]:
    """Every entry's link, when every entry has an RSS link, or every one an Atom link that
    is an alternate one (else the guid could count)."""
    from .feedcolumns import atom_links, rss_links  # (imported with the first run)

    rss, atom = columns[LINK], columns[ATOM]
    if "" not in rss and atom.count("") == len(atom):
        return rss_links(rss, lambda raw: link_text(_value(raw), base, resolve))
    if "" not in atom and rss.count("") == len(rss):
        def odd(raw: str) -> str | None:
            alt, link = _atom_link(raw[:-1], base, resolve, html_types)
            if alt is None and link is None:
                raise _ByEntry
            return link if alt is None else alt

        return atom_links(atom, odd)
    raise _ByEntry


def _date_column(columns: list[tuple[str, ...]]) -> Sequence[datetime | None]:
    """Every entry's date: updated when all have one that is a date, else published when
    all have one and none has updated."""
    from .feedcolumns import dates

    updated, published = columns[UPDATED], columns[PUBLISHED]
    n = len(updated)
    if "" not in updated:
        values = dates(updated, True, lambda raw: entry_date(clean(_value(raw))))
        if None in values and published.count("") != n:
            raise _ByEntry  # (published would count for those)
        return values
    if updated.count("") == n:
        if "" not in published:
            return dates(published, False,
                         lambda raw: entry_date(clean(_value(raw)), epoch_is_unknown=False))
        if published.count("") == n:
            return [None] * n
    raise _ByEntry


def _permalink(attrs: str) -> bool:
    """A <guid>'s isPermaLink, compared as feedparser does (case-sensitively)."""
    if not attrs:
        return True
    value = attrs.split('"')[1]
    if "&" in value:
        value = _REFERENCE.sub(_resolved, value)
    return value == "true"


def _atom_link(attrs: str, base: str, resolve: Callable[[str, str], str],
               html_types: dict[str, bool]) -> tuple[str | None, str | None]:
    """(alt, link) after an Atom <link ATTRS/>, as feedpass.on_link sets them."""
    pairs = _ATTR.findall(attrs)
    d = dict(pairs)
    if len(d) != len(pairs) or "href" not in d:  # expat's duplicate attribute; a link read
        raise NotPlain("duplicate attribute or no href")  # as text: the handlers' cases
    if "&" in attrs:
        d = {k: _REFERENCE.sub(_resolved, v) for k, v in d.items()}
    rel = d["rel"].lower() if "rel" in d else "alternate"
    # An extension's (an image or video): the handlers read the entry and note it (the
    # grammar admits no hreflang, the other mark of an extension on a link)
    if "enclosure" in rel:
        raise NotPlain("an enclosure link")
    if rel != "alternate":
        return None, None
    href = resolve(base, d["href"])
    typ = d.get("type", "text/html")
    html = html_types.get(typ)
    if html is None:
        html = html_types[typ] = map_content_type(typ) in HTML_TYPES
    return href or None, href if html else None
