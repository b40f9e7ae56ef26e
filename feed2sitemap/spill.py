"""Where merging goes past its memory budget: the URLs first seen past it, and every later copy
of them, in hash partitions on disk; and the error a failing spill becomes.

A row goes to the partition its URL hashes to, with its arrival number, so each partition holds
every copy of its URLs in arrival order. At the end each partition, read back alone, is folded
with a dict (its URLs' first copies, in order, each with the fold of its later copies) and
written out again; the arrival numbers of the first copies then say which partition holds the
next URL in first-seen order. Every row is written and read twice, whatever the total, and one
partition is in memory at a time: linear time, and memory bounded by a partition's share.
(SQLite, before, cost a B-tree search per row, which grew with the spill.)

The files are anonymous temporary files (unlinked at creation): nothing is left behind by a
run that fails or is killed.
"""

from __future__ import annotations

import marshal
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import compress, starmap
from operator import ne
from typing import IO, Optional

from .errors import OutputError

__all__ = ["Spill", "spill_errors"]

PARTITIONS = 64  # at most 255: a partition's number is a byte of the order tape
# Rows held in memory across partitions before they are written, and rows of each partition's
# result read at a time at the end (so PARTITIONS times that): at most these, and within the
# budget (a spilled row held costs about 200 bytes) when it is small.
FLUSH_ROWS = 1 << 16
READ_ROWS = 4096


class Spill:
    """Rows (URL, packed state, lastmod text) in hash partitions on disk; ``merged`` gives each
    URL once, in first-seen order, with the ``fold`` of its copies' states and the lastmod text
    of the copy whose lastmod won (``newer``: whether a later state's lastmod is newer)."""

    def __init__(self, fold: Callable[[int, int], int], newer: Callable[[int, int], bool],
                 partitions: int = PARTITIONS, memory_limit: int = 1 << 30) -> None:
        self._fold, self._newer = fold, newer
        self._flush_rows = max(1, min(FLUSH_ROWS, memory_limit // 200))
        self._read_rows = max(64, min(READ_ROWS, memory_limit // (200 * partitions)))
        self._files: list[Optional[IO[bytes]]] = [None] * partitions
        self._rows: list[tuple[list[str], list[int], list[Optional[str]], list[int]]] = [
            ([], [], [], []) for _ in range(partitions)]
        self._held = 0
        self.rows = 0  # rows taken; the next one's arrival number
        self.urls = 0  # distinct URLs, known once merged

    def add(self, locs: Sequence[str], states: list[int],
            texts: Optional[Sequence[Optional[str]]]) -> None:
        n = len(self._files)
        seq = self.rows
        rows = self._rows
        for loc, state, text in zip(locs, states, texts or [None] * len(locs), strict=True):
            part = rows[hash(loc) % n]
            part[0].append(loc)
            part[1].append(state)
            part[2].append(text)
            part[3].append(seq)
            seq += 1
        self._held += seq - self.rows
        self.rows = seq
        if self._held >= self._flush_rows:
            self._flush()

    def _flush(self) -> None:
        with spill_errors():
            for p, columns in enumerate(self._rows):
                if columns[0]:
                    f = self._files[p]
                    if f is None:
                        f = self._files[p] = tempfile.TemporaryFile(prefix="feed2sitemap-")
                    _dump(columns, f)
                    f.flush()  # (a full disk fails here, not when the file is closed)
                    self._rows[p] = ([], [], [], [])
        self._held = 0

    def merged(self) -> Iterator[tuple[str, int, Optional[str]]]:
        """Each URL once, in first-seen order, with its folded state and lastmod text."""
        self._flush()
        order = bytearray(b"\xff") * self.rows  # the partition of each first copy, by arrival
        results: list[Optional[IO[bytes]]] = []
        with spill_errors():
            for p, f in enumerate(self._files):
                self._files[p] = None
                results.append(None if f is None else self._merge_partition(f, p, order))
        readers = [iter(()) if f is None else _read(f) for f in results]
        try:
            yield from map(next, map(readers.__getitem__, order.replace(b"\xff", b"")))
        finally:
            for f in results:
                if f is not None:
                    f.close()

    def _merge_partition(self, f: IO[bytes], p: int, order: bytearray) -> IO[bytes]:
        """Fold one partition's rows, mark its first copies in ``order``, and write them (with
        their folds) to a new file, which is returned; ``f`` is closed."""
        locs: list[str] = []
        states: list[int] = []
        texts: list[Optional[str]] = []
        seqs: list[int] = []
        with f:
            f.seek(0)
            for chunk in _chunks(f):
                locs += chunk[0]
                states += chunk[1]
                texts += chunk[2]
                seqs += chunk[3]
        n = len(locs)
        first = dict(zip(reversed(locs), range(n - 1, -1, -1), strict=True))  # each URL's first row
        rows = sorted(first.values())
        if len(rows) < n:  # copies: each folded into its first row, in arrival order
            at = list(map(first.__getitem__, locs))
            fold, newer = self._fold, self._newer
            for i in compress(range(n), starmap(ne, zip(at, range(n), strict=True))):
                k = at[i]
                if newer(states[k], states[i]):
                    texts[k] = texts[i]
                states[k] = fold(states[k], states[i])
        del first
        for seq in map(seqs.__getitem__, rows):
            order[seq] = p
        out = tempfile.TemporaryFile(prefix="feed2sitemap-")
        step = self._read_rows
        for lo in range(0, len(rows), step):
            part = rows[lo:lo + step]
            _dump((list(map(locs.__getitem__, part)), list(map(states.__getitem__, part)),
                   list(map(texts.__getitem__, part))), out)
        out.seek(0)
        self.urls += len(rows)
        return out

    def close(self) -> None:
        for f in self._files:
            if f is not None:
                try:
                    f.close()
                except OSError:
                    pass  # (its rows are not wanted: the run has failed or is done)
        self._files = [None] * len(self._files)


def _dump(chunk: tuple[list, ...], f: IO[bytes]) -> None:  # type: ignore[type-arg]
    # its length first: marshal.load on a file reads it a few bytes at a time
    data = marshal.dumps(chunk)
    f.write(len(data).to_bytes(8, "little"))
    f.write(data)


def _chunks(f: IO[bytes]) -> Iterator[tuple[list, ...]]:  # type: ignore[type-arg]
    while size := int.from_bytes(f.read(8), "little"):
        yield marshal.loads(f.read(size))


def _read(f: IO[bytes]) -> Iterator[tuple[str, int, Optional[str]]]:
    with spill_errors():
        for locs, states, texts in _chunks(f):
            yield from zip(locs, states, texts, strict=True)


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
