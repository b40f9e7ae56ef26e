"""What `feed2sitemap report` gathers while a check run reads the files (``CheckStats.facts``):
each file's counts and sizes, the lastmods by day, the extensions per URL, from where the checks
already hold the values: the report costs the check's own pass. One entry per file, per
distinct lastmod day (at most ``MAX_DAYS``, the rest counted as ``other_days``), per kind.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from ..model.rules import XML_SPACE
from ..readers.detect import GZIP_MAGIC

if TYPE_CHECKING:
    from ..model.extensions import Extensions

__all__ = ["EXTENSION_KINDS", "Facts", "FileFacts", "MAX_DAYS", "Tap"]

MAX_DAYS = 1 << 16  # distinct lastmod days kept: 179 years of days
EXTENSION_KINDS = ("images", "videos", "news", "alternates")


class Tap:
    """A stream's reads, counted: the bytes as stored (or as sent), and whether they are gzip."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0
        self.head = b""

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        if len(self.head) < 2:
            self.head += data[:2 - len(self.head)]
        self.count += len(data)
        return data


@dataclass
class FileFacts:
    """One file of the run, as read."""

    name: str
    listed_in: str | None  # the index that listed it; None for a file named by the user
    kind: str  # "index", "urlset", the list's or feed's format (detect.sniff), "unreadable"
    entries: int  # URLs, or for an index the sitemaps it lists
    bytes: int | None  # uncompressed bytes (XML files; None when not known)
    stored: int | None  # bytes as stored on disk or sent by the server
    gzip: bool
    errors: int
    warnings: int
    http: dict[str, Any] | None = None  # status, headers: for a file fetched by URL


class Facts:
    """The run's facts, filled by the checks as they read."""

    def __init__(self) -> None:
        self.files: list[FileFacts] = []
        self.days: Counter[str] = Counter()  # "YYYY-MM-DD" (as written, in its own zone)
        self.other_days = 0  # lastmods past MAX_DAYS distinct days
        self.dated = 0  # URLs with a lastmod
        self.with_ext: Counter[str] = Counter()  # URLs with at least one of a kind
        self.items: Counter[str] = Counter()  # the items of a kind
        # every problem of a rule in the files by (severity, rule): check lists the first 50
        # of a rule in a file, these count them all
        self.problems: Counter[tuple[str, str]] = Counter()
        self.begin()

    def begin(self) -> None:
        """A new file: what follows is the current file's."""
        self._tap: Tap | None = None
        self.format = ""  # (detect.sniff), set by run._dispatch
        self._http: dict[str, Any] | None = None
        self._severities: Counter[str] = Counter()

    def problem(self, severity: str, rule: str) -> None:
        self.problems[severity, rule] += 1
        self._severities[severity] += 1

    def tap(self, raw: IO[bytes]) -> IO[bytes]:
        tap = self._tap = Tap(raw)
        return tap  # type: ignore[return-value]  # (read is all the readers ask)

    def fetched(self, body: Any) -> None:
        facts = getattr(body, "facts", None)
        self._http = facts() if facts is not None else None

    def end(self, name: str, listed_in: str | None, is_index: bool, entries: int,
            size: int | None) -> None:
        """The current file is read (FileFacts has the arguments' meaning)."""
        tap = self._tap
        kind = self.format or ("unreadable" if tap is None else "unknown")
        if is_index:
            kind = "index"
        elif kind == "sitemap":
            kind = "urlset"
        self.files.append(FileFacts(
            name, listed_in, kind, entries, size, tap.count if tap else None,
            tap is not None and tap.head == GZIP_MAGIC, self._severities["error"],
            self._severities["warning"], self._http))

    def lastmods(self, values: list[str | None]) -> None:
        """The lastmods of a run of entries (None: an entry without one)."""
        days = [v.strip(XML_SPACE)[:10] for v in values if v is not None]
        self.dated += len(days)
        counts = self.days
        if len(counts) < MAX_DAYS:
            counts.update(days)
            return
        for day in days:  # (full: only the days already kept are counted by day)
            if day in counts:
                counts[day] += 1
            else:
                self.other_days += 1

    def extensions(self, ext: Extensions) -> None:
        for kind in EXTENSION_KINDS:
            n = len(getattr(ext, kind))
            if n:
                self.with_ext[kind] += 1
                self.items[kind] += n
