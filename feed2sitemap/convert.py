"""convert(): the one function behind both the command and the library."""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Optional, Union

from .batch import Batch, batched, unbatched
from .detect import FORMATS as INPUT_FORMATS
from .detect import open_input, sniff
from .errors import InputError, OptionError, UnsupportedFormat
from .fetch import DEFAULT_TIMEOUT, fetch, is_url
from .follow import (
    DEFAULT_MAX_PARTS,
    LocalParts,
    NoParts,
    Parts,
    RemoteParts,
    follow_index_batches,
)
from .indexnow import IndexNow, IndexNowError, Submitted
from .limits import Profile, get_profile, output_profile
from .merge import MergeCounts, find_base, same_file
from .naming import ours_pattern, split_name
from .outputs import FileInfo, OutputSet
from .pipeline import (
    apply_defaults_batches,
    check_length_batches,
    dedupe_batches,
    merge_batches,
    normalize_batches,
    within_scope_batches,
)
from .readers import READERS, WHOLE_READERS
from .readers.feed import DEFAULT_MAX_FEED_BYTES
from .readers.robots import looks_like_robots, read_robots_batches
from .record import Record
from .report import Progress, Report
from .robotsfile import update_robots
from .split import DEFAULT_GZIP_LEVEL, write_output
from .urls import Scope, base_directory, normalize_url, scope_of
from .writers import (
    INDEX,
    URLSET,
    FeedFormat,
    Format,
    format_for_name,
    get_format,
    limits_of,
)

__all__ = ["Publish", "Source", "Summary", "Web", "convert", "output_format", "read", "write"]

Source = Union[str, "os.PathLike[str]", IO[bytes]]
Destination = Union[str, "os.PathLike[str]", IO[bytes], None]


@dataclass
class Summary:
    """What a run wrote and what it left out."""

    parts: list[FileInfo] = field(default_factory=list)  # the sitemaps (or feeds) written
    indexes: list[FileInfo] = field(default_factory=list)  # index files listing the parts
    removed: list[str] = field(default_factory=list)  # the earlier run's parts, now deleted
    report: Report = field(default_factory=Report)
    of_sitemaps: bool = False  # the parts list sitemaps (an index was converted)
    merge: Optional[MergeCounts] = None  # what merging did (the default dedupe mode)
    unchanged: list[str] = field(default_factory=list)  # files whose bytes were already there
    cleaned: list[str] = field(default_factory=list)  # an interrupted run's temporaries, deleted
    not_removed: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    left: list[str] = field(default_factory=list)  # files the replaced index listed that
    # feed2sitemap did not write: kept, though the new index no longer lists them
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


def _source_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


@dataclass(frozen=True)
class Web:
    """How inputs given by URL are fetched (see fetch.py)."""

    timeout: float = DEFAULT_TIMEOUT
    cache_dir: Optional[str] = None  # keep ETag/Last-Modified and bodies for conditional GETs
    max_parts: int = DEFAULT_MAX_PARTS  # parts of a remote index fetched in one run


def read(source: Source, format: str = "auto", *, report: Optional[Report] = None,
         base_url: Optional[str] = None, max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES,
         name: Optional[str] = None, web: Web = Web()) -> Iterator[Record]:
    """Yield the records of one input: a path, an http(s) URL or a binary stream, plain or
    gzip-compressed.

    ``format`` is "auto" (sniffed from the first bytes) or one of detect.FORMATS ("feed",
    "text", "sitemap", "jsonfeed", "tsv", "csv", "jsonl").
    Locations are as the input gave them; ``convert`` normalises and checks them.
    """
    return unbatched(read_batches(source, format, report=report, base_url=base_url,
                                  max_feed_bytes=max_feed_bytes, name=name, web=web))


