"""RSS/Atom feeds used as sitemaps: expat for well-formedness and positions, then the
converter's own feed readers for each entry's link and date.

The choice between the streaming fast path and feedparser, what a malformed feed means and
what is refused, is the converter's own policy (readers.feedpolicy.read_feed_entries), called
from one place here: ``feed_entries``. The reference mode (backends.py) takes feedparser there,
after
a pass that defusedxml reads through too (xmlutil.defused_parse).
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from ..readers.feed.fastpass import FeedEntry
from ..readers.feed.policy import FeedUnreadable, read_feed_entries
from ..readers.feed.reader import DEFAULT_MAX_FEED_BYTES
from ..xmlutil import (
    EntitiesForbidden,
    MarkupGuard,
    XMLRefused,
    expat_input,
    safe_expat_parser,
)
from .locs import check_loc
from .xmlstream import parse_xml

if TYPE_CHECKING:
    from .diagnostics import Diagnostic, FileCheck

__all__ = ["check_feed", "feed_entries"]

_FEED_ENTRIES = {"item", "entry"}
# what the expat pass finds that stops the check: feedparser would guess, a sitemap reader stop
_FATAL = ("not-well-formed", "dtd", "input", "too-complex")


def check_feed(stream: IO[bytes], f: FileCheck, base_url: str | None,
               utf8: bool) -> Iterator[Diagnostic]:
    """A feed used as a sitemap: well-formed XML (expat, with positions), then each entry's
    link and date by the converter's own rules (readers.feed)."""
    limit = min(f.profile.max_bytes, DEFAULT_MAX_FEED_BYTES)
    data = stream.read(limit + 1)
    if len(data) > limit:
        f.error("too-large", 1, 1, f"feed larger than {limit:,} bytes; profile "
                f"{f.profile.name} allows {f.profile.max_bytes:,}")
        return (yield from f.pop_all())
    try:
        xml, encoding = expat_input(io.BufferedReader(io.BytesIO(data)))
    except XMLRefused as exc:
        f.error("encoding", 1, 1, f"{exc}; checking stopped here")
        return (yield from f.pop_all())
    starts: list[tuple[int, int]] = []
    parser, guard = _entry_starts(encoding, starts)
    early = list(parse_xml(xml, parser, guard, f, utf8))
    if any(d.rule in _FATAL for d in early):
        yield from early
        return
    found = feed_entries(data, base_url, f, utf8)
    if found is None:  # refused: what the expat pass or the policy said, and no more
        yield from sorted([*early, *f.pop_all()], key=lambda d: (d.line, d.column))
        return
    entries, is_feed = found
    _check_entries(f, entries, starts)
    if is_feed and not entries:
        f.error("empty-set", 1, 1, "the feed has no entries")
    yield from sorted([*early, *f.pop_all()], key=lambda d: (d.line, d.column))


def feed_entries(data: bytes, base_url: str | None, f: FileCheck,
                 utf8: bool) -> tuple[Sequence[FeedEntry], bool] | None:
    """The feed's entries as the converter reads them, and whether it is a feed at all; None
    when the converter's policy refuses it (an error is then reported here).

    feedparser's complaints about a malformed feed are errors here (`base_url` resolves
    relative links, as the feed's own URL would, and stands for its content type).
    """
    try:
        read = read_feed_entries(data, base_url)
    except FeedUnreadable as exc:  # feedparser's own crash on odd input
        f.error("feed-malformed", 1, 1, f"feedparser cannot read it: {exc.cause}")
        return [], False
    except XMLRefused as exc:  # what the expat pass did not see: "<!ENTITY" in text, say
        f.error("dtd" if isinstance(exc, EntitiesForbidden) else "too-complex",
                exc.line or 1, 1, f"{exc}; checking stopped here")
        return None
    if read.malformed is not None and (utf8 or not read.malformed.encoding_only):
        f.error("feed-malformed", 1, 1, f"feedparser: {read.malformed.reason}")
    if not read.is_feed:
        f.error("feed-malformed", 1, 1, "not an RSS or Atom feed that feedparser can read")
    return read.entries, read.is_feed


def _entry_starts(encoding: str | None,
                  starts: list[tuple[int, int]]) -> tuple[Any, MarkupGuard]:
    """An expat parser (with the converter's bounds) that notes where each entry begins."""
    guard = MarkupGuard()
    p = safe_expat_parser(" ", guard, encoding)
    depth = 0

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        guard.depth(depth)
        guard.element(name, attrs)
        if name.rpartition(" ")[2] in _FEED_ENTRIES:
            starts.append((p.CurrentLineNumber, p.CurrentColumnNumber + 1))

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1

    p.StartElementHandler, p.EndElementHandler = start, end
    return p, guard


def _check_entries(f: FileCheck, entries: Sequence[FeedEntry],
                   starts: list[tuple[int, int]]) -> None:
    # the expat pass's positions (line and column) when they are as many as the entries, else
    # the line the fast path gives (feedparser gives none)
    aligned = len(starts) == len(entries)
    for i, (link, lastmod, entry_line) in enumerate(entries):
        line, col = starts[i] if aligned else (entry_line, 1) if entry_line else (1, 1)
        what = "" if entry_line or aligned else f" (entry {i + 1})"
        f.entry(line, col)
        if not link:
            # a draft or a note: the feed is valid, the converter skips the entry (and says so)
            f.warn("missing-loc", line, col, "feed entry without a link: not in the sitemap"
                   + what)
            continue
        check_loc(f, link, line, col)
        if lastmod is not None and lastmod > f.now:
            f.warn("lastmod-future", line, col, f"entry date {lastmod.isoformat()} is in the "
                   "future" + what)
