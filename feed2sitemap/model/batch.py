"""Batches: the records of a stretch of input, column by column, as the pipeline moves them
(per-URL Python work in C loops: a million-URL list in 1.3 s instead of 2.7 s)."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Optional

from ..errors import OptionError
from .extensions import Extensions
from .record import Lastmod, Record, make_record, shown_value, value_problem
from .urls import CleanLocs

BATCH = 2048  # records per batch: large enough to amortise, small enough to stay in cache


class Batch:
    """Up to BATCH records of one kind (pages, or sitemaps of an index), column by column.

    A column is None when no row has a value (``sources`` when all rows come from ``source``).
    ``clean``, when it covers ``locs``, is urls.py's proof that they are normalised URIs
    starting with its ``prefix``. Set after construction: ``site``, the site the input speaks
    for, and ``lastmod_texts``, per row the text format_lastmod would write, or None.
    ``Batch(...)`` checks what it is given; readers and steps, which check values as they
    parse them, use ``Batch._trusted``."""

    __slots__ = ("changefreqs", "clean", "extensions", "is_sitemap", "lastmod_texts",
                 "lastmods", "lines", "locs", "priorities", "site", "source", "sources")

    def __init__(self, locs: Sequence[str], source: Optional[str] = None,
                 lines: Optional[Sequence[Optional[int]]] = None,
                 lastmods: Optional[list[Optional[Lastmod]]] = None,
                 changefreqs: Optional[list[Optional[str]]] = None,
                 priorities: Optional[list[Optional[float]]] = None,
                 is_sitemap: bool = False,
                 sources: Optional[list[Optional[str]]] = None,
                 clean: Optional[CleanLocs] = None,
                 extensions: Optional[list[Extensions]] = None, *, _check: bool = True) -> None:
        self.locs = locs
        self.source = source
        self.lines = lines
        self.lastmods = lastmods
        self.changefreqs = changefreqs
        self.priorities = priorities
        self.is_sitemap = is_sitemap
        self.sources = sources
        self.clean = clean
        self.extensions = extensions
        self.site: Optional[str] = None
        self.lastmod_texts: Optional[list[Optional[str]]] = None
        if _check:
            check_shape(self)
            for i, name, why in bad_values(self):
                raise OptionError(f"row {i}: {why}", name)

    @classmethod
    def _trusted(cls, *columns: Any, **named: Any) -> Batch:
        """A batch of values already checked, not looked at again."""
        return cls(*columns, **named, _check=False)

    def __len__(self) -> int:
        return len(self.locs)

    @property
    def proof(self) -> Optional[CleanLocs]:
        """``clean`` when it covers these very locations, else None."""
        return self.clean if self.clean is not None and self.clean.covers(self.locs) else None

    @property
    def proven(self) -> bool:
        return self.proof is not None

    @property
    def prefix(self) -> str:
        """What every location is proven to start with ("" when nothing is proven)."""
        return "" if self.proof is None else self.proof.prefix

    @property
    def longest(self) -> Optional[int]:
        """The most characters a location is proven to have (None when not known)."""
        return None if self.proof is None else self.proof.longest

    @property
    def plain(self) -> bool:
        """Only locations: no lastmod, changefreq, priority or extension in any row."""
        return (self.lastmods is None and self.changefreqs is None and self.priorities is None
                and self.extensions is None)

    def where(self, i: int) -> tuple[Optional[str], Optional[int]]:
        """Row i's source and line, for messages."""
        return (self.source if self.sources is None else self.sources[i],
                None if self.lines is None else self.lines[i])

    def record(self, i: int) -> Record:
        source, line = self.where(i)
        return make_record(
            self.locs[i],
            None if self.lastmods is None else self.lastmods[i],
            None if self.changefreqs is None else self.changefreqs[i],
            None if self.priorities is None else self.priorities[i],
            self.is_sitemap, source, line,
            None if self.extensions is None else self.extensions[i])

    def records(self) -> Iterator[Record]:
        return map(self.record, range(len(self.locs)))

    def replaced(self, **columns: Any) -> Batch:
        """A copy with the attributes given replaced (a misspelt name is an AttributeError)."""
        batch = copy.copy(self)
        for name, value in columns.items():
            setattr(batch, name, value)
        return batch

    def without(self, drop: Sequence[int]) -> Batch:
        """The batch less the rows whose indexes are in ``drop`` (ascending)."""
        if not drop:
            return self
        gone = set(drop)
        keep = [i for i in range(len(self.locs)) if i not in gone]

        def take(col: Optional[Sequence]) -> Optional[list]:  # type: ignore[type-arg]
            return None if col is None else [col[i] for i in keep]

        proof = self.proof
        clean = None if proof is None else proof.subset(keep)
        return self.replaced(
            locs=take(self.locs) if clean is None else clean.locs, clean=clean,
            lines=take(self.lines), lastmods=take(self.lastmods),
            changefreqs=take(self.changefreqs), priorities=take(self.priorities),
            sources=take(self.sources), extensions=take(self.extensions),
            lastmod_texts=take(self.lastmod_texts))

    @classmethod
    def of_records(cls, records: Sequence[Record]) -> Batch:
        """A batch of records of one kind (each checked when it was made)."""

        def column(values: list[Any]) -> Optional[list[Any]]:
            return values if any(v is not None for v in values) else None

        first = records[0]
        sources = [r.source for r in records]
        extensions = [r.extensions for r in records]
        return cls._trusted([r.loc for r in records], first.source,
                            column([r.line for r in records]),
                            column([r.lastmod for r in records]),
                            column([r.changefreq for r in records]),
                            column([r.priority for r in records]), first.is_sitemap,
                            None if all(s == first.source for s in sources) else sources, None,
                            extensions if any(extensions) else None)


