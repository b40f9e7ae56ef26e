"""What check() reports and the state it keeps per file: Diagnostic, CheckStats, FileCheck.

Each concern's checks (xml, text, feed, columns, locs, fields) report through a FileCheck, which
counts, caps and orders the diagnostics: they come out sorted by position as soon as no
earlier one can follow (``safe``), so memory stays flat on a large file.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..model.limits import Profile
from ..model.report import MESSAGES_PER_KIND
from ..model.scope import Scope
from .dupes import SeenURLs
from .follow import FOLLOW_DEPTH, Part, ours_nested
from .hreflang import HreflangLinks

if TYPE_CHECKING:
    from .site import Robots, Site

__all__ = ["PROGRESS_EVERY", "CheckStats", "Diagnostic", "FileCheck"]


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
    robots: Robots | None = field(default=None, repr=False, compare=False)  # a robots.txt
    site: Site | None = field(default=None, repr=False, compare=False)  # a built site
    # the alternates of every <url> with some, for hreflang-reciprocal after the last file
    hreflang: HreflangLinks = field(default_factory=HreflangLinks, repr=False, compare=False)


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
        self.now = now
        self.stats = stats
        self.follow_dir = follow_dir
        self.listed_in = listed_in  # the index that listed this file (--follow)
        self.depth = depth  # 0 for a file named by the user, 1 for a part of its index, ...
        # the URL directory parts must lie in: --base-url's (or, for a nested index, its
        # directory's under it), else the directory of the first <loc>
        self.index_dir: str | None = follow_prefix
        self.parts: list[Part] = []  # index parts found on disk, to check next
        self.part_paths: set[Path] = set()
        self.is_index = False
        self.entries = 0
        self.safe = (0, 0)  # no diagnostic still to come lies before this position
        self._heap: list[tuple[int, int, int, Diagnostic]] = []
        self._seq = 0
        self.index_lines: dict[int, int] = {}  # an index's entries: hash -> first line
        self.file_no = stats.seen.add_file(name)  # URLs: their first place is in stats.seen
        self._too_large = False
        self._per_rule: Counter[str] = Counter()
        # each distinct value's verdict, judged once (fields.py)
        self.lastmod_verdicts: dict[str, tuple[str, str, str]] = {}
        self.priority_verdicts: dict[str, tuple[str, str, str]] = {}
        self.lastmod_days: dict[str, bool] = {}  # a day long past? (xmlfast.lastmods_fine)

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

    def entries_at(self, places: list[tuple[int, int]]) -> None:
        """``entry`` for each of ``places``, in one step where no limit or progress line is
        crossed (the usual)."""
        stats, n = self.stats, len(places)
        done = stats.urls + stats.sitemaps
        if self.entries + n > self.profile.max_urls or stats.progress is not None and \
                (done + n) // PROGRESS_EVERY != done // PROGRESS_EVERY:
            for line, column in places:
                self.entry(line, column)
            return
        self.entries += n
        if self.is_index:
            stats.sitemaps += n
        else:
            stats.urls += n

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
