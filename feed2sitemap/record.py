"""The one record type that flows from readers to writers, and W3C Datetime handling."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Optional, Union

from .errors import OptionError
from .extensions.model import EMPTY, Extensions

__all__ = [
    "CANONICAL_LASTMOD",
    "CHANGEFREQS",
    "Lastmod",
    "Record",
    "check_changefreq",
    "check_priority",
    "check_year",
    "format_lastmod",
    "lastmod_key",
    "make_record",
    "parse_common_lastmods",
    "parse_changefreq",
    "parse_lastmod",
    "parse_priority",
]

Lastmod = Union[date, datetime]

# sitemaps.org 0.9: the only values <changefreq> may take (case-sensitive in the XSD).
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
_CHANGEFREQ_SET = frozenset(CHANGEFREQS)


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
    # images, videos, news, alternates, mobile type, other namespaces (extensions/model.py)
    extensions: Extensions = EMPTY

    def __post_init__(self) -> None:
        # A Record is the library's validated value: a bad field is the caller's OptionError
        # (a ValueError) here, never an invalid file later.
        if not isinstance(self.loc, str) or not self.loc:
            raise OptionError("must be a non-empty str (an absolute http(s) URL)", "loc")
        if self.changefreq is not None and self.changefreq not in _CHANGEFREQ_SET:
            raise OptionError(f"must be one of {', '.join(CHANGEFREQS)}, not "
                              f"{self.changefreq!r}", "changefreq")
        if self.priority is not None:
            check_priority(self.priority)
        if not isinstance(self.extensions, Extensions):
            raise OptionError("must be an Extensions value", "extensions")
        lm = self.lastmod
        if lm is not None:
            if not isinstance(lm, date):
                raise OptionError(f"must be a date or a datetime, not {type(lm).__name__}",
                                  "lastmod")
            if isinstance(lm, datetime) and lm.utcoffset() is None:
                raise OptionError("a lastmod with a time needs a timezone", "lastmod")
            try:
                check_year(lm)
            except ValueError as exc:
                raise OptionError(str(exc), "lastmod") from None


def check_priority(value: object, parameter: str = "priority") -> float:
    """``value`` if it is a number from 0.0 to 1.0 (sitemaps.org), else OptionError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
            0.0 <= value <= 1.0):
        raise OptionError(f"must be a number from 0.0 to 1.0, not {value!r}", parameter)
    return float(value)


def check_changefreq(value: object, parameter: str = "changefreq") -> str:
    """``value`` if it is one of CHANGEFREQS (case-sensitive, as the XSD), else OptionError."""
    if value not in _CHANGEFREQ_SET:
        raise OptionError(f"must be one of {', '.join(CHANGEFREQS)}, not {value!r}", parameter)
    return value


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
    if extensions:
        values["extensions"] = extensions
    _set_dict(r, "__dict__", values)
    return r


# What is read as a lastmod: a W3C Datetime (https://www.w3.org/TR/NOTE-datetime) that the
# sitemaps.org XSD also accepts as xsd:date or xsd:dateTime, or close to it. A time must carry a
# zone (sitemaps.org). Read leniently: minutes without seconds (W3C-valid, XSD-invalid) are read
# as :00, which is the same instant; a date with a zone (XSD-valid "2005-01-01Z") keeps its date.
# A year or year-month alone is W3C-valid but the XSD rejects it and it names no day, so it is
# not a lastmod here. What we write is always XSD-valid (format_lastmod).
_W3C = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)"
    r"(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?(Z|[+-]\d\d:\d\d)?|(?:Z|[+-]\d\d:\d\d))?"
)


# The two forms nearly every sitemap and feed writes, "2024-03-05" and
# "2024-03-05T10:15:00+01:00" (or "...Z"): their shape is checked here and their values by the
# C-coded fromisoformat, four times faster than the general path below.
_COMMON = re.compile(r"\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:Z|[+-]\d\d:[0-5]\d))?")


# A year before 1000 is no page's date but a placeholder: Hugo writes 0001-01-01T00:00:00Z for
# every undated page. Such a lastmod is "no date" (dropped with a warning where it is read), and
# every lastmod kept has a four-digit year in UTC, as the XSD and W3C Datetime require.
MIN_YEAR = 1000


def check_year(value: Lastmod) -> Lastmod:
    """``value`` if its year (in UTC, for a datetime) is 1000 to 9999; else ValueError."""
    try:
        year = value.astimezone(timezone.utc).year if isinstance(value, datetime) else value.year
    except OverflowError:  # 9999-12-31T23:00:00-05:00 is in the year 10000 in UTC
        raise ValueError(f"{value.isoformat()} is after the year 9999 in UTC") from None
    if year < MIN_YEAR:
        raise ValueError(f"{value.isoformat()} is a placeholder (a year before {MIN_YEAR}), "
                         "not a date; no lastmod")
    return value


