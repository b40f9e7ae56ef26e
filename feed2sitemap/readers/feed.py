"""RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 feeds: each entry's page link and date."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Optional

from ..batch import BATCH, Batch, unbatched
from ..errors import InputError
from ..record import MIN_YEAR, Lastmod, Record
from ..report import Report
from ..urls import normalize_url, resolve, scope_of

if TYPE_CHECKING:
    from .feedstream import FeedEntries, FeedEntry

__all__ = ["DEFAULT_MAX_FEED_BYTES", "read_feed"]

# A feed is parsed whole (feedparser needs it in memory, and about ten times its size while
# parsing), so it is refused above this size. 32 MiB is twice a 50,000-item RSS feed (16 MB),
# larger than any real feed we have seen, and keeps a malformed feed that only feedparser can
# read within a few hundred MB; --max-feed-bytes changes it.
DEFAULT_MAX_FEED_BYTES = 32 * 1024 * 1024

# A DOCTYPE that declares entities, in UTF-8/ASCII-compatible or UTF-16 bytes. Checked before
# feedparser sees the document: its SAX parser would expand internal entities.
_ENTITY_DECL = (b"<!ENTITY", "<!ENTITY".encode("utf-16-le"), "<!ENTITY".encode("utf-16-be"))


def read_all(stream: IO[bytes], source: str, max_bytes: int) -> bytes:
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(source, None, f"feed larger than {max_bytes:,} bytes; a feed is parsed "
                         "whole, raise --max-feed-bytes if this one is genuine")
    return data


def read_feed(stream: IO[bytes], source: str, report: Report, base_url: Optional[str] = None,
              *, max_bytes: int = DEFAULT_MAX_FEED_BYTES) -> Iterator[Record]:
    """Yield a Record per feed entry (see read_feed_batches)."""
    return unbatched(read_feed_batches(stream, source, report, base_url, max_bytes=max_bytes))


def read_feed_batches(stream: IO[bytes], source: str, report: Report,
                      base_url: Optional[str] = None, *,
                      max_bytes: int = DEFAULT_MAX_FEED_BYTES) -> Iterator[Batch]:
    """Yield the feed's entries in batches: each one's page link and its updated-else-published
    time.

    The page URL is the entry's first rel="alternate" link (no rel counts as alternate), else
    feedparser's ``link`` (RSS <link>, or a permalink <guid>). Relative links are resolved
    against xml:base and ``base_url`` (the document's own URL, else --base-url), and without
    ``base_url`` against the feed's own site link; one still relative is left to the URL check
    to report. The site link goes to ``report.site`` when no input has stated one yet: it is
    the run's scope without --base-url.

    A well-formed feed is read by the streaming fast path (``feedstream``), which gives exactly
    feedparser's answer about 25 times faster; anything it does not understand, a malformed
    feed above all, goes to feedparser itself.
    """
    # feedparser and the fast path that replays it take a tenth of a second to import: only a
    # run that reads a feed pays for them
    from .feedstream import EntityDeclared, FastPathUnsupported, TooComplex, parse_feed_entries

    data = read_all(stream, source, max_bytes)
    try:
        # the fast path's parser refuses any entity declaration itself (EntityDeclared), and
        # what goes past the bounds of xmlutil.MarkupGuard (TooComplex)
        entries = parse_feed_entries(data, base_url)
    except TooComplex as exc:
        raise InputError(source, exc.line, exc.reason) from None
    except EntityDeclared:
        raise InputError(source, None, ENTITIES_REFUSED) from None
    except FastPathUnsupported:
        if any(marker in data for marker in _ENTITY_DECL):  # a plain substring search, in C
            raise InputError(source, None, ENTITIES_REFUSED) from None
        _guard_whole(data, source)
        entries = _via_feedparser(data, source, report, base_url)
    site = _site(entries)
    if site is not None and not base_url:  # the feed's own site is the base of what is left
        for i in [i for i, e in enumerate(entries) if e.link and not _HTTP.match(e.link)]:
            entries[i] = entries[i]._replace(link=resolve(site, entries[i].link or ""))
    if site is not None and report.site is None:
        if _on_site(site, entries):
            report.site, report.site_source = site, source
        else:
            report.note(f"{source}: the feed's site link {site[:200]} is on another site than "
                        "all of its entries (http for https, or www?); not used as the scope")
    for start in range(0, len(entries), BATCH):
        part = entries[start: start + BATCH]
        links, dates, numbers = zip(*part, strict=True)
        if all(links):  # the usual case: every entry has its link
            locs: list[str] = list(links)
            lastmods: list[Optional[Lastmod]] = list(dates)
            lines: list[Optional[int]] = [n or None for n in numbers]
        else:
            locs, lastmods, lines = [], [], []
            for n, (link, lastmod, line) in enumerate(part, start + 1):
                if not link:
                    report.skip("no link", source, line or None, f"feed entry {n} has no link")
                    continue
                locs.append(link)
                lastmods.append(lastmod)
                lines.append(line or None)
        oldest = min(filter(None, lastmods), default=None)  # (in C: no Python call per entry)
        if oldest is not None and oldest.year < MIN_YEAR:
            _drop_placeholders(lastmods, lines, source, report)
        if locs:
            yield Batch(locs, source, lines if any(lines) else None,
                        lastmods if lastmods.count(None) < len(lastmods) else None)


ENTITIES_REFUSED = ("the feed declares entities (DOCTYPE with <!ENTITY>); refused for safety: "
                    "entity expansion and external entities are not allowed")


def _site(entries: list[FeedEntry]) -> Optional[str]:
    """The feed's own site link, if it is an absolute http(s) URL."""
    site = getattr(entries, "site", None)
    return site if site and _HTTP.match(site) else None


_HTTP = re.compile(r"\s*https?://", re.I)


def _on_site(site: str, entries: list[FeedEntry]) -> bool:
    """Whether some entry (the first, usually) lies on the site's scheme and host: a feed whose
    link says http:// while every page is https:// would otherwise lose all its pages."""
    try:
        origin = scope_of(site, directory=False).prefix
    except ValueError:
        return False
    for link, _, _ in entries:
        try:
            if link and normalize_url(link).startswith(origin):
                return True
        except ValueError:
            continue
    return not any(link for link, _, _ in entries)


def _drop_placeholders(lastmods: list[Optional[Lastmod]], lines: list[Optional[int]],
                       source: str, report: Report) -> None:
    """A year before 1000 (Hugo's 0001-01-01T00:00:00Z for an undated page) is no date: the
    entry is kept without a lastmod, and the warning counted (record.MIN_YEAR)."""
    for i, value in enumerate(lastmods):
        if value is not None and value.year < MIN_YEAR:
            lastmods[i] = None
            report.warn("placeholder lastmod", source, lines[i], f"date {value.isoformat()} "
                        f"is a placeholder (a year before {MIN_YEAR}), not a date; no lastmod")


def _guard_whole(data: bytes, source: str) -> None:
    """Before feedparser parses a feed the fast path gave up on (often one that is not
    well-formed, where the fast path stopped early): the same bound on tag size, so that one
    tag with millions of attributes is not held whole (by expat, then by feedparser's dicts),
    and the same cap on namespace declarations, counted on the bytes (an upper bound)."""
    from ..xmlutil import MAX_NAMESPACES, MarkupGuard, XMLTooComplex

    guard = MarkupGuard()
    try:
        for i in range(0, len(data), 1 << 16):
            guard.scan(data[i:i + (1 << 16)])
    except XMLTooComplex as exc:
        line = data.count(b"\n", 0, i) + 1
        raise InputError(source, line, str(exc)) from None
    for n, m in enumerate(_XMLNS.finditer(data), 1):
        if n > MAX_NAMESPACES:
            raise InputError(source, data.count(b"\n", 0, m.start()) + 1, "more than "
                             f"{MAX_NAMESPACES:,} namespace declarations")


_XMLNS = re.compile(rb"xmlns(?::[^\s=>]*)?\s*=")


def _via_feedparser(data: bytes, source: str, report: Report,
                    base_url: Optional[str]) -> FeedEntries:
    import feedparser

    from .feedstream import feedparser_entries

    try:
        entries, parsed = feedparser_entries(data, base_url)
    except Exception as exc:  # noqa: BLE001
        # feedparser promises never to raise (it sets bozo), but hostile bytes still reach
        # errors inside it (a NUL in the declared encoding name: ValueError; odd nesting:
        # TypeError). Whatever it is, it is this input's fault: bad data, not a crash.
        raise InputError(source, None, f"not a feed that can be read ({type(exc).__name__}: "
                         f"{exc})") from None
    bozo = parsed.get("bozo_exception")  # type: ignore[attr-defined]
    if bozo is not None and not (base_url and isinstance(bozo, feedparser.NonXMLContentType)):
        if not parsed.get("version") and not entries:  # type: ignore[attr-defined]
            raise InputError(source, _bozo_line(bozo), f"not a feed that can be read: {bozo}")
        report.warn("malformed feed", source, _bozo_line(bozo),
                    f"malformed feed, read as far as possible: {bozo}")
    return entries


def _bozo_line(exc: Exception) -> Optional[int]:
    get = getattr(exc, "getLineNumber", None)
    return get() if callable(get) else None
