"""One partition of a distributed run (Dask, Spark, Beam): the command's rules, cut in two.

An engine's map step applies the per-URL rules (``prepare``: normalise, length, scope) and
gives each URL a partition (``partition_of``, a hash of the normalised URL, so every copy of a
URL lands in one); the engine shuffles; each partition then merges its copies and writes its
own parts (``write_partition``) under names that depend on nothing but the partition and the
part's number (STEM-PARTITION-K.EXT). The index step (indexing.py) lists them all. Partitions
may run anywhere, in any order, and be retried.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any, Optional, Union

from ..errors import InputError, OptionError, OutputError
from ..files.naming import partition_part_name, temp_prefix
from ..files.outputs import FileInfo
from ..files.safety import deferred_signals, keep_metadata, make_temp, umask_mode
from ..files.split import DEFAULT_GZIP_LEVEL, write_records
from ..files.store import Bucket, is_store
from ..model.batch import Batch, batched, unbatched
from ..model.filters import Filters
from ..model.limits import Profile, profile_of
from ..model.options import Defaults, Limits, WriteOptions
from ..model.record import Lastmod, Record, format_lastmod, parse_lastmod
from ..model.report import Report
from ..model.scope import base_of
from ..pipeline.merging import DEFAULT_MEMORY_LIMIT, MergeCounts
from ..pipeline.removals import filter_urls
from ..pipeline.steps import (
    apply_defaults,
    check_fields,
    check_length,
    dedupe,
    drop_deprecated,
    merge,
    normalize,
    within_scope,
)
from ..writers import URLSET

__all__ = ["PartManifest", "partition_of", "prepare", "prepare_batches", "write_partition"]

Items = Iterable[Union[Record, Batch]]


def partition_of(loc: str, partitions: int) -> int:
    """The partition (0 … partitions-1) of a normalised URL: every copy of a URL gets the same
    one, wherever and whenever it is computed (a keyed hash, not Python's per-process
    ``hash``)."""
    digest = hashlib.blake2b(loc.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return (int.from_bytes(digest, "big") >> 1) % partitions


def prepare_batches(batches: Iterable[Batch], report: Report, *, base_url: Optional[str],
                    limits: Limits = Limits(), scope_check: bool = True) -> Iterator[Batch]:
    """The command's per-URL rules, for a map step: normalise each loc (skipping invalid URLs),
    skip those too long or too short for the profile, and with ``scope_check`` those outside
    ``base_url``'s directory. Each skip is counted in ``report``. Pure: the output depends on
    the records alone, so any worker may run it on any slice of the data."""
    prof = profile_of(limits.profile)
    scope = None if base_url is None else base_of(base_url)[1]
    if scope is None and scope_check:
        # the command takes the first URL's site; a partition cannot know which URL is first
        raise OptionError("a partitioned run needs it for its scope check (or `scope_check` "
                          "False)", parameter="base_url")
    stream = check_length(normalize(batches, report), prof.max_loc, report, prof.name,
                          prof.min_loc)
    return within_scope(stream, report, scope) if scope_check else stream


def prepare(records: Iterable[Record], report: Optional[Report] = None, *,
            base_url: Optional[str], limits: Limits = Limits(),
            scope_check: bool = True) -> Iterator[Record]:
    """``prepare_batches`` for records (a Spark ``mapPartitions`` step, say)."""
    return unbatched(prepare_batches(batched(records), report or Report(), base_url=base_url,
                                     limits=limits, scope_check=scope_check))


@dataclass(frozen=True)
class PartManifest:
    """One written part: what the index step needs without reading it again."""

    name: str  # the file's name (STEM-PARTITION-K.EXT), or a path (then its last segment)
    urls: int
    bytes: int  # uncompressed UTF-8 bytes, as the limits count them
    file_bytes: int  # on disk (gzip-compressed size for .gz parts)
    newest: Optional[Lastmod] = None  # the newest lastmod of its URLs

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready form (one object per line of a manifest file)."""
        return {"name": self.name, "urls": self.urls, "bytes": self.bytes,
                "file_bytes": self.file_bytes,
                "newest": None if self.newest is None else format_lastmod(self.newest)}

    @classmethod
    def from_dict(cls, data: Any, source: Optional[str] = None,
                  line: Optional[int] = None) -> PartManifest:
        """Read back ``as_dict``'s form; anything else is an InputError naming source:line."""
        def bad(why: str) -> InputError:
            return InputError(source, line, f"not a part manifest: {why}")

        if not isinstance(data, dict):
            raise bad("not a JSON object")
        name, newest = data.get("name"), data.get("newest")
        if not isinstance(name, str) or not name or "\0" in name:  # (no file has a NUL)
            raise bad('"name" must be a file name')
        for key in ("urls", "bytes", "file_bytes"):
            value = data.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise bad(f'"{key}" must be a whole number')
        if newest is not None and not isinstance(newest, str):
            raise bad('"newest" must be a W3C datetime or null')
        try:
            lastmod = None if newest is None else parse_lastmod(newest)
        except ValueError as exc:
            raise bad(f'"newest": {exc}') from None
        return cls(name, data["urls"], data["bytes"], data["file_bytes"], lastmod)


