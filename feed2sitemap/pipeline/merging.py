"""Newest-wins merging of the copies of a URL: the rules, the counts, the store and its spill.

Rules (one entry per normalised URL):

- the entry keeps the position where its URL was first seen;
- its lastmod is the newest of the copies' (a date counts as its midnight UTC; on a tie the
  earlier copy wins, so its form, date or datetime, is kept);
- its changefreq, and separately its priority, come from the copy with the newest lastmod when
  that copy has one, else from the first copy that has one (so a feed entry, which has a date
  but no priority, updates a sitemap entry's lastmod and keeps its priority);
- its extensions, kind by kind, come from the newest copy that has that kind
  (extensions/merging.py).

``Store`` is what the command runs: the rules on the batches' columns, with a spill to disk
past a memory budget. ``ReferenceStore`` (FEED2SITEMAP_REFERENCE=1) is the rules said plainly:
a dict from each URL to its newest record. tests/test_merge_store.py holds the two equal.

The spill: the rows of URLs first seen past the budget, and every later copy of them, go with
their arrival number to the hash partition of their URL, so a partition holds every copy of its
URLs in arrival order. At the end each partition alone is folded by a Store of its own and its
merged rows written out again with their first copies' arrival numbers, in chunks by window of
arrivals; each window's chunks, one a partition, are then sorted together by arrival, which is
first-seen order. Every row is written and read twice whatever the total, one partition (or
window) is in memory at a time: linear time, bounded memory. (Sorted runs would order the rows
by URL and need a second sort back into first-seen order.)
The files are anonymous (unlinked at creation): a failed or killed run leaves nothing behind.
"""

from __future__ import annotations

import marshal
import os
import tempfile
from array import array
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import chain, compress, groupby, islice, repeat
from operator import is_, is_not, itemgetter
from typing import IO, TYPE_CHECKING, Any, Optional

from ..errors import OutputError
from ..model.batch import BATCH, Batch
from ..model.extensions import EMPTY, Extensions
from ..model.record import Record, lastmod_key, make_record

if TYPE_CHECKING:
    from ..extensions.merging import ExtensionMerger

__all__ = ["DEFAULT_MEMORY_LIMIT", "PARTITIONS", "MergeCounts", "ReferenceStore", "Spill", "Store",
           "spill_errors"]


def _memory_limit_from_env() -> int:
    # FEED2SITEMAP_MERGE_MEMORY (bytes): for small machines, and tests that spill small runs
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
        lm, newest = copy.lastmod, self.newest.lastmod  # (no lastmod is older than any)
        if lm is not None and (newest is None or lastmod_key(lm) > lastmod_key(newest)):
            self.newest = copy  # (strictly: a tie keeps the earlier)
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
        """Whether the entry differs from its base (lastmods as written: a date never equals a
        datetime, two datetimes are equal when they are the same instant)."""
        base = self.base
        return base is not None and (merged.lastmod, merged.changefreq, merged.priority) != (
            base.lastmod, base.changefreq, base.priority)


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
                    from ..extensions.merging import ExtensionMerger  # (only with extensions)

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
            added = not (self.base_mode and entry.base is not None)
            updated = entry.updated(record)
            counts.added += added
            counts.updated += updated
            if on_change is not None:
                for _ in range(added + updated):
                    on_change(loc)
            if run and (len(run) >= BATCH or run[0].is_sitemap != record.is_sitemap):
                yield Batch.of_records(run)
                run = []
            run.append(record)
        if run:
            yield Batch.of_records(run)
        self.entries = {}

    def close(self) -> None:
        self.entries = {}


# A URL held costs its string, dict slot, tuple slot and line besides its columns' values
# (_row_cost); the fold of its later copies a tuple of eight, a dict slot and a lastmod.
# benchmarks/merge_memory.py measured 174 bytes of peak RSS per 62-character URL (311 with a
# lastmod and its text): 640 MiB holds the 1.5M URLs of the merge-lastmods row.
MEMORY_PER_URL = 90
FOLD_COST = 200


