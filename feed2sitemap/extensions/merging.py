"""Which copy of a URL each kind of extension comes from when copies are merged."""

from __future__ import annotations

from typing import Optional

from ..model.extensions import EMPTY, Extensions
from ..model.record import Lastmod, lastmod_key
from .model import Foreign

_KINDS = ("images", "videos", "news", "alternates", "mobile")


def _newer(second: Optional[Lastmod], first: Optional[Lastmod]) -> bool:
    """Whether ``second`` is strictly newer (no lastmod is older than any)."""
    if second is None:
        return False
    return first is None or lastmod_key(second) > lastmod_key(first)


class ExtensionMerger:
    """The extensions of one URL over its copies: each kind (and foreign namespace) from the
    newest copy that has it, a tie to the first (a feed entry that moves a page's lastmod on
    keeps the alternates the sitemap had). Foreign elements all from one copy keep their order;
    otherwise each namespace's elements go where the namespace first appeared."""

    __slots__ = ("_first", "_foreign", "_kinds")

    def __init__(self) -> None:
        # the one copy added so far, kept whole: most URLs have one (nothing to rebuild)
        self._first: Optional[tuple[Extensions, Optional[Lastmod]]] = None
        self._kinds: dict[str, tuple[tuple[object, ...], Optional[Lastmod]]] = {}
        # namespace → (its elements, that copy's lastmod, that copy's whole foreign tuple)
        self._foreign: dict[str, tuple[list[Foreign], Optional[Lastmod],
                                       tuple[Foreign, ...]]] = {}

    def add(self, ext: Extensions, lastmod: Optional[Lastmod]) -> None:
        if self._first is None and not self._kinds and not self._foreign:
            self._first = (ext, lastmod)
            return
        if self._first is not None:  # a second copy: the first is sorted out by kind now
            first, self._first = self._first, None
            self._sort(*first)
        self._sort(ext, lastmod)

    def _sort(self, ext: Extensions, lastmod: Optional[Lastmod]) -> None:
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
                self._foreign[ns] = (elements, lastmod, ext.foreign)

    def value(self) -> Extensions:
        if self._first is not None:
            return self._first[0] if self._first[0] else EMPTY
        sources = {id(whole): whole for _, _, whole in self._foreign.values()}
        if len(sources) == 1:  # one copy's elements, as that copy had them
            (foreign,) = sources.values()
        else:
            foreign = tuple(e for elements, _, _ in self._foreign.values() for e in elements)
        values = {k: v for k, (v, _) in self._kinds.items()}
        merged = Extensions(**values, foreign=foreign)  # type: ignore[arg-type]
        return merged if merged else EMPTY
