"""check(): validate sitemaps, sitemap indexes, URL lists and feeds, with a position per problem.

Errors are what the sitemaps.org XSD rejects plus the protocol rules it cannot express (absolute
http(s) URLs, characters a URI may not hold, a zone on every time, the profile's limits, UTF-8,
no DTD). Warnings are what is legal but probably not meant: duplicates, URLs outside the site,
IRIs, dates in the future. Every file is streamed (feeds excepted: feedparser needs them whole);
diagnostics come out sorted by position as soon as no earlier one can follow.

This module holds the per-file state and the rules on one location; by concern: check_xml (XML
sitemaps and indexes), check_text (URL lists, feeds), check_columns (TSV/CSV/JSON Lines, JSON
Feed), check_follow (an index's parts on disk), check_dupes (duplicates across the run),
check_robots (--robots), check_site (--site).
"""

from __future__ import annotations

import heapq
import os
import re
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any, Union

from ..detect import open_input, sniff
from ..errors import InputError, UnsupportedFormat
from ..limits import Profile, get_profile
from ..report import MESSAGES_PER_KIND
from ..urls import Scope, normalize_url, scope_of
from .columns import check_columns, check_jsonfeed
from .dupes import SeenURLs
from .follow import FOLLOW_DEPTH, Part, below_prefix, locate_part, ours_nested
from .robots import Robots
from .site import SHOWN, Site
from .text import check_feed, check_text
from .xml import check_encoding, check_sitemap_xml, is_utf16

__all__ = ["CheckStats", "Diagnostic", "FileCheck", "check", "iter_check", "site_diagnostics"]

Source = Union[str, "os.PathLike[str]", IO[bytes]]