class Store:
    """The merge the command runs (ReferenceStore's rules, on columns): add batches, then take
    the merged ones (``batches``) once.

    ``index`` maps each URL held here, in first-seen order, to the fold of its later copies (a
    tuple) or, while it has none, to the mark of the batch it came in. The first copies stay in
    their batches' columns (``segments``, index's order) and go out as they came unless a later
    copy changed them: tuples of str, dates and None, which the garbage collector stops walking.
    Past ``memory_limit`` bytes the rows of URLs not held here go to the Spill; they come after
    the ones held here, which is their first-seen order.
    """

    def __init__(self, *, base_mode: bool = False, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 extensions: bool = True) -> None:
        self.base_mode = base_mode
        self.memory_limit = memory_limit
        self.index: dict[str, Any] = {}
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
        if self.spill is None and (self.used + _row_cost(batch) * n + sum(map(len, locs))
                                   > self.memory_limit):
            self.spill = Spill()  # this batch's new URLs and all after spill
        if self.spill is not None:
            held = list(map(index.get, locs))
            self.spill.add(batch, _where(held, is_, None), is_base)
            self._fold(batch, _where(held, is_not, None), is_base)
            return []
        mark = object()
        before = len(index)
        held = list(map(index.setdefault, locs, repeat(mark)))  # one look-up a row
        added = len(index) - before
        new: Sequence[int] = range(n)
        later: list[int] = []
        if added < n:
            new = _where(held, is_, mark)
            later = _where(held, is_not, mark)
        if added < len(new):  # a URL twice in the batch: its first row is new
            first = dict(zip(reversed(_pick(locs, new)), reversed(new), strict=True))
            later = sorted(later + list(set(new).difference(first.values())))
            new = sorted(first.values())
        self.used += _row_cost(batch) * added + sum(map(len, _pick(locs, new)))
        if new:
            self.segments.append((_rows(batch, new), is_base))
        self._fold(batch, later, is_base)
        return new

    def _fold(self, batch: Batch, rows: list[int], is_base: bool) -> None:
        """Fold later copies of URLs held here into their entries, in row order."""
        self.copies += len(rows)
        lms, texts, cfs, prs = (batch.lastmods, batch.lastmod_texts, batch.changefreqs,
                                batch.priorities)
        if not rows or lms is None and cfs is None and prs is None and not self.base_mode:
            # no lastmod, changefreq or priority, and no base: such a copy is never the
            # newest, gives no field, and makes no URL added or updated; it changes nothing
            return
        compared = is_base or not self.base_mode
        index = self.index
        for loc, lm, text, cf, pr in zip(_pick(batch.locs, rows), _pick(lms, rows),
                                         _pick(texts, rows), _pick(cfs, rows), _pick(prs, rows),
                                         strict=True):
            key = None if lm is None else lastmod_key(lm)
            fold = index[loc]
            if not isinstance(fold, tuple):  # the first later copy
                self.used += FOLD_COST
                index[loc] = (key, lm, text, cf, pr, cf, pr, (lm, cf, pr) if compared else None)
                continue
            first_cf, first_pr, base = fold[5:]
            if cf is not None and first_cf is None:
                first_cf = cf
            if pr is not None and first_pr is None:
                first_pr = pr
            if base is None and compared:
                base = (lm, cf, pr)
            if key is not None and (fold[0] is None or key > fold[0]):  # strictly: a tie
                index[loc] = (key, lm, text, cf, pr, first_cf, first_pr, base)  # keeps the
            elif (first_cf, first_pr, base) != fold[5:]:                         # earlier
                index[loc] = (*fold[:5], first_cf, first_pr, base)

    def _add_extensions(self, batch: Batch) -> None:
        from ..extensions.merging import ExtensionMerger  # (only a run with extensions)

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
            folds = iter(self.index.values())
            for seg, is_base in segments:
                yield self._merged(seg, is_base, list(islice(folds, len(seg.locs))), counts)
            del segments, folds  # (freed before the spill is merged, and not walked by the GC)
            self.index = {}
            if self.spill is not None:
                before = counts.urls
                yield from self.spill.merged(counts, self.base_mode, self.extensions)
                counts.spilled += counts.urls - before
        finally:
            self.close()

    def _merged(self, seg: Batch, is_base: bool, folds: list[Any],
                counts: MergeCounts) -> Batch:
        """A segment's rows, each with its later copies folded in; counted (and told)."""
        n = len(seg.locs)
        batch = Batch._trusted(seg.locs, seg.source, None if seg.lines is None else list(
            seg.lines), seg.lastmods, seg.changefreqs, seg.priorities, seg.is_sitemap,
            seg.sources, seg.clean, _extensions(self.extensions, seg.locs))
        batch.lastmod_texts = seg.lastmod_texts
        counts.urls += n
        first_base = is_base or not self.base_mode
        on_change = counts.on_change if self.base_mode else None
        rows = list(compress(range(n), map(isinstance, folds, repeat(tuple))))
        if not rows and on_change is None:
            counts.added += 0 if self.base_mode and is_base else n
            return batch
        lms, texts, cfs, prs = (list(_pick(col, range(n))) for col in (
            seg.lastmods, seg.lastmod_texts, seg.changefreqs, seg.priorities))
        changed = set()
        added = 0 if self.base_mode and is_base else n - len(rows)  # (the rows of one copy)
        for i in rows:
            key, lm, text, cf, pr, first_cf, first_pr, base = folds[i]
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
            if base is not None and (lms[i], cfs[i], prs[i]) != base:
                changed.add(i)
        counts.added += added
        counts.updated += len(changed)
        if on_change is not None:  # in row order: each URL added, then each updated
            for i, loc in enumerate(seg.locs):
                fold = folds[i]
                if not (first_base or (isinstance(fold, tuple) and fold[7] is not None)):
                    on_change(loc)
                if i in changed:
                    on_change(loc)
        batch.lastmods = lms if lms.count(None) < n else None
        batch.lastmod_texts = (texts if batch.lastmods is not None and texts.count(None) < n
                               else None)
        batch.changefreqs = cfs if cfs.count(None) < n else None
        batch.priorities = prs if prs.count(None) < n else None
        return batch

    def close(self) -> None:
        self.index, self.segments = {}, []
        if self.spill is not None:
            self.spill.close()


