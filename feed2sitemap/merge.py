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

The store the command uses is ``Store``: the same rules on the batches' columns (a dict from
each URL to None while it has one copy, or to the fold of its later copies), with a spill to
disk past a memory budget (spill.py). ``ReferenceStore`` is the rules said plainly, taken under
FEED2SITEMAP_REFERENCE=1: a dict from each URL to its newest record, all in memory. A
differential test holds the two equal (tests/test_merge_store.py).
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import accumulate, compress, filterfalse
from typing import TYPE_CHECKING, Any, Optional, TypeVar

from .batch import BATCH, Batch
from .extensions.value import EMPTY, Extensions
from .record import Lastmod, Record, lastmod_key, make_record

if TYPE_CHECKING:
    from .extensions.merging import ExtensionMerger
    from .spill import Spill

_T = TypeVar("_T")

__all__ = ["DEFAULT_MEMORY_LIMIT", "MergeCounts", "ReferenceStore", "Store"]


def _memory_limit_from_env() -> int:
    # FEED2SITEMAP_MERGE_MEMORY (bytes) lowers the budget: for small machines, and for the tests
    # that make a run spill to disk without a million URLs.
    try:
        return max(0, int(os.environ.get("FEED2SITEMAP_MERGE_MEMORY", "")))
    except ValueError:
        return 640 * 1024 * 1024


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
    ``memory_limit`` is not used). Store's interface: add, batches, close."""

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


# What a URL kept in memory costs besides its characters and its columns' values (_row_cost):
# its string object, its dict slot, its segment's tuple slot and line (4 bytes: _rows); and
# what the fold of a URL's later copies costs (a tuple of eight, a dict slot, a lastmod).
# benchmarks/merge_memory.py measured 175 bytes of peak RSS per 62-character URL over
# 1,500,000 URLs (363 with a lastmod each, its text kept): the default budget (640 MiB) holds
# the 1.5 million URLs of bench.py's merge-lastmods row, and a run of any size stays under
# 1 GiB.
MEMORY_PER_URL = 90
FOLD_COST = 200


