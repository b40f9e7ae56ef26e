"""What a run takes out of the earlier output, and the guard against taking out too much.

In an update in place (the output is also an input, its rows the *base*), a URL of the earlier
output leaves it for one of these reasons:

- a rule the user gave: ``--exclude``/``--include`` globs, a ``--remove`` list (``filtered``);
- ``--prune``: no input other than the output itself lists it (``prune``);
- a step of the data path no longer takes it: out of the scope of a new ``--base-url``, no
  longer a valid URL (counted as the rows of the base that did not reach the merge).

``Removals`` counts them; before the first merged batch goes out, ``guard`` compares the total
with ``--max-removals`` of the earlier output's URLs and raises RemovalsRefused when it is more:
nothing has been written then, and the run changes nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import Optional

from ..errors import RemovalsRefused
from ..model.batch import Batch
from ..model.filters import MAX_REMOVALS, Filters, Threshold
from ..model.report import Report

__all__ = ["NAMED", "Pruner", "Removals", "RemovalsRefused", "base_rows", "counted",
           "filter_urls", "guard", "guarded"]

NAMED = 1000  # removed URLs kept by name (for -v and the library); the rest are counted


@dataclass
class Removals:
    """The earlier output's URLs this run takes out: ``earlier`` rows read from it, ``reached``
    of them reached the merge; ``reasons`` counts those taken out by a rule or by ``--prune``,
    ``names`` the first NAMED of them; ``on_removed`` is called with each (IndexNow)."""

    earlier: int = 0
    reached: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    names: list[str] = field(default_factory=list)
    on_removed: Optional[Callable[[str], None]] = field(default=None, repr=False)

    def note(self, url: str, reason: str, counted: bool = False) -> None:
        if not counted:
            self.reasons[reason] += 1
        if len(self.names) < NAMED:
            self.names.append(url)
        if self.on_removed is not None:
            self.on_removed(url)

    @property
    def dropped_on_the_way(self) -> int:
        """Rows of the earlier output that a step left out before the merge for a reason other
        than a rule (a new scope, an invalid URL): counted, not named."""
        filtered = sum(n for reason, n in self.reasons.items() if reason != "--prune")
        return max(0, self.earlier - self.reached - filtered)

    @property
    def total(self) -> int:
        return sum(self.reasons.values()) + self.dropped_on_the_way


def base_rows(batch: Batch, base: Container[Optional[str]]) -> list[bool]:
    """Which rows of ``batch`` come from the earlier output."""
    if batch.sources is None:
        return [batch.source in base] * len(batch.locs)
    return [s in base for s in batch.sources]


def counted(batches: Iterable[Batch], base: Container[Optional[str]], removals: Removals,
            reached: bool = False) -> Iterator[Batch]:
    """Count the earlier output's rows going by: as read (``earlier``), or as they reach the
    merge (``reached``)."""
    for batch in batches:
        n = sum(base_rows(batch, base))
        if reached:
            removals.reached += n
        else:
            removals.earlier += n
        yield batch


def filter_urls(batches: Iterable[Batch], filters: Filters, report: Optional[Report] = None,
                base: Container[Optional[str]] = (),
                removals: Optional[Removals] = None) -> Iterator[Batch]:
    """Leave out the URLs the user's rules leave out (model/filters.py), each counted in the
    report as "excluded" (not a problem: never an error, even with ``strict``); a row of the
    earlier output (``base``) is also a removal, noted in ``removals``."""
    report = report if report is not None else Report()
    why = filters.why_left_out
    for batch in batches:
        reasons = list(map(why, batch.locs))
        drop = [i for i, reason in enumerate(reasons) if reason is not None]
        if not drop:
            yield batch
            continue
        from_base = base_rows(batch, base)
        for i in drop:
            reason = reasons[i] or ""
            report.excluded[reason] += 1
            if removals is not None and from_base[i]:
                removals.note(batch.locs[i], reason)
        rest = batch.without(drop)
        if rest.locs:
            yield rest


class Pruner:
    """``--prune``: the hashes of the URLs the earlier output holds and of those the other
    inputs list (about 120 bytes per URL in all); a URL of the first set missing from the
    second goes."""

    def __init__(self) -> None:
        self.earlier: set[int] = set()
        self.listed: set[int] = set()

    def watch(self, batches: Iterable[Batch], base: Container[Optional[str]]
              ) -> Iterator[Batch]:
        for batch in batches:
            keys = list(map(hash, batch.locs))
            flags = base_rows(batch, base)
            if all(flags):
                self.earlier.update(keys)
            elif not any(flags):
                self.listed.update(keys)
            else:
                for key, flag in zip(keys, flags, strict=True):
                    (self.earlier if flag else self.listed).add(key)
            yield batch

    def count(self) -> int:
        return len(self.earlier - self.listed)

    def apply(self, batch: Batch, removals: Removals) -> Batch:
        keys = list(map(hash, batch.locs))
        if self.listed.issuperset(keys):
            return batch
        drop = [i for i, key in enumerate(keys) if key not in self.listed]
        for i in drop:
            removals.note(batch.locs[i], "--prune", counted=True)
        return batch.without(drop)


def guarded(merged: Iterable[Batch], removals: Removals, allowed: Threshold = MAX_REMOVALS,
            output: str = "the output", pruner: Optional[Pruner] = None) -> Iterator[Batch]:
    """The merged batches, once ``guard`` has let the run go on (checked when the first one
    is asked for: the merge has read every input by then, and nothing is written yet); with
    ``pruner``, without the URLs no input lists."""
    batches = iter(merged)
    first = next(batches, None)  # (the merge reads every input before its first batch)
    if pruner is not None:
        removals.reasons["--prune"] = pruner.count()
    guard(removals, allowed, output)
    for batch in chain([first], batches) if first is not None else ():
        if pruner is not None:
            batch = pruner.apply(batch, removals)
        if batch.locs:
            yield batch


def guard(removals: Removals, allowed: Threshold = MAX_REMOVALS,
          output: str = "the output") -> None:
    """RemovalsRefused when the run takes more of the earlier output out than ``allowed``."""
    total = removals.total
    limit = allowed.allowed(removals.earlier)
    if total <= limit:
        return
    share = f" ({100 * total / removals.earlier:.0f}%)" if removals.earlier else ""
    why = [f"{n:,} {reason}" for reason, n in removals.reasons.most_common()
           if reason != "--prune"]
    if removals.reasons["--prune"]:
        why.append(f"{removals.reasons['--prune']:,} listed by no input (--prune)")
    if removals.dropped_on_the_way:
        why.append(f"{removals.dropped_on_the_way:,} now off the scope of `base_url`, or "
                   "no longer valid URLs")
    need = -(-100 * total // removals.earlier) if removals.earlier else total
    raise RemovalsRefused(
        f"refusing to remove {total:,} of the {removals.earlier:,} URLs of {output}{share}: "
        f"{'; '.join(why)}. `max_removals` {allowed} allows {limit:,}. Nothing was changed; "
        f"if this is meant, allow it with `max_removals` {need}% (or {total})")
