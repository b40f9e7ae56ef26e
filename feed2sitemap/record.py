"""The one record type that flows from readers to writers.

The value rules (W3C Datetime, changefreq, priority) live in rules.py, shared with ``check``;
they are re-exported here, where the converter's modules have always found them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional

from .rules import (
    CANONICAL_LASTMOD,
    CHANGEFREQ_SET,
    CHANGEFREQS,
    MIN_YEAR,
    Lastmod,
    check_year,
    format_lastmod,
    lastmod_key,
    parse_changefreq,
    parse_common_lastmods,
    parse_lastmod,
    parse_priority,
)

__all__ = [
    "CANONICAL_LASTMOD",
    "CHANGEFREQS",
    "MIN_YEAR",
    "Lastmod",
    "Record",
    "check_year",
    "format_lastmod",
    "lastmod_key",
    "make_record",
    "parse_common_lastmods",
    "parse_changefreq",
    "parse_lastmod",
    "parse_priority",
]


@dataclass(frozen=True)
class Record:
    """One URL of a sitemap (or one sitemap of an index, when ``is_sitemap``).

    ``source`` and ``line`` say where the record was read; they are for messages only and do not
    take part in equality, so a record read back from our own output equals the one written.
    """

    loc: str
    lastmod: Optional[Lastmod] = None
    changefreq: Optional[str] = None
    priority: Optional[float] = None
    is_sitemap: bool = False
    source: Optional[str] = field(default=None, compare=False, repr=False)
    line: Optional[int] = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.changefreq is not None and self.changefreq not in CHANGEFREQ_SET:
            raise ValueError(f"changefreq must be one of {', '.join(CHANGEFREQS)}")
        if self.priority is not None and not 0.0 <= self.priority <= 1.0:
            raise ValueError("priority must be between 0.0 and 1.0")
        lm = self.lastmod
        if isinstance(lm, datetime) and lm.utcoffset() is None:
            raise ValueError("a lastmod with a time needs a timezone")
        if lm is not None:
            check_year(lm)


_new = object.__new__
_set_dict = object.__setattr__


def make_record(
    loc: str,
    lastmod: Optional[Lastmod] = None,
    changefreq: Optional[str] = None,
    priority: Optional[float] = None,
    is_sitemap: bool = False,
    source: Optional[str] = None,
    line: Optional[int] = None,
) -> Record:
    """Build a Record from values a reader has already validated.

    A frozen dataclass's ``__init__`` costs about 1 µs (one ``object.__setattr__`` per field plus
    the checks); on a million-URL list that alone is most of the time a plain conversion may
    take. Readers and pipeline steps validate each field as they parse it, so they hand the
    instance its attribute dict in one step; a field left at its default is not stored at all
    (the dataclass keeps defaults on the class), which is why Record has no __slots__.
    """
    r = _new(Record)
    values: dict[str, object] = {"loc": loc, "source": source, "line": line}
    if lastmod is not None:
        values["lastmod"] = lastmod
    if changefreq is not None:
        values["changefreq"] = changefreq
    if priority is not None:
        values["priority"] = priority
    if is_sitemap:
        values["is_sitemap"] = is_sitemap
    _set_dict(r, "__dict__", values)
    return r
