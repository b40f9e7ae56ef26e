"""Writing records into files that obey the profile's limits: split, index, gzip, atomic replace.

Every file's uncompressed UTF-8 size is known exactly before it is written: each entry is
measured as it is formatted, and room for the closing tag is kept, so a file is closed only when
the next entry would not fit. Nothing reaches its final name until the whole run has succeeded.
"""

from __future__ import annotations

import os
from bisect import bisect_right
from collections.abc import Callable, Container, Iterable, Iterator
from itertools import accumulate
from math import isqrt
from typing import IO, NamedTuple, Optional

from ..errors import LimitError, OutputError
from ..model.batch import Batch, batched
from ..model.lastmods import newest_of
from ..model.limits import UNLIMITED, Profile
from ..model.record import Lastmod, make_record
from ..model.report import Report
from ..writers import INDEX, FeedFormat, Format, UrlsetFormat
from ..writers.xml import IndexFormat, styled
from .naming import part_names, url_segment
from .outputs import BinaryOut, FileInfo, OutputSet

__all__ = ["DEFAULT_GZIP_LEVEL", "Written", "newest_of", "write_indexes", "write_output",
           "write_records"]

# gzip's own default (our files match what `gzip` makes): 16% smaller than level 1 for a second
# more per million URLs (a sitemap is fetched again and again); 9 doubles the time for 5% more
DEFAULT_GZIP_LEVEL = 6

Opener = Callable[[int], tuple[BinaryOut, FileInfo]]


class _Overflow(Exception):
    """A second file is needed where only one may be written."""


def write_records(batches: Iterable[Batch], fmt: Format, profile: Profile, open_part: Opener,
                  gzip_level: Optional[int], report: Report,
                  before_split: Optional[Callable[[], None]] = None,
                  files: Optional[list[FileInfo]] = None,
                  parts_of: Optional[Container[Optional[str]]] = None) -> list[FileInfo]:
    """Write the batches' records into as many files as the limits need; return the files.

    ``open_part(n)`` opens file number n (1-based). ``before_split``, called when a second file
    is needed, raises if the destination cannot take more than one. Each file is appended to
    ``files`` as it is opened. ``parts_of``: the sources that are parts of the earlier output
    (an update in place); each begins a new file, so a part that loses URLs shrinks and the
    parts after it stay as they were.
    """
    max_urls = profile.max_sitemaps if isinstance(fmt, IndexFormat) else profile.max_urls
    parts = _Parts(fmt, max_urls, profile.max_bytes, open_part, gzip_level,
                   [] if files is None else files)
    # (a batch no longer than one entry may be cannot hold an entry longer than that)
    max_block = parts.room if fmt.max_entry is None else min(parts.room, fmt.max_entry)
    try:
        for batch in batches if parts_of is None else _by_part(batches, parts_of, parts,
                                                                before_split):
            # A batch is formatted at once: one join and one encode give its exact size, and
            # while the whole batch fits the open file (nearly always) it is written in one
            # piece. Only the batch that crosses a file boundary is measured entry by entry.
            if parts.count + len(batch.locs) <= max_urls:
                data = fmt.block(batch).encode("utf-8")
                if len(data) <= max_block and parts.used + len(data) <= parts.room:
                    parts.add(data, len(data), len(batch.locs), batch.lastmods)
                    continue
            parts.add_entries(batch, report, before_split)
        parts.close()
    finally:
        parts.abandon()
    return parts.files


def _by_part(batches: Iterable[Batch], parts_of: Container[Optional[str]], parts: _Parts,
             before_split: Optional[Callable[[], None]]) -> Iterator[Batch]:
    """The batches cut where a row of another part of the earlier output begins; the open
    file is closed there (once it has entries), so that part begins a file of its own."""
    last: Optional[str] = None
    for batch in batches:
        n = len(batch.locs)
        sources = batch.sources or [batch.source] * n
        cuts = []
        for i, source in enumerate(sources):
            if source != last and source in parts_of:
                if last is not None:
                    cuts.append(i)
                last = source
        bounds = [0, *cuts, n]
        for start, end in zip(bounds, bounds[1:], strict=False):
            if end == start:
                continue
            if start in cuts and parts.raw is not None and parts.count:
                parts.next_file(before_split)
            yield batch if (start, end) == (0, n) else batch.without(
                [*range(start), *range(end, n)])


