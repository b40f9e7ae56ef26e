"""Writing a run's records: the output format, the profile's limits for it, and the output set
(files/outputs.py) that puts the files in place; what was written comes back as a Summary."""

from __future__ import annotations

import contextlib
import io
import itertools
import os
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Optional, Union

from ..errors import InputError, OptionError, UnsupportedFormat
from ..files.naming import split_name
from ..files.outputs import FileInfo, OutputSet
from ..files.split import DEFAULT_GZIP_LEVEL, write_output
from ..files.store import is_store
from ..model.batch import Batch, batched
from ..model.limits import output_profile, profile_of
from ..model.options import Channel, Limits, WriteOptions
from ..model.record import Record
from ..model.report import Progress, Report, Submitted
from ..model.scope import base_of, scope_of
from ..model.urls import normalize_url
from ..pipeline.merging import MergeCounts  # (a Summary field: typing.get_type_hints)
from ..pipeline.removals import Removals
from ..pipeline.steps import check_fields, check_length, drop_deprecated, normalize
from ..writers import INDEX, URLSET, FeedFormat, Format, UrlsetFormat, format_for_name, get_format

Destination = Union[str, "os.PathLike[str]", IO[bytes]]


@dataclass
class Summary:
    """What a run wrote and what it left out."""

    parts: list[FileInfo] = field(default_factory=list)  # the sitemaps (or feeds) written
    indexes: list[FileInfo] = field(default_factory=list)  # index files listing the parts
    removed: list[str] = field(default_factory=list)  # the earlier run's parts, now deleted
    report: Report = field(default_factory=Report)
    of_sitemaps: bool = False  # the parts list sitemaps (an index was converted)
    merge: Optional[MergeCounts] = None  # what merging did
    removals: Optional[Removals] = None  # what left the earlier output (an update in place)
    unchanged: list[str] = field(default_factory=list)  # files whose bytes were already there
    cleaned: list[str] = field(default_factory=list)  # an interrupted run's temporaries, deleted
    not_removed: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    # files the replaced index listed that feed2sitemap did not write: kept, though the new
    # index no longer lists them
    left: list[str] = field(default_factory=list)
    # the index command: what it did with each part (it writes none), by the part's path:
    # "moved into place", "left in place" or "unchanged"
    placed: dict[str, str] = field(default_factory=dict)
    dry_run: bool = False  # nothing was written: the files are what would have been
    robots: Optional[bool] = None  # robots.txt changed (True) or was already right (False)
    indexnow: Optional[Submitted] = None  # what was submitted (or, dry, would be)

    @property
    def files(self) -> list[FileInfo]:
        return self.parts + self.indexes

    @property
    def urls(self) -> int:
        """Entries written to sitemaps (index files not counted)."""
        return sum(f.count for f in self.parts)


def settings_of(path: Optional[str], writing: WriteOptions, base_url: Optional[str],
                dest: Destination, report: Report) -> tuple[Format, Optional[int]]:
    """The output format (`to`, else the output name's) and gzip level (None: not compressed),
    before any input is read. A name that says otherwise than the content is warned about: web
    servers label a file by its name, so a crawler would misread it."""
    fmt: Format = URLSET
    try:
        if writing.to is not None:
            fmt = get_format(writing.to)
        elif path:
            fmt = format_for_name(split_name(os.path.basename(path))[1].lower())
    except ValueError as exc:
        raise UnsupportedFormat(str(exc), "to") from None
    if writing.index == "always" and (base_url is None or path is None):
        raise OptionError("\"always\" needs an `output` file and `base_url`", "index")
    named = path is not None and path.lower().endswith(".gz")
    gzip = named if writing.gzip is None else writing.gzip
    if path is not None and gzip != named:
        report.warn("gzip name", path, None, (
            "`gzip=True` writes gzip data to a name not ending .gz" if gzip else
            "`gzip=False` writes plain data to a name ending .gz")
            + "; a web server will label the file wrongly")
    if gzip and path is None and getattr(dest, "isatty", bool)():
        raise OptionError("would write compressed bytes to the terminal; give an `output` "
                          "file name ending .gz (or pipe the output)", "gzip")
    if not gzip:
        return fmt, None
    return fmt, DEFAULT_GZIP_LEVEL if writing.gzip_level is None else writing.gzip_level


def dest_path(dest: Destination) -> Optional[str]:
    return os.fspath(dest) if isinstance(dest, (str, os.PathLike)) else None


