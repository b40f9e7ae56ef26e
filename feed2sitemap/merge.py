"""Newest-wins merging of the copies of a URL: the rules, the counts, and the plain reference.

Rules (one entry per normalised URL):

- the entry keeps the position where its URL was first seen;
- its lastmod is the newest of the copies' (a date counts as its midnight UTC; on a tie the
  earlier copy wins, so its form, date or datetime, is kept);
- its changefreq, and separately its priority, come from the copy with the newest lastmod when
  that copy has one, else from the first copy that has one (so a feed entry, which has a date
  but no priority, updates a sitemap entry's lastmod and keeps its priority);
- its extensions, kind by kind, come from the newest copy that has that kind
  (extensions/merging.py).

The store the command uses is mergecols.ColumnStore (columns, packed folds, a spill to disk
past a memory budget). ``ReferenceStore`` here is the rules said plainly, taken under
FEED2SITEMAP_REFERENCE=1: a dict from each URL to its newest record, all in memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Optional

from .batch import BATCH, Batch
from .extensions.value import EMPTY
from .record import Lastmod, Record, lastmod_key, make_record

if TYPE_CHECKING:
    from .extensions.merging import ExtensionMerger

__all__ = ["DEFAULT_MEMORY_LIMIT", "MergeCounts", "ReferenceStore"]


def _memory_limit_from_env() -> int:
    # FEED2SITEMAP_MERGE_MEMORY (bytes) lowers the budget: for small machines, and for the tests
    # that make a run spill to disk without a million URLs.
    try:
        return max(0, int(os.environ.get("FEED2SITEMAP_MERGE_MEMORY", "")))
    except ValueError:
        return 256 * 1024 * 1024


DEFAULT_MEMORY_LIMIT = _memory_limit_from_env()


@dataclass
class MergeCounts:
    """What merging did, in the terms the summary uses.

    With a ``base`` (the output file was also an input: an update in place), ``added`` counts
    URLs the base did not have and ``updated`` URLs whose lastmod, changefreq or priority now
    differ from the base's. Without one, ``added`` counts the distinct URLs and ``updated`` those
    whose entry a later copy changed. ``copies`` counts records folded into an earlier copy.
    """

    base: str | None = None
    urls: int = 0
    added: int = 0
    updated: int = 0
    copies: int = 0
    spilled: int = 0  # URLs kept on disk rather than in memory
    # called with each URL added or updated (compared with the base): what IndexNow is told
    on_change: Callable[[str], None] | None = field(default=None, repr=False, compare=False)


def _key(lastmod: Optional[Lastmod]) -> tuple[bool, Optional[datetime]]:
    """For "newest": no lastmod is older than any; a date is its midnight UTC."""
    return (False, None) if lastmod is None else (True, lastmod_key(lastmod))


def _same(a: Optional[Lastmod], b: Optional[Lastmod]) -> bool:
    """The same lastmod as written: the same instant in the same form (date or datetime)."""
    return _key(a) == _key(b) and isinstance(a, datetime) == isinstance(b, datetime)


class _Entry:
    """One URL: its first copy, its newest, the first changefreq and priority given, and the
    copy it is compared with for "updated" (the base's first, or without a base the first)."""

    __slots__ = ("base", "changefreq", "copies", "extensions", "first", "newest", "priority")

    def __init__(self, first: Record, compared: bool) -> None:
        self.first = self.newest = first
        self.changefreq, self.priority = first.changefreq, first.priority
        self.base = first if compared else None
        self.copies = 0
        self.extensions: Optional[ExtensionMerger] = None

    def add(self, copy: Record, compared: bool) -> None:
        """Fold in a later copy (``compared``: it comes from the base)."""
        self.copies += 1
        if _key(copy.lastmod) > _key(self.newest.lastmod):  # strictly: a tie keeps the earlier
            self.newest = copy
        if self.changefreq is None:
            self.changefreq = copy.changefreq
        if self.priority is None:
            self.priority = copy.priority
        if self.base is None and compared:
            self.base = copy

    def merged(self) -> Record:
        first, newest = self.first, self.newest
        return make_record(
            first.loc, newest.lastmod,
            self.changefreq if newest.changefreq is None else newest.changefreq,
            self.priority if newest.priority is None else newest.priority,
            first.is_sitemap, first.source, first.line,
            EMPTY if self.extensions is None else self.extensions.value())

    def updated(self, merged: Record) -> bool:
        base = self.base
        return base is not None and not (
            _same(merged.lastmod, base.lastmod) and merged.changefreq == base.changefreq
            and merged.priority == base.priority)


class ReferenceStore:
    """The plain merge: a dict from URL to its entry, in first-seen order, in memory (so
    ``memory_limit`` is not used). ColumnStore's interface: add, batches, close."""

    def __init__(self, *, base_mode: bool = False,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT) -> None:
        self.base_mode = base_mode
        self.entries: dict[str, _Entry] = {}

    def add(self, batch: Batch, is_base: bool = False) -> None:
        """Fold a batch of copies in (``is_base``: from the output's previous version)."""
        compared = is_base or not self.base_mode  # without a base, compare with the first copy
        for record in batch.records():
            entry = self.entries.get(record.loc)
            if entry is None:
                entry = self.entries[record.loc] = _Entry(record, compared)
            else:
                entry.add(record, compared)
            if record.extensions:
                if entry.extensions is None:
                    from .extensions.merging import ExtensionMerger  # (only with extensions)

                    entry.extensions = ExtensionMerger()
                entry.extensions.add(record.extensions, record.lastmod)

    def batches(self, counts: Optional[MergeCounts] = None) -> Iterator[Batch]:
        """Yield the merged entries in first-seen order (once), filling ``counts``."""
        counts = counts if counts is not None else MergeCounts()
        on_change = counts.on_change if self.base_mode else None
        run: list[Record] = []
        for loc, entry in self.entries.items():
            record = entry.merged()
            counts.urls += 1
            counts.copies += entry.copies
            changes = []
            if not (self.base_mode and entry.base is not None):
                counts.added += 1
                changes.append(loc)
            if entry.updated(record):
                counts.updated += 1
                changes.append(loc)
            if on_change is not None:
                for changed in changes:
                    on_change(changed)
            if run and (len(run) >= BATCH or run[0].is_sitemap != record.is_sitemap):
                yield Batch.of_records(run)
                run = []
            run.append(record)
        if run:
            yield Batch.of_records(run)
        self.entries = {}

    def close(self) -> None:
        self.entries = {}
