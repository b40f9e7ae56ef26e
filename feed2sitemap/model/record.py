"""The record that flows from readers to writers; rules.py's value rules re-exported."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Optional

from ..errors import OptionError
from .extensions import EMPTY, Extensions
from .rules import (
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

__all__ = ["CHANGEFREQS", "MIN_YEAR", "Lastmod", "Record", "check_changefreq", "check_priority",
           "check_year", "format_lastmod", "lastmod_key", "make_record", "parse_changefreq",
           "parse_common_lastmods", "parse_lastmod", "parse_priority", "value_problem"]


@dataclass(frozen=True)
class Record:
    """One URL of a sitemap (or one sitemap of an index, when ``is_sitemap``). ``source`` and
    ``line`` take no part in equality: a record read back equals the one written."""

    loc: str
    lastmod: Optional[Lastmod] = None
    changefreq: Optional[str] = None
    priority: Optional[float] = None
    is_sitemap: bool = False
    source: Optional[str] = field(default=None, compare=False, repr=False)
    line: Optional[int] = field(default=None, compare=False, repr=False)
    # images, videos, news, alternates, mobile type, other namespaces (extensions/model.py)
    extensions: Extensions = EMPTY

    def __post_init__(self) -> None:
        for name in ("loc", "lastmod", "changefreq", "priority", "extensions"):
            value = getattr(self, name)
            why = None if value is None and name != "loc" else value_problem(name, value)
            if why is not None:
                raise OptionError(why, name)


def value_problem(name: str, value: object) -> Optional[str]:
    """Why ``value`` cannot be the field ``name`` of a record, or None (a loc need only be a
    non-empty str: the pipeline normalises it)."""
    if name == "loc":
        ok = isinstance(value, str) and value != ""
        return None if ok else f"must be a non-empty str (an absolute http(s) URL), not " \
                               f"{shown_value(value)}"
    if name == "changefreq":
        if isinstance(value, str) and value in CHANGEFREQ_SET:
            return None
        return f"must be one of {', '.join(CHANGEFREQS)}, not {shown_value(value)}"
    if name == "priority":
        if not isinstance(value, bool) and isinstance(value, (int, float)) and \
                0.0 <= value <= 1.0:
            return None
        return f"must be a number from 0.0 to 1.0, not {shown_value(value)}"
    if name == "extensions":
        return None if isinstance(value, Extensions) else "must be an Extensions value"
    if not isinstance(value, date):  # lastmod
        return f"must be a date or a datetime, not {type(value).__name__}"
    if isinstance(value, datetime) and value.utcoffset() is None:
        return "a lastmod with a time needs a timezone"
    try:
        check_year(value)
    except ValueError as exc:
        return str(exc)
    return None


def shown_value(value: object) -> str:
    """A value's repr, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_priority(value: object, parameter: str = "priority") -> float:
    """``value`` if it is a number from 0.0 to 1.0 (sitemaps.org), else OptionError."""
    why = value_problem("priority", value)
    if why is not None:
        raise OptionError(why, parameter)
    return float(value)  # type: ignore[arg-type]  # (a number: value_problem says so)


def check_changefreq(value: object, parameter: str = "changefreq") -> str:
    """``value`` if it is one of CHANGEFREQS (case-sensitive, as the XSD), else OptionError."""
    why = value_problem("changefreq", value)
    if why is not None:
        raise OptionError(why, parameter)
    return value  # type: ignore[return-value]  # (a str: value_problem says so)


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
    extensions: Optional[Extensions] = None,
) -> Record:
    """A Record of values already validated, its attribute dict set in one step: the frozen
    dataclass's ``__init__`` (1 µs) would be most of a plain conversion's time."""
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
    if extensions:
        values["extensions"] = extensions
    _set_dict(r, "__dict__", values)
    return r