def open_output(dest: Destination, progress: Optional[Progress], base_url: Optional[str],
                writing: WriteOptions, dry_run: bool = False) -> OutputSet:
    """The output set for ``dest``, locked and its earlier files read before any input is, so
    that reading and writing see one state of the directory."""
    path = dest_path(dest)
    if path is None:
        if isinstance(dest, (io.TextIOBase, bytes)) or not hasattr(dest, "write"):
            raise OptionError(f"must be a path or a binary stream (open(path, 'wb'), "
                              f"sys.stdout.buffer), not {type(dest).__name__}", "output")
        return OutputSet(None, dest, progress=progress)  # type: ignore[arg-type]
    if is_store(path):
        raise OptionError("object storage is written by convert() (and the command) only, "
                          "not yet by write() or the Dask writers", "output")
    return OutputSet(path, progress=progress, atomic=writing.atomic,
                     base_prefix=public_prefix(base_url), lock_timeout=writing.lock_timeout,
                     dry_run=dry_run)


def public_prefix(base_url: Optional[str]) -> Optional[str]:
    """The public URL of the output's directory, where its parts are; None if unknown."""
    with contextlib.suppress(ValueError):
        return scope_of(base_url).prefix if base_url is not None else None
    return None


def check_groups(**groups: tuple[object, Union[type, tuple[type, ...]]]) -> None:
    """Each option group (a parameter's value, and its class or classes) is of its class: a
    dict or a string passed instead would otherwise fail deep inside, or be misread."""
    for name, (value, kind) in groups.items():
        if not isinstance(value, kind):
            first = kind[0] if isinstance(kind, tuple) else kind
            raise OptionError(f"must be a {first.__name__}, not {type(value).__name__}", name)


def write(records: Iterable[Record], output: Destination, *, base_url: Optional[str] = None,
          report: Optional[Report] = None, writing: WriteOptions = WriteOptions(),
          limits: Limits = Limits(), channel: Channel = Channel(),
          source_name: Optional[str] = None) -> Summary:
    """Write records to a path or a binary stream, split by the limits as ``convert`` does,
    and checked as it checks what it reads: what cannot be written is skipped and counted in
    ``summary.report`` (JSON Lines, a data format, takes the locs as they are); a bad
    ``base_url``, or no records at all, is an OptionError. Records that are sitemaps
    (``is_sitemap``) make a sitemap index."""
    if not isinstance(records, Iterable) or isinstance(records, (str, bytes, Record)):
        raise OptionError("must be an iterable of Record values, not "
                          f"{type(records).__name__}", "records")
    return write_batches(batched(records), output, base_url=base_url, report=report,
                         writing=writing, limits=limits, channel=channel,
                         source_name=source_name)


def write_batches(batches: Iterable[Batch], output: Destination, *,
                  base_url: Optional[str] = None, report: Optional[Report] = None,
                  writing: WriteOptions = WriteOptions(), limits: Limits = Limits(),
                  channel: Channel = Channel(), source_name: Optional[str] = None,
                  progress: Optional[Progress] = None) -> Summary:
    """``write``, for batches (see model/batch.py), checked as ``write`` says."""
    check_groups(writing=(writing, WriteOptions), limits=(limits, Limits),
                 channel=(channel, Channel), report=(report, (Report, type(None))))
    report = report or Report()
    if base_url is not None:
        base_url, _, note = base_of(base_url)
        if note is not None:
            report.note(note)
    fmt, level = settings_of(dest_path(output), writing, base_url, output, report)
    prof = profile_of(limits.profile, None, None)
    checked = _first(check_fields(batches, report))
    if fmt.limits != "data":  # JSON Lines is data, written as given (lossless)
        checked = check_length(normalize(checked, report), prof.max_loc, report, prof.name,
                               prof.min_loc)
    out = open_output(output, progress, base_url, writing)
    try:
        return write_to(out, checked, fmt, level, writing, limits, report, base_url,
                        source_name, channel)
    finally:
        out.close()


def _first(batches: Iterator[Batch]) -> Iterator[Batch]:
    """``batches`` again, once one with a row is known to be there (else OptionError)."""
    for batch in batches:
        if batch.locs:
            return itertools.chain([batch], batches)
    raise OptionError("no records: a sitemap lists at least one URL", "records")


