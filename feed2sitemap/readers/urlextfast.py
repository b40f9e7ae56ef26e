"""The sitemap reader's fast path for <url> entries with the common extensions: images that are
a location alone and hreflang alternates, read by regular expressions (in C) into their typed
values, with no Python handler per element.

The twin of the extension pass (urlext.py, extensions/xmlin.py and typed.py), as sitemapfast.py
is the plain reader's: the reader (sitemap.py) gives a chunk's middle, from its first entry end
tag to its last, to ``ExtensionScanner.scan``; when every entry there has one of these shapes,
with the prefixes the root binds and nothing else, the values come from the scan and expat is
given a stand-in of white space with the same line ends (so every line, column, bound and
error after it is the file's). Anything else in the region (another element or attribute, a
field out of order, a comment, CDATA, a namespace declared past the root, a link that is not
exactly an alternate) and the region goes to expat and the extension pass, which say what it
is. Never taken in the reference mode (FEED2SITEMAP_REFERENCE=1): the reader does not call it.

    <url><loc>…</loc>[<lastmod>…][<changefreq>…][<priority>…]   (core fields, in that order)
      <image:image><image:loc>URL</image:loc></image:image>      (any number, any prefix)
      <xhtml:link rel="alternate" hreflang="…" href="…"/>        (attributes in any order,
    </url>                                                        either quote, white space)

The values are the extension pass's: a core field's text is what follows its start tag, an
image loc is its text stripped, an attribute is normalised as XML says (tab, LF and CR become
spaces, then references are resolved) and hreflang and href are stripped. The rules (Google's,
extensions/rules.py) are applied afterwards to both paths' values alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from itertools import accumulate, repeat
from typing import Any, Optional

from ..extensions.model import IMAGE_NS, SITEMAP_NS, XHTML_NS, Alternate, Extensions, Image
from ..frozencols import made
from .sitemapfast import REFERENCE, RegionLines, decoded_region, reference_character

__all__ = ["ExtensionScanner", "scanner"]

_WS = "[ \t\n]"
# Characters XML 1.0 forbids even in text, as UTF-8 bytes: C0 controls but tab, LF and CR, and
# U+FFFE, U+FFFF (a surrogate cannot pass a strict UTF-8 decode). expat would stop at one.
_C0 = bytes(set(range(0x20)) - {0x09, 0x0A, 0x0D})
_NOT_CHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")
_ATTRIBUTE_SPACE = str.maketrans("\t\n", "  ")  # (a CR is gone by then: "\r\n" read as "\n")
NO_PROBLEMS: list[Any] = []  # (shared, never appended to: the fast path reads no problem)


def scanner(bindings: Mapping[str, str]) -> Optional[ExtensionScanner]:
    """The scanner for a urlset whose root binds ``bindings`` (prefix → namespace URI, "" the
    default), or None when its default namespace is not sitemaps.org's. A root that binds
    neither the image nor the xhtml namespace (only ``xsi`` for a schemaLocation, say) gets
    one too: its plain entries are read here, any extension is left to the extension pass."""
    if bindings.get("") != SITEMAP_NS:
        return None
    image = next((p for p, uri in bindings.items() if uri == IMAGE_NS and p), None)
    xhtml = next((p for p, uri in bindings.items() if uri == XHTML_NS and p), None)
    return ExtensionScanner(image, xhtml)


def _items(image: Optional[str], xhtml: Optional[str], capture: bool) -> str:
    """An image with a loc alone, or an xhtml:link with three attributes, with the root's
    prefixes (a kind whose namespace the root does not bind never matches)."""
    g = "(" if capture else "(?:"
    value = f"(?:\"{g}[^\"<]*)\"|'{g}[^'<]*)')"
    attribute = f"{_WS}+{g}rel|hreflang|href){_WS}*={_WS}*{value}"
    if image is None:
        img = f"(?!){g})" if capture else "(?!)"
    else:
        p = re.escape(image)
        img = f"<{p}:image>{_WS}*<{p}:loc>{g}[^<]*)</{p}:loc>{_WS}*</{p}:image>"
    link = f"<{re.escape(xhtml or '')}:link{attribute * 3}{_WS}*/>"
    if xhtml is None:
        link = "(?!)" + attribute * 3
    elif not capture:  # the usual spelling first: most links take no backtracking
        link = f'{_usual_link(xhtml, "(?:")}|{link}'
    return f"{img}|{link}"


def _usual_link(xhtml: str, g: str = "(") -> str:
    """A link as writers spell it: rel, hreflang, href, double quotes, one space each."""
    return (f'<{re.escape(xhtml)}:link rel="alternate" hreflang="{g}[^"<]*)" '
            f'href="{g}[^"<]*)"/>')


class ExtensionScanner:
    """The regular expressions for one root's prefixes (``image`` bound to the image
    namespace, ``xhtml`` to XHTML's; either may be None), and the scan itself."""

    def __init__(self, image: Optional[str], xhtml: Optional[str]) -> None:
        # groups of ``items``: 1 an image's loc; 2-10 a link's three attributes, each a name,
        # its value between double quotes, its value between single quotes
        # (the patterns that are seldom needed are compiled when first used: re caches them)
        self.items_pattern = _items(image, xhtml, True)
        self.images = re.compile(_items(image, None, True).partition("|")[0])
        self.links_pattern = _items(None, xhtml, True).partition("|")[2]
        self.usual_links = re.compile(_usual_link(xhtml or ""))
        # the start of each item, as a tag no other part of an entry read here holds (NUL,
        # which no text holds, for a kind whose namespace the root does not bind)
        self.image_tag = f"<{image}:image>" if image is not None else "\0"
        self.link_tag = f"<{xhtml}:link" if xhtml is not None else "\0"
        # one entry (groups: loc, lastmod, changefreq, priority, its extension items), or (the
        # last group) any character that is not white space outside one: the region is read
        # here only when that group is empty on every match
        self.entry = re.compile(
            f"{_WS}*<url>{_WS}*<loc>([^<]*)</loc>"
            f"(?:{_WS}*<lastmod>([^<]+)</lastmod>)?"
            f"(?:{_WS}*<changefreq>([^<]+)</changefreq>)?"
            f"(?:{_WS}*<priority>([^<]+)</priority>)?"
            f"((?:{_WS}*(?:{_items(image, xhtml, False)}))*){_WS}*</url>|([^ \t\n])")

    def scan(self, region: bytes, line: int) -> Optional[Scanned]:
        """The entries of ``region`` (which starts where an entry may start and ends with an
        entry's end tag, on line ``line``), or None when it holds anything else or anything
        expat would refuse (it is then read by expat, which says what)."""
        text = _checked_text(region)
        if text is None:
            return None
        found = self.entry.findall(text)
        if not found:
            return None
        cols = list(zip(*found, strict=True))
        if any(cols[5]):  # (anything but an entry)
            return None
        refs = "&" in text
        try:
            columns: list[Sequence[Any]] = [_resolved(c) if refs else c for c in cols[:4]]
            for k in (1, 2, 3):  # an optional field the entry lacks: the extension pass's None
                if "" in columns[k]:
                    columns[k] = [v or None for v in columns[k]]
            read = self._extensions(text, cols[4], refs)
        except ValueError:  # a reference to a character XML forbids, an attribute twice
            return None
        if read is None:
            return None
        column, items = read
        ends = 2 * len(found) + sum(len(c) - c.count(None) for c in columns[1:4]) + items
        breaks = text.count("\n")
        stand_in = b"\n" * breaks + b" " * (len(text) - text.rfind("\n") - 1)
        lines = EntryLines(text, line, len(found), self)
        columns.append([None if ext is None else (ext, NO_PROBLEMS, ItemLines(lines, i))
                        for i, ext in enumerate(column)])
        return Scanned(columns, lines, ends, stand_in)

    def _extensions(self, text: str, segments: Sequence[str], refs: bool
                    ) -> Optional[tuple[list[Optional[Extensions]], int]]:
        """Each entry's Extensions (None for an entry without any), from the items of the
        whole region (each entry's are ``segments``), and the end tags the items count; None
        when a link is not exactly an alternate (left to the extension pass)."""
        images: tuple[Image, ...] = ()
        if self.image_tag in text:
            locs = self.images.findall(text)
            images = tuple(made(Image, len(locs), loc=map(
                str.strip, _resolved(locs) if refs else locs)))
        alternates: tuple[Alternate, ...] = ()
        if self.link_tag in text:
            usual = self.usual_links.findall(text)
            if len(usual) == text.count(self.link_tag):
                alternates = _alternates_of(*zip(*usual, strict=True), refs=refs)
            else:
                by_name = _alternates(re.findall(self.links_pattern, text), refs)
                if by_name is None:
                    return None
                alternates = by_name
        n = len(segments)
        # each entry's items are its slice of the region's, made a column at a time (in C)
        column: list[Optional[Extensions]] = list(made(
            Extensions, n, images=_slices(images, segments, self.image_tag),
            alternates=_slices(alternates, segments, self.link_tag)))
        if "" in segments:  # an entry without items: the extension pass's None
            column = [ext if segment else None
                      for segment, ext in zip(segments, column, strict=True)]
        return column, 2 * len(images) + len(alternates)


