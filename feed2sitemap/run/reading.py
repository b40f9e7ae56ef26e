"""Reading the inputs of a run: paths, URLs and streams, sniffed and handed to their reader;
indexes followed where asked, robots.txt read for its sitemaps, and the output's own previous
version read back when the run updates it in place."""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import IO, Optional, Union

from ..errors import InputError, OptionError
from ..files.outputs import OutputSet
from ..files.safety import same_file
from ..model.batch import Batch, unbatched
from ..model.options import NewsSitemap, ReadOptions, check_format
from ..model.record import Record
from ..model.report import Report
from ..model.scope import base_of
from ..readers import WHOLE_READERS, reader, whole_reader
from ..readers.detect import open_input, sniff
from ..readers.feed.reader import read_feed
from ..web.fetch import DEFAULT_MAX_FETCH_BYTES, DEFAULT_TIMEOUT, fetch, is_url, redact
from .follow import (
    DEFAULT_MAX_PARTS,
    LocalParts,
    NoParts,
    Parts,
    RemoteParts,
    follow_index_batches,
)

__all__ = ["Reading", "Source", "Web", "read", "read_batches", "source_name"]

Source = Union[str, "os.PathLike[str]", IO[bytes]]


def source_name(source: Source) -> str:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return redact(name) if is_url(name) else name  # (a password is never shown)
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
    same_host: bool = False  # redirects off the URL's host refused (a remote index's parts)

    def __post_init__(self) -> None:  # (the new bounds of issue 35, item 8: checked when made)
        if self.max_time is not None and (
                isinstance(self.max_time, bool) or not isinstance(self.max_time, (int, float))
                or not 0 <= self.max_time < float("inf")):
            raise OptionError(f"must be a number of seconds (0: no limit) or None, not "
                              f"{self.max_time!r}", "max_time")
        if (isinstance(self.max_fetch_bytes, bool) or not isinstance(self.max_fetch_bytes, int)
                or self.max_fetch_bytes < 1):
            raise OptionError(f"must be a positive integer, not {self.max_fetch_bytes!r}",
                              "max_fetch_bytes")


def read(source: Source, reading: ReadOptions = ReadOptions(), *,
         report: Optional[Report] = None, base_url: Optional[str] = None,
         name: Optional[str] = None, web: Web = Web()) -> Iterator[Record]:
    """The records of one input (a path, an http(s) URL or a binary stream), plain or
    gzip-compressed, with the option groups ``convert`` takes.

    ``reading.from_format`` is "auto" (sniffed from the first bytes) or one of options.FORMATS
    ("feed", "text", "sitemap", "jsonfeed", "tsv", "csv", "jsonl"); relative links resolve
    against ``reading.input_url``, else ``base_url``; with ``reading.follow`` an index stands
    for the pages of its parts. Locations are as the input gave them; ``convert`` normalises
    and checks them.
    """
    return unbatched(read_batches(source, reading, report=report, base_url=base_url,
                                  name=name, web=web))


def read_batches(source: Source, reading: ReadOptions = ReadOptions(), *,
                 report: Optional[Report] = None, base_url: Optional[str] = None,
                 name: Optional[str] = None, web: Web = Web()) -> Iterator[Batch]:
    """``read``, in batches (see model/batch.py)."""
    if not isinstance(reading, ReadOptions):
        raise OptionError(f"must be a ReadOptions, not {type(reading).__name__}", "reading")
    _check_source(source)
    report = report if report is not None else Report()
    doc_url = reading.input_url or base_url
    if not reading.follow:
        return _batches(source, reading.from_format, report, doc_url, reading.max_feed_bytes,
                        name, web)
    scope = None if base_url is None else base_of(base_url)[1].prefix  # (as convert reads it)
    reader = Reading(OutputSet(None, io.BytesIO()), reading.from_format, report, doc_url,
                     reading.max_feed_bytes, True, scope, web, scope_check=False)
    return reader.one(source)


def _batches(source: Source, from_format: str, report: Report, base_url: Optional[str],
             max_feed_bytes: int, name: Optional[str] = None, web: Web = Web(),
             kinds: Optional[list[str]] = None,
             news: Optional[NewsSitemap] = None) -> Iterator[Batch]:
    """One input's batches. The kind of input found is appended to ``kinds`` when given; with
    ``news`` a feed's entries are news articles."""
    check_format(from_format)
    _check_source(source)
    name = name or source_name(source)
    kinds = kinds if kinds is not None else []
    if is_url(source):
        assert isinstance(source, str)
        fetched = fetch(source, timeout=web.timeout, cache_dir=web.cache_dir,
                        max_time=web.max_time, max_bytes=web.max_fetch_bytes,
                        private_redirects=web.allow_private_redirects,
                        same_host=web.same_host)
        if fetched.from_cache:
            report.note("not modified since the last run: the cached copy was read", name)
        with contextlib.closing(fetched.stream):
            # relative links resolve against the document's own URL, after redirects
            yield from _read_stream(fetched.stream, name, from_format, report, fetched.url,
                                    max_feed_bytes, kinds, news)
    elif isinstance(source, (str, os.PathLike)):
        try:
            raw: IO[bytes] = open(source, "rb")
        except OSError as exc:
            raise InputError(name, None, f"cannot open: {exc.strerror}") from None
        with raw:
            yield from _read_stream(raw, name, from_format, report, base_url, max_feed_bytes,
                                    kinds, news)
    else:
        yield from _read_stream(source, name, from_format, report, base_url, max_feed_bytes,
                                kinds, news)