def write_to(out: OutputSet, batches: Iterable[Batch], fmt: Format, gzip_level: Optional[int],
             writing: WriteOptions, limits: Limits, report: Report, base_url: Optional[str],
             source_name: Optional[str], channel: Channel,
             parts_of: Optional[Container[Optional[str]]] = None) -> Summary:
    """Write the batches to ``out`` (``parts_of``: the earlier output's parts in an update in
    place, each kept to a file of its own)."""
    it = _one_kind(batches)
    first = next(it, None)
    if first is None:
        raise _nothing_to_write(source_name, report)
    if first.is_sitemap and fmt is URLSET:
        fmt = INDEX
    elif isinstance(fmt, UrlsetFormat):
        fmt = fmt.declaring(first)
    stream: Iterable[Batch] = itertools.chain([first], it)
    if not fmt.carries_extensions:  # no place for images, videos, news, alternates
        stream = _without_extensions(stream, fmt.name, report)
    elif writing.drop_deprecated:
        stream = drop_deprecated(stream, report)
    if fmt.name == "atom":
        stream = _undated(stream, report)
    if isinstance(fmt, FeedFormat):
        fmt = fmt.for_site(_site_url(channel.site_url, base_url, first.locs[0]), channel.title,
                           channel.description)
    # which limits apply depends on what is written, and where (OptionError past them)
    prof = output_profile(profile_of(limits.profile, None, None), fmt.limits, out.path is None,
                          limits.max_urls, limits.max_bytes)
    written = write_output(stream, fmt, prof, out, report, gzip_level=gzip_level,
                           base_url=base_url, always_index=writing.index == "always",
                           parts_of=parts_of)
    if not written.parts:  # every entry was skipped on the way (larger than a whole file)
        raise _nothing_to_write(source_name, report)
    prev = out.previous
    return Summary(written.parts, written.indexes, out.removed, report, fmt is INDEX,
                   unchanged=out.unchanged, cleaned=out.cleaned, not_removed=out.not_removed,
                   left=[p for p in (os.path.join(prev.directory, n) for n in prev.others)
                         if os.path.isfile(p)])


def _one_kind(batches: Iterable[Batch]) -> Iterator[Batch]:
    """A sitemap holds pages or sitemaps, not both: an index among pages (or pages among the
    entries of an index) is an error, not a silent choice of one kind."""
    kind = None
    for batch in batches:
        if not batch.locs:
            continue
        if kind is None:
            kind = batch.is_sitemap
        if batch.is_sitemap != kind:
            source, line = batch.where(0)
            what = ("lists sitemaps (it is an index) while other inputs give pages"
                    if batch.is_sitemap else "gives pages while other inputs are indexes")
            raise InputError(source, line, f"{what}: a sitemap holds one kind. To read the "
                             "pages an index lists, give `follow=True`")
        yield batch


def _site_url(site_url: Optional[str], base_url: Optional[str], first_loc: str) -> str:
    """A feed's channel link: `site_url`, else `base_url`, else the first URL's origin."""
    try:
        if site_url is not None:
            return normalize_url(site_url)
        return scope_of(base_url).prefix if base_url is not None else scope_of(
            first_loc, directory=False).prefix
    except ValueError as exc:
        raise OptionError(str(exc), "site_url") from None


def _without_extensions(batches: Iterable[Batch], fmt: str,
                        report: Report) -> Iterator[Batch]:
    """The batches less their extensions, the URLs that had any counted in one warning at the
    end (a text list of a site with images would otherwise say it for every page)."""
    count, first = 0, None
    kinds: set[str] = set()
    for batch in batches:
        if batch.extensions is not None:
            had = [i for i, ext in enumerate(batch.extensions) if ext]
            for i in had:
                kinds.update(batch.extensions[i].kinds())
            if had and first is None:
                first = (*batch.where(had[0]), batch.locs[had[0]])
            count += len(had)
            batch = batch.replaced(extensions=None)
        yield batch
    if first is not None:
        source, line, loc = first
        report.warn("extensions left out", source, line,
                    f"{fmt} output cannot carry {', '.join(sorted(kinds))}: left out of "
                    f"{count:,} URL{'' if count == 1 else 's'} (first: {loc[:200]})", url=loc,
                    count=count)


UNDATED = "Atom entries without a date"


def _undated(batches: Iterable[Batch], report: Report) -> Iterator[Batch]:
    """Atom output: the entries with no lastmod, which get 1970-01-01T00:00:00Z (Atom requires
    a date), warned about at the first and counted."""
    told = False
    for batch in batches:
        lastmods = batch.lastmods
        n = len(batch.locs) if lastmods is None else lastmods.count(None)
        if n and not told:
            told = True
            i = 0 if lastmods is None else lastmods.index(None)
            report.warn(UNDATED, *batch.where(i), f"{batch.locs[i][:200]} has no date: Atom "
                        "requires one, so it gets 1970-01-01T00:00:00Z, which search engines "
                        "read as the page's date if the feed is submitted as a sitemap; -t rss "
                        "leaves the date out (entries without a date are counted in the "
                        "summary)", url=batch.locs[i])
            n -= 1
        if n:
            report.warnings[UNDATED] += n
        yield batch


def _nothing_to_write(source_name: Optional[str], report: Report) -> InputError:
    return InputError(source_name or "<input>", None, "no URLs to write" + (
        f" ({report.total_skipped:,} skipped)" if report.total_skipped else ""))
