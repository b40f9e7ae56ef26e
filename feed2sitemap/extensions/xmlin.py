"""Reading the extension elements of one <url> from namespace-aware expat events.

Each top element (core fields passed over) is held as a small tree, bounded per <url>, then
turned into its typed value (``build``); an element of a namespace we do not model is kept as
it is. A missing required child is the rules' to report; ``build`` refuses what cannot be held:
a value that does not parse, an element the schema does not have, a child given twice."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Optional, Union

from ..model.extensions import EMPTY, Extensions
from ..model.record import parse_lastmod
from ..xmlutil import MAX_VALUE
from .model import (
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Foreign,
    Image,
    Mobile,
    News,
    Platform,
    Problem,
    Restriction,
    Video,
)
from .xmlout import IMAGE_ORDER, NEWS_ORDER, VIDEO_ORDER, VIDEO_VALUES

CORE_FIELDS = frozenset(("loc", "lastmod", "changefreq", "priority"))
# Per <url>: far above any real extension (a video with 32 tags is ~40 nodes; 1,000 images
# with all their deprecated children ~6,000 and some 300,000 characters), low enough that a
# hostile file cannot make one URL hold much (at most MAX_URL_CHARS characters of text).
MAX_FOREIGN_NODES = 20_000
MAX_FOREIGN_DEPTH = 64
MAX_URL_CHARS = 64 * MAX_VALUE


class _Node:
    __slots__ = ("ns", "name", "attrs", "children")

    def __init__(self, ns: str, name: str, attrs: tuple[tuple[str, str], ...]) -> None:
        self.ns, self.name, self.attrs = ns, name, attrs
        self.children: list[Union[str, _Node]] = []

    def frozen(self) -> Foreign:
        return Foreign(self.ns, self.name, self.attrs,
                       tuple(c if isinstance(c, str) else c.frozen() for c in self.children))


def _attributes(attrs: Any) -> tuple[tuple[str, str], ...]:
    """From expat's dict, or its flat list with ordered_attributes."""
    if isinstance(attrs, dict):
        return tuple(attrs.items())
    return tuple(zip(attrs[::2], attrs[1::2], strict=True)) if attrs else ()


def unknown_element(local: str, ns: str) -> str:
    """The message for an element of the sitemaps.org namespace, or of none, the schema does
    not have there."""
    where = "the sitemaps.org namespace" if ns else "no namespace"
    return f"unknown element <{local}> in {where}: left out"


class UrlChildren:
    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._stack: list[_Node] = []
        self._tops: list[tuple[Foreign, Optional[int]]] = []
        self._problems: list[Problem] = []
        self._skip = 0  # depth inside an element that is passed over (core or refused)
        self._nodes = self._chars = 0
        self._overflow = False
        self._full = False  # the <url>'s bounds were reached: the rest is passed over
        self._line: Optional[int] = None

    def start(self, name: str, attrs: Any = None, line: Optional[int] = None) -> None:
        if self._skip:
            self._skip += 1
            return
        ns, _, local = name.rpartition(" ")
        if not self._stack:
            if ns == SITEMAP_NS or not ns:
                if not (ns == SITEMAP_NS and local in CORE_FIELDS):
                    self._problems.append(Problem("url", local, unknown_element(local, ns),
                                                  None, line, "item"))
                self._skip = 1
                return
            if self._nodes >= MAX_FOREIGN_NODES or self._chars >= MAX_URL_CHARS:
                if not self._full:
                    self._full = True
                    self._problems.append(Problem(
                        "url", local, f"more than {MAX_FOREIGN_NODES:,} extension elements or "
                        f"{MAX_URL_CHARS:,} characters in one <url>: the rest is left out",
                        None, line, "item"))
                self._skip = 1
                return
            self._line = line
        elif len(self._stack) >= MAX_FOREIGN_DEPTH or self._nodes >= MAX_FOREIGN_NODES:
            self._overflow = True
            self._skip = 1
            return
        self._nodes += 1
        node = _Node(ns, local, _attributes(attrs))
        if self._stack:
            self._stack[-1].children.append(node)
        self._stack.append(node)

    def data(self, text: str) -> None:
        if self._skip or not self._stack:
            return  # text between the <url>'s children, or inside a core field
        children = self._stack[-1].children
        self._chars += len(text)
        last = children[-1] if children else None
        if isinstance(last, str):
            children.pop()
            text = last + text
        if self._chars > MAX_URL_CHARS or len(text) > MAX_VALUE:
            self._overflow = True  # (the top element is left out whole)
        else:
            children.append(text)

    def end(self, name: str = "") -> None:
        if self._skip:
            self._skip -= 1
            return
        if not self._stack:
            return
        node = self._stack.pop()
        if not self._stack:
            top = node.frozen()
            if self._overflow:
                self._problems.append(Problem(
                    "url", top.name, f"<{top.name}> holds a value longer than {MAX_VALUE:,} "
                    f"characters, more than {MAX_FOREIGN_NODES:,} elements or nesting deeper "
                    f"than {MAX_FOREIGN_DEPTH}: left out", None, self._line, "item"))
            else:
                self._tops.append((top, self._line))
            self._overflow = False

    def finish(self) -> tuple[Extensions, list[Problem], dict[tuple[str, int], int]]:
        """The <url>'s Extensions, problems and items' lines (``(kind, index)`` → line); resets
        for the next <url>."""
        ext, problems, lines = build(self._tops)
        problems = self._problems + problems
        self._reset()
        return ext, problems, lines


