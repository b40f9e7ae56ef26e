"""Reading the inputs of a run: paths, URLs and streams, sniffed and handed to their reader;
indexes followed where asked, robots.txt read for its sitemaps, and the output's own previous
version read back when the run updates it in place."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any, Optional

from ..errors import InputError, OptionError
from ..files.naming import ours_pattern, temp_pattern
from ..files.outputs import OutputSet
from ..files.safety import same_file
from ..files.store import is_store, open_store, shown
from ..model.batch import Batch, unbatched
from ..model.filters import Filters
from ..model.options import NewsSitemap, ReadOptions, _positive
from ..model.record import Record
from ..model.report import Report
from ..model.scope import base_of
from ..readers import WHOLE_READERS, reader, whole_reader
from ..readers.detect import Source, check_source, open_input, sniff
from ..readers.feed.reader import read_feed
from ..web.fetch import DEFAULT_MAX_FETCH_BYTES, DEFAULT_TIMEOUT, fetch, is_url, redact
from .follow import (
    DEFAULT_MAX_PARTS,
    LocalParts,
    Parts,
    RemoteParts,
    StoreParts,
    follow_index_batches,
)
from .writing import check_groups


def source_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        # (a password is never shown)
        return redact(name) if is_url(name) else shown(name) if is_store(name) else name
    return str(getattr(source, "name", "<stream>"))


@dataclass(frozen=True)
class Web:
    """How inputs given by URL are fetched (see web/fetch.py)."""

    timeout: float = DEFAULT_TIMEOUT
    cache_dir: Optional[str] = None  # keep ETag/Last-Modified and bodies for conditional GETs
    max_parts: int = DEFAULT_MAX_PARTS  # parts of a remote index fetched in one run
    max_time: Optional[float] = None  # per input, body included (None: 10 timeouts; 0: none)
    max_fetch_bytes: int = DEFAULT_MAX_FETCH_BYTES  # per input, as sent
    allow_private_redirects: bool = False  # redirects into loopback/private/link-local hosts
    skip_unreadable_parts: bool = False  # a remote index's part that fails: reported, skipped

    def __post_init__(self) -> None:
        if (isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float))
                or not 0 < self.timeout < float("inf")):
            raise OptionError(f"must be a number of seconds above 0, not {self.timeout!r}",
                              "timeout")
        if self.cache_dir is not None and not isinstance(self.cache_dir, (str, os.PathLike)):
            raise OptionError(f"must be a directory's path, not {type(self.cache_dir).__name__}",
                              "cache_dir")
        _positive(self.max_parts, "max_parts")
        if self.max_time is not None and (
                isinstance(self.max_time, bool) or not isinstance(self.max_time, (int, float))
                or not 0 <= self.max_time < float("inf")):
            raise OptionError(f"must be a number of seconds (0: no limit) or None, not "
                              f"{self.max_time!r}", "max_time")
        _positive(self.max_fetch_bytes, "max_fetch_bytes")


def read(source: Source, reading: ReadOptions = ReadOptions(), *,
         report: Optional[Report] = None, base_url: Optional[str] = None,
         name: Optional[str] = None, web: Web = Web()) -> Iterator[Record]:
    """The records of one input (a path, an http(s) URL or a binary stream), plain or
    gzip-compressed, read as ``convert`` reads it; relative links resolve against
    ``reading.input_url``, else ``base_url``. Locations are as the input gave them (``convert``
    normalises and checks them)."""
    return unbatched(read_batches(source, reading, report=report, base_url=base_url,
                                  name=name, web=web))


def read_batches(source: Source, reading: ReadOptions = ReadOptions(), *,
                 report: Optional[Report] = None, base_url: Optional[str] = None,
                 name: Optional[str] = None, web: Web = Web()) -> Iterator[Batch]:
    """``read``, in batches (model/batch.py)."""
    check_groups(reading=(reading, ReadOptions), web=(web, Web),
                 report=(report, (Report, type(None))), base_url=(base_url, (str, type(None))))
    check_source(source)
    scope = None
    if reading.follow and base_url is not None:
        scope = base_of(base_url)[1].prefix  # (as convert reads it)
    reader = Reading(None, reading, report or Report(), reading.input_url or base_url, scope,
                     web, scope_check=False)
    return reader.one(source) if reading.follow else reader.read(source, name)


class Reading:
    """Reads the inputs of one run in order, following indexes where asked, in robots.txt, and
    where an input is the output ``out`` itself (an update in place: then parts an interrupted
    run was creating are read too, and a file not there yet reads as empty)."""

    def __init__(self, out: Optional[OutputSet], options: ReadOptions, report: Report,
                 base_url: Optional[str], base_prefix: Optional[str], web: Web,
                 scope_check: bool, news: Optional[NewsSitemap] = None) -> None:
        self.out = out
        self.options = options
        self.report = report
        self.base_url = base_url
        self.base_prefix = base_prefix
        self.web = web
        self.scope_check = scope_check
        self.news = news
        self.base: Optional[set[Optional[str]]] = None  # sources of the output's old version
        self.filters = Filters()  # the run's: an --include brings a site's other files in
        self.lastmod_sources: list[Any] = []  # of site directories: saved after the run

    def all(self, inputs: Sequence[Source]) -> Iterator[Batch]:
        for source in inputs:
            yield from self.one(source)

    def one(self, source: Source) -> Iterator[Batch]:
        path = (os.fspath(source) if isinstance(source, (str, os.PathLike))
                and not is_url(source) else None)
        out_path = self.out.path if self.out is not None else None
        is_output = path is not None and out_path is not None and same_file(path, out_path)
        if is_output and path is not None and not os.path.lexists(path):
            self.report.note("not there yet: it is the output, so the run starts from no URLs "
                             "and creates it", path)
            return
        kinds: list[str] = []
        batches = self.read(source, None, kinds)
        parts = self.parts_of(source, path, is_output)
        if self.options.follow or is_output:
            yield from follow_index_batches(batches, parts, self.report)
        else:  # robots.txt stands for the sitemaps it names
            seen: set[str] = set()
            for batch in batches:
                if batch.is_sitemap and kinds == ["robots"]:
                    yield from follow_index_batches([batch], parts, self.report, seen=seen)
                else:
                    yield batch
        if is_output:
            assert self.out is not None
            prev = self.out.previous
            for part in prev.unlisted_pending():
                yield from self.read_part(os.path.join(prev.directory, part), True)

    def read(self, source: Source, name: Optional[str], kinds: Optional[list[str]] = None,
             part: bool = False, same_host: bool = False) -> Iterator[Batch]:
        """One input's batches; the kind of file read is appended to ``kinds``. A ``part``
        of an index is sniffed, whatever the inputs' format, and holds no news; ``same_host``
        refuses redirects off its URL's host."""
        check_source(source)
        name = name or source_name(source)
        web = self.web
        if is_url(source):
            assert isinstance(source, str)
            fetched = fetch(source, timeout=web.timeout, cache_dir=web.cache_dir,
                            max_time=web.max_time, max_bytes=web.max_fetch_bytes,
                            private_redirects=web.allow_private_redirects,
                            same_host=same_host)
            if fetched.from_cache:
                self.report.note("not modified since the last run: the cached copy was read",
                                 name)
            with contextlib.closing(fetched.stream):
                # relative links resolve against the document's own URL, after redirects
                yield from self._stream(fetched.stream, name, kinds, part, fetched.url)
        elif isinstance(source, (str, os.PathLike)) and os.path.isdir(source):
            yield from self._site(os.fspath(source), name)
        elif is_store(source):
            assert isinstance(source, str)
            with open_store(source) as raw:
                yield from self._stream(raw, name, kinds, part, self.base_url)
        elif isinstance(source, (str, os.PathLike)):
            try:
                raw = open(source, "rb")
            except OSError as exc:
                raise InputError(name, None, f"cannot open: {exc.strerror}") from None
            with raw:
                yield from self._stream(raw, name, kinds, part, self.base_url)
        else:
            yield from self._stream(source, name, kinds, part, self.base_url)

    def _site(self, root: str, name: str) -> Iterator[Batch]:
        """A built site directory, served at the base URL (readers/site/)."""
        from ..readers.site import read_site  # (a site run's modules only: start-up time)

        prefix = self.base_prefix
        if prefix is None and self.base_url is not None:
            prefix = base_of(self.base_url)[1].prefix
        if prefix is None:
            raise OptionError(f"{name} is a site directory: give the URL it is served at",
                              "base_url")
        include = self.filters.include

        def wanted(url: str) -> bool:
            return bool(include) and self.filters.why_left_out(url) is None

        yield from read_site(root, name, self.report, prefix, self.options.site,
                             wanted=wanted, opened=self.lastmod_sources, output=self._ours())

    def _ours(self) -> Optional[Callable[[str], bool]]:
        """Whether a path is one of the files this run's output set writes (the output, its
        numbered parts, their temporaries): a site's sitemap written into the site."""
        out_path = self.out.path if self.out is not None else None
        if out_path is None:
            return None
        directory, name = os.path.split(os.path.realpath(out_path))
        own = (ours_pattern(name), temp_pattern(name))

        def ours(path: str) -> bool:
            # by name first (a link's own name may differ): realpath only for the few left
            base = os.path.basename(path)
            if base != name and not any(p.fullmatch(base) for p in own) \
                    and not os.path.islink(path):
                return False
            here, base = os.path.split(os.path.realpath(path))
            return here == directory and (base == name or any(p.fullmatch(base) for p in own))

        return ours

    def _stream(self, raw: IO[bytes], name: str, kinds: Optional[list[str]], part: bool,
                base_url: Optional[str]) -> Iterator[Batch]:
        fmt = "auto" if part else self.options.from_format
        max_bytes = self.options.max_feed_bytes
        try:
            stream, head = open_input(raw, name)
            if not head:
                raise InputError(name, None, "the input is empty")
            kind = sniff(head, name) if fmt == "auto" else fmt
            if kind == "text" and fmt == "auto":
                from ..readers.robots import looks_like_robots  # (text inputs only: start-up)

                if looks_like_robots(name, head):
                    kind = "robots"
            if kinds is not None:
                kinds.append(kind)
            if kind == "feed" and self.news is not None and not part:
                yield from read_feed(stream, name, self.report, base_url, max_bytes=max_bytes,
                                     news=self.news)
            elif kind in WHOLE_READERS:
                yield from whole_reader(kind)(stream, name, self.report, base_url,
                                              max_bytes=max_bytes)
            elif kind == "robots":
                from ..readers.robots import read_robots

                yield from read_robots(stream, name, self.report, base_url)
            else:
                yield from reader(kind)(stream, name, self.report, base_url)
        except IsADirectoryError:
            raise InputError(name, None, "is a directory") from None
        except OSError as exc:
            raise InputError(name, None, f"read error: {exc.strerror or exc}") from None

    def parts_of(self, source: Source, path: Optional[str], is_output: bool) -> Parts:
        if is_url(source):
            assert isinstance(source, str)
            # a part on the index's host may not redirect off it either
            return RemoteParts(source, lambda where: self.read(
                where, None, part=True, same_host=self.scope_check), self.report,
                same_host=self.scope_check, max_parts=self.web.max_parts,
                skip_unreadable=self.web.skip_unreadable_parts)
        if is_store(source):
            assert isinstance(source, str)
            return StoreParts(source.rpartition("/")[0], lambda where: self.read_part(
                where, is_output), self.base_prefix)
        return LocalParts(None if path is None else os.path.dirname(path),
                          lambda where: self.read_part(where, is_output), self.base_prefix)

    def read_part(self, where: str, of_output: bool) -> Iterator[Batch]:
        if of_output and self.base is not None:
            self.base.add(where)  # the parts of the output's previous version are the base
        return self.read(where, None, part=True)