def _row_cost(batch: Batch) -> int:
    """What a new URL of the batch costs held here besides its characters (changefreqs and
    priorities are a slot each: readers share their few values)."""
    return (MEMORY_PER_URL + (56 if batch.lastmods is not None else 0)
            + (80 if batch.lastmod_texts is not None else 0)
            + (8 if batch.changefreqs is not None else 0)
            + (8 if batch.priorities is not None else 0))


def _rows(batch: Batch, keep: Sequence[int]) -> Batch:
    """The batch's rows ``keep`` (ascending) alone, to be held: columns as tuples, which the
    garbage collector stops walking, and lines 4 bytes each."""
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


# ------------------------------------------------------------------------------ the spill

PARTITIONS = 64
# Rows held before they are written, and arrivals put back in first-seen order at a time at the
# end: about 6 MiB each whatever the budget. Fewer rows cost more in writes than they save;
# more, in cache misses (the rows are reordered, and written in that order).
FLUSH_ROWS = WINDOW_ROWS = 1 << 15
_SPILLED = 8  # loc, lastmod, its text's, changefreq, priority, source, line, flags


class Spill:
    """Rows in hash partitions on disk; ``merged`` gives each URL once, in first-seen order,
    merged as merge.Store merges."""

    def __init__(self) -> None:
        n = PARTITIONS
        self._files: list[Optional[IO[bytes]]] = [None] * n
        self._held: list[list[list[Any]]] = [_empty(1) for _ in range(n)]
        self._count = 0
        self.rows = 0  # rows taken; the next one's arrival number

    def add(self, batch: Batch, rows: Sequence[int], is_base: bool) -> None:
        """Take a batch's ``rows`` (ascending)."""
        k = len(rows)
        columns = [range(self.rows, self.rows + k),
                   *_columns(batch, rows, batch.is_sitemap | is_base << 1)]
        self.rows += k
        n = len(self._files)
        parts = [hash(loc) % n for loc in columns[1]]
        if k > 1:  # (while the batch is in the cache: the rows in their partitions' order)
            order = sorted(range(k), key=parts.__getitem__)  # (stable: arrival order kept)
            columns = [itemgetter(*order)(column) for column in columns]
        start = 0
        for p, size in sorted(Counter(parts).items()):
            for held, column in zip(self._held[p], columns, strict=True):
                held.extend(column[start:start + size])
            start += size
        self._count += k
        if self._count >= FLUSH_ROWS:
            self._flush()

    def _flush(self) -> None:
        with spill_errors():
            for p, held in enumerate(self._held):
                if held[0]:
                    f = self._files[p]
                    if f is None:
                        f = self._files[p] = tempfile.TemporaryFile(prefix="feed2sitemap-")
                    _dump(held, f)
                    f.flush()  # (a full disk fails here, not when the file is closed)
                    self._held[p] = _empty(1)
        self._count = 0

    def merged(self, counts: MergeCounts, base_mode: bool,
               extensions: Optional[dict[str, ExtensionMerger]]) -> Iterator[Batch]:
        """Each URL once, in first-seen order, merged; ``counts`` filled (and told).

        Each partition's merged rows are written in chunks by window of arrival numbers; the
        chunks of a window, one a partition, are then sorted together by arrival."""
        self._flush()
        windows = range(WINDOW_ROWS, self.rows + WINDOW_ROWS, WINDOW_ROWS)  # (their ends)
        results: list[IO[bytes]] = []
        try:
            with spill_errors():
                for p, f in enumerate(self._files):
                    self._files[p] = None
                    if f is not None:
                        results.append(self._merge_partition(f, windows, counts, base_mode))
            readers = [_chunks(f) for f in results]
            on_change = counts.on_change if base_mode else None
            for _ in windows:
                with spill_errors():
                    chunks = [next(reader) for reader in readers]
                columns = [list(chain(*column)) for column in zip(*chunks, strict=True)]
                seqs = columns.pop(0)
                if len(seqs) > 1:
                    order = sorted(range(len(seqs)), key=seqs.__getitem__)
                    columns = [list(itemgetter(*order)(column)) for column in columns]
                yield from _batches(columns, on_change, extensions)
        finally:
            for f in results:
                f.close()

    def _merge_partition(self, f: IO[bytes], windows: range, counts: MergeCounts,
                         base_mode: bool) -> IO[bytes]:
        """Fold one partition's rows with a Store and write its merged rows, with their first
        copies' arrival numbers, to a new file, a chunk per window; ``f`` is closed."""
        columns = _empty(1)
        with f:
            f.seek(0)
            for chunk in _chunks(f):
                for column, values in zip(columns, chunk, strict=True):
                    column += values
        seqs, locs, isos, texts, cfs, prs, sources, lines, flags = columns
        store = Store(base_mode=base_mode, memory_limit=1 << 62, extensions=False)
        firsts: list[int] = []
        for span in _runs(flags):  # each run of rows of one kind and one base flag
            batch = _unspilled(locs, isos, texts, cfs, prs, sources, lines, flags, span)
            firsts.extend(_pick(seqs[span], store.add(batch, bool(flags[span.start] & 2))))
        del columns, seqs, locs, isos, texts, cfs, prs, sources, lines, flags
        told: list[str] = []
        part = MergeCounts(on_change=told.append)
        result = _empty(2)  # first arrivals, the rows, and the times each URL was told
        for batch in store.batches(part):
            n = len(batch.locs)
            tells = [0] * n
            if told:
                times = Counter(told)
                tells = list(map(times.get, batch.locs, tells))
                told.clear()
            for column, merged in zip(result[1:], [
                    *_columns(batch, range(n), int(batch.is_sitemap)), tells], strict=True):
                column.extend(merged)
        result[0] = firsts
        out = tempfile.TemporaryFile(prefix="feed2sitemap-")
        lo = 0
        for end in windows:
            hi = bisect_left(firsts, end, lo)
            _dump([column[lo:hi] for column in result], out)
            lo = hi
        out.seek(0)
        counts.urls += part.urls
        counts.added += part.added
        counts.updated += part.updated
        counts.copies += part.copies
        return out

    def close(self) -> None:
        for f in self._files:
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass  # (its rows are not wanted: the run has failed or is done)
        self._files = [None] * len(self._files)