def read_batches(source: Source, format: str = "auto", *, report: Optional[Report] = None,
                 base_url: Optional[str] = None, max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES,
                 name: Optional[str] = None, web: Web = Web(),
                 kinds: Optional[list[str]] = None) -> Iterator[Batch]:
    """``read``, in batches (see batch.py): what convert itself uses. The kind of input found
    is appended to ``kinds`` when given."""
    if format != "auto" and format not in INPUT_FORMATS:
        raise UnsupportedFormat(f"unknown input format {format!r}; choose one of: auto, "
                                f"{', '.join(INPUT_FORMATS)}")
    report = report if report is not None else Report()
    name = name or _source_name(source)
    kinds = kinds if kinds is not None else []
    if is_url(source):
        assert isinstance(source, str)
        fetched = fetch(source, timeout=web.timeout, cache_dir=web.cache_dir)
        if fetched.from_cache:
            report.note("not modified since the last run: the cached copy was read", source)
        with contextlib.closing(fetched.stream):
            # relative links resolve against the document's own URL, after redirects
            yield from _read_stream(fetched.stream, name, format, report, fetched.url,
                                    max_feed_bytes, kinds)
    elif isinstance(source, (str, os.PathLike)):
        try:
            raw: IO[bytes] = open(source, "rb")
        except OSError as exc:
            raise InputError(name, None, f"cannot open: {exc.strerror}") from None
        with raw:
            yield from _read_stream(raw, name, format, report, base_url, max_feed_bytes, kinds)
    else:
        yield from _read_stream(source, name, format, report, base_url, max_feed_bytes, kinds)


def _read_stream(raw: IO[bytes], name: str, format: str, report: Report,
                 base_url: Optional[str], max_feed_bytes: int,
                 kinds: list[str]) -> Iterator[Batch]:
    try:
        stream, head = open_input(raw, name)
        if not head:
            raise InputError(name, None, "the input is empty")
        kind = sniff(head, name) if format == "auto" else format
        if kind == "text" and format == "auto" and looks_like_robots(name, head):
            kind = "robots"
        kinds.append(kind)
        if kind in WHOLE_READERS:
            yield from WHOLE_READERS[kind](stream, name, report, base_url,
                                           max_bytes=max_feed_bytes)
        elif kind == "robots":
            yield from read_robots_batches(stream, name, report, base_url)
        else:
            yield from READERS[kind](stream, name, report, base_url)
    except IsADirectoryError:
        raise InputError(name, None, "is a directory") from None
    except OSError as exc:
        raise InputError(name, None, f"read error: {exc.strerror or exc}") from None


def output_format(output: Optional[str], to: Optional[str]) -> Format:
    """--to wins; else the output name, in any case: .txt → text, .rss → rss, .atom → atom
    (each also .gz); anything else → XML."""
    if to is not None:
        return get_format(to)
    if output:
        return format_for_name(split_name(os.path.basename(output))[1].lower())
    return get_format("xml")


