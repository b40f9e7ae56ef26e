"""URL lists (text, TSV, CSV, JSON Lines), JSON Feeds and RSS/Atom feeds.

A text list's every line is judged (readers.text stops at the first bad one). The others are
read by the converter's own readers, so the checker sees exactly what the converter would, and
each value is judged by an XML sitemap's rules and rule ids (locs.py); extension fields of JSON
Lines rows are not judged (a known gap). A feed is read by expat first, for well-formedness and
each entry's position, then by the converter's feed policy (readers.feed.policy).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from ..errors import InputError, Problem
from ..model.limits import CLOCK_SKEW, DEFAULT_MAX_FEED_BYTES
from ..model.report import Report
from ..model.rules import lastmod_key
from ..readers.columns import csv_rows, jsonl_rows, tsv_rows
from ..readers.fields import Rows
from ..readers.text import MAX_LINE
from ..xmlutil import (
    MAX_VALUE,
    EntitiesForbidden,
    MarkupGuard,
    XMLRefused,
    expat_input,
    safe_expat_parser,
)
from .locs import check_loc, judge_field
from .xml import parse_xml

if TYPE_CHECKING:
    from ..readers.feed.fastpass import FeedEntry
    from .diagnostics import Diagnostic, FileCheck

__all__ = ["check_columns", "check_feed", "check_jsonfeed", "check_text"]


def check_text(stream: IO[bytes], f: FileCheck) -> Iterator[Diagnostic]:
    """A text sitemap: one absolute URL per line, UTF-8."""
    lineno = offset = blank = 0
    try:
        while raw := stream.readline(MAX_LINE + 1):
            lineno += 1
            offset += len(raw)
            f.size(offset, lineno, 1)
            # blank lines past MAX_VALUE bytes stop the check, as in XML (a gigabyte of them)
            blank = blank + len(raw) if raw.isspace() else 0
            if blank > MAX_VALUE:
                f.error("too-complex", lineno, 1, f"more than {MAX_VALUE:,} bytes of blank "
                        "lines; refused, checking stopped here")
                break
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                f.error("loc-too-long", lineno, 1, f"a line of more than {MAX_LINE:,} bytes")
                while raw and not raw.endswith(b"\n"):
                    raw = stream.readline(MAX_LINE + 1)
                    offset += len(raw)
            else:
                _check_line(f, raw, lineno)
            yield from f.pop_all()
    except InputError as exc:  # gzip data that breaks off or expands like a bomb
        f.error("input", 1, 1, exc.reason)
        return
    if not f.entries:
        f.error("empty-set", max(lineno, 1), 1, "no URLs in the file")


def _check_line(f: FileCheck, raw: bytes, lineno: int) -> None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        col = len(raw[:exc.start].decode("utf-8", "replace")) + 1
        f.error("encoding", lineno, col, "bytes that are not UTF-8; sitemaps.org requires UTF-8")
        return
    if lineno == 1 and text.startswith("\ufeff"):
        text = text[1:]
    loc = text.strip()
    if loc:
        col = len(text) - len(text.lstrip()) + 1
        f.entry(lineno, col)
        check_loc(f, loc, lineno, col)


# A reader's problem kind → (severity, rule id): the ids the XML checks use for the same fault
_RULES = {
    "unknown column": ("warning", "unknown-field"),
    "unknown field": ("warning", "unknown-field"),
    "bad lastmod": ("error", "lastmod-format"),
    "no link": ("error", "missing-loc"),
    "link post": ("warning", "missing-loc"),
}


def _flush(found: list[Problem], f: FileCheck) -> None:
    """The reader's problems (Report.on_problem) as diagnostics."""
    for p in found:
        severity, rule = _RULES.get(p.kind, ("error", "format"))
        (f.warn if severity == "warning" else f.error)(rule, p.line or 1, 1, p.reason)
    found.clear()


def check_columns(stream: IO[bytes], f: FileCheck, kind: str) -> Iterator[Diagnostic]:
    """A TSV, CSV or JSON Lines list: every row's fields, as XML sitemap fields are checked.
    No per-file limit: a list is an input to convert, which splits what it writes."""
    found: list[Problem] = []
    report = Report(on_problem=found.append)
    if kind == "jsonl":
        blocks = jsonl_rows(stream, f.name)
    else:
        blocks = (tsv_rows if kind == "tsv" else csv_rows)(stream, f.name, report)
    try:
        for rows in blocks:
            _flush(found, f)
            _check_rows(rows, f)
            yield from f.pop_all()
    except InputError as exc:
        _flush(found, f)
        rule = "encoding" if "UTF" in exc.reason else "format"
        f.error(rule, exc.line or 1, exc.column or 1, exc.reason)
    if not f.entries:
        f.error("empty-set", 1, 1, "no URLs in the file")


def _check_rows(rows: Rows, f: FileCheck) -> None:
    bad_rows = set()
    for i, what, message in rows.problems:
        line = rows.lines[i]
        if not what:
            bad_rows.add(i)
            f.error("format", line, 1, message)
        elif what == "field":
            f.warn("unknown-field", line, 1, message)
        else:
            f.error(f"{what}-format" if what == "lastmod" else what, line, 1, message)
    for i, line in enumerate(rows.lines):
        if i in bad_rows:
            continue
        loc = rows.locs[i]
        f.entries += 1  # (FileCheck.entry would apply the sitemap's per-file limit)
        f.stats.urls += 1
        if loc is None or not loc.strip():
            f.error("missing-loc", line, 1, "no loc (the URL) on this line")
        else:
            check_loc(f, loc, line, 1)
        fields = {"lastmod": rows.lastmods[i], "changefreq": rows.changefreqs[i],
                  "priority": rows.priorities[i]}
        for name, value in fields.items():
            if value is not None:
                judge_field(f, name, value, line, 1, stripped=True)
        f.notes.fields(fields["changefreq"] is not None, fields["priority"] is not None)