def _batches(items: Items) -> Iterator[Batch]:
    """Records or batches (or a mix) as batches."""
    for is_batch, run in groupby(items, lambda item: isinstance(item, Batch)):
        yield from run if is_batch else batched(run)  # type: ignore[misc,arg-type] # noqa: B031


def write_partition(items: Items, directory: str, stem: str, partition: int, *,
                    writing: WriteOptions = WriteOptions(), limits: Limits = Limits(),
                    defaults: Defaults = Defaults(), dedupe_mode: str = "merge",
                    report: Optional[Report] = None, counts: Optional[MergeCounts] = None,
                    memory_limit: int = DEFAULT_MEMORY_LIMIT,
                    filters: Filters = Filters()) -> list[PartManifest]:
    """Write one partition's records (or batches) as sitemaps STEM-PARTITION-K.xml[.gz] in
    ``directory``, K = 1, 2, …, each within ``limits``; return a manifest per file. Of
    ``writing``, ``gzip`` and ``gzip_level`` count (atomicity and locking are the index
    step's, ``write_index``).

    Records should come from ``prepare`` (locations are normalised again and checked for length;
    scope is ``prepare``'s business). Copies of a URL are folded as the command does:
    ``dedupe_mode`` "merge" (newest lastmod wins, ``counts`` filled), "first" (later copies
    skipped and counted in ``report``) or "none". The first copy keeps its place, so give the
    records in a deterministic order for byte-identical reruns. ``defaults`` fill fields no copy
    gave; ``filters`` leave URLs out by rule (model/filters.py), counted in ``report.excluded``.
    Each file is renamed into place when complete, so a killed task leaves no partial part, and
    a retried task writes the same names with the same bytes. An empty partition writes nothing
    and returns []. ``directory`` may be a folder in object storage (s3://BUCKET/FOLDER: the
    parts are written to a local temporary folder, then each uploaded with one PUT, with
    ``writing.cache_control``); the index step of feed2sitemap.dask copies them into place.
    """
    if partition < 0:
        raise OptionError("must be 0 or more", parameter="partition")
    check_dedupe_mode(dedupe_mode)
    if writing.to not in (None, "xml"):
        raise OptionError(f"a partition is written as XML, not {writing.to!r}", "to")
    _check_stem(stem)
    prof = profile_of(limits.profile, limits.max_urls, limits.max_bytes)
    report = report if report is not None else Report()
    name = stem + URLSET.extension + (".gz" if writing.gzip else "")
    level = None if not writing.gzip else (
        DEFAULT_GZIP_LEVEL if writing.gzip_level is None else writing.gzip_level)
    stream = _rules(items, limits, report, writing, defaults, dedupe_mode, counts, memory_limit,
                    filters)
    if not is_store(directory):
        return _write_parts(stream, directory, name, partition, prof, level, report)
    # written here, then uploaded: one code path for the bytes
    bucket = Bucket(f"{directory.rstrip('/')}/{stem}{URLSET.extension}", writing.cache_control)
    with tempfile.TemporaryDirectory(prefix="feed2sitemap-") as local:
        manifests = _write_parts(stream, local, name, partition, prof, level, report)
        for m in manifests:
            bucket.upload(os.path.join(local, m.name), m.name)
    return manifests