# RFC 3986 allows none of these anywhere in a URI (sitemaps.org: "URL-escaped"); "%" only as %XX.
_BAD_URI_CHAR = re.compile(r'[\x00-\x20"<>\\^`{|}\x7f-\x9f]|%(?![0-9A-Fa-f]{2})')
_HTTP = re.compile(r"https?://", re.I)
_XML_WS = re.compile(r"[ \t\n\r]+")


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place. ``line`` and ``column`` count from 1."""

    file: str
    line: int
    column: int
    severity: str  # "error" or "warning"
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.rule}: " \
               f"{self.message}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class CheckStats:
    """Running totals over every file checked with the same object."""

    files: int = 0
    urls: int = 0
    sitemaps: int = 0  # the entries of indexes (sitemaps listed, not URLs)
    errors: int = 0
    warnings: int = 0
    # called every PROGRESS_EVERY entries (the command's progress line)
    progress: Callable[[CheckStats], None] | None = field(default=None, repr=False,
                                                          compare=False)
    # every URL's first place, for duplicates across files (see check_dupes)
    seen: SeenURLs = field(default_factory=SeenURLs, repr=False, compare=False)
    robots: Robots | None = field(default=None, repr=False, compare=False)  # --robots
    site: Site | None = field(default=None, repr=False, compare=False)  # --site


PROGRESS_EVERY = 4096


class FileCheck:
    """The rules' state for one file: counts, first lines of URLs, scope, pending diagnostics."""

    def __init__(self, name: str, profile: Profile, scope: Scope | None, now: datetime,
                 stats: CheckStats, follow_dir: Path | None = None,
                 listed_in: str | None = None, follow_prefix: str | None = None,
                 depth: int = 0) -> None:
        self.name = name
        self.profile = profile
        self.scope = scope  # from --base-url; else the first URL's origin, set on the way
        self.base_scope = scope
        self.now = now
        self.stats = stats
        self.follow_dir = follow_dir
        self.listed_in = listed_in  # the index that listed this file (--follow)
        self.depth = depth  # 0 for a file named by the user, 1 for a part of its index, ...
        # the URL directory parts must lie in: --base-url's (or, for a nested index, its
        # directory's under it), else the directory of the first <loc>
        self._index_dir: str | None = follow_prefix
        self.parts: list[Part] = []  # index parts found on disk, to check next
        self._part_paths: set[Path] = set()
        self.is_index = False
        self.entries = 0
        self.safe = (0, 0)  # no diagnostic still to come lies before this position
        self._heap: list[tuple[int, int, int, Diagnostic]] = []
        self._seq = 0
        self._first_line: dict[int, int] = {}  # an index's entries: hash -> first line
        self.file_no = stats.seen.add_file(name)  # URLs: their first place is in stats.seen
        self._too_large = False
        self._per_rule: Counter[str] = Counter()

    def _add(self, severity: str, rule: str, line: int, column: int, message: str) -> None:
        if severity == "error":
            self.stats.errors += 1
        else:
            self.stats.warnings += 1
        # As the converter's report does: past MESSAGES_PER_KIND of one rule in one file, the
        # rest are only counted (the summary has them all). A small gzip file can hold millions
        # of bad lines; their messages would be gigabytes.
        n = self._per_rule[rule] = self._per_rule[rule] + 1
        if n > MESSAGES_PER_KIND:
            return
        if n == MESSAGES_PER_KIND:
            message += f" (further {rule!r} {severity}s in this file are counted, not shown)"
        self._seq += 1
        d = Diagnostic(self.name, line, column, severity, rule, message)
        heapq.heappush(self._heap, (line, column, self._seq, d))

    def error(self, rule: str, line: int, column: int, message: str) -> None:
        self._add("error", rule, line, column, message)

    def warn(self, rule: str, line: int, column: int, message: str) -> None:
        self._add("warning", rule, line, column, message)

    def pop_safe(self) -> Iterator[Diagnostic]:
        heap = self._heap
        while heap and heap[0][:2] <= self.safe:
            yield heapq.heappop(heap)[3]

    def pop_all(self) -> Iterator[Diagnostic]:
        while self._heap:
            yield heapq.heappop(self._heap)[3]

    def start_root(self, is_index: bool, line: int, column: int) -> None:
        self.is_index = is_index
        if not is_index or self.listed_in is None:
            return
        if self.depth < FOLLOW_DEPTH and ours_nested(self.listed_in, self.name):
            # What the converter must write past 50,000 parts (one index cannot list them):
            # legal for no schema, read by the search engines; a warning, and followed.
            self.warn("nested-index", line, column, f"an index listed in the index "
                      f"{self.listed_in} (the converter's STEM-index-N files past 50,000 "
                      "parts); sitemaps.org's indexes list sitemaps only")
            return
        self.follow_dir = None
        self.error("nested-index", line, column, f"a sitemap index listed in the index "
                   f"{self.listed_in}; sitemaps.org: an index lists sitemaps, not indexes")

    def size(self, offset: int, line: int, column: int) -> None:
        """Called with a byte offset; reports the first place past the profile's byte limit."""
        limit = self.profile.max_bytes
        if offset > limit and not self._too_large:
            self._too_large = True
            self.error("too-large", line, column, f"more than {limit:,} bytes (uncompressed) "
                       f"by here; profile {self.profile.name} allows {limit:,} per file")

    def entry(self, line: int, column: int) -> None:
        self.entries += 1
        stats = self.stats
        if self.is_index:
            stats.sitemaps += 1
        else:
            stats.urls += 1
        if stats.progress is not None and not (stats.urls + stats.sitemaps) % PROGRESS_EVERY:
            stats.progress(stats)
        limit = self.profile.max_urls
        if self.entries == limit + 1:
            what = "sitemaps" if self.is_index else "URLs"
            self.error("too-many-urls", line, column, f"entry {limit + 1:,}: profile "
                       f"{self.profile.name} allows {limit:,} {what} per file")

    def loc(self, raw: str, line: int, col: int, *, xsd: bool = False, index: bool = False,
            truncated: bool = False) -> None:
        """All checks on one location: the XSD's (``xsd``), the protocol's, and the warnings."""
        # anyURI collapses whitespace; a text line or feed link is taken stripped.
        value = _XML_WS.sub(" ", raw).strip(" ") if xsd else raw.strip()
        n = len(value)
        max_loc = self.profile.max_loc
        if xsd and (truncated or not 12 <= n <= 2048):  # tLoc: minLength 12, maxLength 2048
            size = "more than 65,536" if truncated else f"{n:,}"
            self.error("loc-length", line, col,
                       f"<loc> of {size} characters; the schema requires 12 to 2,048")
            if truncated or not value:
                return
        elif n >= max_loc:  # sitemaps.org: "less than 2,048 characters"
            self.error("loc-too-long", line, col, f"URL of {n:,} characters; profile "
                       f"{self.profile.name} requires fewer than {max_loc:,}")
        if not value:
            self.error("missing-loc", line, col, "empty URL")
            return
        bad = _BAD_URI_CHAR.search(value)
        if bad is not None:
            self.error("loc-chars", line, col, f"{_char_name(bad.group())} at character "
                       f"{bad.start() + 1} of the URL; a URI must percent-encode it")
        elif not value.isascii():
            self.warn("loc-iri", line, col, "non-ASCII characters: an IRI, not a URI; "
                      "percent-encode them as UTF-8")
        try:
            norm = normalize_url(value)
        except ValueError as exc:
            # "http://a.com&<>/" fails for its characters, already reported
            if bad is None or not _HTTP.match(value):
                self.error("loc-not-http", line, col, f"{exc}; a sitemap lists absolute "
                           "http(s) URLs only")
            return
        if "#" in value:  # RFC 3986 section 3.5: never sent to the server; the converter drops it
            self.warn("loc-fragment", line, col, f"{norm[:200]} is given with a fragment "
                      f"(#{value.partition('#')[2][:40]}); a sitemap lists pages")
        self._duplicate(norm, line, col, index)
        if self.scope is None:
            self.scope = scope_of(norm, directory=False)
        scope = self.scope
        if index:
            if not norm.startswith(scope.origin + "/"):
                self.warn("index-host", line, col, f"{norm[:200]} is not on {scope.origin}; "
                          "an index lists sitemaps of its own site")
            if self.follow_dir is not None:
                self._follow(norm, line, col, scope)
        elif not scope.contains(norm):
            self.warn("scope", line, col, f"{norm[:200]} is outside {scope.prefix}; a sitemap "
                      "lists URLs of its own site and directory")
        robots = self.stats.robots
        if robots is not None and not index and robots.disallowed(norm):
            self.warn("robots-disallowed", line, col, f"{norm[:200]} is disallowed for "
                      f"Googlebot by {robots.where}: never crawled")
        site = self.stats.site
        if site is not None and not index and norm.startswith(site.prefix):
            self._site_page(site, norm, line, col)

    def _site_page(self, site: Site, norm: str, line: int, col: int) -> None:
        rel, names = site.file_of(norm)
        if rel is None:
            looked = " or ".join(names[:3]) or "no file name"
            self.warn("site-missing", line, col, f"{norm[:200]}: no file {looked} in "
                      f"{site.root} (404 when served)")
            return
        page = site.page(rel)
        if page is None:
            return
        if page.noindex:
            self.warn("site-noindex", line, col, f"{norm[:200]}: {rel} says noindex (meta "
                      "robots); a sitemap lists pages to index")
        canonical = site.canonical_elsewhere(norm, page)
        if canonical is not None:
            self.warn("site-canonical", line, col, f"{norm[:200]}: {rel} names "
                      f"{canonical[:200]} as canonical; a sitemap lists canonical URLs")

    def _duplicate(self, norm: str, line: int, col: int, index: bool) -> None:
        key = hash(norm)  # 64 bits, as pipeline.dedupe_batches keeps
        if index:  # sitemaps listed: within this index only (they are not the site's URLs)
            first = self._first_line.get(key)
            if first is None and len(self._first_line) < self.profile.max_urls:
                self._first_line[key] = line
            place = None if first is None else (self.name, first)
        else:
            seen = self.stats.seen
            full = seen.full
            place = seen.first(key, self.file_no, line)
            if seen.full and not full:
                self.warn("duplicate-limit", line, col, f"more than {seen.limit:,} URLs in "
                          "this run: later ones are looked up but no longer remembered")
        if place is None:
            return
        if place[0] == self.name:
            self.warn("duplicate-loc", line, col, f"{norm[:200]} is already listed on line "
                      f"{place[1]}")
        else:
            self.warn("duplicate-across-files", line, col, f"{norm[:200]} is already listed "
                      f"in {place[0]} on line {place[1]}")

    def _follow(self, norm: str, line: int, col: int, scope: Scope) -> None:
        # The index's directory: --base-url's, else that of the first entry (split output
        # puts the parts and the index side by side).
        if self._index_dir is None:
            self._index_dir = norm[: norm.rfind("/") + 1]
        prefix = self._index_dir
        if not norm.startswith(prefix):
            self.error("follow-outside", line, col, f"{norm[:200]} is not under {prefix}, "
                       "the index's directory")
            return
        assert self.follow_dir is not None
        path, why = locate_part(self.name, self.follow_dir, prefix, norm, line)
        if path is None:
            self.error("follow-missing", line, col, why)
        elif path not in self._part_paths:
            self._part_paths.add(path)
            self.parts.append(Part(path, line, col))


