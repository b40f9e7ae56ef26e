"""Newest-wins merging of the copies of a URL, with a compact per-URL state that spills to SQLite.

Rules (one entry per normalised URL):

- the entry keeps the position where its URL was first seen;
- its lastmod is the newest of the copies' (a date counts as its midnight UTC; on a tie the
  earlier copy wins, so its form, date or datetime, is kept);
- its changefreq, and separately its priority, come from the copy with the newest lastmod when
  that copy has one, else from the first copy that has one (so a feed entry, which has a date
  but no priority, updates a sitemap entry's lastmod and keeps its priority).

Memory: every URL must be remembered until the end, since a later copy may change it and its
position is fixed by the first. The URL string is kept (it is written out) with one Python int
that packs the rest (see ``MergeStore.add``), about MEMORY_PER_URL bytes plus the URL's length
in all. Past
``memory_limit`` bytes, URLs not yet seen go to a private on-disk SQLite database (deleted when
closed) and are written after the in-memory ones, so the order is still first-seen.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from itertools import repeat
from typing import TYPE_CHECKING

from .batch import BATCH as BATCH_ROWS
from .batch import Batch
from .extensions.value import EMPTY, Extensions
from .record import CHANGEFREQS, Lastmod
from .spill import open_spill, spill_errors

if TYPE_CHECKING:  # (sqlite3: only a run that spills imports it, in spill.py)
    import sqlite3

    from .extensions.merging import ExtensionMerger

__all__ = ["DEFAULT_MEMORY_LIMIT", "MEMORY_PER_URL", "MergeCounts", "MergeStore"]

# A URL held in memory costs its string (49 bytes + its length), the packed int (~64 bytes) and
# its dict slot (the table doubles as it grows). benchmarks/merge_memory.py measured 208 bytes
# of peak RSS per 58-character URL over 1,000,000 URLs. Used only to decide when to spill: the
# default budget holds about 1.2 million such URLs (~250 MiB) before SQLite takes the rest.
MEMORY_PER_URL = 150


def _memory_limit_from_env() -> int:
    # FEED2SITEMAP_MERGE_MEMORY (bytes) lowers the budget: for small machines, and for the tests
    # that make a run spill to SQLite without a million URLs.
    try:
        return max(0, int(os.environ.get("FEED2SITEMAP_MERGE_MEMORY", "")))
    except ValueError:
        return 256 * 1024 * 1024


DEFAULT_MEMORY_LIMIT = _memory_limit_from_env()
BATCH = 10_000  # rows per executemany once spilled

# The packed state of one URL: bit fields, low to high. Lastmods are microseconds since the
# day before 0001-01-01 UTC (so any offset keeps them positive), plus one, shifted left once, the
# low bit set for a date; 0 is "none". Changefreq is its index in CHANGEFREQS plus one; priority
# and source are indexes (plus one) into per-store tables of the distinct values seen.
_LM_W, _CF_W, _IX_W = 61, 3, 32
_LM_MASK, _CF_MASK, _IX_MASK = (1 << _LM_W) - 1, (1 << _CF_W) - 1, (1 << _IX_W) - 1
_CFN = _LM_W                      # changefreq of the newest copy
_CFF = _CFN + _CF_W               # first changefreq given
_PRN = _CFF + _CF_W               # priority of the newest copy
_PRF = _PRN + _IX_W               # first priority given
_SITEMAP = _PRF + _IX_W           # the first copy is a sitemap (from an index)
_MANY = _SITEMAP + 1              # more than one copy was seen
_HAS_BASE = _MANY + 1             # a copy from the base (the output's previous version) was seen
_BASE_LM = _HAS_BASE + 1          # that copy's lastmod, changefreq and priority
_BASE_CF = _BASE_LM + _LM_W
_BASE_PR = _BASE_CF + _CF_W
_SOURCE = _BASE_PR + _IX_W        # the first copy's source and line, for messages
_LINE = _SOURCE + _IX_W           # last: it may be as wide as it needs

_NEWEST = (_LM_MASK | _CF_MASK << _CFN | _IX_MASK << _PRN)
_FIRST = (_CF_MASK << _CFF | _IX_MASK << _PRF)
_BASE = (1 << _HAS_BASE | _LM_MASK << _BASE_LM | _CF_MASK << _BASE_CF | _IX_MASK << _BASE_PR)
_UTC_MIN = datetime(1, 1, 1, tzinfo=timezone.utc)
_DAY_US = 86_400_000_000
_CF_INDEX = {name: i for i, name in enumerate(CHANGEFREQS, 1)}


def _pack_lastmod(lastmod: Lastmod | None) -> int:
    if lastmod is None:
        return 0
    if isinstance(lastmod, datetime):
        d = lastmod - _UTC_MIN
        return ((d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds + _DAY_US + 1) << 1
    return ((lastmod.toordinal() * _DAY_US + 1) << 1) | 1


def _lastmod_value(bits: int) -> Lastmod | None:
    if not bits:
        return None
    us = (bits >> 1) - 1
    if bits & 1:
        return date.fromordinal(us // _DAY_US)
    return _UTC_MIN + timedelta(microseconds=us - _DAY_US)


def fold(a: int, b: int) -> int:
    """The state of copies A then B, from the states of A and of the later B."""
    newer = ((b & _LM_MASK) >> 1) > ((a & _LM_MASK) >> 1)
    state = (b if newer else a) & _NEWEST
    first_a = a & _FIRST
    if (a >> _CFF) & _CF_MASK:
        state |= first_a & (_CF_MASK << _CFF)
    else:
        state |= b & (_CF_MASK << _CFF)
    if (a >> _PRF) & _IX_MASK:
        state |= first_a & (_IX_MASK << _PRF)
    else:
        state |= b & (_IX_MASK << _PRF)
    state |= (a if (a >> _HAS_BASE) & 1 else b) & _BASE
    # position-related fields (kind, source, line) are the first copy's
    return state | (a >> _SITEMAP & 1) << _SITEMAP | 1 << _MANY | (a >> _SOURCE) << _SOURCE


def base_bits(lm: int, cf: int, pr: int) -> int:
    """The bits saying that a copy from the base had this packed lastmod, changefreq and
    priority."""
    return 1 << _HAS_BASE | lm << _BASE_LM | cf << _BASE_CF | pr << _BASE_PR


def _fold_blobs(a: bytes, b: bytes) -> bytes:
    return _to_blob(fold(int.from_bytes(a, "little"), int.from_bytes(b, "little")))


def _to_blob(value: int) -> bytes:
    return value.to_bytes((value.bit_length() + 7) // 8, "little")


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
    spilled: int = 0  # URLs kept in the SQLite database rather than in memory
    # called with each URL added or updated (compared with the base): what IndexNow is told
    on_change: Callable[[str], None] | None = field(default=None, repr=False, compare=False)


class MergeStore:
    """Holds one packed state per URL, in first-seen order; see the module's docstring."""

    def __init__(self, *, base_mode: bool = False,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT, spilled: bool = False) -> None:
        """``spilled``: every URL to SQLite from the first (the column store's URLs past its
        budget)."""
        self.base_mode = base_mode
        self.memory_limit = memory_limit
        self._mem: dict[str, int] = {}
        self._used = 0
        self._db: sqlite3.Connection | None = None
        self._batch: list[tuple[str, bytes]] = []
        self._priorities: list[float | None] = [None]
        self._priority_ix: dict[float, int] = {}
        self._sources: list[str | None] = [None]
        self._source_ix: dict[str | None, int] = {None: 0}
        self.copies = 0  # copies folded in memory
        self._sent = 0  # rows sent to SQLite
        # the extensions of the URLs that have any (none for plain inputs), per kind from the
        # newest copy that has it; held in memory whether or not the URL spilled to SQLite
        self._ext: dict[str, ExtensionMerger] = {}
        if spilled:
            with spill_errors():
                self._db = open_spill(memory_limit, _fold_blobs)

    def add(self, batch: Batch, is_base: bool = False) -> None:
        """Fold a batch of copies in (``is_base``: they come from the output's previous
        version). Each row is packed from the batch's columns, with no Record built: this runs
        once per input URL."""
        n = len(batch.locs)
        fixed = batch.is_sitemap << _SITEMAP  # the bits every row of the batch shares
        src_ix = self._source_ix.get(batch.source)
        if src_ix is None:
            src_ix = self._source_index(batch.source)
        sources = (repeat(src_ix, n) if batch.sources is None
                   else map(self._source_index, batch.sources))
        lines = (repeat(0, n) if batch.lines is None
                 else [0 if v is None else v + 1 for v in batch.lines])
        lms = repeat(0, n) if batch.lastmods is None else map(_pack_lastmod, batch.lastmods)
        cfs = (repeat(0, n) if batch.changefreqs is None
               else [0 if v is None else _CF_INDEX[v] for v in batch.changefreqs])
        prs = (repeat(0, n) if batch.priorities is None
               else [0 if v is None else self._priority_index(v) for v in batch.priorities])
        if batch.extensions is not None:
            self._add_extensions(batch)
        with_base = is_base or not self.base_mode  # without a base, compare with the first copy
        mem, db = self._mem, self._db
        for loc, lm, cf, pr, src, line in zip(batch.locs, lms, cfs, prs, sources, lines,
                                                  strict=True):
            state = (lm | cf << _CFN | cf << _CFF | pr << _PRN | pr << _PRF | fixed
                     | src << _SOURCE | line << _LINE)
            if with_base:
                state |= 1 << _HAS_BASE | lm << _BASE_LM | cf << _BASE_CF | pr << _BASE_PR
            old = mem.get(loc)
            if old is not None:
                mem[loc] = fold(old, state)
                self.copies += 1
            elif db is None:
                mem[loc] = state
                self._used += MEMORY_PER_URL + len(loc)
                if self._used > self.memory_limit:
                    with spill_errors():
                        db = self._db = open_spill(self.memory_limit, _fold_blobs)
            else:
                self._batch.append((loc, _to_blob(state)))
                if len(self._batch) >= BATCH:
                    self._flush()

    def _add_extensions(self, batch: Batch) -> None:
        from .extensions.merging import ExtensionMerger  # (only a run with extensions)

        lastmods = batch.lastmods or repeat(None)
        for loc, ext, lastmod in zip(batch.locs, batch.extensions or (), lastmods, strict=False):
            if ext:
                merger = self._ext.get(loc)
                if merger is None:
                    merger = self._ext[loc] = ExtensionMerger()
                merger.add(ext, lastmod)

    def _source_index(self, source: str | None) -> int:
        ix = self._source_ix.get(source)
        if ix is None:
            ix = self._source_ix[source] = len(self._sources)
            self._sources.append(source)
        return ix

    def _priority_index(self, value: float) -> int:
        return self._priority_ix.get(value, 0) or self._new_priority(value)

    def _new_priority(self, value: float) -> int:
        ix = self._priority_ix[value] = len(self._priorities)
        self._priorities.append(value)
        return ix

    def _flush(self) -> None:
        if self._batch and self._db is not None:
            with spill_errors():
                self._db.executemany(
                    "INSERT INTO url (loc, state) VALUES (?, ?) "
                    "ON CONFLICT (loc) DO UPDATE SET state = fold(state, excluded.state)",
                    self._batch)
            self._sent += len(self._batch)
            self._batch.clear()

    def batches(self, counts: MergeCounts | None = None) -> Iterator[Batch]:
        """Yield the merged entries in first-seen order (once), filling ``counts``."""
        counts = counts if counts is not None else MergeCounts()
        try:
            self._flush()
            counts.copies += self.copies
            yield from self._emit(self._mem.items(), counts)
            self._mem = {}
            if self._db is not None:
                before = counts.urls
                with spill_errors():
                    rows = self._db.execute("SELECT loc, state FROM url ORDER BY rowid")
                    yield from self._emit(
                        ((loc, int.from_bytes(state, "little")) for loc, state in rows), counts)
                counts.spilled = counts.urls - before
                # rows sent to SQLite that found their URL there were folded into it
                counts.copies += self._sent - counts.spilled
        finally:
            self.close()

    def _emit(self, items: Iterable[tuple[str, int]], counts: MergeCounts) -> Iterator[Batch]:
        # Inline, one pass per URL: unpack its state into the columns of the batch being made.
        cols = _Columns(self._priorities, self._sources, self._ext)
        priorities, sources, lastmods = self._priorities, self._sources, cols.lastmod_values
        base_mode = self.base_mode
        on_change = counts.on_change if base_mode else None
        urls = added = updated = 0
        try:
            for loc, state in items:
                lm = state & _LM_MASK
                cf = (state >> _CFN) & _CF_MASK or (state >> _CFF) & _CF_MASK
                pr = (state >> _PRN) & _IX_MASK or (state >> _PRF) & _IX_MASK
                has_base = state >> _HAS_BASE & 1
                if not (base_mode and has_base):
                    added += 1
                    if on_change is not None:
                        on_change(loc)
                # a single copy is its own base: only a URL of several copies can have changed
                if has_base and state >> _MANY & 1 and (
                        lm != (state >> _BASE_LM) & _LM_MASK
                        or cf != (state >> _BASE_CF) & _CF_MASK
                        or pr != (state >> _BASE_PR) & _IX_MASK):
                    updated += 1
                    if on_change is not None:
                        on_change(loc)
                urls += 1
                kind = state >> _SITEMAP & 1
                if kind != cols.kind or len(cols.locs) >= BATCH_ROWS:
                    done = cols.take(kind)
                    if done is not None:
                        yield done
                value = lastmods.get(lm)
                if value is None and lm:
                    value = lastmods[lm] = _lastmod_value(lm)
                line = state >> _LINE
                cols.locs.append(loc)
                cols.lastmods.append(value)
                cols.changefreqs.append(CHANGEFREQS[cf - 1] if cf else None)
                cols.prs.append(priorities[pr])
                cols.srcs.append(sources[(state >> _SOURCE) & _IX_MASK])
                cols.lines.append(line - 1 if line else None)
            last = cols.take(None)
            if last is not None:
                yield last
        finally:
            counts.urls += urls
            counts.added += added
            counts.updated += updated

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._batch.clear()


