"""Where merging goes past its memory budget: the rows of the URLs first seen past it, and every
later copy of them, in hash partitions on disk; and the error a failing spill becomes.

A row goes to the partition its URL hashes to, with its arrival number, so each partition holds
every copy of its URLs in arrival order. At the end each partition, read back alone, is folded
by a merge.Store of its own (the same code as in memory), and its merged rows are written out
again; the arrival numbers of its first copies, marked on a tape (a byte a row: the partition),
then say which partition holds the next URL in first-seen order. Every row is written and read
twice whatever the total, and one partition is in memory at a time: linear time, and memory
bounded by a partition's share. (Sorted runs would order the rows by URL, and then need a
second sort back into first-seen order: a hash partition keeps its rows in arrival order.)

The files are anonymous temporary files (unlinked at creation): nothing is left behind by a
run that fails or is killed. Lastmods travel as text (marshal takes only plain values): a row's
own canonical text where the reader kept one, else the value's isoformat, read back exactly.
"""

from __future__ import annotations

import marshal
import tempfile
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from itertools import chain
from operator import itemgetter
from typing import IO, TYPE_CHECKING, Any, Optional

from .batch import BATCH, Batch
from .errors import OutputError
from .extensions.value import EMPTY

if TYPE_CHECKING:
    from .extensions.merging import ExtensionMerger
    from .merge import MergeCounts

__all__ = ["PARTITIONS", "Spill", "spill_errors"]

PARTITIONS = 64  # at most 255: a partition's number is a byte of the tape
# Rows held in memory across partitions before they are written, and rows of each partition's
# result read at a time at the end (so PARTITIONS times that): at most these, and within the
# budget (a spilled row held costs about 200 bytes) when it is small.
FLUSH_ROWS = 1 << 17
READ_ROWS = 4096
_COLUMNS = 9  # arrival, loc, lastmod, its text's, changefreq, priority, source, line, flags


