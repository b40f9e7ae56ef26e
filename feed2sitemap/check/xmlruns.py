"""The plain entries of one run of the fast path (xmlfast.py), judged a column at a time.

Each column (locs, lastmods, changefreqs, priorities) is proven fine as a whole where it can be:
the locs by urls.py's proof and one update of the run's URLs (locs.check_plain_locs), the
lastmods by one regex over them and a verdict per distinct day, the changefreqs and priorities by
their distinct values. A column that is not proven is judged entry by entry with the judges the
handlers use, at the positions the handlers would give; the diagnostics of each rule come in
the order of the entries, as from the handlers (so the cap of 50 a rule keeps the same ones).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from operator import itemgetter, methodcaller
from typing import TYPE_CHECKING, cast

from ..rules import CHANGEFREQ_SET
from .fields import (
    judge_changefreq,
    judge_plain_lastmod,
    judge_priority,
    plain_lastmods_fine,
    priority_fine,
)
from .locs import check_plain_locs

if TYPE_CHECKING:
    from .diagnostics import FileCheck

__all__ = ["at", "judge_run"]

_GROUPS = methodcaller("groups")
_LOC, _LASTMOD, _CHANGEFREQ, _PRIORITY = (itemgetter(i) for i in range(1, 5))
_LINE = itemgetter(0)
# group of the value, length of its start tag
_COLUMNS = {"loc": (2, 5), "lastmod": (3, 9), "changefreq": (4, 12), "priority": (5, 10)}


def at(text: str, e: int, line: int, col: int, offset: int) -> tuple[int, int]:
    """The position of ``offset`` in an entry that begins at ``e``, at ``line``, ``col``."""
    nl = text.count("\n", e, offset)
    if not nl:
        return line, col + offset - e
    return line + nl, offset - text.rfind("\n", e, offset)


def judge_run(f: FileCheck, text: str, ms: list[re.Match[str]], urls: list[tuple[int, int]],
              multi: bool) -> None:
    """Judge the entries ``ms`` (xmlfast._ENTRY's matches in ``text``: group 1 the entry,
    2 to 5 the values) at ``urls``; ``multi``: some lie over several lines."""
    groups = list(map(_GROUPS, ms))
    if text.find("&", ms[0].start(1), ms[-1].end(1)) >= 0:  # "&amp;" in some (xmlfast)
        groups = [g if "&" not in g[0] else tuple(v and v.replace("&amp;", "&") for v in g)
                  for g in groups]

    def place(name: str) -> Callable[[int], tuple[int, int]]:
        group, tag = _COLUMNS[name]
        return lambda i: at(text, ms[i].start(1), *urls[i], ms[i].start(group) - tag)

    _lastmods(f, list(map(_LASTMOD, groups)), place("lastmod"))
    _changefreqs(f, list(map(_CHANGEFREQ, groups)), place("changefreq"))
    _priorities(f, list(map(_PRIORITY, groups)), place("priority"))
    locs = list(map(_LOC, groups))
    loc_at = place("loc")
    lines = [loc_at(i)[0] for i in range(len(ms))] if multi else list(map(_LINE, urls))
    check_plain_locs(f, locs, lines, lambda: [loc_at(i) for i in range(len(ms))])


def _lastmods(f: FileCheck, values: list[str | None],
              place: Callable[[int], tuple[int, int]]) -> None:
    present = [v for v in values if v is not None] if None in values else \
        cast("list[str]", values)
    if not present or plain_lastmods_fine(f, present):
        return
    for i, v in enumerate(values):
        if v is not None:
            judge_plain_lastmod(f, v, *place(i))


def _changefreqs(f: FileCheck, values: list[str | None],
                 place: Callable[[int], tuple[int, int]]) -> None:
    distinct = set(values)
    distinct.discard(None)
    if distinct <= CHANGEFREQ_SET:
        return
    for i, v in enumerate(values):
        if v is not None and v not in CHANGEFREQ_SET:
            judge_changefreq(f, v, *place(i), stripped=False)


def _priorities(f: FileCheck, values: list[str | None],
                place: Callable[[int], tuple[int, int]]) -> None:
    distinct = set(values)
    distinct.discard(None)
    if all(priority_fine(f, v) for v in distinct if v is not None):
        return
    for i, v in enumerate(values):
        if v is not None:
            judge_priority(f, v, *place(i))