class Store:
    """The merge the command runs (ReferenceStore's rules, on columns): add batches, then take
    the merged ones (``batches``) once.

    ``index`` holds each URL (a dict of None: a set in first-seen order), ``folds`` the fold of
    the later copies of each URL that has some (_fold). The first copies stay in their batches'
    columns (``segments``, in the index's order), and go out as they came unless a later copy
    changed them. What stays held is tuples of str, dates and None, which the cyclic garbage
    collector stops walking (lists, and a dict of tuples, it walks at every full collection:
    that cost a third of a million-URL merge). Past ``memory_limit`` bytes the rows of URLs not
    held here go to a spill (spill.py), folded there by a Store of its own, partition by
    partition; they come after the ones held here, which is their first-seen order.
    """

    def __init__(self, *, base_mode: bool = False, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 partitions: Optional[int] = None, extensions: bool = True) -> None:
        self.base_mode = base_mode
        self.memory_limit = memory_limit
        self.partitions = partitions
        self.index: dict[str, None] = {}
        self.folds: dict[str, tuple[Any, ...]] = {}
        self.segments: list[tuple[Batch, bool]] = []
        self.used = 0
        self.copies = 0
        self.spill: Optional[Spill] = None
        # each URL's extensions, from every copy (spilled ones too); None: not kept here
        self.extensions: Optional[dict[str, ExtensionMerger]] = {} if extensions else None

    def add(self, batch: Batch, is_base: bool = False) -> Sequence[int]:
        """Fold a batch of copies in (``is_base``: from the output's previous version); the
        rows kept as first copies are returned."""
        if batch.extensions is not None and self.extensions is not None:
            self._add_extensions(batch)
        locs, index = batch.locs, self.index
        n = len(locs)
        seen: Optional[list[bool]] = None
        outside: Sequence[int] = range(n)
        if not index.keys().isdisjoint(locs):
            seen = list(map(index.__contains__, locs))
            outside = list(filterfalse(seen.__getitem__, range(n)))
        new, later = outside, []
        if outside:
            out_locs = _take(locs, outside)
            fresh = dict.fromkeys(out_locs)
            if len(fresh) < len(out_locs):  # a URL twice in the batch: its first row is new
                first = dict(zip(reversed(out_locs), reversed(outside), strict=True))
                new = sorted(first.values())
                later = sorted(set(outside).difference(new))
                fresh = dict.fromkeys(_take(locs, new))
            if self.spill is None:
                fits = self._fitting(batch, new)
                if fits:
                    kept = new[:fits]
                    index.update(fresh if fits == len(new) else dict.fromkeys(_take(locs, kept)))
                    self.segments.append((_rows(batch, kept), is_base))
                if fits < len(new):  # the budget reached: what is not held here spills
                    kept_rows = set(new[:fits])
                    later = [i for i in outside if i not in kept_rows and locs[i] in index]
                    outside = [i for i in outside if locs[i] not in index]
                    new = new[:fits]
                    from .spill import Spill  # (only a merge past its budget)

                    self.spill = Spill(self.partitions, self.memory_limit)
                    self.spill.add(batch, outside, is_base)
            else:  # past the budget: every row of a URL not held here goes to the spill
                self.spill.add(batch, outside, is_base)
                new, later = [], []
        if seen is not None:
            self._fold(batch, list(compress(range(n), seen)), is_base)
        if later:
            self._fold(batch, later, is_base)
        return new

    def _fitting(self, batch: Batch, rows: Sequence[int]) -> int:
        """How many of the new ``rows`` fit the budget (counted as used)."""
        per_row = _row_cost(batch)
        locs = batch.locs
        cost = per_row * len(rows) + sum(map(len, _take(locs, rows)))
        if self.used + cost <= self.memory_limit:
            self.used += cost
            return len(rows)
        room = self.memory_limit - self.used
        ends = list(accumulate(per_row + len(locs[i]) for i in rows))
        fits = bisect_right(ends, room)
        self.used += ends[fits - 1] if fits else 0
        return fits

    def _fold(self, batch: Batch, rows: list[int], is_base: bool) -> None:
        """Fold later copies of URLs held here into their entries, in row order."""
        self.copies += len(rows)
        lms, texts = batch.lastmods, batch.lastmod_texts
        cfs, prs = batch.changefreqs, batch.priorities
        if lms is None and cfs is None and prs is None and not self.base_mode:
            # no lastmod, changefreq or priority, and no base: such a copy is never the
            # newest, gives no field, and makes no URL added or updated; it changes nothing
            return
        compared = is_base or not self.base_mode
        folds, locs = self.folds, batch.locs
        for i in rows:
            lm = None if lms is None else lms[i]
            text = None if texts is None else texts[i]
            cf = None if cfs is None else cfs[i]
            pr = None if prs is None else prs[i]
            key = None if lm is None else lastmod_key(lm)
            fold = folds.get(locs[i])
            if fold is None:
                self.used += FOLD_COST
                folds[locs[i]] = (key, lm, text, cf, pr, cf, pr,
                                  (lm, cf, pr) if compared else None)
                continue
            first_cf, first_pr, base = fold[5:]
            if cf is not None and first_cf is None:
                first_cf = cf
            if pr is not None and first_pr is None:
                first_pr = pr
            if base is None and compared:
                base = (lm, cf, pr)
            if key is not None and (fold[0] is None or key > fold[0]):  # strictly: a tie
                folds[locs[i]] = (key, lm, text, cf, pr, first_cf, first_pr, base)  # keeps
            elif (first_cf, first_pr, base) != fold[5:]:                        # the earlier
                folds[locs[i]] = (*fold[:5], first_cf, first_pr, base)

    def _add_extensions(self, batch: Batch) -> None:
        from .extensions.merging import ExtensionMerger  # (only a run with extensions)

        assert self.extensions is not None and batch.extensions is not None
        mergers, lms = self.extensions, batch.lastmods
        for i, ext in enumerate(batch.extensions):
            if ext:
                merger = mergers.get(batch.locs[i])
                if merger is None:
                    merger = mergers[batch.locs[i]] = ExtensionMerger()
                merger.add(ext, None if lms is None else lms[i])

    def batches(self, counts: Optional[MergeCounts] = None) -> Iterator[Batch]:
        """Yield the merged entries in first-seen order (once), filling ``counts``."""
        counts = counts if counts is not None else MergeCounts()
        try:
            counts.copies += self.copies
            segments, self.segments = self.segments, []
            self.index = {}
            for seg, is_base in segments:
                yield self._merged(seg, is_base, list(map(self.folds.get, seg.locs)), counts)
            self.folds = {}
            if self.spill is not None:
                before = counts.urls
                yield from self.spill.merged(counts, self.base_mode, self.extensions)
                counts.spilled += counts.urls - before
        finally:
            self.close()

    def _merged(self, seg: Batch, is_base: bool, folds: list[Optional[tuple[Any, ...]]],
                counts: MergeCounts) -> Batch:
        """A segment's rows, each with its later copies folded in; counted (and told)."""
        n = len(seg.locs)
        batch = Batch._trusted(seg.locs, seg.source, None if seg.lines is None else list(
            seg.lines), seg.lastmods, seg.changefreqs, seg.priorities, seg.is_sitemap,
            seg.sources, seg.clean, self._extensions(seg.locs))
        batch.lastmod_texts = seg.lastmod_texts
        counts.urls += n
        first_base = is_base or not self.base_mode
        on_change = counts.on_change if self.base_mode else None
        rows = list(compress(range(n), folds))
        if not rows and on_change is None:
            counts.added += 0 if self.base_mode and is_base else n
            return batch
        lms: list[Any] = [None] * n if seg.lastmods is None else list(seg.lastmods)
        texts: list[Any] = [None] * n if seg.lastmod_texts is None else list(seg.lastmod_texts)
        cfs: list[Any] = [None] * n if seg.changefreqs is None else list(seg.changefreqs)
        prs: list[Any] = [None] * n if seg.priorities is None else list(seg.priorities)
        changed: dict[int, bool] = {}
        added = 0 if self.base_mode and is_base else n - len(rows)  # (the rows of one copy)
        for i in rows:
            key, lm, text, cf, pr, first_cf, first_pr, base = folds[i]  # type: ignore[misc]
            lm0, cf0, pr0 = lms[i], cfs[i], prs[i]
            if first_base:
                base = (lm0, cf0, pr0)
            if key is not None and (lm0 is None or key > lastmod_key(lm0)):  # a later copy
                lms[i], texts[i] = lm, text                                  # is the newest
            else:
                cf, pr = cf0, pr0
            cfs[i] = cf if cf is not None else cf0 if cf0 is not None else first_cf
            prs[i] = pr if pr is not None else pr0 if pr0 is not None else first_pr
            added += not (self.base_mode and base is not None)
            changed[i] = base is not None and not (
                (lms[i] is base[0] or _same(lms[i], base[0])) and cfs[i] == base[1]
                and prs[i] == base[2])
        counts.added += added
        counts.updated += sum(changed.values())
        if on_change is not None:  # in row order: each URL added, then each updated
            for i, loc in enumerate(seg.locs):
                fold = folds[i]
                if not (first_base or (fold is not None and fold[7] is not None)):
                    on_change(loc)
                if changed.get(i):
                    on_change(loc)
        batch.lastmods = lms if lms.count(None) < n else None
        batch.lastmod_texts = (texts if batch.lastmods is not None and texts.count(None) < n
                               else None)
        batch.changefreqs = cfs if cfs.count(None) < n else None
        batch.priorities = prs if prs.count(None) < n else None
        return batch

    def _extensions(self, locs: Sequence[str]) -> Optional[list[Extensions]]:
        if not self.extensions:
            return None
        found = list(map(self.extensions.get, locs))
        if not any(found):
            return None
        return [EMPTY if m is None else m.value() for m in found]

    def close(self) -> None:
        self.index, self.folds, self.segments = {}, {}, []
        if self.spill is not None:
            self.spill.close()