class Spill:
    """Rows in hash partitions on disk; ``merged`` gives each URL once, in first-seen order,
    merged as merge.Store merges."""

    def __init__(self, partitions: Optional[int] = None, memory_limit: int = 1 << 30) -> None:
        n = partitions or PARTITIONS
        self._flush_rows = max(1, min(FLUSH_ROWS, memory_limit // 200))
        self._read_rows = max(64, min(READ_ROWS, memory_limit // (200 * n)))
        self._files: list[Optional[IO[bytes]]] = [None] * n
        self._held: list[list[list[Any]]] = [_empty() for _ in range(n)]
        self._count = 0
        self.rows = 0  # rows taken; the next one's arrival number

    def add(self, batch: Batch, rows: Sequence[int], is_base: bool) -> None:
        """Take a batch's ``rows`` (ascending)."""
        k = len(rows)
        locs = _pick(batch.locs, rows)
        columns: list[Sequence[Any]] = [
            range(self.rows, self.rows + k), locs,
            *_encoded(_pick(batch.lastmods, rows), _pick(batch.lastmod_texts, rows)),
            _pick(batch.changefreqs, rows),
            _pick(batch.priorities, rows),
            [batch.source] * k if batch.sources is None else _pick(batch.sources, rows),
            _pick(batch.lines, rows), [batch.is_sitemap | is_base << 1] * k]
        self.rows += k
        n = len(self._files)
        parts = [hash(loc) % n for loc in locs]
        order = sorted(range(k), key=parts.__getitem__)  # (stable: arrival order kept)
        if k > 1:
            columns = [itemgetter(*order)(col) for col in columns]
        start = 0
        for p, size in sorted(Counter(parts).items()):
            held = self._held[p]
            for c, col in enumerate(columns):
                held[c].extend(col[start:start + size])
            start += size
        self._count += k
        if self._count >= self._flush_rows:
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
                    self._held[p] = _empty()
        self._count = 0

    def merged(self, counts: MergeCounts, base_mode: bool,
               extensions: Optional[dict[str, ExtensionMerger]]) -> Iterator[Batch]:
        """Each URL once, in first-seen order, merged; ``counts`` filled (and told)."""
        self._flush()
        tape = bytearray(b"\xff") * self.rows  # the partition of each first copy, by arrival
        results: list[Optional[IO[bytes]]] = []
        try:
            with spill_errors():
                for p, f in enumerate(self._files):
                    self._files[p] = None
                    results.append(None if f is None else
                                   self._merge_partition(f, p, tape, counts, base_mode))
            tape = tape.replace(b"\xff", b"")
            rows = [iter(()) if f is None else chain.from_iterable(_read(f)) for f in results]
            on_change = counts.on_change if base_mode else None
            for lo in range(0, len(tape), BATCH):
                picked = tape[lo:lo + BATCH]
                if len(picked) > 1:
                    chunk = list(map(next, itemgetter(*picked)(rows)))
                else:
                    chunk = [next(rows[picked[0]])]
                yield from _batches(chunk, on_change, extensions)
        finally:
            for f in results:
                if f is not None:
                    f.close()

    def _merge_partition(self, f: IO[bytes], p: int, tape: bytearray, counts: MergeCounts,
                         base_mode: bool) -> IO[bytes]:
        """Fold one partition's rows with a Store, mark its first copies on ``tape``, and
        write its merged rows to a new file, which is returned; ``f`` is closed."""
        from .merge import MergeCounts, Store

        columns = _empty()
        with f:
            f.seek(0)
            for chunk in _chunks(f):
                for c, col in enumerate(chunk):
                    columns[c] += col
        seqs, locs, isos, texts, cfs, prs, sources, lines, flags = columns
        store = Store(base_mode=base_mode, memory_limit=1 << 62, extensions=False)
        start = 0
        while start < len(locs):  # each run of rows of one kind and one base flag
            flag = flags[start]
            end = _run_end(flags, start)
            span = slice(start, end)
            batch = Batch._trusted(locs[span], sources[start], _some(lines[span]),
                                   _some(_lastmods(isos[span])), _some(cfs[span]),
                                   _some(prs[span]), bool(flag & 1), sources[span])
            batch.lastmod_texts = _texts(isos[span], texts[span])
            for i in store.add(batch, bool(flag & 2)):
                tape[seqs[start + i]] = p
            start = end
        del columns, seqs, locs, isos, texts, cfs, prs, sources, lines, flags
        told: list[str] = []
        part = MergeCounts(on_change=told.append)
        out = tempfile.TemporaryFile(prefix="feed2sitemap-")
        for batch in store.batches(part):
            n = len(batch.locs)
            tells = [0] * n
            if told:
                times = Counter(told)
                tells = list(map(times.get, batch.locs, tells))
                told.clear()
            result = [
                batch.locs, *_encoded(_pick(batch.lastmods, range(n)),
                                      _pick(batch.lastmod_texts, range(n))),
                *([None] * n if col is None else col for col in (
                    batch.changefreqs, batch.priorities)),
                batch.sources or [batch.source] * n,
                [None] * n if batch.lines is None else list(batch.lines),
                [int(batch.is_sitemap)] * n, tells]
            for lo in range(0, n, self._read_rows):
                _dump([col[lo:lo + self._read_rows] for col in result], out)
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


def _batches(rows: list[tuple[Any, ...]], on_change: Any,
             extensions: Optional[dict[str, ExtensionMerger]]) -> Iterator[Batch]:
    """The batches of merged rows (one kind each), their URLs told as the store told them."""
    locs, isos, texts, cfs, prs, sources, lines, kinds, tells = map(list, zip(*rows, strict=True))
    if on_change is not None and any(tells):
        for loc, times in zip(locs, tells, strict=True):
            for _ in range(times):
                on_change(loc)
    start = 0
    while start < len(locs):
        end = _run_end(kinds, start)
        span = slice(start, end)
        exts = None
        if extensions:
            found = list(map(extensions.get, locs[span]))
            if any(found):
                exts = [EMPTY if m is None else m.value() for m in found]
        batch = Batch._trusted(locs[span], sources[start], _some(lines[span]),
                               _some(_lastmods(isos[span])), _some(cfs[span]),
                               _some(prs[span]), bool(kinds[start]), sources[span], None, exts)
        if batch.lastmods is not None:
            batch.lastmod_texts = _texts(isos[span], texts[span])
        yield batch
        start = end


def _encoded(lastmods: list[Any], texts: list[Optional[str]]) -> tuple[list[Any], list[Any]]:
    """Lastmods as texts (marshal takes no date): a row's own text where it has one (the
    canonical form, which the reader parsed it from: read back, the same value), else its
    isoformat; and per row whether that text is the row's own."""
    if texts.count(None) == len(texts):
        return [None if v is None else v.isoformat() for v in lastmods], texts
    return ([t if t is not None else None if v is None else v.isoformat()
             for v, t in zip(lastmods, texts, strict=True)],
            [t is not None or None for t in texts])


def _lastmods(isos: list[Optional[str]]) -> list[Any]:
    """_encoded's texts read back."""
    try:
        return [None if t is None else _DATE(t) if len(t) == 10 else _DATETIME(t)
                for t in isos]
    except ValueError:  # (a fraction of other than 3 or 6 digits, before Python 3.11)
        from .rules import parse_lastmod

        return [None if t is None else parse_lastmod(t) for t in isos]


def _texts(isos: list[Optional[str]], own: list[Optional[bool]]) -> Optional[list[Any]]:
    """The rows' own lastmod texts (_encoded's)."""
    if own.count(None) == len(own):
        return None
    if own.count(True) == len(own):
        return isos
    return [t if mine else None for t, mine in zip(isos, own, strict=True)]


_DATE, _DATETIME = date.fromisoformat, datetime.fromisoformat


def _run_end(flags: list[int], start: int) -> int:
    """Where the run of rows with the flag of row ``start`` ends."""
    flag = flags[start]
    if start == 0 and flags.count(flag) == len(flags):  # (the usual case: one run)
        return len(flags)
    end = start + 1
    while end < len(flags) and flags[end] == flag:
        end += 1
    return end


def _some(column: list[Any]) -> Optional[list[Any]]:
    """The column, or None when no row has a value."""
    return None if column.count(None) == len(column) else column


def _pick(items: Optional[Sequence[Any]], rows: Sequence[int]) -> list[Any]:
    """``items`` at ``rows`` (a column of None when there is no column)."""
    if items is None:
        return [None] * len(rows)
    if len(rows) == len(items):
        return list(items)
    return [items[i] for i in rows]


def _empty() -> list[list[Any]]:
    return [[] for _ in range(_COLUMNS)]


def _dump(columns: Sequence[Sequence[Any]], f: IO[bytes]) -> None:
    # its length first: marshal.load on a file reads it a few bytes at a time
    data = marshal.dumps(tuple(map(list, columns)), 4)
    f.write(len(data).to_bytes(8, "little"))
    f.write(data)


def _chunks(f: IO[bytes]) -> Iterator[tuple[list[Any], ...]]:
    while size := int.from_bytes(f.read(8), "little"):
        yield marshal.loads(f.read(size))


def _read(f: IO[bytes]) -> Iterator[Iterator[tuple[Any, ...]]]:
    with spill_errors():
        for columns in _chunks(f):
            yield zip(*columns, strict=True)


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
