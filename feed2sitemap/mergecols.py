"""The merge store: the rules of ``merge.py`` with columns kept as they came, and a spill to disk
past a memory budget. (Its reference, under FEED2SITEMAP_REFERENCE=1, is merge.ReferenceStore.)


- ``_index`` maps each URL to None while it has one copy, and to the fold (merge.fold) of its
  later copies once it has more: None costs nothing beyond the dict slot, and the fold is
  associative, so the first copy's state need not be found when a later one arrives;
- the dict is cut into shards (``_Index``): every shard but the last is two thirds full, and
  only the last one ever doubles (holding its old table and its new one meanwhile);
- the first copies' columns stay as the batches brought them (one ``_Segment`` per batch, its
  lines in an array), in the dict's own order: the k-th URL of the dict is the k-th row;
- a batch of URLs none seen before (the usual case) is taken in C (dict.fromkeys,
  isdisjoint, update), and a segment whose URLs have no later copy goes out as it came.

Past the memory budget, the rows of URLs not yet kept here go to the spill (spill.py: hash
partitions on disk, each row's state packed as mergepack.py says): they are written after the
in-memory ones, which is their first-seen order, since every one was first seen later.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from itertools import chain, compress, filterfalse, islice
from operator import or_
from typing import TYPE_CHECKING, Optional, TypeVar

from .batch import Batch
from .extensions.value import EMPTY, Extensions
from .merge import DEFAULT_MEMORY_LIMIT, MergeCounts
from .mergepack import (
    _BASE,
    _BASE_CF,
    _BASE_LM,
    _BASE_PR,
    _CF_INDEX,
    _CF_MASK,
    _CFF,
    _CFN,
    _HAS_BASE,
    _IX_MASK,
    _LINE,
    _LM_MASK,
    _MANY,
    _PRF,
    _PRN,
    _SITEMAP,
    _SOURCE,
    _lastmod_value,
    _pack_lastmod,
    base_bits,
    fold,
    newer,
    unpacked,
)
from .record import CHANGEFREQS, Lastmod
from .spill import PARTITIONS, Spill

if TYPE_CHECKING:
    from .extensions.merging import ExtensionMerger

__all__ = ["ColumnStore"]

# What a URL kept here costs besides its characters: its string object (49 bytes, pymalloc
# rounds up to 16), its dict slot (16-byte entries and 4-byte indexes: 22 to 44 bytes a URL
# as a shard's table fills), its segment's list slot (8) and line (4).
# benchmarks/merge_memory.py measured 147 bytes of peak RSS per 62-character URL over
# 1,500,000 URLs, 153 over 1,000,000: the default budget (256 MiB) holds about 1.8
# million such URLs before the rest spills to disk (spill.py).
MEMORY_PER_URL = 90

_ONE = 1 << _MANY  # set in every later-copy state: a fold is never None nor 0

# The most keys a shard takes: what a dict holds before its table grows past 2**21 slots
# (32 MB). Past the default budget the rest spills: an in-memory merge has one or two shards.
SHARD = (4 << 20) // 3

_T = TypeVar("_T")


class _Index:
    """One dict of keys in shards of at most SHARD keys, new keys going to the last.

    A dict's table doubles when it is two thirds full, and holds the old table and the new
    one while it does: one dict of 1.5 million URLs costs 41 bytes of table a URL, and 61
    while it doubles. A full shard is two thirds full (22 bytes a URL) and only the last one
    grows. Each key is in one shard, and the shards one after the other hold the keys in the
    order they came.
    """

    __slots__ = ("shards",)

    def __init__(self) -> None:
        self.shards: list[dict[str, Optional[int]]] = [{}]

    def __contains__(self, key: str) -> bool:
        return any(key in shard for shard in self.shards)

    def isdisjoint(self, keys: dict[str, None]) -> bool:
        return all(shard.keys().isdisjoint(keys) for shard in self.shards)

    def seen(self, keys: Sequence[str]) -> list[bool]:
        """Per key, whether it is here."""
        found = list(map(self.shards[0].__contains__, keys))
        for shard in self.shards[1:]:
            found = list(map(or_, found, map(shard.__contains__, keys)))
        return found

    def add(self, fresh: dict[str, None]) -> None:
        """Take keys none of which is here."""
        last = self.shards[-1]
        if last and len(last) + len(fresh) > SHARD:
            last = {}
            self.shards.append(last)
        last.update(fresh)

    def holding(self, keys: Sequence[str]
                ) -> Iterator[tuple[dict[str, Optional[int]], Sequence[int]]]:
        """Each shard that holds some of ``keys`` (each one here), with their positions."""
        if len(self.shards) == 1:
            yield self.shards[0], range(len(keys))
            return
        for shard in self.shards:
            at = list(compress(range(len(keys)), map(shard.__contains__, keys)))
            if at:
                yield shard, at

    def values(self) -> Iterator[Optional[int]]:
        return chain.from_iterable(map(dict.values, self.shards))


class _Segment:
    """The first copies of one batch's new URLs: its columns, as the batch had them. The
    locations are the batch's own list, with its proof (urls.CleanLocs) when it had one, so
    the writer escapes them as cheaply as it would have without merging."""

    __slots__ = ("base", "changefreqs", "clean", "kind", "lastmods", "lines", "locs",
                 "priorities", "source", "sources", "texts")

    def __init__(self, batch: Batch, is_base: bool) -> None:
        self.locs, self.clean = batch.locs, batch.proof
        self.kind = batch.is_sitemap
        self.base = is_base
        self.source, self.sources = batch.source, batch.sources
        self.lines = _compact(batch.lines)
        self.lastmods, self.texts = batch.lastmods, batch.lastmod_texts
        self.changefreqs, self.priorities = batch.changefreqs, batch.priorities

    @property
    def plain(self) -> bool:
        return _no_fields(self)  # type: ignore[arg-type]


def _compact(lines: Optional[Sequence[Optional[int]]]) -> Optional[Sequence[Optional[int]]]:
    """Line numbers as 4 bytes each rather than a list of ints (8 bytes and an object each)."""
    if lines is None or isinstance(lines, range):
        return lines
    try:
        return array("I", lines)  # type: ignore[type-var]
    except (TypeError, OverflowError):  # a row without a line, or a line past 2**32
        return lines


class ColumnStore:
    """Add batches, then take the merged ones (batches) once; see the module's docstring.
    ``partitions``: the spill's (tests make it small)."""

    def __init__(self, *, base_mode: bool = False, memory_limit: int = DEFAULT_MEMORY_LIMIT,
                 partitions: Optional[int] = None) -> None:
        self.base_mode = base_mode
        self.memory_limit = memory_limit
        self._index = _Index()
        self._segments: list[_Segment] = []
        self._used = 0
        self._partitions = partitions or PARTITIONS
        self._over: Optional[Spill] = None  # the URLs first seen past the budget
        self._priorities: list[Optional[float]] = [None]
        self._priority_ix: dict[float, int] = {}
        self._sources: list[Optional[str]] = [None]  # (for the spilled rows' states)
        self._source_ix: dict[Optional[str], int] = {None: 0}
        self._ext: dict[str, ExtensionMerger] = {}
        self.copies = 0

    def add(self, batch: Batch, is_base: bool = False) -> None:
        """Fold a batch of copies in (``is_base``: from the output's previous version)."""
        locs = batch.locs
        if self._over is not None:
            self._add_past_budget(batch, is_base)
            return
        fresh = dict.fromkeys(locs)
        if len(fresh) == len(locs):
            if self._index.isdisjoint(fresh):  # all new (the usual case): in C
                if self._take(batch, fresh, range(len(locs)), is_base):
                    return
            seen = self._index.seen(locs)
            copies = list(compress(range(len(locs)), seen))
            new = list(filterfalse(seen.__getitem__, range(len(locs))))
            part = _rows(batch, new)
            if self._take(part, dict.fromkeys(part.locs), new, is_base, batch):
                self._fold_copies(batch, copies, is_base)
                return
        self._add_rows(batch, is_base)

    def _take(self, part: Batch, fresh: dict[str, None], rows: Sequence[int], is_base: bool,
              whole: Optional[Batch] = None) -> bool:
        """Keep the new URLs ``fresh`` (the batch ``part``, rows ``rows`` of ``whole``) if they
        fit the budget; False, changing nothing, if they do not."""
        cost = _row_cost(part) * len(fresh) + sum(map(len, fresh))
        if self._used + cost > self.memory_limit:
            return False
        self._used += cost
        self._index.add(fresh)
        if fresh:
            self._segments.append(_Segment(part, is_base))
        if part.extensions is not None and whole is None:
            self._add_extensions(part, rows)
        return True

    def _add_rows(self, batch: Batch, is_base: bool) -> None:
        # Row by row (a URL twice in the batch, or the budget reached): which rows are new
        # (kept here, or past the budget), which are copies.
        index = self._index
        per_row = _row_cost(batch)
        new: list[int] = []
        copies: list[int] = []
        over: list[int] = []
        for i, loc in enumerate(batch.locs):
            if loc in index:
                copies.append(i)
            elif self._over is not None:
                over.append(i)
            else:
                index.add({loc: None})
                new.append(i)
                self._used += per_row + len(loc)
                if self._used > self.memory_limit:
                    self._over = Spill(fold, newer, self._partitions, self.memory_limit)
        if new:
            self._segments.append(_Segment(_rows(batch, new), is_base))
        if copies:
            self._fold_copies(batch, copies, is_base, extensions=False)
        if batch.extensions is not None:
            self._add_extensions(batch, range(len(batch.locs)))  # (over ones too)
        if over:
            assert self._over is not None
            self._spill(batch, over, is_base)

    def _add_past_budget(self, batch: Batch, is_base: bool) -> None:
        """Past the budget: copies of URLs kept here fold in here, the other rows spill."""
        n = len(batch.locs)
        seen = self._index.seen(batch.locs)
        copies = list(compress(range(n), seen))
        if copies:
            self._fold_copies(batch, copies, is_base, extensions=False)
        if batch.extensions is not None:
            self._add_extensions(batch, range(n))
        if len(copies) < n:
            self._spill(batch, list(filterfalse(seen.__getitem__, range(n))), is_base)

    def _spill(self, batch: Batch, rows: list[int], is_base: bool) -> None:
        texts = batch.lastmod_texts
        assert self._over is not None
        self._over.add(_take_all(batch.locs, rows), self._row_states(batch, rows, is_base),
                       None if texts is None else _take_all(texts, rows))

    def _row_states(self, batch: Batch, rows: list[int], is_base: bool) -> list[int]:
        """The whole packed states of some rows: _states's, with kind, source and line."""
        fixed = batch.is_sitemap << _SITEMAP
        sources = batch.sources
        if sources is None:
            fixed |= self._source(batch.source) << _SOURCE
        lines = batch.lines
        states = self._states(batch, rows, is_base, many=False)
        for k, i in enumerate(rows):
            line = None if lines is None else lines[i]
            states[k] |= (fixed | (0 if line is None else (line + 1) << _LINE)
                          | (0 if sources is None else self._source(sources[i]) << _SOURCE))
        return states

    def _source(self, source: Optional[str]) -> int:
        ix = self._source_ix.get(source)
        if ix is None:
            ix = self._source_ix[source] = len(self._sources)
            self._sources.append(source)
        return ix

    def _fold_copies(self, batch: Batch, rows: list[int], is_base: bool,
                     extensions: bool = True) -> None:
        """Fold copies of URLs kept here (``extensions``: their extensions too; every row of
        the batch not in ``rows`` being a new URL, whose own went in first)."""
        self.copies += len(rows)
        if extensions and batch.extensions is not None:
            self._add_extensions(batch, range(len(batch.locs)))
        if not self.base_mode and _no_fields(batch):
            # A copy with no lastmod, changefreq or priority changes no entry (it is never
            # the newest and has no field to give), and without a base it cannot make a URL
            # added or updated: folding it in would leave every entry as it is.
            return
        locs = _take_all(batch.locs, rows)
        states = self._states(batch, rows, is_base)
        for shard, at in self._index.holding(locs):
            keys, sts = _take_all(locs, at), _take_all(states, at)
            olds = list(map(shard.__getitem__, keys))
            if not any(olds) and len(set(keys)) == len(keys):  # first later copies: in C
                shard.update(zip(keys, sts, strict=True))
                continue
            for key, state in zip(keys, sts, strict=True):
                old = shard[key]  # (the batch may hold the URL twice)
                shard[key] = state if old is None or old is state else fold(old, state)

    def _states(self, batch: Batch, rows: list[int], is_base: bool,
                many: bool = True) -> list[int]:
        """The packed states (mergepack.py's layout) of some rows, less kind, source and line
        (a fold takes those from its first copy, which is never one of these); ``many``: marked
        as later copies."""
        with_base = is_base or not self.base_mode
        one = _ONE if many else 0
        lms, cfs, prs = batch.lastmods, batch.changefreqs, batch.priorities
        if lms is None and cfs is None and prs is None:
            plain = one | (1 << _HAS_BASE if with_base else 0)
            return [plain] * len(rows)  # one object: a later fold of it is itself
        out = []
        base = 1 << _HAS_BASE if with_base else 0
        for i in rows:
            lm = 0 if lms is None else _pack_lastmod(lms[i])
            cf = 0 if cfs is None else self._cf(cfs[i])
            pr = 0 if prs is None else self._priority(prs[i])
            state = one | lm | cf << _CFN | cf << _CFF | pr << _PRN | pr << _PRF
            # (base_bits, inline: this runs once per copy)
            out.append(state | lm << _BASE_LM | cf << _BASE_CF | pr << _BASE_PR | base
                       if base else state)
        return out

    @staticmethod
    def _cf(value: Optional[str]) -> int:
        return 0 if value is None else _CF_INDEX[value]

    def _priority(self, value: Optional[float]) -> int:
        if value is None:
            return 0
        return self._priority_ix.get(value, 0) or self._new_priority(value)

    def _new_priority(self, value: float) -> int:
        ix = self._priority_ix[value] = len(self._priorities)
        self._priorities.append(value)
        return ix

    def _add_extensions(self, batch: Batch, rows: Sequence[int]) -> None:
        from .extensions.merging import ExtensionMerger  # (only a run with extensions)

        exts, lms = batch.extensions or (), batch.lastmods
        for i in rows:
            if exts[i]:
                loc = batch.locs[i]
                merger = self._ext.get(loc)
                if merger is None:
                    merger = self._ext[loc] = ExtensionMerger()
                merger.add(exts[i], None if lms is None else lms[i])

    def batches(self, counts: Optional[MergeCounts] = None) -> Iterator[Batch]:
        """Yield the merged entries in first-seen order (once), filling ``counts``."""
        counts = counts if counts is not None else MergeCounts()
        try:
            counts.copies += self.copies
            yield from self._emit(counts)
            self._index, self._segments = _Index(), []
            if self._over is not None:
                yield from self._spilled(self._over, counts)
        finally:
            self.close()

    def _emit(self, counts: MergeCounts) -> Iterator[Batch]:
        folds = self._index.values()  # (the k-th URL of the dict is the k-th row)
        for seg in self._segments:
            n = len(seg.locs)
            later = list(islice(folds, n))
            batch = Batch._trusted(
                seg.locs, seg.source, None if seg.lines is None else list(seg.lines),
                seg.lastmods, seg.changefreqs, seg.priorities, seg.kind, seg.sources,
                seg.clean, self._extensions(seg.locs))
            batch.lastmod_texts = seg.texts
            counts.urls += n
            if counts.on_change is None and self._unchanged(seg, later):
                counts.added += 0 if self.base_mode and seg.base else n
            else:
                self._merged_rows(batch, seg, later, counts)
            yield batch

    def _unchanged(self, seg: _Segment, later: list[Optional[int]]) -> bool:
        """Whether no row of the segment changed (no copy, or plain copies of plain rows in
        a merge without a base, which change nothing and make no URL added or updated)."""
        return not any(later) or (not self.base_mode and seg.plain and set(later) <= {
            None, _ONE | 1 << _HAS_BASE})

    def _merged_rows(self, batch: Batch, seg: _Segment, later: list[Optional[int]],
                     counts: MergeCounts) -> None:
        """Row by row, in order: each row's first copy folded with its later ones, its columns
        set from the result, added and updated counted (and told, in that order)."""
        n = len(seg.locs)
        lms: list[Optional[Lastmod]] = [None] * n if seg.lastmods is None else [*seg.lastmods]
        cfs: list[Optional[str]] = [None] * n if seg.changefreqs is None else [*seg.changefreqs]
        prs: list[Optional[float]] = [None] * n if seg.priorities is None else [*seg.priorities]
        texts: list[Optional[str]] = [None] * n if seg.texts is None else [*seg.texts]
        first_base = seg.base or not self.base_mode
        on_change = counts.on_change if self.base_mode else None
        for i, rest in enumerate(later):
            if rest is None:
                has_base = first_base
                changed = False
            else:
                lm0, cf0, pr0 = _pack_lastmod(lms[i]), self._cf(cfs[i]), self._priority(prs[i])
                first = (lm0 | cf0 << _CFN | cf0 << _CFF | pr0 << _PRN | pr0 << _PRF
                         | (base_bits(lm0, cf0, pr0) if first_base else 0))
                state = fold(first, rest)
                lm = state & _LM_MASK
                cf = (state >> _CFN) & _CF_MASK or (state >> _CFF) & _CF_MASK
                pr = (state >> _PRN) & _IX_MASK or (state >> _PRF) & _IX_MASK
                has_base = bool(state >> _HAS_BASE & 1)
                changed = has_base and base_bits(lm, cf, pr) != state & _BASE
                if lm != lm0:
                    lms[i], texts[i] = _lastmod_value(lm), None
                cfs[i] = CHANGEFREQS[cf - 1] if cf else None
                prs[i] = self._priorities[pr]
            if not (self.base_mode and has_base):
                counts.added += 1
                if on_change is not None:
                    on_change(batch.locs[i])
            if changed:
                counts.updated += 1
                if on_change is not None:
                    on_change(batch.locs[i])
        batch.lastmods = lms if any(v is not None for v in lms) else None
        batch.lastmod_texts = texts if batch.lastmods is not None and seg.texts else None
        batch.changefreqs = cfs if any(v is not None for v in cfs) else None
        batch.priorities = prs if any(v is not None for v in prs) else None

    def _extensions(self, locs: Sequence[str]) -> Optional[list[Extensions]]:
        if not self._ext:
            return None
        found = [self._ext.get(loc) for loc in locs]
        if not any(found):
            return None
        return [EMPTY if m is None else m.value() for m in found]

    def _spilled(self, spill: Spill, counts: MergeCounts) -> Iterator[Batch]:
        before = counts.urls
        yield from unpacked(spill.merged(), counts, self.base_mode, self._priorities,
                            self._sources, self._ext)
        counts.spilled = counts.urls - before
        counts.copies += spill.rows - counts.spilled  # rows that found their URL there

    def close(self) -> None:
        if self._over is not None:
            self._over.close()