def _check_source(source: object) -> None:
    """A path, an http(s) URL or a binary stream; anything else is the caller's error, said
    plainly (a text stream would fail deep inside a reader)."""
    if isinstance(source, (str, os.PathLike)):
        return
    if isinstance(source, (io.TextIOBase, bytes, bytearray)) or not hasattr(source, "read"):
        raise OptionError(f"must be a path, an http(s) URL or a binary stream (open(path, "
                          f"'rb')), not {type(source).__name__}", "source")


def _read_stream(raw: IO[bytes], name: str, format: str, report: Report,
                 base_url: Optional[str], max_feed_bytes: int, kinds: list[str],
                 news: Optional[NewsSitemap] = None) -> Iterator[Batch]:
    try:
        stream, head = open_input(raw, name)
        if not head:
            raise InputError(name, None, "the input is empty")
        kind = sniff(head, name) if format == "auto" else format
        if kind == "text" and format == "auto":
            from ..readers.robots import looks_like_robots  # (text inputs only: start-up time)

            if looks_like_robots(name, head):
                kind = "robots"
        kinds.append(kind)
        if kind == "feed" and news is not None:
            yield from read_feed(stream, name, report, base_url, max_bytes=max_feed_bytes,
                                 news=news)
        elif kind in WHOLE_READERS:
            yield from whole_reader(kind)(stream, name, report, base_url,
                                          max_bytes=max_feed_bytes)
        elif kind == "robots":
            from ..readers.robots import read_robots

            yield from read_robots(stream, name, report, base_url)
        else:
            yield from reader(kind)(stream, name, report, base_url)
    except IsADirectoryError:
        raise InputError(name, None, "is a directory") from None
    except OSError as exc:
        raise InputError(name, None, f"read error: {exc.strerror or exc}") from None


class Reading:
    """Reads the inputs of one run in order, following indexes where asked, where the input is
    robots.txt (its Sitemap: lines), and where an input is the output itself (an update in
    place): then its index stands for its parts, parts an interrupted run was creating are read
    too, and a file not there yet reads as empty."""

    def __init__(self, out: OutputSet, from_format: str, report: Report,
                 base_url: Optional[str], max_feed_bytes: int, follow: bool,
                 base_prefix: Optional[str], web: Web, scope_check: bool,
                 news: Optional[NewsSitemap] = None) -> None:
        self.out = out
        self.from_format = from_format
        self.report = report
        self.base_url = base_url
        self.max_feed_bytes = max_feed_bytes
        self.follow = follow
        self.base_prefix = base_prefix
        self.web = web
        self.scope_check = scope_check
        self.news = news
        self.base: Optional[set[Optional[str]]] = None  # sources of the output's old version

    def all(self, inputs: Sequence[Source]) -> Iterator[Batch]:
        for source in inputs:
            yield from self.one(source)

    def one(self, source: Source) -> Iterator[Batch]:
        name = None
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
            it = follow_index_batches(it, parts, report=self.report)
        else:  # robots.txt stands for the sitemaps it names
            it = _follow_if(it, lambda: kinds == ["robots"], parts, self.report)
        yield from it
        if is_output:
            prev = self.out.previous
            for part in prev.unlisted_pending():
                yield from self.part_reader(True)(os.path.join(prev.directory, part))

    def read(self, source: Source, name: Optional[str], kinds: list[str]) -> Iterator[Batch]:
        return _batches(source, self.from_format, self.report, self.base_url,
                        self.max_feed_bytes, name, self.web, kinds, self.news)

    def parts_of(self, source: Source, path: Optional[str], is_output: bool) -> Parts:
        if is_url(source):
            assert isinstance(source, str)
            # a part on the index's host may not redirect off it either (issue 35, item 25)
            web = replace(self.web, same_host=self.scope_check)
            return RemoteParts(source, self.part_reader(False, web), self.report,
                               same_host=self.scope_check, max_parts=self.web.max_parts)
        if path is None:
            return NoParts()
        return LocalParts(os.path.dirname(path), self.part_reader(is_output), self.base_prefix)

    def part_reader(self, of_output: bool,
                    web: Optional[Web] = None) -> Callable[[str], Iterator[Batch]]:
        def read_part(where: str) -> Iterator[Batch]:
            if of_output and self.base is not None:
                self.base.add(where)  # the parts of the output's previous version are the base
            return _batches(where, "auto", self.report, self.base_url, self.max_feed_bytes,
                            web=web or self.web)
        return read_part


def _follow_if(batches: Iterable[Batch], decide: Callable[[], bool],
               parts: Parts, report: Report) -> Iterator[Batch]:
    seen: set[str] = set()
    for batch in batches:
        if batch.is_sitemap and decide():
            yield from follow_index_batches([batch], parts, report=report, seen=seen)
        else:
            yield batch
