"""What check() reports (Diagnostic) and the state it keeps: the run's (CheckStats, with its
memory of URLs and of hreflang alternates) and one file's (FileCheck, with its Notes)."""

from __future__ import annotations

import heapq
import itertools
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files.naming import ours_pattern, split_name
from ..model.limits import Profile
from ..model.report import MESSAGES_PER_KIND
from ..model.scope import Scope
from ..model.urls import BadURL, normalize_url

if TYPE_CHECKING:
    from .facts import Facts
    from .site import Robots, Site

__all__ = ["FOLLOW_DEPTH", "PROGRESS_EVERY", "SHARED_MIN", "SHARED_SHARE", "CheckStats",
           "Diagnostic", "FileCheck", "HreflangLinks", "Notes", "SeenURLs", "capped"]

PROGRESS_EVERY = 4096
# an index, the indexes the converter writes past 50,000 parts, their sitemaps; no deeper
FOLLOW_DEPTH = 2


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place. ``line`` and ``column`` count from 1."""

    file: str
    line: int
    column: int
    severity: str  # "error", "warning" or "info" (a note: Notes)
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.rule}: " \
               f"{self.message}"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def capped(counts: Counter[str], key: str, rule: str, severity: str, message: str) -> str | None:
    """The message of one more problem of ``key`` in a file, or None past MESSAGES_PER_KIND
    (as the converter's report: a small gzip file can hold millions of bad lines)."""
    n = counts[key] = counts[key] + 1
    if n > MESSAGES_PER_KIND:
        return None
    if n == MESSAGES_PER_KIND:
        message += f" (further {rule!r} {severity}s in this file are counted, not shown)"
    return message


class SeenURLs:
    """The first place of every URL checked in one run, for duplicates across files.

    As the converter's dedupe, only the URL's 64-bit hash is kept, its place packed in one int
    (file number << 32 | line): about 100 bytes a URL. Past ``limit`` URLs nothing new is
    remembered (later ones are still looked up) and ``full`` is set.
    """

    def __init__(self, limit: int = 5_000_000) -> None:  # about 500 MB
        self.limit = limit
        self.names: list[str] = []  # file number -> file name
        self._first: dict[int, int] = {}
        self.full = False

    def add_file(self, name: str) -> int:
        self.names.append(name)
        return len(self.names) - 1

    def place(self, key: int) -> tuple[str, int] | None:
        """Where the URL of hash ``key`` was first seen (file name, line), None if never."""
        place = self._first.get(key)
        if place is None:
            return None
        return self.names[place >> 32], place & 0xFFFFFFFF

    def first(self, key: int, file_no: int, line: int) -> tuple[str, int] | None:
        """``place(key)``; when None, this place is remembered as the first."""
        place = self.place(key)
        if place is None:
            if len(self._first) < self.limit:
                self._first[key] = file_no << 32 | min(line, 0xFFFFFFFF)
            else:
                self.full = True
        return place

    def add_new(self, keys: list[int], file_no: int, lines: list[int]) -> bool:
        """Remember URLs (hashes ``keys``, at ``lines``) at once if all are new and the limit
        is not reached; else remember none (False)."""
        first = self._first
        if len(first) + len(keys) >= self.limit or not first.keys().isdisjoint(keys):
            return False
        size = len(first)
        high = file_no << 32
        if lines and max(lines) > 0xFFFFFFFF:
            lines = [min(line, 0xFFFFFFFF) for line in lines]
        first.update(zip(keys, [high | line for line in lines], strict=True))
        if len(first) - size == len(keys):
            return True
        for key in keys:  # a URL twice in the block: take them back
            first.pop(key, None)
        return False


class HreflangLinks:
    """The alternates of every <url> with some, across the files of one check run.

    Google ignores localized versions that do not list each other, and whether B lists A back
    is known once every file is read: each <url> leaves the hashes of its alternates here, each
    link its place. A link to a page no file of the run lists says nothing (it may be in another
    sitemap). About 150 bytes a link plus the URLs, up to ``limit`` a run.
    """

    def __init__(self, limit: int = 2_000_000) -> None:
        self.limit = limit
        self.pages: dict[int, frozenset[int]] = {}  # page hash -> hashes of its alternates
        # (page hash, alternate hash, file number, line, column, what the link says)
        self.links: list[tuple[int, int, int, int, int, str]] = []
        self.full = False

    def add(self, page: str, alternates: list[tuple[str, str, int]], file_no: int,
            col: int) -> bool:
        """The <url> of ``page`` lists ``alternates`` ((hreflang, href, line) each). False when
        the limit was reached with these (the caller warns, once)."""
        try:
            own = normalize_url(page)
        except BadURL:
            return True  # (the loc's own problem, reported where it is read)
        key = hash(own)
        targets = []
        for hreflang, href, line in alternates:
            try:
                url = normalize_url(href)
            except BadURL:
                continue  # an error of its own (ext-alternates)
            targets.append((hash(url), url, hreflang, line))
        self.pages[key] = self.pages.get(key, frozenset()) | {t[0] for t in targets}
        for target, url, hreflang, line in targets:
            if target == key:
                continue
            if len(self.links) >= self.limit:
                told, self.full = self.full, True
                return told
            self.links.append((key, target, file_no, line, col,
                               f"{own[:200]} lists {url[:200]} as its {hreflang!r} version"))
        return True

    def unreciprocated(self, seen: SeenURLs) -> Iterator[tuple[str, int, int, str]]:
        """(file name, line, column, message) of each link whose target was checked in this run
        and does not list the page back."""
        for page, target, file_no, line, col, said in self.links:
            if page in self.pages.get(target, ()):
                continue
            place = seen.place(target)
            if place is not None:
                yield seen.names[file_no], line, col, f"{said}, but that page ({place[0]}:" \
                    f"{place[1]}) does not list it back; Google ignores alternates that are " \
                    "not reciprocal"


@dataclass
class CheckStats:
    """A run's totals and memory, over every file checked with the same object."""

    files: int = 0
    urls: int = 0
    sitemaps: int = 0  # the entries of indexes (sitemaps listed, not URLs)
    errors: int = 0
    warnings: int = 0
    notes: int = 0
    # called every PROGRESS_EVERY entries (the command's progress line)
    progress: Callable[[CheckStats], None] | None = field(default=None, repr=False,
                                                          compare=False)
    seen: SeenURLs = field(default_factory=SeenURLs, repr=False, compare=False)
    robots: Robots | None = field(default=None, repr=False, compare=False)  # a robots.txt
    site: Site | None = field(default=None, repr=False, compare=False)  # a built site
    hreflang: HreflangLinks = field(default_factory=HreflangLinks, repr=False, compare=False)
    # the files checked, each once however it is reached (run.identity); parts fetched by URL
    checked: set[object] = field(default_factory=set, repr=False, compare=False)
    fetched_parts: int = field(default=0, repr=False, compare=False)
    # what `report` gathers on the way (facts.py); None in a plain check
    facts: Facts | None = field(default=None, repr=False, compare=False)


SHARED_MIN = 100
SHARED_SHARE = 0.9
TRACKED = 1024
LONGEST = 64  # characters of a lastmod kept (a date and time with a fraction: 35 or so)


class Notes:
    """A file's counts for its notes (severity ``info``): what is legal but that search engines
    ignore or misread, said once per file by ``finish``, with a count and its first place.

    - ``lastmod-shared``: at least SHARED_SHARE of a urlset's lastmods (SHARED_MIN at least)
      are one value: a build's time stamp, not the pages' dates. Counted by Misra and Gries'
      frequent-items summary of TRACKED values, in flat memory: a value with more than
      1/(TRACKED+1) of the lastmods is never lost, its count low by at most that share (the
      note then says "at least"; exact up to TRACKED distinct values, the usual).
    - ``changefreq-priority``: URLs with <changefreq> or <priority>.
    - ``ext-deprecated`` (one per tag) and ``lastmod-placeholder`` (locs.py): through ``add``.
    """

    def __init__(self) -> None:
        self.lastmods: Counter[str] = Counter()
        self.dated = 0  # URLs with a lastmod
        self.first_lastmod: tuple[int, int] | None = None
        self.changefreqs = self.priorities = 0  # URLs with one
        self.first_field: tuple[int, int] | None = None  # of either
        self.counts: Counter[tuple[str, str]] = Counter()  # by (rule, key)
        self.first: dict[tuple[str, str], tuple[int, int, str]] = {}  # (line, column, message)

    def lastmod_at(self, line: int, col: int) -> None:
        """A urlset's <lastmod> is at ``line``, ``col`` (the first is kept)."""
        if self.first_lastmod is None:
            self.first_lastmod = (line, col)

    def lastmod_values(self, values: list[str]) -> None:
        """The lastmods of some URLs (stripped)."""
        self.dated += len(values)
        if max(map(len, values)) > LONGEST:  # (a hostile file: 1,024 of 64 KiB would be 64 MB)
            values = [v[:LONGEST] for v in values]
        top = self.lastmods
        top.update(values)
        if len(top) > TRACKED:
            # Misra-Gries, merged as Agarwal et al. merge such summaries: every count lowered
            # by the (TRACKED+1)-th largest, the values at 0 let go
            cut = sorted(top.values(), reverse=True)[TRACKED]
            self.lastmods = Counter({v: n - cut for v, n in top.items() if n > cut})

    def field_at(self, line: int, col: int) -> None:
        """A <changefreq> or <priority> is at ``line``, ``col`` (the first is kept)."""
        if self.first_field is None:
            self.first_field = (line, col)

    def fields(self, changefreqs: int, priorities: int) -> None:
        self.changefreqs += changefreqs
        self.priorities += priorities

    def add(self, rule: str, key: str, line: int, col: int, message: str) -> None:
        """One more of ``rule``'s ``key`` in the file; the first one's place and message kept."""
        self.counts[(rule, key)] += 1
        self.first.setdefault((rule, key), (line, col, message))

    def finish(self, note: Callable[[str, int, int, str], None]) -> None:
        """The file's notes, each given to ``note`` (rule, line, column, message)."""
        # (the summary may hold nothing: all the values met equally often, let go at once)
        for value, n in self.lastmods.most_common(1):
            bound = "" if self.lastmods.total() == self.dated else "at least "
            if self.dated >= SHARED_MIN and n >= SHARED_SHARE * self.dated:
                note("lastmod-shared", *(self.first_lastmod or (1, 1)), f"{bound}{n:,} of the "
                     f"{self.dated:,} "
                     f"lastmods in this file are {value[:40]!r}: a build's time stamp, not "
                     "the pages' dates; search engines learn to ignore such dates (Google "
                     "Search Central: lastmod must match the page's last change)")
        if self.first_field is not None:
            said = ", ".join(f"{n:,} with <{name}>" for name, n in (
                ("changefreq", self.changefreqs), ("priority", self.priorities)) if n)
            note("changefreq-priority", *self.first_field, f"URLs of this file: {said}; "
                 "Google and Bing ignore both (Yandex still reads priority), lastmod is "
                 "what they use (Google Search Central: Build and submit a sitemap)")
        for (rule, key), (line, col, message) in self.first.items():
            n = self.counts[(rule, key)]
            more = f" ({n - 1:,} more in this file)" if n > 1 else ""
            note(rule, line, col, f"{message}{more}")


class FileCheck:
    """The rules' state for one file. Its diagnostics come out sorted by position as soon as
    no earlier one can follow (``safe``), so memory stays flat on a large file."""

    def __init__(self, name: str, profile: Profile, scope: Scope | None, now: datetime,
                 stats: CheckStats, follow_dir: Path | str | None = None,
                 listed_in: str | None = None, follow_prefix: str | None = None,
                 depth: int = 0) -> None:
        self.name = name
        self.profile = profile
        self.scope = scope  # from --base-url; else the first URL's origin, set on the way
        self.now = now
        self.stats = stats
        stats.files += 1
        self.follow_dir = follow_dir  # where its parts are: a directory, or the index's URL
        self.listed_in = listed_in  # the index that listed this file (--follow)
        self.depth = depth  # 0 for a file named by the user, 1 for a part of its index, ...
        # the URL directory parts must lie in: --base-url's (or, for a nested index, its
        # directory's under it), else the directory of the first <loc>
        self.index_dir: str | None = follow_prefix
        self.parts: dict[Path | str, None] = {}  # index parts found (files or URLs), in order
        self.is_index = False
        self.is_feed = False  # a feed has no entry limit: past the sitemap's, a warning
        self.entries = 0
        self.safe = (0, 0)  # no diagnostic still to come lies before this position
        self._heap: list[tuple[int, int, int, Diagnostic]] = []
        self._seq = itertools.count()  # (equal positions: first come, first out)
        self.index_lines: dict[int, int] = {}  # an index's entries: hash -> first line
        self.file_no = stats.seen.add_file(name)  # URLs: their first place is in stats.seen
        self._too_large = False
        self._per_rule: Counter[str] = Counter()
        self.notes = Notes()  # the counts behind the file's notes, said once it is read
        self.bytes: int | None = None  # uncompressed bytes read (XML files)

    def _add(self, severity: str, rule: str, line: int, column: int, message: str) -> None:
        if severity == "error":
            self.stats.errors += 1
        elif severity == "warning":
            self.stats.warnings += 1
        else:
            self.stats.notes += 1
        if self.stats.facts is not None:  # (report: all of them, shown or not)
            self.stats.facts.problem(severity, rule)
        shown = capped(self._per_rule, rule, rule, severity, message)
        if shown is not None:
            d = Diagnostic(self.name, line, column, severity, rule, shown)
            heapq.heappush(self._heap, (line, column, next(self._seq), d))

    def error(self, rule: str, line: int, column: int, message: str) -> None:
        self._add("error", rule, line, column, message)

    def warn(self, rule: str, line: int, column: int, message: str) -> None:
        self._add("warning", rule, line, column, message)

    def note(self, rule: str, line: int, column: int, message: str) -> None:
        """A note: said once per file and rule (or per tag), by Notes.finish."""
        self._add("info", rule, line, column, message)

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
        # The converter's STEM-index-N.EXT beside the top index, written past 50,000 parts:
        # legal for no schema, read by the search engines; a warning, and followed.
        top, base = os.path.basename(self.listed_in), os.path.basename(self.name)
        if self.depth < FOLLOW_DEPTH and base.startswith(split_name(top)[0] + "-index") and \
                ours_pattern(top).fullmatch(base) is not None:
            self.warn("nested-index", line, column, f"an index listed in the index "
                      f"{self.listed_in} (the converter's STEM-index-N files past 50,000 "
                      "parts); sitemaps.org's indexes list sitemaps only")
            return
        self.follow_dir = None
        self.error("nested-index", line, column, f"a sitemap index listed in the index "
                   f"{self.listed_in}; sitemaps.org: an index lists sitemaps, not indexes")

    def size(self, offset: int, line: int, column: int) -> None:
        """Reports the first place past the profile's byte limit."""
        limit = self.profile.max_bytes
        if offset > limit and not self._too_large:
            self._too_large = True
            self.error("too-large", line, column, f"more than {limit:,} bytes (uncompressed) "
                       f"by here; profile {self.profile.name} allows {limit:,} per file")

    def entries_at(self, places: list[tuple[int, int]]) -> None:
        """``entry`` for each of ``places``, in one step where no limit or progress line is
        crossed (the fast path's 50,000 calls cost 8% of its time)."""
        stats, n = self.stats, len(places)
        done = stats.urls + stats.sitemaps
        if self.entries + n > self.profile.max_urls or stats.progress is not None and \
                (done + n) // PROGRESS_EVERY != done // PROGRESS_EVERY:
            for line, column in places:
                self.entry(line, column)
            return
        self.entries += n
        stats.urls += n  # (the fast path reads urlsets only)

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
        if self.entries == limit + 1 and self.is_feed:  # as the converter writes feeds
            self.warn("too-many-urls", line, column, f"entry {limit + 1:,}: a feed reader "
                      f"takes them all, a search engine given the feed as a sitemap only "
                      f"{limit:,} (profile {self.profile.name})")
        elif self.entries == limit + 1:
            what = "sitemaps" if self.is_index else "URLs"
            self.error("too-many-urls", line, column, f"entry {limit + 1:,}: profile "
                       f"{self.profile.name} allows {limit:,} {what} per file")