def batched(records: Iterable[Record], size: int = BATCH) -> Iterator[Batch]:
    """Group records into batches; a change of kind (page/sitemap) starts a new batch."""
    it = iter(records)
    while chunk := list(islice(it, size)):
        # (in C for the usual list; a Record, a subclass's too, is checked when made)
        if not set(map(type, chunk)) <= {Record} and not all(
                isinstance(r, Record) for r in chunk):
            bad = next(r for r in chunk if not isinstance(r, Record))
            raise OptionError(f"must be Record values, not {type(bad).__name__}", "records")
        start = 0
        for i in range(1, len(chunk)):
            if chunk[i].is_sitemap != chunk[start].is_sitemap:
                yield Batch.of_records(chunk[start:i])
                start = i
        yield Batch.of_records(chunk[start:])


def unbatched(batches: Iterable[Batch]) -> Iterator[Record]:
    for batch in batches:
        yield from batch.records()


_COLUMNS = ("lines", "lastmods", "changefreqs", "priorities", "sources", "extensions",
            "lastmod_texts")
_VALUES = (("lastmods", "lastmod"), ("changefreqs", "changefreq"),
           ("priorities", "priority"), ("extensions", "extensions"))


def check_shape(batch: Batch) -> None:
    """OptionError unless ``batch`` is a Batch whose columns are None or one value a row."""
    if not isinstance(batch, Batch):
        raise OptionError(f"must be Batch values, not {type(batch).__name__}", "batches")
    if not isinstance(batch.locs, (list, tuple)):
        raise OptionError(f"must be a list of URLs, not {type(batch.locs).__name__}", "locs")
    n = len(batch.locs)
    for name in _COLUMNS:
        col = getattr(batch, name)
        if col is not None and (not isinstance(col, (list, tuple, range)) or len(col) != n):
            raise OptionError(f"must be None or a list of {n} values, one per location", name)
    if not isinstance(batch.is_sitemap, bool):
        raise OptionError(f"must be a bool, not {batch.is_sitemap!r}", "is_sitemap")
    if batch.clean is not None and not isinstance(batch.clean, CleanLocs):
        raise OptionError("only urls.py makes a proof (None or a CleanLocs)", "clean")


def bad_values(batch: Batch) -> Iterator[tuple[int, str, str]]:
    """(row, field, why) for each value a Record would refuse (the shape checked first); a
    loc need only be a str: normalize judges it."""
    for i, loc in enumerate(batch.locs):
        if not isinstance(loc, str):
            yield i, "loc", f"must be a str (an absolute http(s) URL), not {shown_value(loc)}"
    for column, name in _VALUES:
        for i, value in enumerate(getattr(batch, column) or ()):
            if value is not None:
                why = value_problem(name, value)
                if why is not None:
                    yield i, name, why
