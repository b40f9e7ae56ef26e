"""The list-and-JSON half of ``check``: TSV, CSV and JSON Lines lists, and JSON Feeds.

The rows are read by the converter's own readers (readers.columns, readers.jsonfeed), so the
checker sees exactly what the converter would; each value is then judged by the same rules and
rule ids as an XML sitemap's (check.FileCheck.loc, check_xml.xsd_lastmod, xsd_priority).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Optional

from .check_xml import xsd_lastmod, xsd_priority
from .errors import InputError
from .readers.columns import csv_rows, jsonl_rows, tsv_rows
from .readers.feed import DEFAULT_MAX_FEED_BYTES
from .readers.fields import Rows
from .record import CHANGEFREQS, lastmod_key
from .report import Report

if TYPE_CHECKING:
    from .check import Diagnostic, FileCheck

__all__ = ["check_columns", "check_jsonfeed"]

# A reader's problem kind → (severity, rule id): the ids the XML checks use for the same fault
_RULES = {
    "unknown column": ("warning", "unknown-field"),
    "unknown field": ("warning", "unknown-field"),
    "bad lastmod": ("error", "lastmod-format"),
    "no link": ("error", "missing-loc"),
    "link post": ("warning", "missing-loc"),
}


class _Collected(Report):
    """A Report that keeps each problem for the checker instead of printing it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, Optional[int], str]] = []

    def warn(self, kind: str, source: Optional[str], line: Optional[int], text: str) -> None:
        self.found.append((kind, line, text))

    def skip(self, kind: str, source: Optional[str], line: Optional[int], text: str) -> None:
        self.found.append((kind, line, text))


def _flush(report: _Collected, f: FileCheck) -> None:
    for kind, line, text in report.found:
        severity, rule = _RULES.get(kind, ("error", "format"))
        (f.warn if severity == "warning" else f.error)(rule, line or 1, 1, text)
    report.found.clear()


def check_columns(stream: IO[bytes], f: FileCheck, kind: str) -> Iterator[Diagnostic]:
    """A TSV, CSV or JSON Lines list: every row's fields, as XML sitemap fields are checked.

    A list is an input to convert, not a sitemap a search engine reads, so the per-file URL and
    byte limits are not applied to it (the converter splits what it writes).
    """
    report = _Collected()
    blocks = {"tsv": lambda: tsv_rows(stream, f.name, report),
              "csv": lambda: csv_rows(stream, f.name, report),
              "jsonl": lambda: jsonl_rows(stream, f.name)}[kind]()
    try:
        for rows in blocks:
            _flush(report, f)
            _check_rows(rows, f)
            yield from f.pop_all()
    except InputError as exc:
        _flush(report, f)
        rule = "encoding" if "UTF" in exc.reason else "format"
        f.error(rule, exc.line or 1, exc.column or 1, exc.reason)
    if not f.entries:
        f.error("empty-set", 1, 1, "no URLs in the file")
    yield from f.pop_all()


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
            f.loc(loc, line, 1)
        _check_fields(rows, i, line, f)


def _check_fields(rows: Rows, i: int, line: int, f: FileCheck) -> None:
    lastmod, changefreq, priority = rows.lastmods[i], rows.changefreqs[i], rows.priorities[i]
    if lastmod is not None:
        problem, naive, instant = xsd_lastmod(lastmod)
        if problem:
            f.error("lastmod-format", line, 1, problem)
        elif naive:
            f.error("lastmod-timezone", line, 1, f"{lastmod.strip()[:40]!r} has a time without "
                    "a timezone; sitemaps.org requires one (Z or +hh:mm)")
        elif instant is not None and instant > f.now:
            f.warn("lastmod-future", line, 1, f"lastmod {lastmod.strip()[:40]} is in the future")
    if changefreq is not None and changefreq.strip() not in CHANGEFREQS:
        # a column value is taken stripped (as the converter does); case still matters
        f.error("changefreq", line, 1, f"{changefreq[:40]!r} is not one of "
                f"{', '.join(CHANGEFREQS)} (exactly, lower-case)")
    if priority is not None:
        problem = xsd_priority(priority)
        if problem:
            f.error("priority", line, 1, problem)


def check_jsonfeed(stream: IO[bytes], f: FileCheck, base_url: Optional[str]
                   ) -> Iterator[Diagnostic]:
    """A JSON Feed used as a sitemap: each item's page and date, by the converter's rules.
    JSON gives no positions for values: items are named by number in the messages."""
    from .batch import unbatched
    from .readers.jsonfeed import read_jsonfeed

    report = _Collected()
    limit = min(f.profile.max_bytes, DEFAULT_MAX_FEED_BYTES)
    try:
        for record in unbatched(read_jsonfeed(stream, f.name, report, base_url,
                                              max_bytes=limit)):
            f.entry(1, 1)
            f.loc(record.loc, 1, 1)
            if record.lastmod is not None and lastmod_key(record.lastmod) > f.now:
                f.warn("lastmod-future", 1, 1, f"item date {record.lastmod.isoformat()} is in "
                       "the future")
    except InputError as exc:
        rule = "too-large" if "larger than" in exc.reason else "format"
        f.error(rule, exc.line or 1, exc.column or 1, exc.reason)
        _flush(report, f)
        yield from f.pop_all()
        return
    _flush(report, f)
    if not f.entries:
        f.error("empty-set", 1, 1, "the feed has no items with a page URL")
    yield from f.pop_all()