def located(problems: list[Problem], lines: Mapping[tuple[str, int], int]) -> list[Problem]:
    """``problems`` with their items' lines (UrlChildren.finish's map)."""
    return [p if p.line is not None or p.index is None or (p.kind, p.index) not in lines
            else replace(p, line=lines[(p.kind, p.index)]) for p in problems]


_VIDEO_LEGACY = frozenset(VIDEO_ORDER) - set(VIDEO_VALUES) - {"tag", "restriction", "platform"}
_NEWS_LEGACY = frozenset(NEWS_ORDER) - {"publication", "publication_date", "title"}


class _Reader:
    """Collects one item's problems."""

    def __init__(self, kind: str, index: int, line: Optional[int]) -> None:
        self.kind, self.index, self.line = kind, index, line
        self.problems: list[Problem] = []
        self.seen: set[str] = set()

    def bad(self, field: str, reason: str) -> None:
        self.problems.append(Problem(self.kind, field, reason, self.index, self.line))

    def once(self, name: str) -> bool:
        """False (with a problem) when the child ``name`` was met before."""
        if name in self.seen:
            self.bad(name, "given more than once: the first is kept")
            return False
        self.seen.add(name)
        return True

    def value(self, child: Foreign, parse: Callable[[str], Any] = str.strip) -> Any:
        """The child's text, once, parsed: None (with a problem) if repeated, holding elements
        or refused by ``parse``."""
        if not self.once(child.name):
            return None
        if any(isinstance(c, Foreign) for c in child.children):
            self.bad(child.name, "holds elements, not text: left out")
            return None
        try:
            return parse(child.text())
        except ValueError as exc:
            self.bad(child.name, f"{exc}: left out")
            return None

    def children(self, element: Foreign, ns: str) -> list[Foreign]:
        """The child elements in ``ns``; any other is unknown (a problem each)."""
        out = []
        for child in element.children:
            if isinstance(child, Foreign):
                if child.namespace == ns:
                    out.append(child)
                else:
                    self.unknown(child, element.name)
        return out

    def unknown(self, child: Foreign, parent: str) -> None:
        self.bad(child.name, f"<{child.name}> is not an element of <{parent}> in Google's "
                 "schema: left out")


def _image(element: Foreign, reader: _Reader) -> Image:
    values: dict[str, str] = {}
    for child in reader.children(element, IMAGE_NS):
        if child.name not in IMAGE_ORDER:
            reader.unknown(child, "image:image")
        elif (text := reader.value(child)) is not None:
            values[child.name] = text
    return Image(values.pop("loc", ""), **values)