def check_jsonfeed(stream: IO[bytes], f: FileCheck, base_url: str | None) -> None:
    """A JSON Feed used as a sitemap: each item's page and date, by the converter's rules."""
    from ..model.batch import unbatched
    from ..readers.feed.jsonfeed import read_jsonfeed

    found: list[Problem] = []
    report = Report(on_problem=found.append)
    limit = min(f.profile.max_bytes, DEFAULT_MAX_FEED_BYTES)
    f.is_feed = True
    try:
        for record in unbatched(read_jsonfeed(stream, f.name, report, base_url,
                                              max_bytes=limit)):
            f.entry(1, 1)
            check_loc(f, record.loc, 1, 1)
            if record.lastmod is not None and lastmod_key(record.lastmod) > f.now + CLOCK_SKEW:
                f.warn("lastmod-future", 1, 1, f"item date {record.lastmod.isoformat()} is in "
                       "the future")
    except InputError as exc:
        rule = "too-large" if "larger than" in exc.reason else "format"
        f.error(rule, exc.line or 1, exc.column or 1, exc.reason)
        _flush(found, f)
    else:
        _flush(found, f)
        if not f.entries:
            f.error("empty-set", 1, 1, "the feed has no items with a page URL")


_FEED_ENTRIES = {"item", "entry"}
# what the expat pass finds that stops the check: feedparser would guess, a sitemap reader stop
_FATAL = ("not-well-formed", "dtd", "input", "too-complex")


def check_feed(stream: IO[bytes], f: FileCheck, base_url: str | None,
               utf8: bool) -> Iterator[Diagnostic]:
    """A feed used as a sitemap: well-formed XML (expat, with positions), then each entry's
    link and date by the converter's own rules (readers.feed)."""
    limit = min(f.profile.max_bytes, DEFAULT_MAX_FEED_BYTES)
    f.is_feed = True
    data = stream.read(limit + 1)
    if len(data) > limit:
        f.error("too-large", 1, 1, f"feed larger than {limit:,} bytes; profile "
                f"{f.profile.name} allows {f.profile.max_bytes:,}")
        return
    try:
        xml, encoding = expat_input(io.BufferedReader(io.BytesIO(data)))
    except XMLRefused as exc:
        f.error("encoding", 1, 1, f"{exc}; checking stopped here")
        return
    starts: list[tuple[int, int]] = []
    parser, guard, free = _entry_starts(encoding, starts)
    early = list(parse_xml(xml, parser, guard, f, utf8, free=free))
    if any(d.rule in _FATAL for d in early):
        yield from early
        return
    from ..readers.feed.policy import FeedUnreadable, read_feed_entries  # feedparser: 70 ms

    # feedparser's complaints about a malformed feed are errors here (``base_url`` resolves
    # relative links, as the feed's own URL would, and stands for its content type)
    try:
        read = read_feed_entries(data, base_url)
    except FeedUnreadable as exc:  # feedparser's own crash on odd input
        f.error("feed-malformed", 1, 1, f"feedparser cannot read it: {exc.cause}")
    except XMLRefused as exc:  # what the expat pass did not see: "<!ENTITY" in text, say
        f.error("dtd" if isinstance(exc, EntitiesForbidden) else "too-complex",
                exc.line or 1, 1, f"{exc}; checking stopped here")
    else:
        if read.malformed is not None and (utf8 or not read.malformed.encoding_only):
            f.error("feed-malformed", 1, 1, f"feedparser: {read.malformed.reason}")
        if not read.is_feed:
            f.error("feed-malformed", 1, 1, "not an RSS or Atom feed that feedparser can read")
        _check_entries(f, read.entries, starts)
        if read.is_feed and not read.entries:
            f.error("empty-set", 1, 1, "the feed has no entries")
    yield from sorted([*early, *f.pop_all()], key=lambda d: (d.line, d.column))


def _entry_starts(encoding: str | None, starts: list[tuple[int, int]]
                  ) -> tuple[Any, MarkupGuard, Callable[[], bool]]:
    """An expat parser (with the converter's bounds) that notes where each entry begins, and
    whether it is inside a text construct no reader keeps (content, summary, …), whose text may
    run past the markup bound, as the converter lets it."""
    from ..readers.feed.compat import FREE_TEXT

    free_names = {key.rpartition("_")[2] for key in FREE_TEXT}
    guard = MarkupGuard()
    p = safe_expat_parser(" ", guard, encoding)
    names: list[str] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        local = name.rpartition(" ")[2]
        names.append(local.lower())
        guard.depth(len(names))
        guard.element(name, attrs)
        if local in _FEED_ENTRIES:
            starts.append((p.CurrentLineNumber, p.CurrentColumnNumber + 1))

    def end(name: str) -> None:
        names.pop()

    p.StartElementHandler, p.EndElementHandler = start, end
    return p, guard, lambda: bool(names) and names[-1] in free_names


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
        if lastmod is not None and lastmod > f.now + CLOCK_SKEW:
            f.warn("lastmod-future", line, col, f"entry date {lastmod.isoformat()} is in the "
                   "future" + what)
