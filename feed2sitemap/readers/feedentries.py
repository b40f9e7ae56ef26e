"""What a feed pass gives (each entry's link, date and line, and the feed's own site link),
and the word of a fast pass that it cannot give feedparser's answer."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

__all__ = ["FastPathUnsupported", "FeedEntries", "FeedEntry"]


class FastPathUnsupported(Exception):
    """The fast pass cannot give feedparser's answer for this document: feedparser is used."""


class FeedEntry(NamedTuple):
    link: str | None  # resolved as feedparser resolves it (may still be relative)
    lastmod: datetime | None  # aware UTC datetime
    line: int  # 1-based line of the entry/item start tag; 0 from feedparser


class FeedEntries(list[FeedEntry]):
    """The entries, and the feed's own site link (RSS <channel><link>, Atom <feed><link
    rel="alternate">: the first one, resolved against xml:base), or None; ``extended``: the
    feed holds markup that may carry an entry's images, video or alternates (an enclosure,
    Media RSS, itunes:image, an entry's hreflang link), which a fast pass does not read."""

    site: str | None = None
    extended = False
