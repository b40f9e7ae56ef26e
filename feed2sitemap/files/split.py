"""Writing records into files that obey the profile's limits: split, index, gzip, atomic replace.

Every file's uncompressed UTF-8 size is known exactly before it is written: each entry is
measured as it is formatted, and room for the closing tag is kept, so a file is closed only when
the next entry would not fit. Nothing reaches its final name until the whole run has succeeded.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from functools import partial
from itertools import accumulate, filterfalse
from typing import IO, Optional

from ..errors import LimitError, OutputError
from ..model.batch import Batch, batched
from ..model.limits import UNLIMITED, Profile
from ..model.record import Lastmod, lastmod_key, make_record
from ..model.report import Report
from ..writers import INDEX, Format, StampedFormat
from .naming import part_names, url_segment
from .outputs import BinaryOut, FileInfo, OutputSet

__all__ = ["DEFAULT_GZIP_LEVEL", "Written", "write_indexes", "write_output", "write_records"]

_is_datetime = partial(type.__instancecheck__, datetime)  # isinstance(x, datetime), all in C

# Chosen from benchmarks/bench.py (1,000,000 URLs, 83 MB of XML, see README): level 1 makes
# 17.0 MB in 1.4 s, level 6 14.2 MB in 2.4 s, level 9 13.5 MB in 5.0 s. 6 buys files 16%
# smaller for a second per million URLs (a sitemap is fetched again and again); 9 doubles the
# time again for 5%. 6 is also gzip's own default, so our files match what `gzip` would make.
DEFAULT_GZIP_LEVEL = 6


class _Overflow(Exception):
    """A second file is needed where only one may be written."""


class _Sink:
    """One open output file (a temporary), plain or gzip-compressed."""

    def __init__(self, fileobj: BinaryOut, gzip_level: Optional[int]) -> None:
        self.raw = fileobj
        self.out: BinaryOut = fileobj
        if gzip_level is not None:
            import gzip  # (a run that compresses imports it: start-up time)

            # filename="" and mtime=0: the gzip header must not carry the temporary's name or
            # the clock, so the same input gives byte-identical output.
            self.out = gzip.GzipFile(filename="", mode="wb", fileobj=fileobj,
                                     compresslevel=gzip_level, mtime=0)

    def write(self, data: bytes) -> None:
        self.out.write(data)

    def close(self) -> int:
        if self.out is not self.raw:
            self.out.close()
        self.raw.flush()
        size = self.raw.tell()
        self.raw.close()
        return size


def write_records(batches: Iterable[Batch], fmt: Format, profile: Profile,
                  open_part: Callable[[int], tuple[BinaryOut, FileInfo]],
                  gzip_level: Optional[int], report: Report,
                  before_split: Optional[Callable[[], None]] = None,
                  files: Optional[list[FileInfo]] = None) -> list[FileInfo]:
    """Write the batches' records into as many files as the limits need; return the files.

    ``open_part(n)`` opens file number n (1-based). ``before_split`` is called when a second file
    is about to be needed, the first one complete; it raises if the destination cannot take
    more than one. Each file is appended to ``files`` as it is opened.
    """
    # A feed's header names the newest lastmod of its own file, known only when the file is
    # complete: its entries go to an unnamed temporary first and are copied in after the header
    # when the file closes (one extra pass over at most max_bytes). The header's size does not
    # depend on the stamp (StampedFormat's contract), so the accounting stays exact.
    stamped = fmt.file_header if isinstance(fmt, StampedFormat) else None
    max_urls = profile.max_sitemaps if fmt is INDEX else profile.max_urls
    parts = _Parts(fmt, stamped, max_urls, profile.max_bytes, open_part, gzip_level,
                   [] if files is None else files)
    block = fmt.block
    # (a batch no longer than one entry may be cannot hold an entry longer than that)
    max_block = parts.room if fmt.max_entry is None else min(parts.room, fmt.max_entry)
    try:
        for batch in batches:
            # A batch is formatted at once: one join and one encode give its exact size, and
            # while the whole batch fits the open file (nearly always) it is written in one
            # piece. Only the batch that crosses a file boundary is measured entry by entry.
            if parts.count + len(batch.locs) <= max_urls:
                data = block(batch).encode("utf-8")
                if len(data) <= max_block and parts.used + len(data) <= parts.room:
                    parts.add_block(data, len(batch.locs), batch.lastmods)
                    continue
            parts.add_entries(batch, report, before_split)
        parts.close()
    finally:
        parts.abandon()
    return parts.files


class _Parts:
    """The files written so far and the open one, with its exact accounting: bytes of entries
    (``used``, at most ``room``), entries (``count``, at most ``max_urls``), newest lastmod."""

    def __init__(self, fmt: Format, stamped: Optional[Callable[[Optional[Lastmod]], str]],
                 max_urls: int, max_bytes: int,
                 open_part: Callable[[int], tuple[BinaryOut, FileInfo]],
                 gzip_level: Optional[int], files: list[FileInfo]) -> None:
        self.fmt, self.stamped, self.open_part = fmt, stamped, open_part
        self.header = fmt.header().encode("utf-8")
        self.footer = fmt.footer().encode("utf-8")
        self.max_urls, self.max_bytes, self.gzip_level = max_urls, max_bytes, gzip_level
        # the room one file has for entries once the declaration, root tags and closing tag are in
        self.room = max_bytes - len(self.header) - len(self.footer)
        self.entries = fmt.entries
        self.files = files
        self.sink: Optional[_Sink] = None
        self.body: Optional[IO[bytes]] = None  # a stamped format's entries, until it closes
        self.info = FileInfo(None)
        self.used = self.room + 1  # "full" until the first file opens
        self.count = max_urls
        self.newest_key: Optional[datetime] = None

    def add_block(self, data: bytes, n: int,
                  lastmods: Optional[list[Optional[Lastmod]]]) -> None:
        """A whole batch's formatted entries, which fit the open file."""
        self.write(data)
        self.used += len(data)
        self.count += n
        if lastmods is not None:
            self.note_newest(lastmods)

    def add_entries(self, batch: Batch, report: Report,
                    before_split: Optional[Callable[[], None]]) -> None:
        """A batch that does not fit the open file: as many entries as fit go there, the next
        file is opened for the rest, and so on; an entry larger than a whole file is skipped."""
        texts = self.entries(batch)
        sizes = [len(t) if t.isascii() else len(t.encode("utf-8")) for t in texts]
        limit = self.fmt.max_entry
        too_long = {j for j, size in enumerate(sizes) if limit is not None and size > limit}
        i, n = 0, len(texts)
        while i < n:
            if i in too_long:
                report.skip("entry too large", *batch.where(i),
                            f"entry of {sizes[i]:,} bytes: a {self.fmt.name} entry may have "
                            f"at most {limit:,} (its reader reads no longer line back)")
                i += 1
                continue
            # the run of entries from i that fits the open file (ends: their running sizes),
            # up to the next entry too long to write
            stop = min([j for j in too_long if j > i] + [i + max(self.max_urls - self.count, 0)])
            ends = list(accumulate(sizes[i:stop]))
            k = bisect_right(ends, self.room - self.used)
            if k:
                self.write("".join(texts[i:i + k]).encode("utf-8"))
                self.used += ends[k - 1]
                self.count += k
                if batch.lastmods is not None:
                    self.note_newest(batch.lastmods[i:i + k])
                i += k
            if i == n or i in too_long:  # (one too long: skipped at the top)
                continue
            if sizes[i] > self.room:
                report.skip("entry too large", *batch.where(i),
                            f"entry of {sizes[i]:,} bytes cannot fit in a file of at most "
                            f"{self.max_bytes:,} bytes")
                i += 1
            else:
                self.next_file(before_split)

    def next_file(self, before_split: Optional[Callable[[], None]]) -> None:
        if self.sink is not None:
            self.close()
            if before_split is not None and len(self.files) == 1:
                before_split()
        raw, self.info = self.open_part(len(self.files) + 1)
        self.files.append(self.info)
        self.sink = _Sink(raw, self.gzip_level)
        if self.stamped is None:
            self.sink.write(self.header)
        else:
            import tempfile  # (imports shutil, bz2, lzma and random: start-up, issue 18)

            self.body = tempfile.TemporaryFile()
        self.used = self.count = 0
        self.newest_key = None

    def write(self, data: bytes) -> None:
        if self.body is not None:
            self.body.write(data)
        else:
            assert self.sink is not None
            self.sink.write(data)

    def close(self) -> None:
        """Complete the open file (if any): a stamped header, the entries, the closing tag."""
        sink, info = self.sink, self.info
        if sink is None:
            return
        if self.body is not None:
            assert self.stamped is not None
            head = self.stamped(info.newest).encode("utf-8")
            if len(head) != len(self.header):
                raise ValueError(f"format {self.fmt.name}: the stamped header is {len(head)} "
                                 f"bytes, not the {len(self.header)} its size was counted as")
            sink.write(head)
            self.body.seek(0)
            import shutil

            shutil.copyfileobj(self.body, sink.out, 1 << 20)
            self.body.close()
            self.body = None
        sink.write(self.footer)
        info.count, info.size = self.count, len(self.header) + self.used + len(self.footer)
        compressed = sink.close()
        self.sink = None
        if self.gzip_level is not None:
            info.compressed_size = compressed

    def abandon(self) -> None:
        """Let go of an open file after a failure (its temporary is the opener's to remove)."""
        if self.sink is not None:
            self.sink.raw.close()
        if self.body is not None:
            self.body.close()

    def note_newest(self, lastmods: Iterable[Optional[Lastmod]]) -> None:
        lastmod = _newest(lastmods)
        if lastmod is None:
            return
        key = lastmod_key(lastmod)
        if self.newest_key is None or key > self.newest_key:
            self.newest_key = key
            self.info.newest = lastmod


