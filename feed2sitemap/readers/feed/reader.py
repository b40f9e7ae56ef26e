"""RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 feeds: each entry's page link and date."""

from __future__ import annotations

import re
from collections.abc import Iterator
from operator import itemgetter
from typing import IO, TYPE_CHECKING, Any, Optional

from ...errors import InputError, OptionError
from ...model.batch import BATCH, Batch
from ...model.limits import DEFAULT_MAX_FEED_BYTES
from ...model.record import MIN_YEAR, Lastmod
from ...model.report import Report
from ...model.scope import scope_of
from ...model.urls import base_problem, resolve, shown

if TYPE_CHECKING:
    from ...model.options import NewsSitemap
    from .compat import FeedEntries, FeedEntry
    from .policy import FeedRead

__all__ = ["DEFAULT_MAX_FEED_BYTES", "read_feed"]


def read_all(stream: IO[bytes], source: str, max_bytes: int) -> bytes:
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(source, None, f"feed larger than {max_bytes:,} bytes; a feed is parsed "
                         "whole, raise `max_feed_bytes` if this one is genuine",
                         parameter="max_feed_bytes")
    return data


def read_feed(stream: IO[bytes], source: str, report: Report,
              base_url: Optional[str] = None, *, max_bytes: int = DEFAULT_MAX_FEED_BYTES,
              news: Optional[NewsSitemap] = None) -> Iterator[Batch]:
    """Yield the feed's entries in batches: each one's page link and its updated-else-published
    time.

    The page URL is the entry's first rel="alternate" link (no rel counts), else feedparser's
    ``link`` (RSS <link>, or a permalink <guid>). Relative links are resolved against xml:base
    and ``base_url`` (the document's URL, else the run's), else against the feed's own site
    link, which goes to ``report.site`` when no input has stated one: the run's scope without a
    `base_url`. Which parser reads the feed, and what is refused or malformed, is policy.py's
    call. With ``news``, each entry becomes a Google News article, or is left out, counted.
    """
    read = _policy(stream, source, base_url, max_bytes, news is not None)
    entries = _entries(read, source, report)
    site = _site(entries, source, report)
    if site is not None and not base_url and not _all_absolute(entries):
        # the feed's own site is the base of what is left
        for i in [i for i, e in enumerate(entries) if e.link and not _HTTP.match(e.link)]:
            entries[i] = entries[i]._replace(link=resolve(site, entries[i].link or ""))
    exts = _extensions(read, entries, base_url or site, source, report)
    if news is not None:
        entries, exts = _news_entries(read, entries, exts, news, source, report)
    if site is not None and report.site is None:
        if _on_site(site, entries):
            report.site, report.site_source = site, source
        else:
            report.note(f"{source}: the feed's site link {site[:200]} is on another site than "
                        "all of its entries (http for https, or www?); not used as the scope")
    for start in range(0, len(entries), BATCH):
        part = entries[start: start + BATCH]
        links, dates, numbers = zip(*part, strict=True)
        part_exts = None if exts is None else exts[start: start + BATCH]
        if all(links):  # the usual case: every entry has its link
            locs: list[str] = list(links)
            lastmods: list[Optional[Lastmod]] = list(dates)
            lines: list[Optional[int]] = [n or None for n in numbers]
        else:
            locs, lastmods, lines = [], [], []
            kept = []
            for n, (link, lastmod, line) in enumerate(part, start + 1):
                if not link:
                    report.skip("no link", source, line or None, f"feed entry {n} has no link "
                                "(nor a guid that is an http(s) URL or a path from /)")
                    continue
                locs.append(link)
                lastmods.append(lastmod)
                lines.append(line or None)
                kept.append(n - start - 1)
            if part_exts is not None:
                part_exts = [part_exts[i] for i in kept]
        oldest = min(filter(None, lastmods), default=None)  # (in C: no Python call per entry)
        if oldest is not None and oldest.year < MIN_YEAR:
            _drop_placeholders(lastmods, lines, source, report)
        if locs:
            yield Batch._trusted(locs, source, lines if any(lines) else None,
                                 lastmods if lastmods.count(None) < len(lastmods) else None,
                                 extensions=part_exts if part_exts and any(part_exts) else None)


