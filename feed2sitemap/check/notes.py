"""check's notes (severity ``info``): what is legal but that search engines ignore or misread.
A note never fails a run unless --fail-on info. Each is said once per file, with a count and
its first place, after the file's other diagnostics.

- ``lastmod-shared``: at least SHARED_SHARE of a urlset's lastmods (SHARED_MIN at least) are
  one value: a build's time stamp, not the pages' dates. Counted per file by Misra and Gries'
  frequent-items summary of TRACKED values, in flat memory: a value with more than
  1/(TRACKED+1) of the lastmods is never lost, its count low by at most that share (the note
  then says "at least"; exact up to TRACKED distinct values, the usual).
- ``changefreq-priority``: URLs with <changefreq> or <priority>.
- ``ext-deprecated``: each extension tag Google no longer reads, one note per tag.
- ``lastmod-placeholder``: the dates generators write for "unknown" (locs.py judges them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

__all__ = ["SHARED_MIN", "SHARED_SHARE", "Notes"]

SHARED_MIN = 100
SHARED_SHARE = 0.9
TRACKED = 1024
LONGEST = 64  # characters of a lastmod kept (a date and time with a fraction: 35 or so)


class Notes:
    """A file's counts for its notes, reported by ``finish``."""

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
