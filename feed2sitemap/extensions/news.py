"""Google News from a feed: the language code, the two-day window, the publication date.

[NEWS] https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap:
"Include URLs for articles that were published in the last two days"; <news:language> is an
ISO 639 code of two or three letters, except zh-cn (Simplified) and zh-tw (Traditional
Chinese); <news:publication_date> is "the original date and time when the article was first
published on your site", in W3C format.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, Optional

from ..errors import OptionError
from ..model.record import Lastmod, lastmod_key
from ..model.rules import news_language as news_language  # (the feed reader's, from here)
from ..model.rules import parsed_utc
from .model import News

NEWS_WINDOW = timedelta(days=2)
SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"  # reproducible-builds.org: "now", for reproducible runs


def feed_language(feed: Mapping[str, Any], entry: Optional[Mapping[str, Any]] = None
                  ) -> Optional[str]:
    """The language a feed declares, as feedparser gives it: RSS <language> (or
    <dc:language>), else the xml:lang in force on the entry's or the feed's title."""
    if feed.get("language"):
        return str(feed["language"])
    for holder in (entry or {}, feed):
        detail = holder.get("title_detail")
        if isinstance(detail, Mapping) and detail.get("language"):
            return str(detail["language"])
    return None


def now() -> datetime:
    """The clock, or SOURCE_DATE_EPOCH (seconds since 1970 UTC) when it is set."""
    epoch = os.environ.get(SOURCE_DATE_EPOCH, "").strip()
    if not epoch:
        return datetime.now(timezone.utc)
    try:
        return datetime.fromtimestamp(int(epoch), timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise OptionError(f"the environment variable {SOURCE_DATE_EPOCH} must be a number of "
                          f"seconds since 1970-01-01 UTC, not {epoch[:40]!r}") from None


def in_window(published: Lastmod, at: datetime) -> bool:
    """Whether ``published`` is within NEWS_WINDOW before ``at`` (or after it: a clock a
    little ahead is no reason to leave an article out). A date counts as its midnight UTC."""
    return lastmod_key(published) >= at - NEWS_WINDOW


def first_published(entry: Mapping[str, Any]) -> Optional[datetime]:
    """The entry's first publication time (RSS <pubDate>, Atom <published>, <issued>), as
    feedparser gives it; never its update time. None when it has none."""
    parsed = entry.get("published_parsed")
    if not isinstance(parsed, time.struct_time):
        return None
    return parsed_utc(parsed)  # (None for a year no datetime holds: 0, or 10000 in UTC)


def news_for_entry(entry: Mapping[str, Any], name: str, language: str,
                   at: datetime) -> tuple[Optional[News], str]:
    """The <news:news> of a feed entry, or None and why ("no date", "too old")."""
    published = first_published(entry)
    if published is None:
        return None, "no date"
    if not in_window(published, at):
        return None, "too old"
    title = str(entry.get("title") or "").strip()
    return News(name, language, published, title), ""
