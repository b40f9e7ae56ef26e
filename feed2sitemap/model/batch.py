"""Batches: the records of a stretch of input, held column by column, as the pipeline moves them.

Readers, steps and writers pass batches of up to BATCH records instead of one Record at a time.
Per URL that turns Python-level work (an object to build, a generator to resume, a method to
call) into work inside C loops: one decode and split per block of text, one regex call per URL
in a list comprehension, one join and one encode per batch of entries. On a million-URL list
that is the difference between 2.7 s and 1.3 s. Records exist at the edges, for the library's
users (``read`` yields them, ``write`` takes them) and for the steps that need whole records
(merging, following an index), which convert with ``batched`` / ``unbatched``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import Any, Optional

from ..errors import OptionError
from .extensions import Extensions
from .record import Lastmod, Record, make_record, shown_value, value_problem
from .urls import CleanLocs

__all__ = ["BATCH", "Batch", "bad_values", "batched", "check_shape", "unbatched"]

BATCH = 2048  # records per batch: large enough to amortise, small enough to stay in cache


class Batch:
    """Up to BATCH records of one kind (pages, or sitemaps of an index), column by column.

    ``lastmods``, ``changefreqs`` and ``priorities`` are None when no row has a value; ``lines``
    is None when no row has a line number. ``sources`` is None when every row comes from
    ``source``. ``clean``, when it covers ``locs`` (``proven``), is urls.py's proof that the
    locations are normalised URIs: no space, control character, ``<``, ``>`` or ``"`` in any,
    which lets a writer escape the batch in one cheap pass, and all start with its ``prefix``,
    which lets the scope check pass the batch at once. Only urls.py makes such a proof.

    ``site`` is the site the input says it speaks for (a JSON Feed's ``home_page_url``, a
    feed's channel link), or None: the scope step's default scope, when no --base-url gives one.
    Readers set it after building the batch; it is kept where the rows are (``with_locs``,
    ``without``).

    ``lastmod_texts``, when not None, holds per row the text ``format_lastmod`` would write for
    that row's lastmod, or None where it must be formatted: a reader that proved its input
    already in that form (rules.canonical_lastmod) saves every writer a format per row.
    Like ``site`` it is set after construction and kept by ``with_locs`` and ``without``.

    ``Batch(...)`` checks what it is given (``check_shape``, ``bad_values``); readers and
    steps, whose values are checked as they are parsed, use ``Batch._trusted``. A batch's lists
    are the caller's to change, so the public writers check them again (pipeline.check_fields).
    """

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
                 extensions: Optional[list[Extensions]] = None) -> None:
        """A checked batch: a column of another length, or a value a Record would refuse, is
        an OptionError (a ValueError) naming the column (issue 33, item 6)."""
        self._fill(locs, source, lines, lastmods, changefreqs, priorities, is_sitemap, sources,
                   clean, extensions)
        check_shape(self)
        for i, name, why in bad_values(self):
            raise OptionError(f"row {i}: {why}", name)

    @classmethod
    def _trusted(cls, *columns: Any, **named: Any) -> Batch:
        """A batch of values a reader or step has already checked (``__init__``'s arguments),
        built without looking at them again: readers build one per 2,048 URLs."""
        batch = cls.__new__(cls)
        batch._fill(*columns, **named)
        return batch

    def _fill(self, locs: Sequence[str], source: Optional[str] = None,
              lines: Optional[Sequence[Optional[int]]] = None,
              lastmods: Optional[list[Optional[Lastmod]]] = None,
              changefreqs: Optional[list[Optional[str]]] = None,
              priorities: Optional[list[Optional[float]]] = None,
              is_sitemap: bool = False,
              sources: Optional[list[Optional[str]]] = None,
              clean: Optional[CleanLocs] = None,
              extensions: Optional[list[Extensions]] = None) -> None:
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

    def __len__(self) -> int:
        return len(self.locs)

    @property
    def proof(self) -> Optional[CleanLocs]:
        """``clean`` when it covers these very locations, else None."""
        return self.clean if self.clean is not None and self.clean.covers(self.locs) else None

    @property
    def proven(self) -> bool:
        """Whether urls.py proved these very locations normalised URIs (see ``clean``)."""
        return self.proof is not None

    @property
    def prefix(self) -> str:
        """What every location is proven to start with ("" when nothing is proven)."""
        proof = self.proof
        return "" if proof is None else proof.prefix

    @property
    def longest(self) -> Optional[int]:
        """How long the longest location is proven to be at most (None when not known)."""
        proof = self.proof
        return None if proof is None else proof.longest

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
        """The same rows with the given attributes replaced (``changefreqs=[...]``); every
        other one, ``site`` and ``lastmod_texts`` included, kept."""
        batch = copy.copy(self)
        for name, value in columns.items():
            setattr(batch, name, value)  # (__slots__: a misspelt name is an AttributeError)
        return batch

    def with_locs(self, clean: CleanLocs) -> Batch:
        """The batch with the locations a proof covers (as many, in the same rows)."""
        return self.replaced(locs=clean.locs, clean=clean)

    def without_extensions(self) -> Batch:
        """The batch with no extension in any row (for outputs that cannot carry them)."""
        return self.replaced(extensions=None)

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
        batch = Batch._trusted([self.locs[i] for i in keep] if clean is None else clean.locs,
                               self.source, take(self.lines), take(self.lastmods),
                               take(self.changefreqs), take(self.priorities), self.is_sitemap,
                               take(self.sources), clean, take(self.extensions))
        batch.site, batch.lastmod_texts = self.site, take(self.lastmod_texts)
        return batch

    @classmethod
    def of_records(cls, records: Sequence[Record]) -> Batch:
        """A batch of records of one kind (each checked when it was made)."""
        first = records[0]
        sources = [r.source for r in records]
        lines = [r.line for r in records]
        lastmods = [r.lastmod for r in records]
        changefreqs = [r.changefreq for r in records]
        priorities = [r.priority for r in records]
        extensions = [r.extensions for r in records]
        one_source = all(s == first.source for s in sources)
        return cls._trusted([r.loc for r in records], first.source,
                            lines if any(n is not None for n in lines) else None,
                            lastmods if any(v is not None for v in lastmods) else None,
                            changefreqs if any(v is not None for v in changefreqs) else None,
                            priorities if any(v is not None for v in priorities) else None,
                            first.is_sitemap, None if one_source else sources, None,
                            extensions if any(extensions) else None)


def batched(records: Iterable[Record], size: int = BATCH) -> Iterator[Batch]:
    """Group records into batches; a change of kind (page/sitemap) starts a new batch."""
    it = iter(records)
    while True:
        chunk = list(islice(it, size))
        if not chunk:
            return
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
    """OptionError unless ``batch`` is a Batch whose every column is None or one value per
    location: a shape nothing could write row by row."""
    if not isinstance(batch, Batch):
        raise OptionError(f"must be Batch values, not {type(batch).__name__}", "batches")
    n = len(batch.locs) if isinstance(batch.locs, (list, tuple)) else -1
    if n < 0:
        raise OptionError(f"must be a list of URLs, not {type(batch.locs).__name__}", "locs")
    for name in _COLUMNS:
        col = getattr(batch, name)
        if col is not None and (not isinstance(col, (list, tuple, range)) or len(col) != n):
            raise OptionError(f"must be None or a list of {n} values, one per location", name)
    if not isinstance(batch.is_sitemap, bool):
        raise OptionError(f"must be a bool, not {batch.is_sitemap!r}", "is_sitemap")
    if batch.clean is not None and not isinstance(batch.clean, CleanLocs):
        raise OptionError("only urls.py makes a proof (None or a CleanLocs)", "clean")


def bad_values(batch: Batch) -> Iterator[tuple[int, str, str]]:
    """(row, field, why) for each value of ``batch`` that a Record would refuse (its shape
    checked first: ``check_shape``); a loc need only be a str, which normalize judges (an
    empty one is an invalid URL, skipped and counted there as any other)."""
    for i, loc in enumerate(batch.locs):
        if not isinstance(loc, str):
            yield i, "loc", f"must be a str (an absolute http(s) URL), not {shown_value(loc)}"
    for column, name in _VALUES:
        for i, value in enumerate(getattr(batch, column) or ()):
            if value is not None:
                why = value_problem(name, value)
                if why is not None:
                    yield i, name, why