def _char_name(ch: str) -> str:
    if ch == " ":
        return "a space"
    if ch == "%":
        return "'%' not followed by two hex digits"
    if ch.isprintable():
        return repr(ch)
    return f"control character U+{ord(ch):04X}"


def check(source: Source, *, profile: str = "sitemaps", base_url: str | None = None,
          follow: bool = False, now: datetime | None = None, stats: CheckStats | None = None,
          name: str | None = None) -> list[Diagnostic]:
    """Check one file (a path or a binary stream); return its diagnostics sorted by position."""
    return list(iter_check(source, profile=profile, base_url=base_url, follow=follow, now=now,
                           stats=stats, name=name))


def iter_check(source: Source, *, profile: str = "sitemaps", base_url: str | None = None,
               follow: bool = False, now: datetime | None = None,
               stats: CheckStats | None = None, name: str | None = None) -> Iterator[Diagnostic]:
    """Like ``check``, yielding diagnostics as they become final (flat memory on big files).

    With ``follow``, the parts an index lists are checked after it (see check_follow); a
    part that no file holds is an error.
    ``stats`` (optional) receives the counts of files, URLs, errors and warnings; ``name``
    is the file name in diagnostics (default: the path, or the stream's ``name``).
    """
    try:
        prof = get_profile(profile)
        scope = scope_of(base_url) if base_url is not None else None
    except ValueError as exc:
        raise UnsupportedFormat(f"--base-url: {exc}" if base_url and "profile" not in str(exc)
                                else str(exc)) from None
    now = now or datetime.now(timezone.utc)
    stats = stats if stats is not None else CheckStats()
    follow_dir = None
    if follow and isinstance(source, (str, os.PathLike)):
        follow_dir = Path(os.fspath(source)).parent
    robots = stats.robots
    if robots is not None and isinstance(source, (str, os.PathLike)):
        # the sitemaps named on the command line are the ones robots.txt should announce
        # (their parts are found through them); at 1:1, so first of the file's diagnostics
        shown = name or os.fspath(source)
        url = scope.prefix + os.path.basename(shown) if scope is not None else None
        if not robots.lists(shown, url):
            stats.warnings += 1
            yield Diagnostic(shown, 1, 1, "warning", "robots-unlisted", f"{robots.where} has "
                             f"no Sitemap: line for {url or os.path.basename(shown)}: search "
                             "engines will not find it")
    f = yield from _check_source(source, prof, scope, base_url, now, stats, follow_dir,
                                 name=name, follow_prefix=scope.prefix if scope else None)
    yield from _check_parts(f, prof, scope, base_url, now, stats)