class _Parts:
    """The files written so far and the open one, with its exact accounting: bytes of entries
    (``used``, at most ``room``), entries (``count``, at most ``max_urls``), newest lastmod.

    A feed's header names the newest lastmod of its own file, known only when the file is
    complete: its entries go to an unnamed temporary (``body``) first and are copied in after
    the header when the file closes (one extra pass over at most max_bytes).
    """

    def __init__(self, fmt: Format, max_urls: int, max_bytes: int, open_part: Opener,
                 gzip_level: Optional[int], files: list[FileInfo]) -> None:
        self.fmt, self.open_part, self.files = fmt, open_part, files
        self.stamped = isinstance(fmt, FeedFormat)
        self.header = fmt.header().encode("utf-8")
        self.footer = fmt.footer().encode("utf-8")
        self.max_urls, self.max_bytes, self.gzip_level = max_urls, max_bytes, gzip_level
        # the room one file has for entries once the declaration, root tags and closing tag are in
        self.room = max_bytes - len(self.header) - len(self.footer)
        self.raw: Optional[BinaryOut] = None  # the open file
        self.sink: Optional[BinaryOut] = None  # raw, or a gzip stream over it
        self.body: Optional[IO[bytes]] = None  # a feed's entries, until the file closes
        self.info = FileInfo(None)
        self.used = self.room + 1  # "full" until the first file opens
        self.count = max_urls

    def add(self, data: bytes, size: int, n: int,
            lastmods: Optional[list[Optional[Lastmod]]]) -> None:
        """Entries that fit the open file: their bytes, UTF-8 size and number."""
        out = self.body if self.body is not None else self.sink
        assert out is not None
        out.write(data)
        self.used += size
        self.count += n
        if lastmods is not None:
            self.info.newest = newest_of([self.info.newest, *lastmods])

    def add_entries(self, batch: Batch, report: Report,
                    before_split: Optional[Callable[[], None]]) -> None:
        """A batch that does not fit the open file: as many entries as fit go there, the next
        file is opened for the rest, and so on; an entry larger than a whole file is skipped."""
        texts = self.fmt.entries(batch)
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
                self.add("".join(texts[i:i + k]).encode("utf-8"), ends[k - 1], k,
                         None if batch.lastmods is None else batch.lastmods[i:i + k])
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
        if self.raw is not None:
            self.close()
            if before_split is not None and len(self.files) == 1:
                before_split()
        self.raw, self.info = self.open_part(len(self.files) + 1)
        self.files.append(self.info)
        self.sink = self.raw
        if self.gzip_level is not None:
            import gzip  # (a run that compresses imports it: start-up time)

            # filename="" and mtime=0: the gzip header must not carry the temporary's name or
            # the clock, so the same input gives byte-identical output.
            self.sink = gzip.GzipFile(filename="", mode="wb", fileobj=self.raw,
                                      compresslevel=self.gzip_level, mtime=0)
        if self.stamped:
            import tempfile  # (imports shutil, bz2, lzma and random: start-up)

            self.body = tempfile.TemporaryFile()
        else:
            self.sink.write(self.header)
        self.used = self.count = 0

    def close(self) -> None:
        """Complete the open file (if any): a stamped header, the entries, the closing tag."""
        raw, sink, info = self.raw, self.sink, self.info
        if raw is None or sink is None:
            return
        if self.body is not None:
            assert isinstance(self.fmt, FeedFormat)
            head = self.fmt.file_header(info.newest).encode("utf-8")
            assert len(head) == len(self.header), "a stamped header's size is fixed"
            sink.write(head)
            self.body.seek(0)
            while chunk := self.body.read(1 << 20):
                sink.write(chunk)
            self.body.close()
            self.body = None
        sink.write(self.footer)
        info.count, info.size = self.count, len(self.header) + self.used + len(self.footer)
        if sink is not raw:
            sink.close()
        raw.flush()
        if self.gzip_level is not None:
            info.compressed_size = raw.tell()
        raw.close()
        self.raw = self.sink = None

    def abandon(self) -> None:
        """Let go of an open file after a failure (its temporary is the opener's to remove)."""
        if self.raw is not None:
            self.raw.close()
        if self.body is not None:
            self.body.close()


class Written(NamedTuple):
    """The files of a run: the sitemaps (parts) and the index files that list them."""

    parts: list[FileInfo]
    indexes: list[FileInfo]


def _bounds(profile: Profile, conj: str = "and") -> str:
    """The limits a file obeys, in words: "50,000 entries and 52,428,800 bytes"."""
    return f" {conj} ".join(f"{n:,} {unit}" for n, unit in (
        (profile.max_urls, "entries"), (profile.max_bytes, "bytes")) if n < UNLIMITED)


