"""The text half of ``check``: plain URL lists (every line judged, where readers.text stops at
the first bad one) and RSS/Atom feeds (expat for well-formedness and positions, then the
converter's own feed readers for each entry's link and date)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

from .check_xml import parse_xml
from .errors import InputError
from .readers.feed import DEFAULT_MAX_FEED_BYTES
from .readers.feedpolicy import FeedUnreadable, read_feed_entries
from .readers.text import MAX_LINE
from .xmlutil import (
    MAX_VALUE,
    EntitiesForbidden,
    MarkupGuard,
    XMLRefused,
    expat_input,
    safe_expat_parser,
)

if TYPE_CHECKING:
    from .check import Diagnostic, FileCheck

__all__ = ["check_feed", "check_text"]

_FEED_ENTRIES = {"item", "entry"}


def check_text(stream: IO[bytes], f: FileCheck) -> Iterator[Diagnostic]:
    """A text sitemap: one absolute URL per line, UTF-8. Unlike readers.text, which stops at the
    first bad line, every line is judged."""
    try:
        yield from _check_lines(stream, f)
    except InputError as exc:  # gzip data that breaks off or expands like a bomb
        f.error("input", 1, 1, exc.reason)
        yield from f.pop_all()


def _check_lines(stream: IO[bytes], f: FileCheck) -> Iterator[Diagnostic]:
    lineno = offset = blank = 0
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            break
        lineno += 1
        offset += len(raw)
        f.size(offset, lineno, 1)
        # A run of blank lines is only white space: past MAX_VALUE bytes it stops the check, as
        # in XML (a gigabyte of newlines would otherwise take minutes, line by line).
        blank = blank + len(raw) if raw.isspace() else 0
        if blank > MAX_VALUE:
            f.error("too-complex", lineno, 1, f"more than {MAX_VALUE:,} bytes of blank lines; "
                    "refused, checking stopped here")
            break
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            f.error("loc-too-long", lineno, 1, f"a line of more than {MAX_LINE:,} bytes")
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(MAX_LINE + 1)
                offset += len(raw)
            yield from f.pop_all()
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            col = len(raw[:exc.start].decode("utf-8", "replace")) + 1
            f.error("encoding", lineno, col, "bytes that are not UTF-8; sitemaps.org "
                    "requires UTF-8")
            yield from f.pop_all()
            continue
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        loc = text.strip()
        if loc:
            col = len(text) - len(text.lstrip()) + 1
            f.entry(lineno, col)
            f.loc(loc, lineno, col)
        yield from f.pop_all()
    if not f.entries:
        f.error("empty-set", max(lineno, 1), 1, "no URLs in the file")
    yield from f.pop_all()


def check_feed(stream: IO[bytes], f: FileCheck, base_url: str | None,
                utf8: bool) -> Iterator[Diagnostic]:
    """A feed used as a sitemap: well-formed XML (expat, with positions), then feedparser for
    each entry's link and date by the converter's own rules (readers.feed)."""
    limit = min(f.profile.max_bytes, DEFAULT_MAX_FEED_BYTES)
    data = stream.read(limit + 1)
    if len(data) > limit:
        f.error("too-large", 1, 1, f"feed larger than {limit:,} bytes; profile "
                f"{f.profile.name} allows {f.profile.max_bytes:,}")
        return (yield from f.pop_all())
    starts: list[tuple[int, int]] = []
    try:
        stream, encoding = expat_input(io.BufferedReader(io.BytesIO(data)))
    except XMLRefused as exc:
        f.error("encoding", 1, 1, f"{exc}; checking stopped here")
        return (yield from f.pop_all())
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
    early = list(parse_xml(stream, p, guard, f, utf8))
    if any(d.rule in ("not-well-formed", "dtd", "input", "too-complex") for d in early):
        yield from early  # feedparser would guess; a sitemap reader would stop here
        return
    # the converter's own policy (readers.feedpolicy): the streaming fast path, else feedparser;
    # --base-url resolves relative links, as the feed's own URL would
    try:
        read = read_feed_entries(data, base_url)
    except (XMLRefused, FeedUnreadable) as exc:  # refused or unreadable, as the converter says
        if isinstance(exc, FeedUnreadable):  # feedparser's own crash on odd input
            f.error("feed-malformed", 1, 1, f"feedparser cannot read it: {exc.cause}")
        else:  # what the expat pass above did not see: "<!ENTITY" in text, xmlns counted raw
            f.error("dtd" if isinstance(exc, EntitiesForbidden) else "too-complex",
                    exc.line or 1, 1, f"{exc}; checking stopped here")
        yield from sorted([*early, *f.pop_all()], key=lambda d: (d.line, d.column))
        return
    entries, is_feed = read.entries, read.is_feed
    if read.malformed is not None and (utf8 or not read.malformed.encoding_only):
        f.error("feed-malformed", 1, 1, f"feedparser: {read.malformed.reason}")
    if not is_feed:
        f.error("feed-malformed", 1, 1, "not an RSS or Atom feed that feedparser can read")
    aligned = len(starts) == len(entries)
    for i, (link, lastmod, entry_line) in enumerate(entries):
        line, col = (entry_line, 1) if entry_line else starts[i] if aligned else (1, 1)
        what = "" if entry_line or aligned else f" (entry {i + 1})"
        f.entry(line, col)
        if not link:
            # a draft or a note: the feed is valid, the converter skips the entry (and says so)
            f.warn("missing-loc", line, col, "feed entry without a link: not in the sitemap"
                   + what)
            continue
        f.loc(link, line, col)
        if lastmod is not None and lastmod > f.now:
            f.warn("lastmod-future", line, col, f"entry date {lastmod.isoformat()} is in the "
                   "future" + what)
    if is_feed and not entries:
        f.error("empty-set", 1, 1, "the feed has no entries")
    yield from sorted([*early, *f.pop_all()], key=lambda d: (d.line, d.column))