def _row_cost(batch: Batch) -> int:
    """What a new URL of the batch costs here besides its characters: MEMORY_PER_URL, and
    what its segment's columns hold for it (a lastmod object and its list slot, a lastmod
    text, a list slot for changefreq and for priority: readers parse a repeated value once,
    and the few values of those two are shared). merge_memory.py --fields measured 258 bytes
    per 62-character URL with a distinct lastmod each."""
    return (MEMORY_PER_URL + (56 if batch.lastmods is not None else 0)
            + (80 if batch.lastmod_texts is not None else 0)
            + (8 if batch.changefreqs is not None else 0)
            + (8 if batch.priorities is not None else 0))


def _no_fields(batch: Batch) -> bool:
    return batch.lastmods is None and batch.changefreqs is None and batch.priorities is None


def _take_all(items: Sequence[_T], rows: Sequence[int]) -> Sequence[_T]:
    """``items`` at ``rows``."""
    if len(rows) == len(items):
        return items
    return [items[i] for i in rows]


def _rows(batch: Batch, keep: list[int]) -> Batch:
    """The batch's rows ``keep`` (ascending) alone."""
    if len(keep) == len(batch.locs):
        return batch
    gone = set(range(len(batch.locs))).difference(keep)
    return batch.without(sorted(gone))