def _slices(items: tuple[Any, ...], segments: Sequence[str], tag: str) -> Iterator[Any]:
    """Each entry's slice of the region's ``items`` of one kind (each starts with ``tag``)."""
    if not items:
        return repeat(())
    ends = list(accumulate(map(str.count, segments, repeat(tag))))
    return map(items.__getitem__, map(slice, [0, *ends], ends))


def _alternates(found: list[tuple[str, ...]], refs: bool) -> Optional[tuple[Alternate, ...]]:
    """The alternates the extension pass makes of these links (each three attributes: a
    name, its value between double quotes, between single quotes), or None when it would keep
    one as another element (rel not "alternate"; a reference or white space in rel too, the
    rare case left to it). Raises ValueError for an attribute given twice (expat refuses it)."""
    n = len(found)
    cols = list(zip(*found, strict=True))
    if cols[0].count("rel") == n and cols[3].count("hreflang") == n and \
            cols[6].count("href") == n:  # the usual order
        rel, hreflang, href = (_either(cols[1], cols[2]), _either(cols[4], cols[5]),
                               _either(cols[7], cols[8]))
    else:
        rel, hreflang, href = _by_name(found)
    if rel.count("alternate") != n:
        return None
    return _alternates_of(hreflang, href, refs=refs)


def _alternates_of(hreflang: Sequence[str], href: Sequence[str], *, refs: bool
                   ) -> tuple[Alternate, ...]:
    """The alternates of these attribute values, as written."""
    return tuple(made(Alternate, len(href), hreflang=map(str.strip, _normalised(hreflang, refs)),
                      href=map(str.strip, _normalised(href, refs))))


