"""Pipeline steps between readers and writers: each a small generator over batches of records
(see batch.py), with a record-level twin for library users."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Container, Iterable, Iterator
from itertools import repeat
from typing import Optional
from urllib.parse import unquote, urlsplit

from .batch import Batch, batched, unbatched
from .errors import InputError
from .merge import DEFAULT_MEMORY_LIMIT, MergeCounts, MergeStore
from .record import Record
from .report import Report
from .urls import CLEAN_BYTES, CLEAN_URL, CLEAN_URLS, Scope, normalize_url, proven_clean, scope_of

__all__ = [
    "apply_defaults", "apply_defaults_batches", "check_length", "check_length_batches",
    "dedupe", "dedupe_batches", "follow_index", "follow_index_batches", "merge", "normalize",
    "normalize_batches",
    "within_scope", "within_scope_batches",
]


# Each rule is written once, as a step over batches (see batch.py for why); the record-level
# functions below are the same steps for users who hold records.


def normalize_batches(batches: Iterable[Batch], report: Report) -> Iterator[Batch]:
    """Turn each loc into its normalised absolute http(s) URI; skip and report the others."""
    match = CLEAN_URLS.match
    for batch in batches:
        if batch.uris:  # a reader proved them clean (the text reader, a block at a time)
            yield batch
            continue
        locs = batch.locs
        text = "\n".join(locs) + "\n"
        if text.isascii():  # the usual batch, one site's clean URLs: proven at memory speed
            prefix = proven_clean(text, len(locs), len(text.encode().translate(None, CLEAN_BYTES)))
            if prefix is not None:
                yield batch.with_locs(locs, uris=True, prefix=prefix)
                continue
        unclean = _unclean(text, locs, match)
        if not unclean:
            yield batch.with_locs(locs, uris=True)
            continue
        fixed = list(locs)
        drop = []
        for i in unclean:
            try:
                fixed[i] = normalize_url(locs[i])
            except ValueError as exc:
                report.skip("invalid URL", *batch.where(i), str(exc))
                drop.append(i)
        rest = batch.with_locs(fixed, uris=True).without(drop)
        if rest.locs:
            yield rest


def _unclean(text: str, locs: list[str], match: Callable[..., Optional[re.Match[str]]]
             ) -> list[int]:
    """The indexes of the locs that are not clean URIs already (urls.CLEAN_URL); ``text`` is
    the locs, each followed by a newline.

    normalize_url's own first test, for the whole batch in a few regex calls: the batch as lines
    is matched from the start, and each line the match stops at is noted and stepped over. Most
    URLs of a real site are clean; a batch with 5% of IRIs costs one pass, not a call per URL.
    """
    if text.count("\n") != len(locs):  # a newline inside a loc: look at each one by itself
        clean = CLEAN_URL.fullmatch
        return [i for i, loc in enumerate(locs) if clean(loc) is None]
    unclean = []
    end = match(text).end()  # type: ignore[union-attr]  # (…)* always matches
    i = text.count("\n", 0, end)
    while end < len(text):
        unclean.append(i)  # line i starts at end and is not clean
        pos = end + len(locs[i]) + 1
        end = match(text, pos).end()  # type: ignore[union-attr]
        i += 1 + text.count("\n", pos, end)
    return unclean


def check_length_batches(batches: Iterable[Batch], max_loc: int, report: Report,
                         profile: str = "", min_loc: int = 12) -> Iterator[Batch]:
    """Skip a record whose <loc> is not shorter than ``max_loc`` characters (the profile's rule)
    or shorter than ``min_loc`` (the XSD's minLength: "http://a.b/" cannot be in a sitemap)."""
    for batch in batches:
        sizes = list(map(len, batch.locs))
        if not sizes:
            continue
        if max(sizes) < max_loc and min(sizes) >= min_loc:
            yield batch
            continue
        drop = []
        for i, n in enumerate(sizes):
            if n >= max_loc:
                report.skip("URL too long", *batch.where(i),
                            f"URL of {n:,} characters; profile {profile} requires under "
                            f"{max_loc:,}")
                drop.append(i)
            elif n < min_loc:
                report.skip("URL too short", *batch.where(i),
                            f"{batch.locs[i]} has {n} characters; the sitemaps.org schema "
                            f"requires at least {min_loc}")
                drop.append(i)
        rest = batch.without(drop)
        if rest.locs:
            yield rest


def within_scope_batches(batches: Iterable[Batch], report: Report,
                         scope: Optional[Scope] = None) -> Iterator[Batch]:
    """Keep the URLs of one site (sitemaps.org: a sitemap lists URLs of its own host only).

    ``scope`` comes from --base-url (scheme, host and directory); without it the scheme and host
    of the first URL decide. Run after ``normalize``: both sides are in normalised form.
    """
    off = report.hosts_off_scope
    for batch in batches:
        if not batch.locs:
            continue
        if scope is None:
            scope = _default_scope(batch, report)
        prefix = scope.prefix
        if batch.prefix.startswith(prefix) or all(map(str.startswith, batch.locs, repeat(prefix))):
            # the usual case: known from the reader, or found in C
            yield batch
            continue
        contains = scope.contains
        outside = [i for i, loc in enumerate(batch.locs) if not contains(loc)]
        for i in outside:
            loc = batch.locs[i]
            off[loc[: loc.find("/", loc.find("://") + 3)]] += 1
            report.skip("off scope", *batch.where(i),
                        f"{loc[:200]} is outside {prefix} (sitemaps.org: one site per sitemap; "
                        "--no-scope-check to allow)")
        rest = batch.without(outside)
        if rest.locs:
            yield rest


def _default_scope(batch: Batch, report: Report) -> Scope:
    """Without --base-url: the site the input names (``batch.site``: a JSON Feed's
    home_page_url), its directory included, else the scheme and host of the first URL."""
    if batch.site is not None:
        try:
            return scope_of(batch.site)
        except ValueError as exc:
            report.warn("bad site URL", batch.source, None, f"the site URL it names is not "
                        f"usable as the scope ({exc}); the first URL's site is taken")
    return scope_of(batch.locs[0], directory=False)


def dedupe_batches(batches: Iterable[Batch], report: Report) -> Iterator[Batch]:
    """One entry per URL: the first copy keeps its place, later copies are dropped and counted.

    Remembers the 64-bit hash of each URL rather than the URL (about 60 bytes per URL in all,
    whatever the URL's length); two different URLs colliding is a one-in-2**64 event per pair
    (about one in 37,000,000 runs of a million URLs).
    """
    seen: set[int] = set()
    for batch in batches:
        keys = list(map(hash, batch.locs))
        fresh = set(keys)
        # the usual case, in C: no key twice in the batch, none seen before (the probes of
        # isdisjoint leave the table's slots in cache for the insertions that follow)
        if len(fresh) == len(keys) and seen.isdisjoint(fresh):
            seen |= fresh
            yield batch
            continue
        drop = []
        for i, key in enumerate(keys):
            if key in seen:
                report.skip("duplicate", *batch.where(i), f"duplicate URL {batch.locs[i]}")
                drop.append(i)
            else:
                seen.add(key)
        rest = batch.without(drop)
        if rest.locs:
            yield rest


def apply_defaults_batches(batches: Iterable[Batch], changefreq: Optional[str] = None,
                           priority: Optional[float] = None) -> Iterator[Batch]:
    """Fill changefreq/priority where the input gave none (the user's --changefreq/--priority)."""
    for batch in batches:
        if batch.is_sitemap or (changefreq is None and priority is None):
            yield batch
            continue
        n = len(batch.locs)
        changefreqs, priorities = batch.changefreqs, batch.priorities
        if changefreq is not None:
            changefreqs = [changefreq] * n if changefreqs is None else [
                changefreq if v is None else v for v in changefreqs]
        if priority is not None:
            priorities = [priority] * n if priorities is None else [
                priority if v is None else v for v in priorities]
        yield Batch(batch.locs, batch.source, batch.lines, batch.lastmods, changefreqs,
                    priorities, batch.is_sitemap, batch.sources, batch.uris, batch.prefix)


def normalize(records: Iterable[Record], report: Report) -> Iterator[Record]:
    """Records version of normalize_batches."""
    return unbatched(normalize_batches(batched(records), report))


def check_length(records: Iterable[Record], max_loc: int, report: Report,
                 profile: str = "", min_loc: int = 12) -> Iterator[Record]:
    """Records version of check_length_batches."""
    return unbatched(check_length_batches(batched(records), max_loc, report, profile, min_loc))


def within_scope(records: Iterable[Record], report: Report,
                 scope: Optional[Scope] = None) -> Iterator[Record]:
    """Records version of within_scope_batches."""
    return unbatched(within_scope_batches(batched(records), report, scope))


def dedupe(records: Iterable[Record], report: Report) -> Iterator[Record]:
    """Records version of dedupe_batches."""
    return unbatched(dedupe_batches(batched(records), report))


def apply_defaults(records: Iterable[Record], changefreq: Optional[str] = None,
                   priority: Optional[float] = None) -> Iterator[Record]:
    """Records version of apply_defaults_batches."""
    return unbatched(apply_defaults_batches(batched(records), changefreq, priority))


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
    """Records version of follow_index_batches."""
    return unbatched(follow_index_batches(
        batched(records), directory, lambda path: batched(read_part(path)), depth))


def follow_index_batches(batches: Iterable[Batch], directory: Optional[str],
                         read_part: Callable[[str], Iterable[Batch]],
                         depth: int = 2) -> Iterator[Batch]:
    """Replace each sitemap of an index by the records of its part, read from a local file.

    ``directory`` is the index's own (None for a stream: then an index is an error). A part may
    itself be an index (ours are, past 50,000 parts), down to ``depth`` levels. A part that is
    not there is an error naming it: an update would otherwise drop its URLs silently.
    """
    for batch in batches:
        if not batch.is_sitemap:
            yield batch
            continue
        for record in batch.records():
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
            yield from follow_index_batches(read_part(path), os.path.dirname(path), read_part,
                                            depth - 1)
