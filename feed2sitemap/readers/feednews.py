"""A feed's entries as Google News articles (Search Central, "Google News sitemaps"): each
one published in the last two days gets a <news:news>; the others are left out, counted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..errors import OptionError
from ..extensions.news import feed_language, news_for_entry, news_language, now
from ..extensions.value import EMPTY, Extensions
from ..report import Report

if TYPE_CHECKING:
    from ..options import NewsSitemap
    from .feedpass import FeedEntries
    from .feedpolicy import FeedRead

__all__ = ["news_entries"]


def news_entries(read: FeedRead, entries: FeedEntries, exts: Optional[list[Any]],
                 news: NewsSitemap, source: str,
                 report: Report) -> tuple[FeedEntries, list[Any]]:
    """The entries that are news now, each with its <news:news> among its extensions."""
    parsed = read.parsed
    if parsed is None or len(parsed["entries"]) != len(entries):  # (feedparser read it whole)
        raise OptionError("a news sitemap is made from RSS or Atom feeds", "news_name")
    at = now()
    feed = parsed.get("feed") or {}
    kept = entries.__class__()
    kept.site = entries.site
    out: list[Any] = []
    for n, (raw, entry) in enumerate(zip(parsed["entries"], entries, strict=True)):
        language = news.language or news_language(feed_language(feed, raw))
        if language is None:
            raise OptionError(f"{source} names no language Google News takes (its <language> "
                              "or xml:lang); give `news_language`", "news_language")
        article, why = news_for_entry(raw, news.name, language, at)
        if article is None:
            report.skip("not news" if why == "no date" else "news too old", source,
                        entry.line or None, f"feed entry {n + 1}: "
                        + ("no publication date" if why == "no date" else
                           "published more than two days ago: not news any more"),
                        url=entry.link)
            continue
        ext = EMPTY if exts is None else exts[n]
        kept.append(entry)
        out.append(Extensions(ext.images, ext.videos, (article,), ext.alternates, ext.mobile,
                              ext.foreign))
    return kept, out