def _video(element: Foreign, reader: _Reader) -> Video:
    values: dict[str, Any] = {"thumbnail_loc": "", "title": "", "description": ""}
    tags: list[str] = []
    extra: list[Foreign] = []
    for child in reader.children(element, VIDEO_NS):
        name = child.name
        if name in VIDEO_VALUES:
            value = reader.value(child, VIDEO_VALUES[name][0])
            if value is None:
                continue
            values[name] = value
            if name == "player_loc":
                values["allow_embed"] = child.attribute("allow_embed")
                values["autoplay"] = child.attribute("autoplay")
            elif name == "uploader":
                values["uploader_info"] = child.attribute("info")
        elif name == "tag":
            tags.append(child.text().strip())
        elif name in ("restriction", "platform"):
            text = reader.value(child, str)
            relationship = child.attribute("relationship")
            if text is not None and relationship is None:
                reader.bad(name, "no relationship attribute (allow or deny): left out")
            elif text is not None and relationship is not None:
                kind = Restriction if name == "restriction" else Platform
                values[name] = kind(relationship.strip(), tuple(text.split()))
        elif name in _VIDEO_LEGACY:
            extra.append(child)
        else:
            reader.unknown(child, "video:video")
    return Video(**values, tags=tuple(tags), extra=tuple(extra))


def _news(element: Foreign, reader: _Reader) -> News:
    values: dict[str, Any] = {"name": "", "language": "", "publication_date": None,
                              "title": ""}
    extra: list[Foreign] = []
    for child in reader.children(element, NEWS_NS):
        if child.name == "publication":
            if not reader.once("publication"):
                continue
            for part in reader.children(child, NEWS_NS):
                if part.name not in ("name", "language"):
                    reader.unknown(part, "news:publication")
                elif (text := reader.value(part)) is not None:
                    values[part.name] = text
        elif child.name == "publication_date":
            values["publication_date"] = reader.value(child, parse_lastmod)
        elif child.name == "title":
            values["title"] = reader.value(child) or values["title"]
        elif child.name in _NEWS_LEGACY:
            extra.append(child)
        else:
            reader.unknown(child, "news:news")
    return News(**values, extra=tuple(extra))


def _simple(element: Foreign, attrs: dict[str, str], allowed: frozenset[str]) -> bool:
    """No child element, no text but white space, and only the ``allowed`` attributes."""
    return (all(isinstance(c, str) and not c.strip() for c in element.children)
            and attrs.keys() <= allowed)


_MAKERS: dict[tuple[str, str], tuple[str, Callable[[Foreign, _Reader], Any]]] = {
    (IMAGE_NS, "image"): ("images", _image), (VIDEO_NS, "video"): ("videos", _video),
    (NEWS_NS, "news"): ("news", _news)}
_LINK = frozenset(("rel", "hreflang", "href"))
_MOBILE = frozenset(("type",))


def _kind_of(element: Foreign) -> tuple[str, Any]:
    """An hreflang alternate's or a bare mobile:mobile's kind and value; else "foreign"."""
    key = (element.namespace, element.name)
    attrs = dict(element.attributes)
    if key == (XHTML_NS, "link"):
        if attrs.get("rel") == "alternate" and "hreflang" in attrs and "href" in attrs and \
                _simple(element, attrs, _LINK):
            return "alternates", Alternate(attrs["hreflang"].strip(), attrs["href"].strip())
    elif key == (MOBILE_NS, "mobile") and _simple(element, attrs, _MOBILE):
        return "mobile", Mobile(attrs.get("type"))
    return "foreign", element


def build(tops: list[tuple[Foreign, Optional[int]]]
          ) -> tuple[Extensions, list[Problem], dict[tuple[str, int], int]]:
    """The Extensions of a <url>'s top extension elements (with their lines)."""
    kinds: dict[str, list[Any]] = {}
    problems: list[Problem] = []
    lines: dict[tuple[str, int], int] = {}
    for element, line in tops:
        maker = _MAKERS.get((element.namespace, element.name))
        if maker is not None:
            kind, make = maker
            items = kinds.setdefault(kind, [])
            reader = _Reader(kind, len(items), line)
            items.append(make(element, reader))
            problems += reader.problems
        else:
            kind, value = _kind_of(element)
            items = kinds.setdefault(kind, [])
            items.append(value)
        if line is not None:
            lines[(kind, len(items) - 1)] = line
    if not kinds:
        return EMPTY, problems, lines
    return Extensions(**{k: tuple(v) for k, v in kinds.items()}), problems, lines