def _rules(items: Items, limits: Limits, report: Report, writing: WriteOptions,
           defaults: Defaults, dedupe_mode: str, counts: Optional[MergeCounts],
           memory_limit: int, filters: Filters) -> Iterable[Batch]:
    """The command's rules over what is given, ``prepare``'s output or not."""
    stream = prepare_batches(check_fields(_batches(items), report), report, base_url=None,
                             limits=limits, scope_check=False)
    if filters:
        stream = filter_urls(stream, filters, report)
    if dedupe_mode == "merge":
        stream = merge(stream, counts, memory_limit=memory_limit)
    elif dedupe_mode == "first":
        stream = dedupe(stream, report)
    stream = apply_defaults(stream, defaults.changefreq, defaults.priority)
    if writing.drop_deprecated:
        stream = drop_deprecated(stream, report)
    return stream


def _write_parts(stream: Iterable[Batch], directory: str, name: str, partition: int,
                 prof: Profile, level: Optional[int], report: Report) -> list[PartManifest]:
    """The parts of ``stream`` in ``directory``, each renamed into place when complete."""
    if not os.path.isdir(directory):
        raise OutputError(f"{directory}: cannot write parts: not a directory")
    temps: list[str] = []

    def open_part(k: int) -> tuple[Any, FileInfo]:
        final = partition_part_name(name, partition, k)
        with deferred_signals():  # made and listed at once
            temps.append(make_temp(directory, temp_prefix(final)))
        return open(temps[-1], "wb"), FileInfo(os.path.join(directory, final))

    try:
        files = write_records(stream, URLSET, prof, open_part, level, report)
        for info, temp in zip(files, temps, strict=True):
            assert info.path is not None
            # the mode and group of the part replaced, else of the set's index, as the command
            keep_metadata(temp, info.path, _MODE, os.path.join(directory, name))
            os.replace(temp, info.path)
        temps.clear()
    except OSError as exc:
        raise OutputError(f"{directory}: cannot write partition {partition}: "
                          f"{exc.strerror or exc}") from None
    finally:
        with deferred_signals():  # (a signal now would leave the rest of them behind)
            for temp in temps:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
    return [PartManifest(os.path.basename(f.path or ""), f.count, f.size,
                         f.size if f.compressed_size is None else f.compressed_size, f.newest)
            for f in files]


def check_dedupe_mode(mode: str) -> None:
    """A partition's copies are merged, kept first or kept all: "auto" is the command's
    choice by the number of inputs, which a partition does not know."""
    if mode not in ("merge", "first", "none"):
        raise OptionError(f"unknown dedupe mode {mode!r}; choose merge, first or none",
                          parameter="dedupe_mode")


def _check_stem(stem: Any) -> None:
    """OptionError unless ``stem`` can begin a file's name in the directory: a string, not
    empty, "." or "..", with no path separator and no control character."""
    if not isinstance(stem, str) or stem in ("", ".", "..") or "/" in stem or \
            os.sep in stem or (os.altsep is not None and os.altsep in stem) or \
            any(ord(c) < 32 or ord(c) == 127 for c in stem):
        raise OptionError(f"must be a file name without its extension, not {stem!r}",
                          parameter="stem")


# read once, at import: os.umask can only be read by setting it, which races with other
# threads of a worker creating files
_MODE = umask_mode()