def _batches(columns: list[list[Any]], on_change: Any,
             extensions: Optional[dict[str, ExtensionMerger]]) -> Iterator[Batch]:
    """The batches of merged rows (one kind each), their URLs told as the store told them."""
    locs, isos, texts, cfs, prs, sources, lines, kinds, tells = columns
    if on_change is not None and any(tells):
        for loc, times in zip(locs, tells, strict=True):
            for _ in range(times):
                on_change(loc)
    for span in _runs(kinds):
        yield _unspilled(locs, isos, texts, cfs, prs, sources, lines, kinds, span,
                         _extensions(extensions, locs[span]))


def _unspilled(locs: list[Any], isos: list[Any], texts: list[Any], cfs: list[Any],
               prs: list[Any], sources: list[Any], lines: list[Any], flags: list[int],
               span: slice, extensions: Optional[list[Extensions]] = None) -> Batch:
    """The batch of spilled rows ``span`` (of one kind)."""
    batch = Batch._trusted(locs[span], sources[span.start], _some(lines[span]),
                           _some(_lastmods(isos[span])), _some(cfs[span]), _some(prs[span]),
                           bool(flags[span.start] & 1), sources[span], None, extensions)
    batch.lastmod_texts = _texts(isos[span], texts[span])
    return batch


def _columns(batch: Batch, rows: Sequence[int], flag: int) -> list[Sequence[Any]]:
    """The batch's ``rows`` as the spill writes them (_SPILLED, less the arrival)."""
    return [_pick(batch.locs, rows),
            *_encoded(_pick(batch.lastmods, rows), _pick(batch.lastmod_texts, rows)),
            _pick(batch.changefreqs, rows), _pick(batch.priorities, rows),
            [batch.source] * len(rows) if batch.sources is None else _pick(batch.sources, rows),
            _pick(batch.lines, rows), [flag] * len(rows)]


