"""The packed state of a URL's copies (one Python int) and its fold: what the merge store
(mergecols.py) keeps for a URL once a later copy of it is seen, and for every row it spills to
disk (spill.py); and the batches made back from packed states.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import date, datetime, timedelta, timezone
from typing import TYPE_CHECKING, Optional

from .batch import BATCH as BATCH_ROWS
from .batch import Batch
from .extensions.value import EMPTY, Extensions
from .merge import MergeCounts
from .record import CHANGEFREQS, Lastmod

if TYPE_CHECKING:
    from .extensions.merging import ExtensionMerger

# The packed state of one URL: bit fields, low to high. Lastmods are microseconds since the
# day before 0001-01-01 UTC (so any offset keeps them positive), plus one, shifted left once, the
# low bit set for a date; 0 is "none". Changefreq is its index in CHANGEFREQS plus one; priority
# and source are indexes (plus one) into per-store tables of the distinct values seen.
_LM_W, _CF_W, _IX_W = 61, 3, 32
_LM_MASK, _CF_MASK, _IX_MASK = (1 << _LM_W) - 1, (1 << _CF_W) - 1, (1 << _IX_W) - 1
_CFN = _LM_W                      # changefreq of the newest copy
_CFF = _CFN + _CF_W               # first changefreq given
_PRN = _CFF + _CF_W               # priority of the newest copy
_PRF = _PRN + _IX_W               # first priority given
_SITEMAP = _PRF + _IX_W           # the first copy is a sitemap (from an index)
_MANY = _SITEMAP + 1              # more than one copy was seen
_HAS_BASE = _MANY + 1             # a copy from the base (the output's previous version) was seen
_BASE_LM = _HAS_BASE + 1          # that copy's lastmod, changefreq and priority
_BASE_CF = _BASE_LM + _LM_W
_BASE_PR = _BASE_CF + _CF_W
_SOURCE = _BASE_PR + _IX_W        # the first copy's source and line, for messages
_LINE = _SOURCE + _IX_W           # last: it may be as wide as it needs

_NEWEST = (_LM_MASK | _CF_MASK << _CFN | _IX_MASK << _PRN)
_FIRST = (_CF_MASK << _CFF | _IX_MASK << _PRF)
_BASE = (1 << _HAS_BASE | _LM_MASK << _BASE_LM | _CF_MASK << _BASE_CF | _IX_MASK << _BASE_PR)
_UTC_MIN = datetime(1, 1, 1, tzinfo=timezone.utc)
_DAY_US = 86_400_000_000
_CF_INDEX = {name: i for i, name in enumerate(CHANGEFREQS, 1)}


def _pack_lastmod(lastmod: Lastmod | None) -> int:
    if lastmod is None:
        return 0
    if isinstance(lastmod, datetime):
        d = lastmod - _UTC_MIN
        return ((d.days * 86_400 + d.seconds) * 1_000_000 + d.microseconds + _DAY_US + 1) << 1
    return ((lastmod.toordinal() * _DAY_US + 1) << 1) | 1


def _lastmod_value(bits: int) -> Lastmod | None:
    if not bits:
        return None
    us = (bits >> 1) - 1
    if bits & 1:
        return date.fromordinal(us // _DAY_US)
    return _UTC_MIN + timedelta(microseconds=us - _DAY_US)


def newer(a: int, b: int) -> bool:
    """Whether the later state B's lastmod is newer than A's (a tie is not)."""
    return ((b & _LM_MASK) >> 1) > ((a & _LM_MASK) >> 1)


def fold(a: int, b: int) -> int:
    """The state of copies A then B, from the states of A and of the later B."""
    state = (b if newer(a, b) else a) & _NEWEST
    first_a = a & _FIRST
    if (a >> _CFF) & _CF_MASK:
        state |= first_a & (_CF_MASK << _CFF)
    else:
        state |= b & (_CF_MASK << _CFF)
    if (a >> _PRF) & _IX_MASK:
        state |= first_a & (_IX_MASK << _PRF)
    else:
        state |= b & (_IX_MASK << _PRF)
    state |= (a if (a >> _HAS_BASE) & 1 else b) & _BASE
    # position-related fields (kind, source, line) are the first copy's
    return state | (a >> _SITEMAP & 1) << _SITEMAP | 1 << _MANY | (a >> _SOURCE) << _SOURCE


def base_bits(lm: int, cf: int, pr: int) -> int:
    """The bits saying that a copy from the base had this packed lastmod, changefreq and
    priority."""
    return 1 << _HAS_BASE | lm << _BASE_LM | cf << _BASE_CF | pr << _BASE_PR


def unpacked(items: Iterable[tuple[str, int, Optional[str]]], counts: MergeCounts,
             base_mode: bool,
             priorities: list[Optional[float]], sources: list[Optional[str]],
             extensions: dict[str, ExtensionMerger]) -> Iterator[Batch]:
    """The batches of entries (URL, state, lastmod text or None): the state unpacked into the
    columns of the batch being made, inline, one pass per URL; ``counts`` filled (and told) as
    ColumnStore does."""
    cols = _Columns(extensions)
    on_change = counts.on_change if base_mode else None
    urls = added = updated = 0
    try:
        for loc, state, text in items:
            lm = state & _LM_MASK
            cf = (state >> _CFN) & _CF_MASK or (state >> _CFF) & _CF_MASK
            pr = (state >> _PRN) & _IX_MASK or (state >> _PRF) & _IX_MASK
            has_base = state >> _HAS_BASE & 1
            if not (base_mode and has_base):
                added += 1
                if on_change is not None:
                    on_change(loc)
            # a single copy is its own base: only a URL of several copies can have changed
            if has_base and state >> _MANY & 1 and (
                    lm != (state >> _BASE_LM) & _LM_MASK
                    or cf != (state >> _BASE_CF) & _CF_MASK
                    or pr != (state >> _BASE_PR) & _IX_MASK):
                updated += 1
                if on_change is not None:
                    on_change(loc)
            urls += 1
            kind = state >> _SITEMAP & 1
            if kind != cols.kind or len(cols.locs) >= BATCH_ROWS:
                done = cols.take(kind)
                if done is not None:
                    yield done
            value = cols.lastmod_values.get(lm)
            if value is None and lm:
                value = cols.lastmod_values[lm] = _lastmod_value(lm)
            line = state >> _LINE
            cols.locs.append(loc)
            cols.lastmods.append(value)
            cols.texts.append(text)
            cols.changefreqs.append(CHANGEFREQS[cf - 1] if cf else None)
            cols.prs.append(priorities[pr])
            cols.srcs.append(sources[(state >> _SOURCE) & _IX_MASK])
            cols.lines.append(line - 1 if line else None)
        last = cols.take(None)
        if last is not None:
            yield last
    finally:
        counts.urls += urls
        counts.added += added
        counts.updated += updated


class _Columns:
    """The columns of the batch of merged entries being made (one kind per batch)."""

    def __init__(self, extensions: dict[str, ExtensionMerger]) -> None:
        self.extensions = extensions
        self.kind: int | None = None
        self._clear()

    def _clear(self) -> None:
        # packed → value, for the lastmods a batch repeats (kept a batch: it would grow with
        # the distinct lastmods of the whole merge)
        self.lastmod_values: dict[int, Lastmod | None] = {0: None}
        self.locs: list[str] = []
        self.lastmods: list[Lastmod | None] = []
        self.texts: list[str | None] = []
        self.changefreqs: list[str | None] = []
        self.prs: list[float | None] = []
        self.srcs: list[str | None] = []
        self.lines: list[int | None] = []

    def take(self, next_kind: int | None) -> Batch | None:
        """The batch made so far (None if empty); the next one holds ``next_kind``."""
        kind, self.kind = self.kind, next_kind
        if not self.locs:
            return None
        lms, cfs, prs = self.lastmods, self.changefreqs, self.prs
        batch = Batch._trusted(self.locs, self.srcs[0], self.lines,
                               lms if any(v is not None for v in lms) else None,
                               cfs if any(v is not None for v in cfs) else None,
                               prs if any(v is not None for v in prs) else None,
                               bool(kind), self.srcs, None, self._extensions())
        if batch.lastmods is not None and any(self.texts):
            batch.lastmod_texts = self.texts  # (the winners' texts: no format per row)
        self._clear()
        return batch

    def _extensions(self) -> list[Extensions] | None:
        if not self.extensions:
            return None
        found = [self.extensions.get(loc) for loc in self.locs]
        if not any(found):
            return None
        return [EMPTY if m is None else m.value() for m in found]
