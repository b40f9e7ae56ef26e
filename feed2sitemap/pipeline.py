"""Pipeline steps between readers and writers: each a small generator over records."""

from __future__ import annotations

import os
from collections.abc import Callable, Container, Iterable, Iterator
from typing import Optional
from urllib.parse import unquote, urlsplit

from .errors import InputError
from .merge import DEFAULT_MEMORY_LIMIT, MergeCounts, MergeStore
from .record import Record, make_record, with_loc
from .report import Report
from .urls import CLEAN_URL, Scope, normalize_url, scope_of

__all__ = ["apply_defaults", "check_length", "dedupe", "follow_index", "merge", "normalize",
           "within_scope"]


def normalize(records: Iterable[Record], report: Report) -> Iterator[Record]:
    """Turn each loc into its normalised absolute http(s) URI; skip and report the others."""
    clean = CLEAN_URL.fullmatch
    for record in records:
        loc = record.loc
        if clean(loc) is not None:  # normalize_url's own first test, without the call
            yield record
            continue
        try:
            norm = normalize_url(loc)
        except ValueError as exc:
            report.skip("invalid URL", record.source, record.line, str(exc))
            continue
        yield record if norm == loc else with_loc(record, norm)


def check_length(records: Iterable[Record], max_loc: int, report: Report,
                 profile: str = "", min_loc: int = 12) -> Iterator[Record]:
    """Skip a record whose <loc> is not shorter than ``max_loc`` characters (the profile's rule)
    or shorter than ``min_loc`` (the XSD's minLength: "http://a.b/" cannot be in a sitemap)."""
    for record in records:
        n = len(record.loc)
        if n >= max_loc:
            report.skip("URL too long", record.source, record.line,
                        f"URL of {n:,} characters; profile {profile} requires under {max_loc:,}")
            continue
        if n < min_loc:
            report.skip("URL too short", record.source, record.line,
                        f"{record.loc} has {n} characters; the sitemaps.org schema requires at "
                        f"least {min_loc}")
            continue
        yield record


def within_scope(records: Iterable[Record], report: Report,
                 scope: Optional[Scope] = None) -> Iterator[Record]:
    """Keep the URLs of one site (sitemaps.org: a sitemap lists URLs of its own host only).

    ``scope`` comes from --base-url (scheme, host and directory); without it the scheme and host
    of the first URL decide. Run after ``normalize``: both sides are in normalised form.
    """
    it = iter(records)
    if scope is None:
        for first in it:
            scope = scope_of(first.loc, directory=False)
            yield first
            break
        else:
            return
    prefix = scope.prefix
    off = report.hosts_off_scope
    for record in it:
        loc = record.loc
        if loc.startswith(prefix):
            yield record
            continue
        # a URL equal to the scope's directory without its trailing slash is the site itself
        if loc + "/" == prefix:
            yield record
            continue
        origin = loc[: loc.find("/", loc.find("://") + 3)]
        off[origin] += 1
        report.skip("off scope", record.source, record.line,
                    f"{loc[:200]} is outside {prefix} (sitemaps.org: one site per sitemap; "
                    "--no-scope-check to allow)")


def dedupe(records: Iterable[Record], report: Report) -> Iterator[Record]:
    """One entry per URL: the first copy keeps its place, later copies are dropped and counted.

    Remembers a 64-bit hash of each URL rather than the URL (about 75 bytes per URL in all,
    whatever the URL's length); two different URLs colliding is a one-in-2**64 event per pair.
    """
    # A dict, not a set: a dict that holds only ints is not tracked by the cyclic garbage
    # collector, while a set always is, and every full collection would walk a million entries
    # (half a second per million URLs, measured).
    seen: dict[int, None] = {}
    setdefault = seen.setdefault
    size = 0
    for record in records:
        setdefault(hash(record.loc))  # one probe of the table: a copy leaves the size unchanged
        if len(seen) == size:
            report.skip("duplicate", record.source, record.line, f"duplicate URL {record.loc}")
            continue
        size += 1
        yield record


def merge(records: Iterable[Record], counts: Optional[MergeCounts] = None, *,
          base: Optional[Container[Optional[str]]] = None,
          memory_limit: int = DEFAULT_MEMORY_LIMIT) -> Iterator[Record]:
    """One entry per URL, newest lastmod wins (the rules are in ``merge.py``'s docstring).

    Nothing is yielded until ``records`` is exhausted: every URL is remembered, compactly, and
    spilled to a temporary SQLite database past ``memory_limit`` bytes. ``base`` holds the source
    names of the output's previous version when it is also an input; ``counts`` is filled once
    the last record has been yielded.
    """
    store = MergeStore(base_mode=base is not None, memory_limit=memory_limit)
    try:
        if base is None:
            for record in records:
                store.add(record)
        else:
            for record in records:
                store.add(record, record.source in base)
        yield from store.records(counts)
    finally:
        store.close()


def part_path(index: Record, directory: str) -> str:
    """The local file of an index's <loc>: its last path segment, beside the index.

    Percent-escapes are decoded; a segment that would leave the directory ("..", an encoded "/")
    is refused, since the index may come from anywhere.
    """
    name = unquote(urlsplit(index.loc).path.rpartition("/")[2])
    if name in ("", ".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise InputError(index.source, index.line,
                         f"--follow: {index.loc[:200]} names no file of this directory")
    return os.path.join(directory, name)


def follow_index(records: Iterable[Record], directory: Optional[str],
                 read_part: Callable[[str], Iterable[Record]],
                 depth: int = 2) -> Iterator[Record]:
    """Replace each sitemap of an index by the records of its part, read from a local file.

    ``directory`` is the index's own (None for a stream: then an index is an error). A part may
    itself be an index (ours are, past 50,000 parts), down to ``depth`` levels. A part that is
    not there is an error naming it: an update would otherwise drop its URLs silently.
    """
    for record in records:
        if not record.is_sitemap:
            yield record
            continue
        if directory is None:
            raise InputError(record.source, record.line,
                             "--follow needs the index as a file: its parts are read beside it")
        if depth <= 0:
            raise InputError(record.source, record.line,
                             "--follow: indexes nested deeper than two levels")
        path = part_path(record, directory)
        if not os.path.isfile(path):
            raise InputError(record.source, record.line,
                             f"--follow: part {record.loc[:200]} is missing: no file {path}")
        yield from follow_index(read_part(path), os.path.dirname(path), read_part, depth - 1)


def apply_defaults(records: Iterable[Record], changefreq: Optional[str] = None,
                   priority: Optional[float] = None) -> Iterator[Record]:
    """Fill changefreq/priority where the input gave none (the user's --changefreq/--priority)."""
    if changefreq is None and priority is None:
        return iter(records)  # no step at all: a pass-through generator costs per record
    return _fill(records, changefreq, priority)


def _fill(records: Iterable[Record], changefreq: Optional[str],
          priority: Optional[float]) -> Iterator[Record]:
    for r in records:
        if r.is_sitemap or (changefreq is None or r.changefreq is not None) and (
                priority is None or r.priority is not None):
            yield r
            continue
        yield make_record(r.loc, r.lastmod, r.changefreq if r.changefreq is not None
                          else changefreq, r.priority if r.priority is not None else priority,
                          r.is_sitemap, r.source, r.line)
