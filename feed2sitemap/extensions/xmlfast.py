"""A batch's extensions as XML, the common rows at C speed: xmlout.serialize's twin.

Rows of images that are a location alone and hreflang alternates, whose namespaces the
<urlset> declares and whose values need no escaping (one check over all of them), are written
from one template per item, as xmlout.serialize writes them: the images, then the
alternates, each in document order. Every other row, and every row in the reference mode
(mode.py), is xmlout.serialize's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..mode import reference
from ..xmlutil import needs_escaping
from .model import IMAGE_NS, XHTML_NS
from .value import Extensions
from .xmlout import serialize

__all__ = ["serialized"]


def serialized(column: Sequence[Extensions], declared: Mapping[str, str]) -> list[str]:
    """Each row's extensions as xmlout.serialize(ext, declared) gives them ("" for none)."""
    if reference():
        return [serialize(ext, declared) if ext else "" for ext in column]
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
    if needs_escaping("".join([im.loc for ext in rows for im in ext.images]
                              + [a.hreflang + a.href for ext in rows for a in ext.alternates])):
        simple = [ok and not needs_escaping("".join(
            [im.loc for im in ext.images] + [a.hreflang + a.href for a in ext.alternates]))
                  for ext, ok in zip(column, simple, strict=True)]
    rows = [ext for ext, ok in zip(column, simple, strict=True) if ok]
    # each item formatted in one map over the batch; each row then joins its slice
    images = list(map(image, [im.loc for ext in rows for im in ext.images]))
    alternates = [a for ext in rows for a in ext.alternates]
    links = list(map(link, [a.hreflang for a in alternates], [a.href for a in alternates]))
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
