"""rules.sanitize's answer for the rows of a batch it can prove at once, in C where it can.

A row of images and hreflang alternates alone (at most IMAGES_PER_URL images) whose URLs are
all normalised already and whose hreflangs are all valid has, by rules.check_extensions, no
problem but perhaps one: the page is not among its own alternates (a warning). Any other row
gets ``None`` and takes rules.sanitize, as every row does in the reference mode.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Optional

from ..model.extensions import Extensions
from ..model.urls import all_normalized
from .model import Problem
from .rules import IMAGES_PER_URL, NOT_ITSELF, is_hreflang

_NONE: list[Problem] = []
_WARNING = [NOT_ITSELF]


def proven_problems(column: Sequence[Extensions], locs: Sequence[str]
                    ) -> list[Optional[list[Problem]]]:
    """Per row, the problems rules.sanitize would find (it would then return the row's value
    unchanged), or None where this is not proven (and sanitize must say)."""
    rows = [i for i, ext in enumerate(column)  # (inline: a call per row costs more)
            if (ext.images or ext.alternates) and locs[i] and not (
                ext.videos or ext.news or ext.mobile or ext.foreign
                or len(ext.images) > IMAGES_PER_URL)]
    out: list[Optional[list[Problem]]] = [None] * len(column)
    if not rows:
        return out
    pages = [locs[i] for i in rows if column[i].alternates]
    urls = [image.loc for i in rows for image in column[i].images]
    hrefs = [alt.href for i in rows for alt in column[i].alternates]
    bad_langs = {h for h in {alt.hreflang for i in rows for alt in column[i].alternates}
                 if not is_hreflang(h)}
    if not all_normalized(urls + hrefs + pages) or bad_langs:
        rows = [i for i in rows if _clean_row(column[i], locs[i], bad_langs)]
    for i in rows:
        alternates = column[i].alternates
        out[i] = (_NONE if not alternates or locs[i] in [alt.href for alt in alternates]
                  else _WARNING)
    return out


def _clean_row(ext: Extensions, page: str, bad_langs: set[str]) -> bool:
    if any(alt.hreflang in bad_langs for alt in ext.alternates):
        return False
    urls = [image.loc for image in ext.images] + [alt.href for alt in ext.alternates]
    return all_normalized(urls + [page] if ext.alternates else urls)