def _encoded(lastmods: Sequence[Any], texts: Sequence[Optional[str]]
             ) -> tuple[Sequence[Any], Sequence[Any]]:
    """Lastmods as texts (marshal takes no date): a row's own text where it has one (the
    canonical form, which the reader parsed it from: read back, the same value), else its
    isoformat; and per row whether that text is the row's own."""
    if texts.count(None) == len(texts):
        return [None if v is None else v.isoformat() for v in lastmods], texts
    if None not in texts:  # (each row its own: a list's column)
        return texts, [True] * len(texts)
    return ([t if t is not None else None if v is None else v.isoformat()
             for v, t in zip(lastmods, texts, strict=True)],
            [t is not None or None for t in texts])


def _lastmods(isos: list[Optional[str]]) -> list[Any]:
    """_encoded's texts read back."""
    try:
        return [None if t is None else _DATE(t) if len(t) == 10 else _DATETIME(t)
                for t in isos]
    except ValueError:  # (a fraction of other than 3 or 6 digits, before Python 3.11)
        from ..model.rules import parse_lastmod

        return [None if t is None else parse_lastmod(t) for t in isos]


def _texts(isos: list[Optional[str]], own: list[Optional[bool]]) -> Optional[list[Any]]:
    """The rows' own lastmod texts (_encoded's)."""
    if own.count(None) == len(own):
        return None
    if own.count(True) == len(own):
        return isos
    return [t if mine else None for t, mine in zip(isos, own, strict=True)]


_DATE, _DATETIME = date.fromisoformat, datetime.fromisoformat


def _runs(flags: list[int]) -> Iterator[slice]:
    """The runs of rows with the same flag, cut at BATCH rows (a Store folds a partition twice
    as fast a batch at a time as whole: the batch's columns stay in the cache)."""
    start = 0
    for _, run in groupby(flags):
        end = start + len(list(run))
        for lo in range(start, end, BATCH):
            yield slice(lo, min(lo + BATCH, end))
        start = end


def _where(items: list[Any], test: Callable[[Any, Any], bool], value: Any) -> list[int]:
    """The indexes of the items for which ``test(item, value)`` holds."""
    return list(compress(range(len(items)), map(test, items, repeat(value))))


def _some(column: list[Any]) -> Optional[list[Any]]:
    """The column, or None when no row has a value."""
    return None if column.count(None) == len(column) else column


def _pick(items: Optional[Sequence[Any]], rows: Sequence[int]) -> Sequence[Any]:
    """``items`` at ``rows`` (ascending; a column of None when there is no column)."""
    if items is None:
        return [None] * len(rows)
    if len(rows) == len(items):
        return items
    return [items[i] for i in rows]


def _extensions(mergers: Optional[dict[str, ExtensionMerger]],
                locs: Sequence[str]) -> Optional[list[Extensions]]:
    """The merged extensions of ``locs``, or None when none has any."""
    found = list(map(mergers.get, locs)) if mergers else []
    if not any(found):
        return None
    return [EMPTY if m is None else m.value() for m in found]


def _empty(more: int = 0) -> list[list[Any]]:
    return [[] for _ in range(_SPILLED + more)]


def _dump(columns: Sequence[Sequence[Any]], f: IO[bytes]) -> None:
    # its length first: marshal.load on a file reads it a few bytes at a time
    data = marshal.dumps(tuple(map(list, columns)), 4)
    f.write(len(data).to_bytes(8, "little"))
    f.write(data)


def _chunks(f: IO[bytes]) -> Iterator[tuple[list[Any], ...]]:
    while size := int.from_bytes(f.read(8), "little"):
        yield marshal.loads(f.read(size))


@contextmanager
def spill_errors() -> Iterator[None]:
    """A failing spill (the temporary directory full or read-only) is a clear error, not a
    traceback: exit 1, and the output is untouched (it is renamed into place only at the end
    of a run that succeeds)."""
    try:
        yield
    except OSError as exc:
        where = tempfile.gettempdir()
        raise OutputError(
            f"merging spilled past the memory budget to temporary files in {where}, and that "
            f"failed ({exc.strerror or exc}); make room there, or set TMPDIR to a directory with "
            "space (about 100 bytes per URL)") from None
