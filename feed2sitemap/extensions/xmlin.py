"""Reading the extension elements of one <url> from expat-style events.

``UrlChildren`` is fed the events of the elements inside a <url> as a namespace-aware expat
parser reports them with " " as the separator (``"URI local"``, as readers/sitemap.py sees
them): ``start(name, attrs, line)``, ``data(text)``, ``end(name)``. Core fields (loc,
lastmod, changefreq, priority) may be fed too: they are passed over, the reader reads them.
``finish()`` gives the Extensions, the problems found and each item's line, and resets it for
the next <url>; ``located`` puts those lines on the problems rules.check_extensions finds.

Each element at the top is held as a small tree (bounded: MAX_VALUE characters a text, at
most MAX_FOREIGN_NODES nodes and MAX_FOREIGN_DEPTH levels per <url>), then turned into its
typed value (typed.py); an element of a namespace we do not model is kept as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Optional, Union

from ..model.extensions import Extensions
from ..xmlutil import MAX_VALUE
from .model import SITEMAP_NS, Foreign, Problem
from .typed import build

__all__ = ["CORE_FIELDS", "MAX_FOREIGN_DEPTH", "MAX_FOREIGN_NODES", "MAX_URL_CHARS",
           "UrlChildren", "located", "unknown_element"]

CORE_FIELDS = frozenset(("loc", "lastmod", "changefreq", "priority"))
# Per <url>: far above any real extension (a video with 32 tags is ~40 nodes; 1,000 images
# with all their deprecated children ~6,000 and some 300,000 characters), low enough that a
# hostile file cannot make one URL hold much (at most MAX_URL_CHARS characters of text).
MAX_FOREIGN_NODES = 20_000
MAX_FOREIGN_DEPTH = 64
MAX_URL_CHARS = 64 * MAX_VALUE


class _Node:
    __slots__ = ("ns", "name", "attrs", "children", "size")

    def __init__(self, ns: str, name: str, attrs: tuple[tuple[str, str], ...]) -> None:
        self.ns = ns
        self.name = name
        self.attrs = attrs
        self.children: list[Union[str, _Node]] = []
        self.size = 0  # characters of the text being collected (the last child)

    def frozen(self) -> Foreign:
        return Foreign(self.ns, self.name, self.attrs,
                       tuple(c if isinstance(c, str) else c.frozen() for c in self.children))


def _attributes(attrs: Any) -> tuple[tuple[str, str], ...]:
    """expat gives a dict, or a flat [name, value, …] list with ordered_attributes."""
    if not attrs:
        return ()
    if isinstance(attrs, dict):
        return tuple(attrs.items())
    return tuple(zip(attrs[::2], attrs[1::2], strict=True))


def unknown_element(local: str, ns: str) -> str:
    """What is said of an element of the sitemaps.org namespace (``ns``), or of none, that the
    schema does not have there (the sitemap reader says it of one outside this pass too)."""
    where = "the sitemaps.org namespace" if ns else "no namespace"
    return f"unknown element <{local}> in {where}: left out"


class UrlChildren:
    """The extension elements of one <url>, from its children's events."""

    def __init__(self) -> None:
        self._stack: list[_Node] = []
        self._tops: list[tuple[Foreign, Optional[int]]] = []
        self._problems: list[Problem] = []
        self._skip = 0  # depth inside an element that is passed over (core or refused)
        self._nodes = self._chars = 0
        self._overflow = False
        self._full = False  # the <url>'s bounds were reached: the rest is passed over

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
        node = self._stack[-1]
        self._chars += len(text)
        if self._chars > MAX_URL_CHARS:
            self._overflow = True
            return
        if node.children and isinstance(node.children[-1], str):
            if node.size + len(text) > MAX_VALUE:
                self._overflow = True
                return
            node.children[-1] += text
            node.size += len(text)
        else:
            if len(text) > MAX_VALUE:
                self._overflow = True
                return
            node.children.append(text)
            node.size = len(text)

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
        """The <url>'s Extensions, the problems met reading them, and the line of each item
        read (``(kind, index)`` → line, where lines were given). Resets for the next <url>."""
        ext, problems, lines = build(self._tops)
        problems = self._problems + problems
        self._stack, self._tops, self._problems = [], [], []
        self._skip = self._nodes = self._chars = 0
        self._overflow = self._full = False
        return ext, problems, lines

    _line: Optional[int] = None


def located(problems: list[Problem], lines: Mapping[tuple[str, int], int]) -> list[Problem]:
    """``problems`` (from rules.check_extensions) with the line of the item each concerns,
    from the map ``UrlChildren.finish`` gives."""
    return [p if p.line is not None or p.index is None or (p.kind, p.index) not in lines
            else replace(p, line=lines[(p.kind, p.index)]) for p in problems]