def _newest(lastmods: Iterable[Optional[Lastmod]]) -> Optional[Lastmod]:
    """The newest of the lastmods (the first of equal instants); None when there is none."""
    present = list(filter(None, lastmods))  # (no date or datetime is false)
    if not present:
        return None
    try:  # in C: all dates, or all datetimes (aware, so compared as instants)
        return max(present)
    except TypeError:  # both: the newest of each, then the newer (a date is its midnight UTC)
        times = max(filter(_is_datetime, present))
        days = max(filterfalse(_is_datetime, present))
        t, d = lastmod_key(times), lastmod_key(days)
        if t == d:  # the same instant: the first one, as max() would take
            return times if present.index(times) < present.index(days) else days
        return times if t > d else days


def index_records(files: list[FileInfo], names: list[str], base_url: str) -> Iterator[Batch]:
    """The index entries for ``files``: each one's URL under base_url, and its newest lastmod."""
    base = base_url if base_url.endswith("/") else base_url[: base_url.rfind("/") + 1]
    # percent-encoded: a name is the user's choice of -o, and may hold anything but "/"
    return batched(make_record(base + url_segment(name), info.newest, is_sitemap=True)
                   for info, name in zip(files, names, strict=True))


class Written:  # (internal: a plain class, as a dataclass's __init__ is compiled at start-up)
    """The files of a run: the sitemaps (parts) and the index files that list them."""

    __slots__ = ("parts", "indexes")

    def __init__(self, parts: Optional[list[FileInfo]] = None,
                 indexes: Optional[list[FileInfo]] = None) -> None:
        self.parts = [] if parts is None else parts
        self.indexes = [] if indexes is None else indexes