def parse_lastmod(text: str) -> Lastmod:
    """Parse a W3C Datetime into a ``date`` or an aware ``datetime``; raise ValueError otherwise
    (a placeholder year before 1000 included)."""
    value: Lastmod | None = None
    if _COMMON.fullmatch(text) is not None:
        try:
            if len(text) == 10:
                value = date.fromisoformat(text)
            else:
                value = datetime.fromisoformat(text)
                off = value.utcoffset()
                if off is None or abs(off) > _MAX_OFFSET:
                    value = None
        except ValueError:
            pass  # out-of-range fields, hour 24: the general path says which, or accepts it
    return check_year(value if value is not None else _parse_w3c(text))


# The same two forms, for many values at once: one regex over the values joined by newlines
# proves their shape (offsets within ±14:00 written into it) and map() hands them to the C-coded
# fromisoformat without a Python call per value.
# (Years 0xxx, and the two days whose time may leave 1000-9999 in UTC, go one by one.)
_COMMON_DATES = re.compile(r"(?:[1-9]\d{3}-\d\d-\d\d\n)*")
_COMMON_TIMES = re.compile(
    r"(?:(?!1000-01-01|9999-12-31)[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))\n)*")


def parse_common_lastmods(texts: Iterable[str]) -> dict[str, Lastmod]:
    """Those of ``texts`` that are in the two common forms, parsed as parse_lastmod parses them.

    The rest are left out, for parse_lastmod to parse or refuse one by one. (On Python 3.10,
    whose fromisoformat does not read "Z", a column with a "Z" is all left out.)
    """
    texts = list(texts)
    dates = [t for t in texts if len(t) == 10]
    times = [t for t in texts if len(t) != 10] if len(dates) < len(texts) else []
    out: dict[str, Lastmod] = {}
    for group, shape, parse in ((dates, _COMMON_DATES, date.fromisoformat),
                                (times, _COMMON_TIMES, datetime.fromisoformat)):
        if group and shape.fullmatch("\n".join(group) + "\n") is not None:
            try:
                out.update(zip(group, map(parse, group), strict=True))
            except ValueError:
                pass  # a value out of range (a 30 February) somewhere: each one alone
    return out


def _parse_w3c(text: str) -> Lastmod:
    m = _W3C.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"not a W3C Datetime: {text.strip()[:60]!r}")
    year, month, day, hh, mi, ss, frac, tz = m.groups()
    d = date(int(year), int(month), int(day))
    if hh is None:
        return d
    if tz is None:
        raise ValueError(f"time without a timezone: {text.strip()[:60]!r}")
    if tz == "Z":
        tzinfo = timezone.utc
    else:
        sign = -1 if tz[0] == "-" else 1
        off_h, off_m = int(tz[1:3]), int(tz[4:6])
        if off_h > 14 or off_m > 59:
            raise ValueError(f"bad timezone offset: {tz!r}")
        tzinfo = timezone(sign * timedelta(hours=off_h, minutes=off_m))
    hour = int(hh)
    micro = int((frac or "0")[:6].ljust(6, "0"))
    if hour == 24 and mi == "00" and (ss or "00") == "00" and micro == 0:
        # xsd:dateTime allows 24:00:00 as the end of the day, the next day's midnight.
        return datetime(d.year, d.month, d.day, tzinfo=tzinfo) + timedelta(days=1)
    return datetime(d.year, d.month, d.day, hour, int(mi), int(ss or 0), micro, tzinfo=tzinfo)


def format_lastmod(value: Lastmod) -> str:
    """W3C Datetime text: a date stays a date; a datetime is written in UTC with seconds."""
    if isinstance(value, datetime):
        # isoformat, not strftime: five times faster (a million lastmods cost 1.5 s with
        # strftime), and its year always has four digits (glibc's %Y writes 999, not 0999)
        utc = value.astimezone(timezone.utc).isoformat()  # ...T10:15:00[.123400]+00:00
        if len(utc) > 25:  # a fraction: its trailing zeros go
            return utc[:-6].rstrip("0") + "+00:00"
        return utc
    return value.isoformat()


# The texts format_lastmod writes: a date, or a UTC time to the second with a fraction that
# ends in no zero. A lastmod read in exactly this form (and valid) is written back as it was
# read, so a reader that proves it can hand the text on (batch.Batch.lastmod_texts).
CANONICAL_LASTMOD = re.compile(
    r"\d{4}-\d\d-\d\d(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{0,5}[1-9])?\+00:00)?",
    re.ASCII)  # (\d alone would take "２０２４", which the lenient reader accepts)


def lastmod_key(value: Lastmod) -> datetime:
    """A comparable instant for 'newest' decisions; a date counts as its midnight UTC."""
    if isinstance(value, datetime):
        return value
    return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)


def parse_changefreq(text: str) -> str:
    value = text.strip()
    if value not in _CHANGEFREQ_SET:
        raise ValueError(f"changefreq {value[:40]!r} is not one of {', '.join(CHANGEFREQS)}")
    return value


_MAX_OFFSET = timedelta(hours=14)
_PRIORITY = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)")  # xsd:decimal


def parse_priority(text: str) -> float:
    value = text.strip()
    if not _PRIORITY.fullmatch(value):
        raise ValueError(f"priority {value[:40]!r} is not a decimal number")
    number = float(value) + 0.0  # "-0.0" is a valid decimal zero; + 0.0 drops the sign
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"priority {value} is outside 0.0-1.0")
    return number