def site_diagnostics(stats: CheckStats) -> Iterator[Diagnostic]:
    """After every file of a run: the HTML pages of --site that no sitemap listed, as one
    warning (a count and the first names)."""
    site = stats.site
    if site is None:
        return
    count, first = 0, []
    for rel in site.unlisted():
        count += 1
        if count <= SHOWN:
            first.append(rel)
    if count:
        stats.warnings += 1
        more = f" and {count - SHOWN:,} more" if count > SHOWN else ""
        yield Diagnostic(site.root, 1, 1, "warning", "site-unlisted",
                         f"{count:,} HTML page{'s' if count != 1 else ''} no sitemap lists: "
                         f"{', '.join(first)}{more}")


def _check_parts(f: FileCheck, prof: Profile, scope: Scope | None, base_url: str | None,
                 now: datetime, stats: CheckStats) -> Iterator[Diagnostic]:
    """The parts of index ``f`` found on disk, each after the other, and theirs (if ours)."""
    if not f.is_index or f.follow_dir is None:
        return
    for part in f.parts:
        prefix = below_prefix(f._index_dir or "", f.follow_dir, part.path)
        sub = part.path.parent if f.depth + 1 < FOLLOW_DEPTH else None
        g = yield from _check_source(part.path, prof, scope, base_url, now, stats, sub,
                                     f.name, follow_prefix=prefix, depth=f.depth + 1)
        yield from _check_parts(g, prof, scope, base_url, now, stats)


