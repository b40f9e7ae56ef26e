"""A batch's extensions as XML, the common rows at C speed: xmlout.serialize's twin.

Rows of images that are a location alone and hreflang alternates, whose namespaces the
<urlset> declares and whose values need no escaping (one check over all of them), are written
from one template per item, as xmlout.serialize writes them: the images, then the
alternates, each in document order. Every other row, and every row in the reference mode
(backends.py), is xmlout.serialize's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

from ..backends import fast
from ..model.extensions import Extensions
from ..xmlutil import needs_escaping
from .model import IMAGE_NS, XHTML_NS
from .xmlout import serialize

__all__ = ["serialized"]


def serialized(column: Sequence[Extensions], declared: Mapping[str, str]) -> list[str]:
    """Each row's extensions as xmlout.serialize(ext, declared) gives them ("" for none)."""
    return (_fast if fast("extension serialization") else _plain)(column, declared)


def _plain(column: Sequence[Extensions], declared: Mapping[str, str]) -> list[str]:
    """The reference: serialize, a row at a time."""
    return [serialize(ext, declared) if ext else "" for ext in column]


def _fast(column: Sequence[Extensions], declared: Mapping[str, str]) -> list[str]:
    """serialize's output, the rows of images and alternates alone formatted a column at a
    time."""
    pi, px = declared.get(IMAGE_NS), declared.get(XHTML_NS)
    image = f"<{pi}:image><{pi}:loc>{{}}</{pi}:loc></{pi}:image>".format
    link = f'<{px}:link rel="alternate" hreflang="{{}}" href="{{}}"/>'.format
    # images (a location alone) and alternates only, each kind's namespace declared (else
    # serialize declares it on the element); inline: a call per row costs more than the test
    simple = [bool(ext.images or ext.alternates) and not (
        ext.videos or ext.news or ext.mobile or ext.foreign
        or ext.images and (pi is None or not all(
            [im.caption is im.title is im.geo_location is im.license is None
             for im in ext.images]))
        or ext.alternates and px is None) for ext in column]
    rows = [ext for ext, ok in zip(column, simple, strict=True) if ok]
    values = _values(rows)
    if needs_escaping("".join([*values[0], *values[1], *values[2]])):
        simple = [ok and not needs_escaping("".join(
            [im.loc for im in ext.images] + [a.hreflang + a.href for a in ext.alternates]))
                  for ext, ok in zip(column, simple, strict=True)]
        rows = [ext for ext, ok in zip(column, simple, strict=True) if ok]
        values = _values(rows)
    # each item formatted in one map over the batch; each row then joins its slice
    images = list(map(image, values[0]))
    links = list(map(link, values[1], values[2]))
    shape = _shape(rows, len(images), len(links)) if len(rows) == len(column) else None
    if shape is not None:  # every row k images and m links: the rows are zipped in C
        k, m = shape
        return list(map("".join, zip(*[images[q::k] for q in range(k)],
                                     *[links[q::m] for q in range(m)], strict=True)))
    out = []
    i = j = 0
    for ext, ok in zip(column, simple, strict=True):
        if ok:
            k, m = i + len(ext.images), j + len(ext.alternates)
            out.append("".join(images[i:k] + links[j:m]))
            i, j = k, m
        else:
            out.append(serialize(ext, declared) if ext else "")
    return out


def _values(rows: Sequence[Extensions]) -> tuple[list[str], list[str], list[str]]:
    """The rows' image locations, hreflangs and hrefs, each kind in document order."""
    alternates = [a for ext in rows for a in ext.alternates]
    return ([im.loc for ext in rows for im in ext.images], [a.hreflang for a in alternates],
            [a.href for a in alternates])


def _shape(rows: Sequence[Extensions], images: int, links: int
           ) -> Optional[tuple[int, int]]:
    """(k, m) when every row has k images and m alternates (k + m > 0), else None."""
    n = len(rows)
    if not n or images % n or links % n or not images + links:
        return None
    k, m = images // n, links // n
    if any([len(ext.images) != k or len(ext.alternates) != m for ext in rows]):
        return None
    return k, m
