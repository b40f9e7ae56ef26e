"""Google News from a feed ([NEWS] https://developers.google.com/search/docs/crawling-indexing/
sitemaps/news-sitemap: "articles that were published in the last two days", the date "when the
article was first published")."""

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
    """RSS <language> (or <dc:language>), else the xml:lang of the entry's or feed's title."""
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
    """Whether ``published`` is within NEWS_WINDOW before ``at``, or after it (a clock ahead
    is no reason to leave an article out)."""
    return lastmod_key(published) >= at - NEWS_WINDOW


def first_published(entry: Mapping[str, Any]) -> Optional[datetime]:
    """The entry's first publication time (<pubDate>, <published>, <issued>), never its update."""
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