def _extensions(read: FeedRead, entries: FeedEntries, base: Optional[str], source: str,
                report: Report) -> Optional[list[Any]]:
    """Each entry's images, video and alternates, when feedparser read the feed; what breaks
    Google's rules is left out with a warning."""
    parsed = read.parsed
    if parsed is None or len(parsed["entries"]) != len(entries):
        return None
    from ...extensions.feed import extensions_for_entry  # (only a feed with such markup)

    feed = parsed.get("feed") or {}
    out = []
    for n, (raw, entry) in enumerate(zip(parsed["entries"], entries, strict=True), 1):
        ext, problems = extensions_for_entry(raw, feed, page=entry.link, base=base)
        for p in problems:
            report.warn(f"bad {p.kind} extension", source, entry.line or None,
                        f"feed entry {n}: {p.message()}", url=entry.link)
        out.append(ext)
    return out if any(out) else None


def _policy(stream: IO[bytes], source: str, base_url: Optional[str], max_bytes: int,
            parsed: bool) -> FeedRead:
    # (the pass and its tables take a while to import: only a run that reads a feed pays)
    from ...xmlutil import XMLRefused
    from .policy import FeedInput, FeedUnreadable, read_feed_input

    feed = FeedInput(stream, source, max_bytes)
    try:
        return read_feed_input(feed, base_url, want_parsed=parsed)
    except XMLRefused as exc:  # entities, or past a bound of xmlutil.MarkupGuard
        raise InputError(source, exc.line, str(exc)) from None
    except FeedUnreadable as exc:
        raise InputError(source, None, f"not a feed that can be read ({exc})") from None
    finally:
        feed.close()


def _entries(read: FeedRead, source: str, report: Report) -> FeedEntries:
    """The entries, once feedparser's complaint about a malformed feed is reported."""
    bad = read.malformed
    if bad is not None:
        if not read.is_feed:
            raise InputError(source, bad.line, f"not a feed that can be read: {bad.reason}")
        report.warn("malformed feed", source, bad.line,
                    f"malformed feed, read as far as possible: {bad.reason}")
    for i, text in read.entries.undated:  # (a field is never dropped silently)
        report.warn("bad lastmod", source, read.entries[i].line or None, f"feed entry {i + 1}: "
                    f"{text[:60]!r} is not a date feedparser reads; no lastmod")
    return read.entries


def _site(entries: list[FeedEntry], source: str, report: Report) -> Optional[str]:
    """The feed's own site link, if it is an absolute http(s) URL links can be resolved
    against; one urllib cannot split is left out, counted."""
    site: Optional[str] = getattr(entries, "site", None)
    if not site or not _HTTP.match(site):
        return None
    why = base_problem(site)
    if why is not None:
        report.warn("bad site URL", source, None, f"the feed's site link {shown(site, 200)} is "
                    f"not a URL ({why}): not used to resolve links or as the scope")
        return None
    return site


_HTTP = re.compile(r"\s*https?://", re.I)


def _all_absolute(entries: list[FeedEntry]) -> bool:
    """Whether every link is an http(s) URL: counted in C where none holds a NUL (most feeds),
    else link by link."""
    links = list(filter(None, map(itemgetter(0), entries)))
    joined = "\0" + "\0".join(links)
    if joined.count("\0") == len(links) and (
            joined.count("\0https://") + joined.count("\0http://") == len(links)):
        return True
    return all(map(_HTTP.match, links))


def _on_site(site: str, entries: list[FeedEntry]) -> bool:
    """Whether some entry lies on the site's scheme and host (a feed whose link says http://
    while every page is https:// would otherwise lose all its pages)."""
    try:
        scope = scope_of(site, directory=False)
    except ValueError:
        return False
    links = [link for link, _, _ in entries if link]
    return not links or scope.holds_any(links)


def _drop_placeholders(lastmods: list[Optional[Lastmod]], lines: list[Optional[int]],
                       source: str, report: Report) -> None:
    """A year before MIN_YEAR (Hugo's 0001-01-01 for an undated page) is no date: the entry is
    kept without a lastmod, with a warning."""
    for i, value in enumerate(lastmods):
        if value is not None and value.year < MIN_YEAR:
            lastmods[i] = None
            report.warn("placeholder lastmod", source, lines[i], f"date {value.isoformat()} "
                        f"is a placeholder (a year before {MIN_YEAR}), not a date; no lastmod")


def _news_entries(read: FeedRead, entries: FeedEntries, exts: Optional[list[Any]],
                 news: NewsSitemap, source: str,
                 report: Report) -> tuple[FeedEntries, list[Any]]:
    """The entries published in the last two days, each with its <news:news> among its
    extensions; the others are left out, counted."""

    from ...extensions.news import feed_language, news_for_entry, news_language, now
    from ...model.extensions import EMPTY, Extensions

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