def _gzip_choice(gzip: Optional[bool], path: Optional[str], dest: Destination,
                 report: Report) -> bool:
    """Whether to compress: --gzip/--no-gzip, else whether the name ends ".gz" (in any case).

    A name that says otherwise than the content is warned about: web servers label a file by
    its name (Content-Type, Content-Encoding), so a crawler would misread it.
    """
    named = path is not None and path.lower().endswith(".gz")
    if gzip is None:
        return named
    if path is not None and gzip != named:
        report.warn("gzip name", path, None, (
            "--gzip writes gzip data to a name not ending .gz" if gzip else
            "--no-gzip writes plain data to a name ending .gz")
            + "; a web server will label the file wrongly")
    if gzip and path is None and dest is None and sys.stdout.isatty():
        raise UnsupportedFormat("--gzip would write compressed bytes to the terminal; "
                                "give -o FILE.gz (or pipe the output)")
    return gzip


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
                             "pages an index lists, give --follow")
        yield batch


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
            progress: Optional[Progress] = None, atomic: bool = True,
            lock_timeout: float = 60.0, web: Web = Web(),
            publish: Optional[Publish] = None, input_url: Optional[str] = None) -> Summary:
    """Read every input, check and normalise the URLs, and write sitemap file(s).

    ``output`` is a path (written atomically: temporaries renamed when all succeeded), a binary
    stream, or None/"-" for stdout. Raises a Feed2SitemapError subclass for bad data or options;
    problems that only skip a record are counted in ``summary.report`` (errors with ``strict``).

    When an input is the output file itself, the run updates it in place: an index there
    stands for its parts (read as with ``follow``), and a file not there yet reads as empty.
    ``atomic`` False overwrites existing files in place instead of renaming temporaries over
    them; ``lock_timeout`` is how long to wait for another run writing in the same directory.

    ``dedupe_mode``: "merge" (one entry per URL, newest lastmod wins, see ``merge.py``; when
    ``output`` is also an input, ``summary.merge`` compares with it), "first" (the first copy
    wins, one streaming pass), "none", or "auto": merge when there are several inputs, else
    first (a single input streams in flat memory and keeps the core's first-wins rule).
    ``follow`` reads the local parts of an index input.
    ``title``, ``site_url`` and ``description`` describe the channel of RSS/Atom output.
    ``web`` says how inputs given by URL are fetched; ``publish`` what to do once the files
    are in place (robots.txt, IndexNow), or ``dry_run`` to write nothing at all.
    ``base_url`` is the output's directory (a last segment without a dot names a directory):
    the scope, and the base of relative links; without it the first input that states its
    site (a feed's own link) gives the scope. ``input_url`` is the inputs' own URL, the base of
    their relative links before ``base_url``.
    """
    if isinstance(inputs, (str, os.PathLike)):  # one input, not a sequence of characters
        inputs = [inputs]
    publish = publish or Publish()
    if publish.indexnow is not None and dedupe_mode == "auto":
        dedupe_mode = "merge"  # what changed is what merging with the old version tells
    if dedupe_mode not in ("auto", "merge", "first", "none"):
        raise UnsupportedFormat(f"unknown dedupe mode {dedupe_mode!r}; choose auto, merge, "
                                "first or none")
    if dedupe_mode == "auto":
        dedupe_mode = "merge" if len(inputs) > 1 else "first"
    report = report if report is not None else Report(strict=strict)
    prof = _profile(profile, max_urls, max_bytes)
    scope = None
    if base_url is not None:
        base_url, scope = _base(base_url, report)
        if not scope_check:
            report.scope = None  # no scope was held against the URLs
    if input_url is not None:
        try:
            input_url = normalize_url(input_url)
        except ValueError as exc:
            raise UnsupportedFormat(f"--input-url: {exc}") from None
    # a relative link resolves against the input's own URL, else --base-url (issue 20, item 4);
    # only then is it held against the scope
    doc_url = input_url or base_url
    settings = _settings(_dest_path(output), to, index, base_url, gzip, gzip_level, output,
                         report, max_urls, max_bytes)
    out_path = _dest_path(output)
    _check_publish(publish, out_path, base_url,
                   find_base(inputs, out_path) if out_path is not None else None)
    out = _open_output(output, progress, base_url, atomic, lock_timeout, publish.dry_run)
    changes = _Changes() if publish.indexnow is not None else None
    try:
        reading = _Reading(out, from_format, report, doc_url, max_feed_bytes, follow,
                           None if scope is None else scope.prefix, web, scope_check)
        base_name = find_base(inputs, out.path) if dedupe_mode == "merge" else None
        if base_name is not None:
            reading.base = {base_name}
        stream: Iterator[Batch] = reading.all(inputs)
        if progress is not None and progress.on_update is not None:
            stream = _counted(stream, progress)
        stream = normalize_batches(stream, report)
        stream = check_length_batches(stream, prof.max_loc, report, prof.name, prof.min_loc)
        if scope_check:
            stream = within_scope_batches(stream, report, scope)
        counts = None
        if dedupe_mode == "merge":
            counts = MergeCounts(base_name)
            if changes is not None:
                counts.on_change = changes.add
            stream = merge_batches(stream, counts, base=reading.base)
        elif dedupe_mode == "first":
            stream = dedupe_batches(stream, report)
        stream = apply_defaults_batches(stream, changefreq, priority)
        names = ", ".join("<stdin>" if s == "-" else _source_name(s) for s in inputs)
        summary = _write_to(out, stream, settings, _profile(profile, None, None), report,
                            base_url, names or "<stdin>",
                            _Channel(title, site_url, description))
        summary.merge = counts
        summary.dry_run = publish.dry_run
        if publish.robots is not None and base_url is not None:
            summary.robots = _robots(publish.robots, summary, out, base_url, publish.dry_run)
    finally:
        out.close()
    if changes is not None and publish.indexnow is not None:
        with changes:
            _submit(summary, publish.indexnow, changes, publish.dry_run)
    return summary


