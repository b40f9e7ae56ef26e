"""The sitemap reader's fast path for <url> entries with the common extensions (the twin of the
extension pass, urlext.py, as sitemapfast.py is the plain reader's): a chunk's middle whose
every entry has this shape, with the prefixes the root binds, is read by regular expressions
into typed values; anything else goes to expat and the extension pass, which say what it is.

    <url><loc>…</loc>[<lastmod>…][<changefreq>…][<priority>…]   (core fields, in that order)
      <image:image><image:loc>URL</image:loc></image:image>      (any number, any prefix)
      <xhtml:link rel="alternate" hreflang="…" href="…"/>        (attributes in any order,
    </url>                                                        either quote, white space)

The values are the extension pass's: an image loc is its text stripped, an attribute is
normalised as XML says, then hreflang and href are stripped. Google's rules are applied
afterwards to both paths' values alike.
"""

from __future__ import annotations

import dataclasses
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cache, partial
from itertools import accumulate, repeat
from typing import Any, Optional, TypeVar

from ..extensions.model import IMAGE_NS, SITEMAP_NS, XHTML_NS, Alternate, Image
from ..model.extensions import Extensions
from .sitemapfast import SPACE, Scanned, entry_pattern, resolved, scan_region

__all__ = ["ExtensionScanner", "made", "scanner"]

T = TypeVar("T")

_ATTRIBUTE_SPACE = str.maketrans("\t\n", "  ")  # (a CR is gone by then: "\r\n" read as "\n")
NO_PROBLEMS: list[Any] = []  # (shared, never appended to: the fast path reads no problem)


def scanner(bindings: Mapping[str, str]) -> Optional[ExtensionScanner]:
    """The scanner for a urlset whose root binds ``bindings`` (prefix → namespace URI, "" the
    default), or None when its default namespace is not sitemaps.org's."""
    if bindings.get("") != SITEMAP_NS:
        return None
    image = next((p for p, uri in bindings.items() if uri == IMAGE_NS and p), None)
    xhtml = next((p for p, uri in bindings.items() if uri == XHTML_NS and p), None)
    return ExtensionScanner(image, xhtml)


def _image(prefix: Optional[str], g: str) -> str:
    """An image with a loc alone (``g`` opens a group: "(" or "(?:"); none without a prefix."""
    if prefix is None:
        return f"(?!){g})"
    p = re.escape(prefix)
    return f"<{p}:image>{SPACE}*<{p}:loc>{g}[^<]*)</{p}:loc>{SPACE}*</{p}:image>"


def _link(prefix: Optional[str], g: str) -> str:
    """A link with three attributes in any order, either quote; none without a prefix."""
    value = f"(?:\"{g}[^\"<]*)\"|'{g}[^'<]*)')"
    attribute = f"{SPACE}+{g}rel|hreflang|href){SPACE}*={SPACE}*{value}"
    start = "(?!)" if prefix is None else f"<{re.escape(prefix)}:link"
    return f"{start}{attribute * 3}{SPACE}*/>"


def _usual_link(xhtml: str, g: str = "(") -> str:
    """A link as writers spell it: rel, hreflang, href, double quotes, one space each."""
    return (f'<{re.escape(xhtml)}:link rel="alternate" hreflang="{g}[^"<]*)" '
            f'href="{g}[^"<]*)"/>')


class ExtensionScanner:
    """The regular expressions for one root's prefixes (``image`` bound to the image
    namespace, ``xhtml`` to XHTML's; either may be None), and the scan itself."""

    def __init__(self, image: Optional[str], xhtml: Optional[str]) -> None:
        # groups of ``items``: 1 an image's loc; 2-10 a link's three attributes, each a name,
        # its value between double quotes, between single quotes (compiled when first used)
        self.items_pattern = f"{_image(image, '(')}|{_link(xhtml, '(')}"
        self.images = re.compile(_image(image, "("))
        self.links_pattern = _link(xhtml, "(")
        self.usual_links = re.compile(_usual_link(xhtml or ""))
        items = f"{_image(image, '(?:')}|{_link(xhtml, '(?:')}"
        if xhtml is not None:  # the usual spelling first: most links take no backtracking
            items = f"{_image(image, '(?:')}|{_usual_link(xhtml, '(?:')}|{_link(xhtml, '(?:')}"
        # the start of each item (NUL, in no text, for a kind whose namespace is not bound)
        self.image_tag = f"<{image}:image>" if image is not None else "\0"
        self.link_tag = f"<{xhtml}:link" if xhtml is not None else "\0"
        # group 5: the entry's extension items
        self.entry = entry_pattern(f"((?:{SPACE}*(?:{items}))*)")

    def scan(self, region: bytes, line: int) -> Optional[Scanned]:
        """The entries of ``region`` (as sitemapfast.scan), or None."""
        found = scan_region(region, self.entry)
        if found is None:
            return None
        text, cols, columns = found
        try:
            read = self._extensions(text, cols[4], "&" in text)
        except ValueError:  # a reference to a character XML forbids, an attribute twice
            return None
        if read is None:
            return None
        items = cache(partial(_item_lines, self, text, line))
        columns.append([None if ext is None else (ext, NO_PROBLEMS, ItemLines(items, i))
                        for i, ext in enumerate(read)])
        return Scanned(columns, text, line)

    def _extensions(self, text: str, segments: Sequence[str], refs: bool
                    ) -> Optional[list[Optional[Extensions]]]:
        """Each entry's Extensions (None for one without any), from the items of the whole
        region (each entry's are ``segments``); None when a link is not exactly an alternate."""
        images: tuple[Image, ...] = ()
        if self.image_tag in text:
            locs = self.images.findall(text)
            images = tuple(made(Image, len(locs), loc=map(
                str.strip, resolved(locs) if refs else locs)))
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
        return column