def _bounds(profile: Profile, conj: str = "and") -> str:
    """The limits a file obeys, in words: "50,000 entries and 52,428,800 bytes"."""
    return f" {conj} ".join(f"{n:,} {unit}" for n, unit in (
        (profile.max_urls, "entries"), (profile.max_bytes, "bytes")) if n < UNLIMITED)


def write_output(batches: Iterable[Batch], fmt: Format, profile: Profile, out: OutputSet,
                 report: Report, *, gzip_level: Optional[int], base_url: Optional[str],
                 always_index: bool = False) -> Written:
    """Write the records to ``out``: one file, or parts plus an index when they do not fit.
    Nothing written at all (every entry too large) returns no files; the caller decides."""

    def before_split() -> None:
        kind = fmt.limits
        if kind in ("feed", "data"):  # limits.output_profile: one file, never parts
            what = "a feed" if kind == "feed" else "a JSON Lines file"
            hint = ("a feed reader follows no index: lower the entries, or write a sitemap "
                    "(`to` xml)") if kind == "feed" else "JSON Lines is never split"
            raise LimitError(
                f"the entries do not fit in one file (at most {_bounds(profile)}) and {what} "
                f"is written whole; {hint}. Nothing was written")
        if out.path is None:
            raise _Overflow
        if base_url is None:
            raise LimitError(
                f"the URLs do not fit in one sitemap ({profile.max_urls:,} URLs or "
                f"{profile.max_bytes:,} bytes, profile {profile.name}); give `base_url`, the "
                "public URL of the output's directory, so that the parts can be listed in an "
                "index")

    files: list[FileInfo] = []
    try:
        try:
            write_records(batches, fmt, profile, out.open_temp, gzip_level, report,
                          before_split, files)
        except _Overflow:
            # a stream: the first file is complete (closing tag written); give it, then fail.
            del files[1:]
            out.commit(files, [out.display])
            raise LimitError(
                f"the URLs do not fit in one sitemap ({_bounds(profile, 'or')}); "
                f"{out.display} got the first complete sitemap only. "
                "Give `output` (a file) and `base_url` to split into parts with an "
                "index") from None
        if not files:
            return Written()
        assert out.path is not None or len(files) == 1
        name = os.path.basename(out.path) if out.path else out.display
        if len(files) == 1 and not always_index:
            out.commit(files, [name])
            return Written(files)
        assert base_url is not None and out.path is not None
        indexes, all_names = _write_indexes(files, name, profile, out, report, gzip_level,
                                            base_url)
        out.commit(files + indexes, all_names)
        return Written(files, indexes)
    except BrokenPipeError:
        if out.path is not None:
            raise OutputError(f"{out.display}: cannot write: broken pipe") from None
        raise  # stdout's reader has gone: the command ends quietly (see cli/entry.py)
    except OSError as exc:
        # a full disk, a file-size limit (EFBIG), a directory made read-only mid-run
        raise OutputError(f"{out.display}: cannot write: {exc.strerror or exc}; nothing was "
                          "replaced") from None
    finally:
        out.abort()