def _check_source(source: Source, prof: Profile, scope: Scope | None,
                  base_url: str | None, now: datetime, stats: CheckStats,
                  follow_dir: Path | None,
                  listed_in: str | None = None, name: str | None = None,
                  follow_prefix: str | None = None, depth: int = 0,
                  ) -> Generator[Diagnostic, None, FileCheck]:
    if isinstance(source, (str, os.PathLike)):
        name = name or os.fspath(source)
    else:
        name = name or str(getattr(source, "name", "<stream>"))
    stats.files += 1
    f = FileCheck(name, prof, scope, now, stats, follow_dir, listed_in, follow_prefix, depth)
    # A file that cannot be read is bad data like any other (exit 1, in the --format asked):
    # in CI it is a sitemap the site does not have.
    try:
        if isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as raw:
                yield from _dispatch(raw, f, base_url)
        else:
            yield from _dispatch(source, f, base_url)
    except OSError as exc:
        f.is_index = False
        f.error("unreadable", 1, 1, f"cannot read: {exc.strerror or exc}")
        yield from f.pop_all()
    return f


def _dispatch(raw: IO[bytes], f: FileCheck,
              base_url: str | None) -> Iterator[Diagnostic]:
    try:
        stream, head = open_input(raw, f.name)
    except InputError as exc:  # bad gzip data at the start
        f.error("input", 1, 1, exc.reason)
        yield from f.pop_all()
        return
    if is_utf16(head):
        # One message, as the converter gives: line by line, UTF-16 is only NUL bytes and
        # bad URLs, and feedparser's complaints about it say nothing more.
        f.error("encoding", 1, 1, "the file is UTF-16; sitemaps.org requires UTF-8: save it as "
                "UTF-8 (checking stopped here)")
        yield from f.pop_all()
        return
    looks_xml = head.lstrip(b"\xef\xbb\xbf \t\r\n\xff\xfe\x00").startswith(b"<")
    try:
        kind = sniff(head, f.name)
    except InputError as exc:
        if not looks_xml:
            f.error("empty-set" if not head else "format", 1, 1, exc.reason)
            yield from f.pop_all()
            return
        kind = "sitemap"  # the XML check names the wrong root or the syntax error
    if kind == "text":
        yield from check_text(stream, f)
    elif kind in ("tsv", "csv", "jsonl"):
        yield from check_columns(stream, f, kind)
    elif kind == "jsonfeed":
        yield from check_jsonfeed(stream, f, base_url)
    elif kind == "feed":
        yield from check_feed(stream, f, base_url, check_encoding(head, f))
    else:
        yield from check_sitemap_xml(stream, f, check_encoding(head, f))
