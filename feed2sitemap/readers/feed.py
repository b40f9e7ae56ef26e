"""RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 feeds: each entry's page link and date."""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import IO, Any, Optional

import feedparser

from ..errors import InputError
from ..record import Record, make_record
from ..report import Report

__all__ = ["DEFAULT_MAX_FEED_BYTES", "read_feed"]

# A feed is parsed whole (feedparser needs it in memory, and about ten times its size while
# parsing), so it is refused above this size. 32 MiB is twice a 50,000-item RSS feed (16 MB),
# larger than any real feed we have seen, and keeps a malformed feed that only feedparser can
# read within a few hundred MB; --max-feed-bytes changes it.
DEFAULT_MAX_FEED_BYTES = 32 * 1024 * 1024

# A DOCTYPE that declares entities, in UTF-8/ASCII-compatible or UTF-16 bytes. Checked before
# feedparser sees the document: its SAX parser would expand internal entities.
_ENTITY_DECL = re.compile(rb"<!ENTITY|<\x00!\x00E\x00N\x00T\x00I\x00T\x00Y\x00|"
                          rb"\x00<\x00!\x00E\x00N\x00T\x00I\x00T\x00Y")


def read_all(stream: IO[bytes], source: str, max_bytes: int) -> bytes:
    data = stream.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(source, None, f"feed larger than {max_bytes:,} bytes; a feed is parsed "
                         "whole, raise --max-feed-bytes if this one is genuine")
    return data


def read_feed(stream: IO[bytes], source: str, report: Report, base_url: Optional[str] = None,
              *, max_bytes: int = DEFAULT_MAX_FEED_BYTES) -> Iterator[Record]:
    """Yield a Record per feed entry: the page link and the updated-else-published time.

    The page URL is the entry's first rel="alternate" link (no rel counts as alternate), else
    feedparser's ``link`` (RSS <link>, or a permalink <guid>). Relative links are resolved
    against xml:base and ``base_url``; one still relative is left to the URL check to report.
    """
    data = read_all(stream, source, max_bytes)
    if _ENTITY_DECL.search(data):
        raise InputError(source, None, "the feed declares entities (DOCTYPE with <!ENTITY>); "
                         "refused for safety: entity expansion and external entities are not "
                         "allowed")
    headers = {"content-location": base_url} if base_url else None
    try:
        parsed = feedparser.parse(data, response_headers=headers)
    except Exception as exc:  # noqa: BLE001
        # feedparser promises never to raise (it sets bozo), but hostile bytes still reach
        # errors inside it (a NUL in the declared encoding name: ValueError). Whatever it is,
        # it is this input's fault, so it is reported as bad data, not a crash.
        raise InputError(source, None, f"not a feed that can be read ({type(exc).__name__}: "
                         f"{exc})") from None
    bozo = parsed.get("bozo_exception")
    if bozo is not None and not (headers and isinstance(bozo, feedparser.NonXMLContentType)):
        if not parsed.get("version") and not parsed.entries:
            raise InputError(source, getattr(bozo, "getLineNumber", lambda: None)(),
                             f"not a feed that can be read: {bozo}")
        report.warn("malformed feed", source, _bozo_line(bozo),
                    f"malformed feed, read as far as possible: {bozo}")
    for entry in parsed.entries:
        link = entry_link(entry)
        if not link:
            report.skip("no link", source, None, f"feed entry without a link "
                        f"({_describe(entry)})")
            continue
        yield make_record(link, entry_lastmod(entry), source=source)


def entry_link(entry: Any) -> Optional[str]:
    for link in entry.get("links", ()):
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return str(link["href"])
    link = entry.get("link")
    return str(link) if link else None


def entry_lastmod(entry: Any) -> Optional[datetime]:
    """The entry's updated-else-published time; the Unix epoch itself means "unknown".

    Atom requires an <updated> even where the time is unknown; our Atom writer (like many
    generators) then writes 1970-01-01T00:00:00Z, and that must not come back as a page's date.
    """
    for key in ("updated_parsed", "published_parsed"):
        # dict.get: FeedParserDict.get("updated_parsed") falls back to published_parsed with a
        # DeprecationWarning (feedparser issue 310) when the entry has no updated time.
        parsed = dict.get(entry, key)
        if parsed:
            seconds = calendar.timegm(parsed)
            if seconds != 0:
                return datetime.fromtimestamp(seconds, timezone.utc)
    return None


def _bozo_line(exc: Exception) -> Optional[int]:
    get = getattr(exc, "getLineNumber", None)
    return get() if callable(get) else None


def _describe(entry: Any) -> str:
    title = entry.get("title") or entry.get("id") or "untitled"
    return repr(str(title)[:60])
