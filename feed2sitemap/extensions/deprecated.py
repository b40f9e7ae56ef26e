"""The extension tags Google no longer reads: found (check's ``ext-deprecated`` note) and left
out (``--drop-deprecated``). Deprecated on 2022-05-06 (DEPRECATED_SOURCE); the News sitemap
documentation (NEWS_SOURCE) names only publication, publication_date and title since. The
readers keep them all: a value read is never lost unless asked."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Optional

from ..model.extensions import Extensions
from .model import NEWS_NS, VIDEO_NS, Foreign

DEPRECATED_SOURCE = ("https://developers.google.com/search/blog/2022/05/"
                     "spring-cleaning-sitemap-extensions")
NEWS_SOURCE = "https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap"

_IMAGE = ("caption", "geo_location", "title", "license")  # Image fields
_VIDEO_ATTRIBUTES = ("allow_embed", "autoplay")  # Video fields: player_loc's attributes
_VIDEO_EXTRA = frozenset(("category", "gallery_loc", "price", "tvshow"))  # in Video.extra
_NEWS_EXTRA = frozenset(("access", "genres", "keywords", "stock_tickers", "geo_locations"))


def _gone(element: Foreign, namespace: str, names: frozenset[str]) -> bool:
    return element.namespace == namespace and element.name in names


def deprecated_tags(ext: Extensions) -> Iterator[tuple[str, str, int]]:
    """(tag, kind, item's index) for each deprecated tag: "video:player_loc@autoplay", ..."""
    for i, image in enumerate(ext.images):
        for name in _IMAGE:
            if getattr(image, name) is not None:
                yield f"image:{name}", "images", i
    for i, video in enumerate(ext.videos):
        for name in _VIDEO_ATTRIBUTES:
            if getattr(video, name) is not None:
                yield f"video:player_loc@{name}", "videos", i
        for element in video.extra:
            if _gone(element, VIDEO_NS, _VIDEO_EXTRA):
                yield f"video:{element.name}", "videos", i
    for i, news in enumerate(ext.news):
        for element in news.extra:
            if _gone(element, NEWS_NS, _NEWS_EXTRA):
                yield f"news:{element.name}", "news", i


def without_deprecated(ext: Extensions, dropped: Counter[str]) -> Optional[Extensions]:
    """``ext`` less its deprecated tags (counted in ``dropped``); None when it has none."""
    tags = Counter(tag for tag, _, _ in deprecated_tags(ext))
    if not tags:
        return None
    dropped.update(tags)
    images = tuple(replace(image, caption=None, geo_location=None, title=None, license=None)
                   for image in ext.images)
    videos = tuple(replace(v, allow_embed=None, autoplay=None, extra=tuple(
        e for e in v.extra if not _gone(e, VIDEO_NS, _VIDEO_EXTRA))) for v in ext.videos)
    news = tuple(replace(n, extra=tuple(e for e in n.extra if not _gone(e, NEWS_NS, _NEWS_EXTRA)))
                 for n in ext.news)
    return replace(ext, images=images, videos=videos, news=news)
