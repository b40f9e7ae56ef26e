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
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from .errors import OutputError
from .record import CHANGEFREQS, Lastmod, Record, make_record

__all__ = ["DEFAULT_MEMORY_LIMIT", "MEMORY_PER_URL", "MergeCounts", "MergeStore", "find_base"]

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


class MergeStore:
    """Holds one packed state per URL, in first-seen order; see the module's docstring."""

    def __init__(self, *, base_mode: bool = False,
                 memory_limit: int = DEFAULT_MEMORY_LIMIT) -> None:
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

    def add(self, record: Record, is_base: bool = False) -> None:
        """Fold one copy of a URL in (``is_base``: it comes from the output's previous version)."""
        # Packed inline, without helper calls: this runs once per input record.
        lastmod = record.lastmod
        if lastmod is None:
            lm = 0
        elif isinstance(lastmod, datetime):
            d = lastmod - _UTC_MIN
            lm = ((d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds + _DAY_US + 1) << 1
        else:
            lm = ((lastmod.toordinal() * _DAY_US + 1) << 1) | 1
        cf = 0 if record.changefreq is None else _CF_INDEX[record.changefreq]
        pr = 0
        if record.priority is not None:
            pr = self._priority_ix.get(record.priority, 0) or self._new_priority(record.priority)
        src = self._source_ix.get(record.source)
        if src is None:
            src = self._source_ix[record.source] = len(self._sources)
            self._sources.append(record.source)
        line = 0 if record.line is None else record.line + 1
        state = (lm | cf << _CFN | cf << _CFF | pr << _PRN | pr << _PRF
                 | record.is_sitemap << _SITEMAP | src << _SOURCE | line << _LINE)
        if is_base or not self.base_mode:
            # without a base, each URL is compared with its first copy
            state |= 1 << _HAS_BASE | lm << _BASE_LM | cf << _BASE_CF | pr << _BASE_PR
        loc = record.loc
        mem = self._mem
        old = mem.get(loc)
        if old is not None:
            mem[loc] = fold(old, state)
            self.copies += 1
        elif self._db is None:
            mem[loc] = state
            self._used += MEMORY_PER_URL + len(loc)
            if self._used > self.memory_limit:
                with _spill_errors():
                    self._db = self._open_db(self.memory_limit)
        else:
            self._batch.append((loc, _to_blob(state)))
            if len(self._batch) >= BATCH:
                self._flush()

    def _new_priority(self, value: float) -> int:
        ix = self._priority_ix[value] = len(self._priorities)
        self._priorities.append(value)
        return ix

    @staticmethod
    def _open_db(memory_limit: int) -> sqlite3.Connection:
        # "" is a private temporary database on disk, deleted by SQLite when closed. No journal
        # and no sync: it lives for one run, and a crash loses nothing worth keeping.
        db = sqlite3.connect("")
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        # 64 MiB of page cache (less under a smaller budget), the rest on disk
        db.execute(f"PRAGMA cache_size = -{max(1, min(65536, memory_limit >> 10))}")
        db.create_function("fold", 2, _fold_blobs, deterministic=True)
        # rowid is the insertion order; an upsert keeps the row's rowid
        db.execute("CREATE TABLE url (loc TEXT PRIMARY KEY, state BLOB NOT NULL)")
        return db

    def _flush(self) -> None:
        if self._batch and self._db is not None:
            with _spill_errors():
                self._db.executemany(
                    "INSERT INTO url (loc, state) VALUES (?, ?) "
                    "ON CONFLICT (loc) DO UPDATE SET state = fold(state, excluded.state)",
                    self._batch)
            self._sent += len(self._batch)
            self._batch.clear()

    def records(self, counts: MergeCounts | None = None) -> Iterator[Record]:
        """Yield the merged records in first-seen order (once), filling ``counts``."""
        counts = counts if counts is not None else MergeCounts()
        try:
            self._flush()
            counts.copies += self.copies
            yield from self._emit(self._mem.items(), counts)
            self._mem = {}
            if self._db is not None:
                before = counts.urls
                with _spill_errors():
                    rows = self._db.execute("SELECT loc, state FROM url ORDER BY rowid")
                    yield from self._emit(
                        ((loc, int.from_bytes(state, "little")) for loc, state in rows), counts)
                counts.spilled = counts.urls - before
                # rows sent to SQLite that found their URL there were folded into it
                counts.copies += self._sent - counts.spilled
        finally:
            self.close()

    def _emit(self, items: Iterable[tuple[str, int]], counts: MergeCounts) -> Iterator[Record]:
        priorities, sources = self._priorities, self._sources
        base_mode = self.base_mode
        urls = added = updated = 0
        try:
            for loc, state in items:
                lm = state & _LM_MASK
                cf = (state >> _CFN) & _CF_MASK or (state >> _CFF) & _CF_MASK
                pr = (state >> _PRN) & _IX_MASK or (state >> _PRF) & _IX_MASK
                has_base = state >> _HAS_BASE & 1
                if not (base_mode and has_base):
                    added += 1
                # a single copy is its own base: only a URL of several copies can have changed
                if has_base and state >> _MANY & 1 and (
                        lm != (state >> _BASE_LM) & _LM_MASK
                        or cf != (state >> _BASE_CF) & _CF_MASK
                        or pr != (state >> _BASE_PR) & _IX_MASK):
                    updated += 1
                urls += 1
                line = state >> _LINE
                yield make_record(loc, _lastmod_value(lm), CHANGEFREQS[cf - 1] if cf else None,
                                  priorities[pr], bool(state >> _SITEMAP & 1),
                                  sources[(state >> _SOURCE) & _IX_MASK],
                                  line - 1 if line else None)
        finally:
            counts.urls += urls
            counts.added += added
            counts.updated += updated

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
        self._batch.clear()


def _sqlite_temp_dir() -> str:
    """Where SQLite puts a temporary database on Unix: the first usable of these."""
    for where in (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"), "/var/tmp",
                  "/usr/tmp", "/tmp"):
        if where and os.path.isdir(where) and os.access(where, os.W_OK | os.X_OK):
            return where
    return "."


@contextmanager
def _spill_errors() -> Iterator[None]:
    """A failing spill (the temporary directory full or read-only) is a clear error, not a
    sqlite3 traceback: exit 1, and the output is untouched (it is renamed into place only at
    the end of a run that succeeds)."""
    try:
        yield
    except sqlite3.Error as exc:
        where = _sqlite_temp_dir()
        raise OutputError(
            f"merging spilled past the memory budget to a temporary SQLite file in {where}, and "
            f"that failed ({exc}); make room there, or set TMPDIR to a directory with space "
            "(about 100 bytes per URL)") from None


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return os.path.abspath(a) == os.path.abspath(b)


def find_base(inputs: Sequence[object], output: str | None) -> str | None:
    """The input that is the output file itself (an update in place), by its source name."""
    if output is None or output == "-":
        return None
    for source in inputs:
        if isinstance(source, (str, os.PathLike)) and source != "-":
            name = os.fspath(source)
            if _same_file(name, output):
                return name
    return None