def _either(double: Sequence[str], single: Sequence[str]) -> Sequence[str]:
    """An attribute's values, from its double-quoted and single-quoted columns."""
    return [d or s for d, s in zip(double, single, strict=True)] if any(single) else double


def _by_name(found: list[tuple[str, ...]]) -> tuple[list[str], list[str], list[str]]:
    """rel, hreflang and href of links whose attributes come in any order."""
    out: tuple[list[str], list[str], list[str]] = ([], [], [])
    for m in found:
        attrs = {m[0]: m[1] or m[2], m[3]: m[4] or m[5], m[6]: m[7] or m[8]}
        if len(attrs) != 3:
            raise ValueError("an attribute given twice")
        for column, name in zip(out, ("rel", "hreflang", "href"), strict=True):
            column.append(attrs[name])
    return out


def _normalised(values: Sequence[str], refs: bool) -> Sequence[str]:
    """Attribute values as XML normalises them: tab and LF become spaces (a CR is gone by
    then: "\r\n" was read as "\n"), then references are resolved; a column at a time
    (NUL separates the values: neither may hold one)."""
    joined = "\0".join(values)
    changed = "\t" in joined or "\n" in joined
    if changed:
        joined = joined.translate(_ATTRIBUTE_SPACE)
    if refs and "&" in joined:
        joined, changed = REFERENCE.sub(reference_character, joined), True
    return joined.split("\0") if changed else values


