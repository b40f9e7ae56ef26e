"""``diff``: what changed between two sitemaps (or lists, feeds, sets). OLD is read whole into
a dict (URL → lastmod, a hash of its extensions, its file: about 230 bytes a URL); NEW streams
against it, each URL it lists marked seen, so what is left unmarked at the end was removed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import islice
from typing import Optional

from ..errors import OptionError
from ..model.batch import Batch
from ..model.lastmods import lastmod_key
from ..model.options import ReadOptions
from ..model.record import Lastmod
from ..model.report import Report
from ..pipeline.steps import normalize
from ..readers.detect import Source
from .reading import Web, read_batches
from .writing import check_groups

__all__ = ["KINDS", "Diff", "diff"]

KINDS = ("added", "removed", "newer", "older", "extensions")


@dataclass
class Side:

    name: str
    urls: int = 0
    files: list[str] = field(default_factory=list)


@dataclass
class Diff:
    """The result: counts of each kind overall and per file (the NEW file for added and
    changed URLs, the OLD one for removed), and the first ``show`` URLs of each kind."""

    old: Side
    new: Side
    counts: Counter[str] = field(default_factory=Counter)
    per_file: dict[str, Counter[str]] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})
    unchanged: int = 0

    @property
    def changed(self) -> int:
        return sum(self.counts[k] for k in KINDS)


_NEW = (None, 0, -1)  # (a URL not in OLD)
_OLDEST = datetime.min.replace(tzinfo=timezone.utc)  # no lastmod: older than any


def _key(lastmod: Optional[Lastmod]) -> datetime:
    return _OLDEST if lastmod is None else lastmod_key(lastmod)


def _batches(source: Source, side: Side, reading: ReadOptions, report: Report,
             web: Web) -> Iterator[tuple[Batch, Sequence[Optional[Lastmod]], Sequence[int]]]:
    """Each batch read and normalised, with its lastmods and a hash of each row's extensions
    (0: none)."""
    for batch in normalize(read_batches(source, reading, report=report, name=side.name,
                                        web=web), report):
        side.urls += len(batch.locs)
        if (batch.source or side.name) not in side.files:
            side.files.append(batch.source or side.name)
        n = len(batch.locs)
        exts = [hash(e) if e else 0 for e in batch.extensions] if batch.extensions else [0] * n
        yield batch, batch.lastmods or [None] * n, exts


def diff(old: Source, new: Source, *, reading: ReadOptions = ReadOptions(),
         report: Optional[Report] = None, web: Web = Web(), show: int = 20,
         old_name: Optional[str] = None, new_name: Optional[str] = None) -> Diff:
    """Compare ``old`` with ``new`` (paths, http(s) URLs or binary streams, read as ``read``
    reads them: ``reading.follow`` reads an index's parts). URLs are compared normalised;
    a URL listed twice on one side counts once (OLD: its last copy; NEW: its first)."""
    check_groups(reading=(reading, ReadOptions), web=(web, Web),
                 report=(report, (Report, type(None))))
    if isinstance(show, bool) or not isinstance(show, int) or show < 0:
        raise OptionError(f"must be a count of URLs (0 or more), not {show!r}", "show")
    report = report if report is not None else Report()
    result = Diff(Side(old_name or str(old)), Side(new_name or str(new)))
    earlier: dict[str, Optional[tuple[Optional[Lastmod], int, int]]] = {}  # None: seen in NEW
    files = result.old.files
    for batch, lastmods, exts in _batches(old, result.old, reading, report, web):
        index = files.index(batch.source or result.old.name)
        earlier.update(zip(batch.locs, zip(lastmods, exts, [index] * len(exts), strict=True),
                           strict=True))
    for batch, lastmods, exts in _batches(new, result.new, reading, report, web):
        found = _compare(batch.locs, lastmods, exts, earlier, result, show)
        if found:
            result.per_file.setdefault(batch.source or result.new.name, Counter()).update(found)
    removed = Counter(left[2] for left in earlier.values() if left is not None)
    for index, n in removed.items():
        result.counts["removed"] += n
        result.per_file.setdefault(files[index], Counter())["removed"] += n
    if show:
        result.examples["removed"] = list(islice(
            (loc for loc, left in earlier.items() if left is not None), show))
    return result


def _compare(locs: Sequence[str], lastmods: Sequence[Optional[Lastmod]], exts: Sequence[int],
             earlier: dict[str, Optional[tuple[Optional[Lastmod], int, int]]], result: Diff,
             show: int) -> Counter[str]:
    """One batch of NEW against OLD: the kinds found, counted (and the first ``show`` of each
    kind kept); each URL marked seen."""
    found: Counter[str] = Counter()
    examples = result.examples
    get = earlier.get
    for loc, lastmod, ext in zip(locs, lastmods, exts, strict=True):
        was = get(loc, _NEW)
        earlier[loc] = None
        if was is None:  # a second copy in NEW
            continue
        if was is _NEW:
            kind = "added"
        elif lastmod != was[0] and (new := _key(lastmod)) != (old := _key(was[0])):
            kind = "newer" if new > old else "older"
        elif ext != was[1]:
            kind = "extensions"
        else:
            result.unchanged += 1
            continue
        found[kind] += 1
        if len(examples[kind]) < show:
            examples[kind].append(loc)
    result.counts.update(found)
    return found