def write_output(batches: Iterable[Batch], fmt: Format, profile: Profile, out: OutputSet,
                 report: Report, *, gzip_level: Optional[int], base_url: Optional[str],
                 always_index: bool = False,
                 parts_of: Optional[Container[Optional[str]]] = None) -> Written:
    """Write the records to ``out``: one file, or parts plus an index when they do not fit.
    Nothing written at all (every entry too large) returns no files; the caller decides."""

    def before_split() -> None:
        if fmt.limits in ("feed", "data"):  # limits.output_profile: one file, never parts
            what, hint = (("a feed", "a feed reader follows no index: lower the entries, or "
                           "write a sitemap (`to` xml)") if fmt.limits == "feed"
                          else ("a JSON Lines file", "JSON Lines is never split"))
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
    fmt = _styled(fmt, out)
    if out.previous.dropped:
        report.note(f"not kept from the earlier file: {', '.join(out.previous.dropped)} (a "
                    "stylesheet instruction is kept)", out.display)
    try:
        try:
            write_records(batches, fmt, profile, out.open_temp, gzip_level, report,
                          before_split, files, parts_of)
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
            return Written([], [])
        name = os.path.basename(out.path) if out.path else out.display
        if len(files) == 1 and not always_index:
            out.commit(files, [name], report=report)
            return Written(files, [])
        assert base_url is not None and out.path is not None
        indexes, all_names = write_indexes(files, name, profile, out, report, gzip_level,
                                           base_url)
        out.commit(files + indexes, all_names, report=report)
        return Written(files, indexes)
    except BrokenPipeError:
        if out.path is not None:
            raise OutputError(f"{out.display}: cannot write: broken pipe") from None
        raise  # stdout's reader has gone: the command ends quietly (see cli/entry.py)
    except OSError as exc:
        # a full disk, a file-size limit (EFBIG), a directory made read-only mid-run
        staging = out.staging_dir()
        where = "" if staging is None else (
            f" (the output is prepared in {staging} first; TMPDIR chooses another directory)")
        raise OutputError(f"{out.display}: cannot write: {exc.strerror or exc}{where}; nothing "
                          "was replaced") from None
    finally:
        out.abort()


def write_indexes(files: list[FileInfo], name: str, profile: Profile, out: OutputSet,
                  report: Report, gzip_level: Optional[int], base_url: str,
                  names: Optional[list[str]] = None) -> tuple[list[FileInfo], list[str]]:
    """The index files for ``files`` and the names of all (parts first, ``name`` last).

    An index obeys the limits of every file: at most max_urls entries (a lowered profile) and
    max_bytes. Only past the protocol's max_sitemaps parts, which no limit can avoid, does the
    index split the same way (STEM-index-1.EXT …, then STEM-index2-1.EXT …) until one file, the
    one at PATH, lists the rest: an index listing indexes is legal for no schema, so lowered
    limits that would need one are a LimitError instead. ``names`` are the parts' names
    (default STEM-1.EXT …; a partitioned run's parts have their own).
    """
    _check_index_entries(files, profile, out.display)
    names = part_names(name, len(files)) if names is None else names
    level, all_names, indexes = files, list(names), []
    # percent-encoded: a name is the user's choice of -o, and may hold anything but "/"
    base = base_url if base_url.endswith("/") else base_url[: base_url.rfind("/") + 1]
    depth = 0
    while True:
        _keep_listed_lastmods(level, names, out)
        listed = len(level)
        records = batched(make_record(base + url_segment(n), info.newest, is_sitemap=True)
                          for info, n in zip(level, names, strict=True))
        level = write_records(records, _styled(INDEX, out), profile, out.open_temp, gzip_level,
                              report)
        indexes += level
        if len(level) == 1:
            return indexes, all_names + [name]
        if len(level) >= listed:
            raise LimitError("the limits let an index file list only one sitemap; raise "
                             "`max_urls` or `max_bytes`")
        if depth == 0 and listed <= profile.max_sitemaps:
            raise LimitError(f"{out.display}: an index listing the {listed:,} sitemap files "
                             f"needs more than `max_bytes` ({profile.max_bytes:,}) allows per "
                             "file, and an index cannot list indexes: raise `max_bytes`")
        depth += 1
        names = part_names(name, len(level), "index" if depth == 1 else f"index{depth}")
        all_names += names


def _check_index_entries(files: list[FileInfo], profile: Profile, display: str) -> None:
    """A LimitError when a lowered max_urls cannot list the parts in one index, with the
    least max_urls that can when the parts are split by count (URLs <= max_urls ** 2)."""
    parts, most = len(files), profile.max_urls
    if parts <= most or most >= profile.max_sitemaps:
        return
    least = max(most + 1, isqrt(sum(f.count for f in files) - 1) + 1)
    raise LimitError(f"{display}: the {parts:,} sitemap files need an index of {parts:,} "
                     f"entries, more than `max_urls` ({most:,}) allows per file, and an index "
                     f"cannot list indexes: raise `max_urls` to at least {least:,}")


def _styled(fmt: Format, out: OutputSet) -> Format:
    """``fmt`` with the stylesheet instruction the earlier file of its kind had, else the one
    the earlier output had (files/previous.py)."""
    styles = out.previous.styles
    if isinstance(fmt, UrlsetFormat):
        return styled(fmt, styles.get("urlset", styles.get("index", "")))
    if isinstance(fmt, IndexFormat):
        return styled(fmt, styles.get("index", styles.get("urlset", "")))
    return fmt


def _keep_listed_lastmods(files: list[FileInfo], names: list[str], out: OutputSet) -> None:
    """A file whose bytes did not change keeps the lastmod the earlier index gave it, so that
    the index changes only where a part did (crawlers fetch what changed, and nothing else)."""
    for info, name in zip(files, names, strict=True):
        old = out.previous.listed.get(name)
        if old is not None and out.is_unchanged(info, name):
            info.newest = old