@dataclass(frozen=True)
class Publish:
    """What a run does once its files are in place."""

    robots: Optional[str] = None  # a robots.txt whose Sitemap: lines name what was written
    indexnow: Optional[IndexNow] = None  # submit the URLs added or updated
    dry_run: bool = False  # write nothing, send nothing: say what would be done


def _check_publish(publish: Publish, out_path: Optional[str], base_url: Optional[str],
                   base_name: Optional[str]) -> None:
    if publish.robots is not None and (out_path is None or base_url is None):
        raise OptionError("--robots needs -o FILE and --base-url: the Sitemap: lines name the "
                          "files' public URLs")
    if publish.indexnow is not None and base_name is None:
        raise OptionError("--indexnow needs the output among the inputs (feed2sitemap "
                          "sitemap.xml feed.xml -o sitemap.xml): what changed is what the run "
                          "adds to or updates in it")


class _Changes:
    """The URLs a run added or updated, spooled to a temporary file (a first run may add
    millions)."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.count = 0

    def add(self, url: str) -> None:
        self._file.write(url + "\n")
        self.count += 1

    def __iter__(self) -> Iterator[str]:
        self._file.seek(0)
        return (line.rstrip("\n") for line in self._file)

    def __enter__(self) -> _Changes:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


def _robots(path: str, summary: Summary, out: OutputSet, base_url: str,
            dry_run: bool) -> Optional[bool]:
    """Name the index (or the one sitemap) in robots.txt, and the -index-N files when the
    index split (Google does not follow an index of indexes)."""
    prefix = scope_of(base_url).prefix
    assert out.path is not None
    name = os.path.basename(out.path)
    stem, ext = split_name(name)
    level_one = re.compile(re.escape(stem) + r"-index-[1-9][0-9]*" + re.escape(ext))
    # the top file first (the index, or the one sitemap), then the index files it lists
    names = [name] + [os.path.basename(f.path or "") for f in summary.indexes[:-1]
                      if level_one.fullmatch(os.path.basename(f.path or ""))]
    urls = [prefix + n for n in names]
    ours = ours_pattern(name)

    def is_ours(url: str) -> bool:
        return url.startswith(prefix) and (url[len(prefix):] == name
                                           or ours.fullmatch(url[len(prefix):]) is not None)

    if dry_run:
        return None
    return update_robots(path, urls, is_ours)


def _submit(summary: Summary, indexnow: IndexNow, changes: _Changes, dry_run: bool) -> None:
    try:
        summary.indexnow = indexnow.submit(changes, dry_run=dry_run)
    except IndexNowError as exc:
        exc.summary = summary  # type: ignore[attr-defined]
        raise


class _Reading:
    """Reads the inputs of one run in order, following indexes where asked, where the input is
    robots.txt (its Sitemap: lines), and where an input is the output itself (an update in
    place): then its index stands for its parts, parts an interrupted run was creating are read
    too, and a file not there yet reads as empty."""

    def __init__(self, out: OutputSet, from_format: str, report: Report,
                 base_url: Optional[str], max_feed_bytes: int, follow: bool,
                 base_prefix: Optional[str], web: Web, scope_check: bool) -> None:
        self.out = out
        self.from_format = from_format
        self.report = report
        self.base_url = base_url
        self.max_feed_bytes = max_feed_bytes
        self.follow = follow
        self.base_prefix = base_prefix
        self.web = web
        self.scope_check = scope_check
        self.base: Optional[set[Optional[str]]] = None  # sources of the output's old version

    def all(self, inputs: Sequence[Source]) -> Iterator[Batch]:
        for source in inputs:
            yield from self.one(source)

    def one(self, source: Source) -> Iterator[Batch]:
        name = None
        if isinstance(source, str) and source == "-":
            source, name = sys.stdin.buffer, "<stdin>"
        path = (os.fspath(source) if isinstance(source, (str, os.PathLike))
                and not is_url(source) else None)
        is_output = (path is not None and self.out.path is not None
                     and same_file(path, self.out.path))
        if is_output and path is not None and not os.path.lexists(path):
            self.report.note("not there yet: it is the output, so the run starts from no URLs "
                             "and creates it", path)
            return
        kinds: list[str] = []
        it = self.read(source, name, kinds)
        parts = self.parts_of(source, path, is_output)
        if self.follow or is_output:
            it = follow_index_batches(it, parts)
        else:  # robots.txt stands for the sitemaps it names
            it = _follow_if(it, lambda: kinds == ["robots"], parts)
        yield from it
        if is_output:
            prev = self.out.previous
            for part in prev.unlisted_pending():
                yield from self.part_reader(True)(os.path.join(prev.directory, part))

    def read(self, source: Source, name: Optional[str], kinds: list[str]) -> Iterator[Batch]:
        return read_batches(source, self.from_format, report=self.report,
                            base_url=self.base_url, max_feed_bytes=self.max_feed_bytes,
                            name=name, web=self.web, kinds=kinds)

    def parts_of(self, source: Source, path: Optional[str], is_output: bool) -> Parts:
        if is_url(source):
            assert isinstance(source, str)
            return RemoteParts(source, self.part_reader(False), self.report,
                               same_host=self.scope_check, max_parts=self.web.max_parts)
        if path is None:
            return NoParts()
        return LocalParts(os.path.dirname(path), self.part_reader(is_output), self.base_prefix)

    def part_reader(self, of_output: bool) -> Callable[[str], Iterator[Batch]]:
        def read_part(where: str) -> Iterator[Batch]:
            if of_output and self.base is not None:
                self.base.add(where)  # the parts of the output's previous version are the base
            return read_batches(where, report=self.report, base_url=self.base_url,
                                max_feed_bytes=self.max_feed_bytes, web=self.web)
        return read_part


def _follow_if(batches: Iterable[Batch], decide: Callable[[], bool],
               parts: Parts) -> Iterator[Batch]:
    for batch in batches:
        if batch.is_sitemap and decide():
            yield from follow_index_batches([batch], parts)
        else:
            yield batch


def _base(base_url: str, report: Report) -> tuple[str, Scope]:
    """--base-url as the directory it names, and that scope; a note when it was read as other
    than written (``/blog`` is the directory ``/blog/``, ``/blog/sitemap.xml`` a file in it)."""
    try:
        directory, note = base_directory(base_url)
        scope = scope_of(directory)
    except ValueError as exc:
        raise UnsupportedFormat(f"--base-url: {exc}") from None
    if note is not None:
        report.note(note)
    report.scope, report.scope_from = scope.prefix, "--base-url"
    return directory, scope


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
          description: Optional[str] = None, atomic: bool = True,
          lock_timeout: float = 60.0, max_urls: Optional[int] = None,
          max_bytes: Optional[int] = None) -> Summary:
    """Write records to a path, a binary stream or stdout, split by the profile's limits
    (lowered by ``max_urls`` and ``max_bytes``, as ``convert`` does).

    The records are written as given (``convert`` is what checks URLs). Records that are
    sitemaps (``is_sitemap``) make a sitemap index.
    """
    return write_batches(batched(records), dest, to=to, profile=profile, base_url=base_url,
                         gzip=gzip, gzip_level=gzip_level, index=index, report=report,
                         source_name=source_name, title=title, site_url=site_url,
                         description=description, atomic=atomic, lock_timeout=lock_timeout,
                         max_urls=max_urls, max_bytes=max_bytes)


@dataclass
class _Settings:
    """What the output options come to, checked before any input is read."""

    fmt: Format
    gzip_level: Optional[int]
    always_index: bool
    max_urls: Optional[int] = None  # lower limits asked for (which apply: limits.output_profile)
    max_bytes: Optional[int] = None


def _settings(path: Optional[str], to: Optional[str], index: str, base_url: Optional[str],
              gzip: Optional[bool], gzip_level: Optional[int], dest: Destination,
              report: Report, max_urls: Optional[int] = None,
              max_bytes: Optional[int] = None) -> _Settings:
    try:
        fmt = output_format(path, to)
    except ValueError as exc:
        raise UnsupportedFormat(str(exc)) from None
    if index not in ("auto", "always"):
        raise UnsupportedFormat(f"unknown index mode {index!r}; choose auto or always")
    if index == "always" and (base_url is None or path is None):
        raise UnsupportedFormat("--index always needs -o FILE and --base-url")
    gzip = _gzip_choice(gzip, path, dest, report)
    level = None
    if gzip:
        level = DEFAULT_GZIP_LEVEL if gzip_level is None else gzip_level
        if not 0 <= level <= 9:
            raise UnsupportedFormat("--gzip-level must be between 0 and 9")
    return _Settings(fmt, level, index == "always", max_urls, max_bytes)


def _dest_path(dest: Destination) -> Optional[str]:
    path = os.fspath(dest) if isinstance(dest, (str, os.PathLike)) else None
    return None if path == "-" else path


def _open_output(dest: Destination, progress: Optional[Progress], base_url: Optional[str],
                 atomic: bool, lock_timeout: float, dry_run: bool = False) -> OutputSet:
    """The output set for ``dest``: taken (locked, the earlier run's files read) before any
    input is read, so that reading and writing see one state of the directory."""
    path = _dest_path(dest)
    if path is None:
        stream = dest if dest is not None and not isinstance(dest, str) else sys.stdout.buffer
        return OutputSet(None, stream, progress=progress)  # type: ignore[arg-type]
    prefix = None
    if base_url is not None:
        with contextlib.suppress(ValueError):
            prefix = scope_of(base_url).prefix
    return OutputSet(path, progress=progress, atomic=atomic, base_prefix=prefix,
                     lock_timeout=lock_timeout, dry_run=dry_run)


def write_batches(batches: Iterable[Batch], dest: Destination = None, *,
                  to: Optional[str] = None, profile: Union[str, Profile] = "sitemaps",
                  base_url: Optional[str] = None, gzip: Optional[bool] = None,
                  gzip_level: Optional[int] = None, index: str = "auto",
                  report: Optional[Report] = None, source_name: Optional[str] = None,
                  title: Optional[str] = None, site_url: Optional[str] = None,
                  description: Optional[str] = None, progress: Optional[Progress] = None,
                  atomic: bool = True, lock_timeout: float = 60.0,
                  max_urls: Optional[int] = None, max_bytes: Optional[int] = None) -> Summary:
    """``write``, in batches (see batch.py): what convert itself uses."""
    prof = _profile(profile, None, None)
    report = report or Report()
    settings = _settings(_dest_path(dest), to, index, base_url, gzip, gzip_level, dest, report,
                         max_urls, max_bytes)
    out = _open_output(dest, progress, base_url, atomic, lock_timeout)
    try:
        return _write_to(out, batches, settings, prof, report, base_url,
                         source_name, _Channel(title, site_url, description))
    finally:
        out.close()


@dataclass
class _Channel:
    """RSS/Atom output's channel fields, as given."""

    title: Optional[str] = None
    site_url: Optional[str] = None
    description: Optional[str] = None


def _write_to(out: OutputSet, batches: Iterable[Batch], settings: _Settings, prof: Profile,
              report: Report, base_url: Optional[str], source_name: Optional[str],
              channel: _Channel) -> Summary:
    fmt = settings.fmt
    it = _one_kind(batches)
    first = next(it, None)
    if first is None:
        raise _nothing_to_write(source_name, report)
    if first.is_sitemap and fmt is URLSET:
        fmt = INDEX
    if isinstance(fmt, FeedFormat):
        fmt = fmt.for_site(_site_url(channel.site_url, base_url, first.locs[0]), channel.title,
                           channel.description)
    try:  # which limits apply depends on what is written, and where
        prof = output_profile(prof, limits_of(fmt), out.path is None, settings.max_urls,
                              settings.max_bytes)
    except ValueError as exc:
        raise UnsupportedFormat(str(exc)) from None
    written = write_output(itertools.chain([first], it), fmt, prof, out, report,
                           gzip_level=settings.gzip_level, base_url=base_url,
                           always_index=settings.always_index)
    if not written.parts:  # every entry was skipped on the way (larger than a whole file)
        raise _nothing_to_write(source_name, report)
    prev = out.previous
    return Summary(written.parts, written.indexes, out.removed, report, fmt is INDEX,
                   unchanged=out.unchanged, cleaned=out.cleaned, not_removed=out.not_removed,
                   left=[p for p in (os.path.join(prev.directory, n) for n in prev.others)
                         if os.path.isfile(p)])


def _nothing_to_write(source_name: Optional[str], report: Report) -> InputError:
    return InputError(source_name or "<input>", None, "no URLs to write" + (
        f" ({report.total_skipped:,} skipped)" if report.total_skipped else ""))
