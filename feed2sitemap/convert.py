"""convert(): the one function behind both the command and the library."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Optional, Union

from .batch import Batch, batched, unbatched
from .detect import FORMATS as INPUT_FORMATS
from .detect import open_input, sniff
from .errors import InputError, UnsupportedFormat
from .limits import Profile, get_profile, output_profile
from .merge import MergeCounts, find_base
from .outputs import FileInfo, OutputSet, split_name
from .pipeline import (
    apply_defaults_batches,
    check_length_batches,
    dedupe_batches,
    follow_index_batches,
    merge,
    normalize_batches,
    within_scope_batches,
)
from .readers import READERS, WHOLE_READERS
from .readers.feed import DEFAULT_MAX_FEED_BYTES
from .record import Record
from .report import Progress, Report
from .split import DEFAULT_GZIP_LEVEL, write_output
from .urls import Scope, normalize_url, scope_of
from .writers import (
    INDEX,
    URLSET,
    FeedFormat,
    Format,
    format_for_name,
    get_format,
    limits_of,
)

__all__ = ["Source", "Summary", "convert", "output_format", "read", "write"]

Source = Union[str, "os.PathLike[str]", IO[bytes]]
Destination = Union[str, "os.PathLike[str]", IO[bytes], None]


@dataclass
class Summary:
    """What a run wrote and what it left out."""

    parts: list[FileInfo] = field(default_factory=list)  # the sitemaps (or feeds) written
    indexes: list[FileInfo] = field(default_factory=list)  # index files listing the parts
    removed: list[str] = field(default_factory=list)  # stale parts of an earlier run, deleted
    report: Report = field(default_factory=Report)
    of_sitemaps: bool = False  # the parts list sitemaps (an index was converted)
    merge: Optional[MergeCounts] = None  # what merging did (the default dedupe mode)

    @property
    def files(self) -> list[FileInfo]:
        return self.parts + self.indexes

    @property
    def urls(self) -> int:
        """Entries written to sitemaps (index files not counted)."""
        return sum(f.count for f in self.parts)


def _source_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def read(source: Source, format: str = "auto", *, report: Optional[Report] = None,
         base_url: Optional[str] = None, max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES,
         name: Optional[str] = None) -> Iterator[Record]:
    """Yield the records of one input: a path or a binary stream, plain or gzip-compressed.

    ``format`` is "auto" (sniffed from the first bytes) or one of detect.FORMATS ("feed",
    "text", "sitemap", "jsonfeed", "tsv", "csv", "jsonl").
    Locations are as the input gave them; ``convert`` normalises and checks them.
    """
    return unbatched(read_batches(source, format, report=report, base_url=base_url,
                                  max_feed_bytes=max_feed_bytes, name=name))


def read_batches(source: Source, format: str = "auto", *, report: Optional[Report] = None,
                 base_url: Optional[str] = None, max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES,
                 name: Optional[str] = None) -> Iterator[Batch]:
    """``read``, in batches (see batch.py): what convert itself uses."""
    if format != "auto" and format not in INPUT_FORMATS:
        raise UnsupportedFormat(f"unknown input format {format!r}; choose one of: auto, "
                                f"{', '.join(INPUT_FORMATS)}")
    report = report if report is not None else Report()
    name = name or _source_name(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            raw: IO[bytes] = open(source, "rb")
        except OSError as exc:
            raise InputError(name, None, f"cannot open: {exc.strerror}") from None
        with raw:
            yield from _read_stream(raw, name, format, report, base_url, max_feed_bytes)
    else:
        yield from _read_stream(source, name, format, report, base_url, max_feed_bytes)


def _read_stream(raw: IO[bytes], name: str, format: str, report: Report,
                 base_url: Optional[str], max_feed_bytes: int) -> Iterator[Batch]:
    try:
        stream, head = open_input(raw, name)
        if not head:
            raise InputError(name, None, "the input is empty")
        kind = sniff(head, name) if format == "auto" else format
        if kind in WHOLE_READERS:
            yield from WHOLE_READERS[kind](stream, name, report, base_url,
                                           max_bytes=max_feed_bytes)
        else:
            yield from READERS[kind](stream, name, report, base_url)
    except IsADirectoryError:
        raise InputError(name, None, "is a directory") from None
    except OSError as exc:
        raise InputError(name, None, f"read error: {exc.strerror or exc}") from None


def output_format(output: Optional[str], to: Optional[str]) -> Format:
    """--to wins; else the output name: .txt → text, .rss → rss, .atom → atom (each also
    .gz); anything else → XML."""
    if to is not None:
        return get_format(to)
    if output:
        return format_for_name(split_name(os.path.basename(output))[1])
    return get_format("xml")


def _one_kind(batches: Iterable[Batch], report: Report) -> Iterator[Batch]:
    """A sitemap holds pages or sitemaps, not both: the first record decides, others are skipped."""
    kind = None
    for batch in batches:
        if not batch.locs:
            continue
        if kind is None:
            kind = batch.is_sitemap
        if batch.is_sitemap == kind:
            yield batch
            continue
        what = "a sitemap (from an index)" if batch.is_sitemap else "a page"
        for i, loc in enumerate(batch.locs):
            report.skip("mixed kinds", *batch.where(i), f"{loc[:200]} is {what}; the output "
                        f"holds {'sitemaps' if kind else 'pages'} only")


def convert(inputs: Sequence[Source], output: Destination = None, *,
            from_format: str = "auto", to: Optional[str] = None, base_url: Optional[str] = None,
            changefreq: Optional[str] = None, priority: Optional[float] = None,
            scope_check: bool = True, strict: bool = False,
            profile: Union[str, Profile] = "sitemaps", max_urls: Optional[int] = None,
            max_bytes: Optional[int] = None, gzip: Optional[bool] = None,
            gzip_level: Optional[int] = None, index: str = "auto",
            max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES, report: Optional[Report] = None,
            dedupe_mode: str = "auto", follow: bool = False, title: Optional[str] = None,
            site_url: Optional[str] = None, description: Optional[str] = None,
            progress: Optional[Progress] = None) -> Summary:
    """Read every input, check and normalise the URLs, and write sitemap file(s).

    ``output`` is a path (written atomically: temporaries renamed when all succeeded), a binary
    stream, or None/"-" for stdout. Raises a Feed2SitemapError subclass for bad data or options;
    problems that only skip a record are counted in ``summary.report`` (errors with ``strict``).

    ``dedupe_mode``: "merge" (one entry per URL, newest lastmod wins, see ``merge.py``; when
    ``output`` is also an input, ``summary.merge`` compares with it), "first" (the first copy
    wins, one streaming pass), "none", or "auto": merge when there are several inputs, else
    first (a single input streams in flat memory and keeps the core's first-wins rule).
    ``follow`` reads the local parts of an index input.
    ``title``, ``site_url`` and ``description`` describe the channel of RSS/Atom output.
    """
    if dedupe_mode not in ("auto", "merge", "first", "none"):
        raise UnsupportedFormat(f"unknown dedupe mode {dedupe_mode!r}; choose auto, merge, "
                                "first or none")
    if dedupe_mode == "auto":
        dedupe_mode = "merge" if len(inputs) > 1 else "first"
    report = report if report is not None else Report(strict=strict)
    prof = _profile(profile, max_urls, max_bytes)
    scope: Optional[Scope] = None
    if base_url is not None:
        try:
            scope = scope_of(base_url)
        except ValueError as exc:
            raise UnsupportedFormat(f"--base-url: {exc}") from None

    out_path = os.fspath(output) if isinstance(output, (str, os.PathLike)) else None
    base_name = find_base(inputs, out_path) if dedupe_mode == "merge" else None
    base: Optional[set[Optional[str]]] = {base_name} if base_name is not None else None

    def batches() -> Iterator[Batch]:
        for source in inputs:
            name = None
            if isinstance(source, str) and source == "-":
                source, name = sys.stdin.buffer, "<stdin>"
            it = read_batches(source, from_format, report=report, base_url=base_url,
                              max_feed_bytes=max_feed_bytes, name=name)
            if follow:
                path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
                it = follow_index_batches(it, None if path is None else os.path.dirname(path),
                                          part_reader(base is not None and path in base))
            yield from it

    def part_reader(in_base: bool) -> Callable[[str], Iterator[Batch]]:
        def read_part(path: str) -> Iterator[Batch]:
            if in_base:
                assert base is not None
                base.add(path)  # the parts of the output's previous version are the base too
            return read_batches(path, report=report, base_url=base_url,
                                max_feed_bytes=max_feed_bytes)
        return read_part

    stream: Iterator[Batch] = batches()
    if progress is not None:
        stream = _counted(stream, progress)
    stream = normalize_batches(stream, report)
    stream = check_length_batches(stream, prof.max_loc, report, prof.name, prof.min_loc)
    if scope_check:
        stream = within_scope_batches(stream, report, scope)
    counts = None
    if dedupe_mode == "merge":
        counts = MergeCounts(base_name)
        stream = batched(merge(unbatched(stream), counts, base=base))
    elif dedupe_mode == "first":
        stream = dedupe_batches(stream, report)
    stream = apply_defaults_batches(stream, changefreq, priority)
    names = ", ".join("<stdin>" if s == "-" else _source_name(s) for s in inputs) or "<stdin>"
    summary = write_batches(stream, output, to=to, profile=profile, max_urls=max_urls,
                            max_bytes=max_bytes, base_url=base_url, gzip=gzip,
                            gzip_level=gzip_level, index=index, report=report,
                            source_name=names, title=title, site_url=site_url,
                            description=description, progress=progress)
    summary.merge = counts
    return summary


def _counted(batches: Iterable[Batch], progress: Progress) -> Iterator[Batch]:
    for batch in batches:
        progress.read(len(batch.locs))
        yield batch


def _site_url(site_url: Optional[str], base_url: Optional[str], first_loc: str) -> str:
    """A feed's channel link: --site-url, else --base-url's directory, else the first URL's
    origin."""
    try:
        if site_url is not None:
            return normalize_url(site_url)
        return scope_of(base_url).prefix if base_url is not None else scope_of(
            first_loc, directory=False).prefix
    except ValueError as exc:
        raise UnsupportedFormat(f"--site-url: {exc}") from None


def _profile(profile: Union[str, Profile], max_urls: Optional[int],
             max_bytes: Optional[int]) -> Profile:
    try:
        prof = get_profile(profile) if isinstance(profile, str) else profile
        return prof.lowered(max_urls, max_bytes)
    except ValueError as exc:
        raise UnsupportedFormat(str(exc)) from None


def write(records: Iterable[Record], dest: Destination = None, *, to: Optional[str] = None,
          profile: Union[str, Profile] = "sitemaps", base_url: Optional[str] = None,
          gzip: Optional[bool] = None, gzip_level: Optional[int] = None, index: str = "auto",
          report: Optional[Report] = None, source_name: Optional[str] = None,
          title: Optional[str] = None, site_url: Optional[str] = None,
          description: Optional[str] = None) -> Summary:
    """Write records to a path, a binary stream or stdout, split by the profile's limits.

    The records are written as given (``convert`` is what checks URLs). Records that are
    sitemaps (``is_sitemap``) make a sitemap index.
    """
    return write_batches(batched(records), dest, to=to, profile=profile, base_url=base_url,
                         gzip=gzip, gzip_level=gzip_level, index=index, report=report,
                         source_name=source_name, title=title, site_url=site_url,
                         description=description)


def write_batches(batches: Iterable[Batch], dest: Destination = None, *,
                  to: Optional[str] = None, profile: Union[str, Profile] = "sitemaps",
                  base_url: Optional[str] = None, gzip: Optional[bool] = None,
                  gzip_level: Optional[int] = None, index: str = "auto",
                  report: Optional[Report] = None, source_name: Optional[str] = None,
                  title: Optional[str] = None, site_url: Optional[str] = None,
                  description: Optional[str] = None,
                  progress: Optional[Progress] = None, max_urls: Optional[int] = None,
                  max_bytes: Optional[int] = None) -> Summary:
    """``write``, in batches (see batch.py): what convert itself uses. ``max_urls`` and
    ``max_bytes`` lower the profile's limits; which limits apply at all depends on the output
    (limits.output_profile: none for JSON Lines and text to stdout unless asked)."""
    report = report if report is not None else Report()
    prof = _profile(profile, None, None)
    path = os.fspath(dest) if isinstance(dest, (str, os.PathLike)) else None
    if path == "-":
        path = None
    try:
        fmt = output_format(path, to)
    except ValueError as exc:
        raise UnsupportedFormat(str(exc)) from None
    if index not in ("auto", "always"):
        raise UnsupportedFormat(f"unknown index mode {index!r}; choose auto or always")
    if index == "always" and (base_url is None or path is None):
        raise UnsupportedFormat("--index always needs -o FILE and --base-url")
    if gzip is None:
        gzip = bool(path and path.endswith(".gz"))
    level = None
    if gzip:
        level = DEFAULT_GZIP_LEVEL if gzip_level is None else gzip_level
        if not 0 <= level <= 9:
            raise UnsupportedFormat("--gzip-level must be between 0 and 9")

    if path is not None:
        out = OutputSet(path, progress=progress)
    else:
        stream = dest if dest is not None and not isinstance(dest, str) else sys.stdout.buffer
        out = OutputSet(None, stream, progress=progress)  # type: ignore[arg-type]
    it = _one_kind(batches, report)
    first = next(it, None)
    if first is None:
        raise InputError(source_name or "<input>", None, "no URLs to write" + (
            f" ({report.total_skipped:,} skipped)" if report.total_skipped else ""))
    if first.is_sitemap and fmt is URLSET:
        fmt = INDEX
    if isinstance(fmt, FeedFormat):
        fmt = fmt.for_site(_site_url(site_url, base_url, first.locs[0]), title, description)
    try:
        prof = output_profile(prof, limits_of(fmt), path is None, max_urls, max_bytes)
    except ValueError as exc:
        raise UnsupportedFormat(str(exc)) from None
    written = write_output(itertools.chain([first], it), fmt, prof, out, report,
                           gzip_level=level, base_url=base_url, always_index=index == "always")
    return Summary(written.parts, written.indexes, out.removed, report, fmt is INDEX)