def made(cls: type[T], n: int, **columns: Iterable[Any]) -> list[T]:
    """``[cls(**row) for row in rows]`` for the ``n`` rows whose fields are ``columns``; a field
    not given takes its default. Each field is set through its slot's descriptor in one
    ``map`` over the column, no Python frame per instance (a frozen dataclass's ``__init__``
    costs 0.6 µs an item). Only for frozen, slotted dataclasses without ``__post_init__``."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__ \
            or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass without "
                        "__post_init__")
    objs: list[T] = list(map(object.__new__, repeat(cls, n)))
    names = set()
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        names.add(field.name)
        values = columns.get(field.name)
        if values is None:
            if field.default is dataclasses.MISSING:
                raise TypeError(f"{cls.__name__}: no column for {field.name}, which has no "
                                "default")
            values = repeat(field.default, n)
        deque(map(cls.__dict__[field.name].__set__, objs, values), maxlen=0)
    unknown = set(columns) - names
    if unknown:
        raise TypeError(f"{cls.__name__} has no field {sorted(unknown)[0]}")
    return objs


def _slices(items: tuple[Any, ...], segments: Sequence[str], tag: str) -> Iterator[Any]:
    """Each entry's slice of the region's ``items`` of one kind (each starts with ``tag``)."""
    if not items:
        return repeat(())
    ends = list(accumulate(map(str.count, segments, repeat(tag))))
    return map(items.__getitem__, map(slice, [0, *ends], ends))


def _alternates(found: list[tuple[str, ...]], refs: bool) -> Optional[tuple[Alternate, ...]]:
    """The alternates of these links (each three attributes in any order: a name, its value
    between double quotes, between single quotes), or None when one's rel is not exactly
    "alternate". Raises ValueError for an attribute given twice (expat refuses it)."""
    hreflang: list[str] = []
    href: list[str] = []
    for m in found:
        attrs = {m[0]: m[1] or m[2], m[3]: m[4] or m[5], m[6]: m[7] or m[8]}
        if len(attrs) != 3:
            raise ValueError("an attribute given twice")
        if attrs["rel"] != "alternate":
            return None
        hreflang.append(attrs["hreflang"])
        href.append(attrs["href"])
    return _alternates_of(hreflang, href, refs=refs)


def _alternates_of(hreflang: Sequence[str], href: Sequence[str], *, refs: bool
                   ) -> tuple[Alternate, ...]:
    return tuple(made(Alternate, len(href), hreflang=map(str.strip, _normalised(hreflang, refs)),
                      href=map(str.strip, _normalised(href, refs))))


def _normalised(values: Sequence[str], refs: bool) -> Sequence[str]:
    """Attribute values as XML normalises them: tab and LF become spaces, then references are
    resolved; a column at a time (NUL separates the values)."""
    joined = "\0".join(values)
    if "\t" in joined or "\n" in joined:
        values = joined.translate(_ATTRIBUTE_SPACE).split("\0")
    return resolved(values) if refs else values


def _item_lines(scanner: ExtensionScanner, text: str, line: int
                ) -> list[dict[tuple[str, int], int]]:
    """Per entry of a region starting on line ``line``: (kind, index) → the line of that
    extension item's start tag."""
    out = []
    finditer = re.compile(scanner.items_pattern).finditer
    at = 0  # the offset where ``line`` is
    for entry in scanner.entry.finditer(text):
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
    return out


class ItemLines(Mapping[tuple[str, int], int]):
    """One entry's item lines, counted for the whole region when a problem first needs one."""

    __slots__ = ("_lines", "_row")

    def __init__(self, lines: Callable[[], list[dict[tuple[str, int], int]]], row: int) -> None:
        self._lines, self._row = lines, row

    def __getitem__(self, key: tuple[str, int]) -> int:
        return self._lines()[self._row][key]

    def __iter__(self) -> Iterator[tuple[str, int]]:
        return iter(self._lines()[self._row])

    def __len__(self) -> int:
        return len(self._lines()[self._row])