def _checked_text(region: bytes) -> Optional[str]:
    """The region as text with expat's line ends, if expat would find nothing wrong in its
    characters: UTF-8, no character XML forbids, no "]]>", every "&" one of XML's five
    references or a character reference (entity declarations are refused, so no other name
    may be defined); else None."""
    decoded = decoded_region(region)
    if decoded is None:
        return None
    text, ascii = decoded
    if (len(region.translate(None, _C0)) != len(region) or "]]>" in text
            or not ascii and any(c in region for c in _NOT_CHARACTERS)):
        return None
    refs = text.count("&")
    if refs and refs != text.count("&amp;") and refs != len(REFERENCE.findall(text)):
        return None
    return text


def _resolved(column: Sequence[str]) -> Sequence[str]:
    """References replaced by their characters (_checked_text has checked each is one of
    XML's five names or a character reference; reference_character refuses those to characters XML
    forbids, NUL among them, so NUL can separate the values)."""
    joined = "\0".join(column)  # one substitution for the column, not one call per value
    if "&" not in joined:
        return column
    return REFERENCE.sub(reference_character, joined).split("\0")


class Scanned:
    """What ``scan`` found, as sitemapfast.Scanned gives it: the reader's five columns (the
    fifth each entry's extensions as the extension pass gives them), the line of each entry's
    </loc>, the end tags read (for the depth bound) and expat's stand-in."""

    __slots__ = ("columns", "lines", "ends", "stand_in")

    def __init__(self, columns: list[Sequence[Any]], lines: EntryLines, ends: int,
                 stand_in: bytes) -> None:
        self.columns, self.lines, self.ends, self.stand_in = columns, lines, ends, stand_in


class EntryLines(RegionLines):
    """The line of each entry's </loc> in a region (RegionLines), and of each extension
    item's start tag, counted only when a message or a record asks for one (most runs never
    do)."""

    __slots__ = ("_source", "_scanner", "_items")

    def __init__(self, text: str, line: int, n: int, scanner: ExtensionScanner) -> None:
        super().__init__(text, line, n)
        self._source, self._scanner = text, scanner  # (RegionLines lets go of its copy)
        self._items: Optional[list[dict[tuple[str, int], int]]] = None

    def items(self, row: int) -> dict[tuple[str, int], int]:
        """(kind, index) → the line of that item's start tag, for the entry ``row``."""
        if self._items is None:
            text, out = self._source, []
            finditer = re.compile(self._scanner.items_pattern).finditer
            line, at = self._line, 0  # the line at offset ``at``
            for entry in self._scanner.entry.finditer(text):
                start, end = entry.span(5)
                lines: dict[tuple[str, int], int] = {}
                counts = {"images": 0, "alternates": 0}
                for m in finditer(text, start, end):
                    kind = "alternates" if m.group(2) else "images"
                    line += text.count("\n", at, m.start())
                    at = m.start()
                    lines[(kind, counts[kind])] = line
                    counts[kind] += 1
                out.append(lines)
            self._items = out
        return self._items[row]


class ItemLines(Mapping[tuple[str, int], int]):
    """One entry's item lines (EntryLines.items), looked up only when a problem needs one."""

    __slots__ = ("_lines", "_row")

    def __init__(self, lines: EntryLines, row: int) -> None:
        self._lines, self._row = lines, row

    def __getitem__(self, key: tuple[str, int]) -> int:
        return self._lines.items(self._row)[key]

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(self._lines.items(self._row))

    def __len__(self) -> int:
        return len(self._lines.items(self._row))