def _row_cost(batch: Batch) -> int:
    """What a new URL of the batch costs held here besides its characters: MEMORY_PER_URL, and
    what its segment's columns hold for it (a lastmod object and its list slot, a lastmod
    text, a list slot for changefreq and for priority: readers parse a repeated value once,
    and the few values of those two are shared)."""
    return (MEMORY_PER_URL + (56 if batch.lastmods is not None else 0)
            + (80 if batch.lastmod_texts is not None else 0)
            + (8 if batch.changefreqs is not None else 0)
            + (8 if batch.priorities is not None else 0))


def _take(items: Sequence[_T], rows: Sequence[int]) -> Sequence[_T]:
    """``items`` at ``rows`` (ascending)."""
    if len(rows) == len(items):
        return items
    return [items[i] for i in rows]


def _rows(batch: Batch, keep: Sequence[int]) -> Batch:
    """The batch's rows ``keep`` (ascending) alone, to be held: its columns tuples, which the
    garbage collector stops walking (a list it walks at every full collection), and its lines
    4 bytes each (not an int object and a slot)."""
    if len(keep) < len(batch.locs):
        gone = set(range(len(batch.locs))).difference(keep)
        batch = batch.without(sorted(gone))
    held = batch.replaced(**{name: tuple(col) for name in _COLUMNS
                             if isinstance(col := getattr(batch, name), list)})
    lines = batch.lines
    if lines is not None and not isinstance(lines, range):
        try:
            held.lines = array("I", lines)  # type: ignore[type-var]
        except (TypeError, OverflowError):  # a row without a line, or a line past 2**32
            pass
    return held


# (lastmods stay as they came: a reader's column may know its newest value, which the writer
# asks for; extensions are not held here)
_COLUMNS = ("locs", "lastmod_texts", "changefreqs", "priorities", "sources")