class _Columns:
    """The columns of the batch of merged entries being made (one kind per batch)."""

    def __init__(self, priorities: list[float | None], sources: list[str | None],
                 extensions: dict[str, ExtensionMerger]) -> None:
        self.extensions = extensions
        self.kind: int | None = None
        self.lastmod_values: dict[int, Lastmod | None] = {0: None}  # packed → value
        self._clear()

    def _clear(self) -> None:
        self.locs: list[str] = []
        self.lastmods: list[Lastmod | None] = []
        self.changefreqs: list[str | None] = []
        self.prs: list[float | None] = []
        self.srcs: list[str | None] = []
        self.lines: list[int | None] = []

    def take(self, next_kind: int | None) -> Batch | None:
        """The batch made so far (None if empty); the next one holds ``next_kind``."""
        kind, self.kind = self.kind, next_kind
        if not self.locs:
            return None
        lms, cfs, prs = self.lastmods, self.changefreqs, self.prs
        batch = Batch._trusted(self.locs, self.srcs[0], self.lines,
                               lms if any(v is not None for v in lms) else None,
                               cfs if any(v is not None for v in cfs) else None,
                               prs if any(v is not None for v in prs) else None,
                               bool(kind), self.srcs, None, self._extensions())
        self._clear()
        return batch

    def _extensions(self) -> list[Extensions] | None:
        if not self.extensions:
            return None
        found = [self.extensions.get(loc) for loc in self.locs]
        if not any(found):
            return None
        return [EMPTY if m is None else m.value() for m in found]
