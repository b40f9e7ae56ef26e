"""Where merging goes past its memory budget: a private temporary SQLite database, and the
error a failing spill becomes."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .errors import OutputError

if TYPE_CHECKING:  # (sqlite3 is imported by a run that spills, not by every run: start-up)
    import sqlite3

__all__ = ["open_spill", "spill_errors", "sqlite_temp_dir"]


def open_spill(memory_limit: int, fold: Callable[[bytes, bytes], bytes]) -> sqlite3.Connection:
    # "" is a private temporary database on disk, deleted by SQLite when closed. No journal
    # and no sync: it lives for one run, and a crash loses nothing worth keeping.
    import sqlite3

    db = sqlite3.connect("")
    db.execute("PRAGMA journal_mode = OFF")
    db.execute("PRAGMA synchronous = OFF")
    # 64 MiB of page cache (less under a smaller budget), the rest on disk
    db.execute(f"PRAGMA cache_size = -{max(1, min(65536, memory_limit >> 10))}")
    db.create_function("fold", 2, fold, deterministic=True)
    # rowid is the insertion order; an upsert keeps the row's rowid
    db.execute("CREATE TABLE url (loc TEXT PRIMARY KEY, state BLOB NOT NULL)")
    return db


def sqlite_temp_dir() -> str:
    """Where SQLite puts a temporary database on Unix: the first usable of these."""
    for where in (os.environ.get("SQLITE_TMPDIR"), os.environ.get("TMPDIR"), "/var/tmp",
                  "/usr/tmp", "/tmp"):
        if where and os.path.isdir(where) and os.access(where, os.W_OK | os.X_OK):
            return where
    return "."


@contextmanager
def spill_errors() -> Iterator[None]:
    """A failing spill (the temporary directory full or read-only) is a clear error, not a
    sqlite3 traceback: exit 1, and the output is untouched (it is renamed into place only at
    the end of a run that succeeds)."""
    import sqlite3  # (only a run with a database comes here)

    try:
        yield
    except sqlite3.Error as exc:
        where = sqlite_temp_dir()
        raise OutputError(
            f"merging spilled past the memory budget to a temporary SQLite file in {where}, and "
            f"that failed ({exc}); make room there, or set TMPDIR to a directory with space "
            "(about 100 bytes per URL)") from None
