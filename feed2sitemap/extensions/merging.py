"""Which copy of a URL each kind of extension comes from when copies are merged."""

from __future__ import annotations

from typing import Optional

from ..record import Lastmod, lastmod_key
from .model import EMPTY, Extensions, Foreign

__all__ = ["ExtensionMerger", "merge_extensions"]

_KINDS = ("images", "videos", "news", "alternates", "mobile")


def _newer(second: Optional[Lastmod], first: Optional[Lastmod]) -> bool:
    """Whether ``second`` is strictly newer (no lastmod is older than any; a tie is not)."""
    if second is None:
        return False
    return first is None or lastmod_key(second) > lastmod_key(first)


def merge_extensions(first: Extensions, first_lastmod: Optional[Lastmod],
                     second: Extensions, second_lastmod: Optional[Lastmod]) -> Extensions:
    """Each kind (images, videos, news, alternates, mobile, and each foreign namespace) from
    the newest copy that has it: the newest lastmod, a tie (or neither dated) to ``first``.

    So a feed entry that moves a page's lastmod on but carries no alternates keeps the
    alternates the sitemap had; one that carries images replaces the sitemap's images.
    """
    if not second:
        return first
    if not first:
        return second
    take_second = _newer(second_lastmod, first_lastmod)
    changes = {}
    for kind in _KINDS:
        mine, theirs = getattr(first, kind), getattr(second, kind)
        changes[kind] = theirs if theirs and (take_second or not mine) else mine
    changes["foreign"] = _merge_foreign(first.foreign, second.foreign, take_second)
    merged = Extensions(**changes)
    return merged if merged else EMPTY


def _merge_foreign(first: tuple[Foreign, ...], second: tuple[Foreign, ...],
                   take_second: bool) -> tuple[Foreign, ...]:
    """Per namespace, the elements of one copy; namespaces in order of first appearance."""
    groups: dict[str, list[Foreign]] = {}
    for element in first:
        groups.setdefault(element.namespace, []).append(element)
    theirs: dict[str, list[Foreign]] = {}
    for element in second:
        theirs.setdefault(element.namespace, []).append(element)
    for ns, elements in theirs.items():
        if take_second or ns not in groups:
            groups[ns] = elements
    return tuple(e for elements in groups.values() for e in elements)


class ExtensionMerger:
    """The extensions of one URL over any number of copies, each kind (and each foreign
    namespace) from the newest copy that has it, as ``merge_extensions`` decides for two.
    Kept per kind with that copy's lastmod, so a chain of copies is decided exactly."""

    __slots__ = ("_foreign", "_kinds")

    def __init__(self) -> None:
        self._kinds: dict[str, tuple[tuple[object, ...], Optional[Lastmod]]] = {}
        self._foreign: dict[str, tuple[list[Foreign], Optional[Lastmod]]] = {}

    def add(self, ext: Extensions, lastmod: Optional[Lastmod]) -> None:
        kinds = self._kinds
        for kind in _KINDS:
            value = getattr(ext, kind)
            if value and (kind not in kinds or _newer(lastmod, kinds[kind][1])):
                kinds[kind] = (value, lastmod)
        groups: dict[str, list[Foreign]] = {}
        for element in ext.foreign:
            groups.setdefault(element.namespace, []).append(element)
        for ns, elements in groups.items():
            if ns not in self._foreign or _newer(lastmod, self._foreign[ns][1]):
                self._foreign[ns] = (elements, lastmod)

    def value(self) -> Extensions:
        foreign = tuple(e for elements, _ in self._foreign.values() for e in elements)
        values = {k: v for k, (v, _) in self._kinds.items()}
        merged = Extensions(**values, foreign=foreign)  # type: ignore[arg-type]
        return merged if merged else EMPTY