def _write_indexes(files: list[FileInfo], name: str, profile: Profile, out: OutputSet,
                   report: Report, gzip_level: Optional[int], base_url: str,
                   names: Optional[list[str]] = None) -> tuple[list[FileInfo], list[str]]:
    """The index files for ``files`` and the names of all (parts first, ``name`` last).

    An index lists at most max_urls sitemaps and obeys the byte limit too: when the parts are
    more than one index can list, the index splits the same way (STEM-index-1.EXT …, then
    STEM-index2-1.EXT …) until one file, the one at PATH, lists the rest. ``names`` are the
    parts' names (default STEM-1.EXT …; scale/partition.py's parts have their own).
    """
    names = part_names(name, len(files)) if names is None else names
    level, all_names, indexes = files, list(names), []
    depth = 0
    while True:
        _keep_listed_lastmods(level, names, out)
        listed = len(level)
        level = write_records(index_records(level, names, base_url), INDEX, profile,
                              out.open_temp, gzip_level, report)
        indexes += level
        if len(level) == 1:
            all_names.append(name)
            return indexes, all_names
        if len(level) >= listed:
            raise LimitError("the limits let an index file list only one sitemap; raise "
                             "`max_urls` or `max_bytes`")
        depth += 1
        names = part_names(name, len(level), "index" if depth == 1 else f"index{depth}")
        all_names += names


write_indexes = _write_indexes  # the index step of a partitioned run (scale/indexing.py)


def _keep_listed_lastmods(files: list[FileInfo], names: list[str], out: OutputSet) -> None:
    """A file whose bytes did not change keeps the lastmod the earlier index gave it, so that
    the index changes only where a part did (crawlers fetch what changed, and nothing else)."""
    listed = out.previous.listed
    if not listed:
        return
    for info, name in zip(files, names, strict=True):
        old = listed.get(name)
        if old is not None and out.is_unchanged(info, name):
            info.newest = old
