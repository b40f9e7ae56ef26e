"""The value rules of sitemaps.org 0.9, one copy for the converter and for ``check``.

Each field is *judged* as the sitemaps.org XSD judges it (``xsd_*``, for ``check``), *read* by
the converter leniently where no meaning is lost (``parse_*``) and written in the XSD's form.
Every value the XSD accepts is read as the same value; where the converter is stricter (a year
outside 1000-9999), ``check`` warns (tests/test_rules.py)."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from functools import cache
from typing import Any, Optional, Union

from .lastmods import lastmod_key as lastmod_key
from .lastmods import parse_common_lastmods as parse_common_lastmods
from .lastmods import parse_lastmod_column as parse_lastmod_column

Lastmod = Union[date, datetime]

XML_SPACE = " \t\n\r"  # what the XSD's whiteSpace="collapse" strips (XML 1.0 production S)

# The XSD's tLoc: minLength 12 ("http://a.b/c"), maxLength 2048 (the profiles': Profile.max_loc)
LOC_MIN = 12
XSD_LOC_MAX = 2048


@cache  # (compiled when first used: start-up time)
def bad_uri_char() -> re.Pattern[str]:
    """What RFC 3986 allows nowhere in a URI; "%" only as %XX (normalize_url encodes these)."""
    return re.compile(r'[\x00-\x20"<>\\^`{|}\x7f-\x9f]|%(?![0-9A-Fa-f]{2})')


@cache
def _ip_literal() -> re.Pattern[str]:
    """A URL's start to the end of an IP literal host, where "[" and "]" may be."""
    return re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#\[\]@]*@)?\[[^/?#\[\]]*\]")


def bad_bracket(value: str) -> int:
    """Where ``value`` has a "[" or "]" outside an IPv6 host (RFC 3986: "?q=x[]=1" must be
    "?q=x%5B%5D=1"), -1 if nowhere."""
    if "[" not in value and "]" not in value:
        return -1
    literal = _ip_literal().match(value)
    start = literal.end() if literal is not None else 0
    found = [i for i in (value.find("[", start), value.find("]", start)) if i >= 0]
    return min(found, default=-1)


# <changefreq>'s values (case-sensitive; the XSD's tChangeFreq does not collapse white space)
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
CHANGEFREQ_SET = frozenset(CHANGEFREQS)


class Fixed(ValueError):
    """A value not as the protocol says but clear: the reader keeps ``value`` and warns."""

    def __init__(self, message: str, value: object) -> None:
        super().__init__(message)
        self.value = value


def parse_changefreq(text: str) -> str:
    value = text.strip()
    if value not in CHANGEFREQ_SET:
        if value.lower() in CHANGEFREQ_SET:
            raise Fixed(f"changefreq {value!r} lower-cased to {value.lower()!r} (the protocol's "
                        "values are lower-case)", value.lower())
        raise ValueError(f"changefreq {value[:40]!r} is not one of {', '.join(CHANGEFREQS)}")
    return value


PRIORITY = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", re.ASCII)  # xsd:decimal: no exponent


def parse_priority(text: str) -> float:
    value = text.strip()
    if not PRIORITY.fullmatch(value):
        raise ValueError(f"priority {value[:40]!r} is not a decimal number")
    number = float(value) + 0.0  # "-0.0" is a valid decimal zero; + 0.0 drops the sign
    if _outside(value, number):
        raise ValueError(f"priority {value[:40]} is outside 0.0-1.0")
    return number


def _outside(value: str, number: float) -> bool:
    """Whether an exact decimal is outside 0-1, ``number`` its float (which rounds at the
    ends: "1.00000000000000001" reads as 1.0)."""
    if not 0.0 <= number <= 1.0:
        return True
    if number not in (0.0, 1.0):
        return False
    digits = value.lstrip("+-")
    if number == 0.0:  # a negative is outside unless all its digits are zeros
        return value.startswith("-") and digits.replace(".", "").strip("0") != ""
    whole, _, fraction = digits.lstrip("0").partition(".")
    if whole == "1" and not fraction.strip("0"):
        return False  # exactly one
    from decimal import Decimal

    return Decimal(value) > 1


# The texts most sitemaps write, read by one dict look-up per row (readers/fields.py)
COMMON_PRIORITIES = {text: parse_priority(text) for text in
                     ["0", "1", *(f"{i / 10:.1f}" for i in range(11)),
                      *(f"{i / 100:.2f}" for i in range(101))]}
COMMON_CHANGEFREQS = {value: value for value in CHANGEFREQS}  # (parse_changefreq's own)


def xsd_priority(text: str) -> str | None:
    """tPriority's problem with ``text`` (an xsd:decimal from 0.0 to 1.0), or None."""
    value = text.strip(XML_SPACE)
    if PRIORITY.fullmatch(value) is None:
        return f"{value[:40]!r} is not a decimal number (xsd:decimal, e.g. 0.5)"
    if _outside(value, float(value)):
        return f"{value[:40]} is outside 0.0-1.0"
    return None


# A W3C Datetime the XSD also accepts as xsd:date or xsd:dateTime, or close to it; a time must
# carry a zone. Minutes without seconds are read as :00 (the same instant); a date with a zone
# keeps its date. A year or year-month alone names no day and is no lastmod here.
@cache
def _w3c() -> re.Pattern[str]:
    return re.compile(
        r"(\d{4})-(\d\d)-(\d\d)"
        r"(?:T(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?(Z|[+-]\d\d:\d\d)?|(?:Z|[+-]\d\d:\d\d))?")


@cache
def _common() -> re.Pattern[str]:
    """The two forms nearly every input writes (fromisoformat checks the values)."""
    return re.compile(r"\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d(?:Z|[+-]\d\d:[0-5]\d))?")


_MAX_OFFSET = timedelta(hours=14)

# A year before 1000 is a placeholder (Hugo writes 0001-01-01T00:00:00Z for undated pages): no
# date. Every lastmod kept has a four-digit year in UTC, as the XSD and W3C Datetime require.
MIN_YEAR = 1000


def check_year(value: Lastmod) -> Lastmod:
    """``value`` if its year (in UTC, for a datetime) is 1000 to 9999; else ValueError."""
    try:
        year = value.astimezone(timezone.utc).year if isinstance(value, datetime) else value.year
    except OverflowError:  # 9999-12-31T23:00:00-05:00 is in the year 10000 in UTC (and
        year = 0 if value.year < MIN_YEAR else 10_000  # 0001-01-01T00:00:00+01:00 in year 0)
    if year > 9999:
        raise ValueError(f"{value.isoformat()} is after the year 9999 in UTC")
    if year < MIN_YEAR:
        raise ValueError(f"{value.isoformat()} is a placeholder (a year before {MIN_YEAR}), "
                         "not a date; no lastmod")
    return value


def parse_lastmod(text: str) -> Lastmod:
    """A W3C Datetime as a ``date`` or an aware ``datetime``; else ValueError."""
    value: Lastmod | None = None
    if _common().fullmatch(text) is not None:
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
    return check_year(value if value is not None else parse_w3c(text))


def parse_w3c(text: str) -> Lastmod:
    """parse_lastmod's general path, without the year check."""
    m = _w3c().fullmatch(text.strip())
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
        utc = value.astimezone(timezone.utc).isoformat()  # ...T10:15:00[.123400]+00:00
        if len(utc) > 25:  # a fraction: its trailing zeros go
            return utc[:-6].rstrip("0") + "+00:00"
        return utc
    return value.isoformat()


@cache
def canonical_lastmod() -> re.Pattern[str]:
    """The texts format_lastmod writes (a reader can hand them on: Batch.lastmod_texts)."""
    return re.compile(
        r"\d{4}-\d\d-\d\d(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{0,5}[1-9])?\+00:00)?",
        re.ASCII)  # (\d alone would take "２０２４", which the lenient reader accepts)


# xsd:date and xsd:dateTime (XML Schema 1.0 part 2, 3.2.7 and 3.2.9): a year of four digits or
# more (no leading zero beyond four, not 0000), seconds required, an optional zone.
@cache
def _xsd_datetime() -> re.Pattern[str]:
    return re.compile(
        r"(-?(?:[1-9]\d{4,}|\d{4}))-(\d\d)-(\d\d)"
        r"(?:T(\d\d):(\d\d):(\d\d)(\.\d+)?)?"
        r"(Z|[+-]\d\d:\d\d)?", re.ASCII)


FAR_FUTURE = datetime.max.replace(tzinfo=timezone.utc)  # a year past 9999
_EARLIEST_ZONE = timezone(timedelta(hours=14))  # where a day begins first


def _days_in(year: int, month: int) -> int:
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]


def _xsd_zone(tz: str | None) -> timezone | None:
    """The zone of an XSD time, None when there is none; ValueError when out of range."""
    if tz is None:
        return None
    if tz == "Z":
        return timezone.utc
    oh, om = int(tz[1:3]), int(tz[4:6])
    if om > 59 or oh > 14 or (oh == 14 and om):
        raise ValueError(tz)
    return timezone((-1 if tz[0] == "-" else 1) * timedelta(hours=oh, minutes=om))


def _xsd_year(year: str) -> tuple[int, int]:
    """An XSD year as (the year, a year with the same leap days): past four digits, never an int
    (Python refuses 4,300 digits), its last four give its leap days."""
    digits = year.lstrip("-")
    if len(digits) <= 4:
        return int(year), int(year)
    negative = year.startswith("-")
    return (-10_000 if negative else 10_000), (-1 if negative else 1) * int(digits[-4:])


def xsd_lastmod(text: str) -> tuple[str | None, bool, datetime | None]:
    """A <lastmod> judged as tLastmod does: (XSD error or None, time without zone, the earliest
    instant it may be, for the "in the future" warning: FAR_FUTURE past 9999, None before 1)."""
    value = text.strip(XML_SPACE)
    m = _xsd_datetime().fullmatch(value)
    bad = f"{value[:60]!r} is neither an xsd:date (YYYY-MM-DD) nor an xsd:dateTime " \
          "(YYYY-MM-DDThh:mm:ss with an optional fraction and zone)"
    if m is None:
        return bad, False, None
    year, month, day, hh, mi, ss, frac, tz = m.groups()
    y, leap, mo, d = *_xsd_year(year), int(month), int(day)
    try:
        tzinfo = _xsd_zone(tz)
    except ValueError:
        return bad, False, None
    if y == 0 or not 1 <= mo <= 12 or not 1 <= d <= _days_in(leap, mo):
        return bad, False, None
    extra = timedelta(0)
    h = mn = s = 0
    if hh is not None:
        h, mn, s = int(hh), int(mi), int(ss)
        if h == 24 and mn == 0 and s == 0 and not (frac or "0").strip(".0"):
            h, extra = 0, timedelta(days=1)  # 24:00:00 is the end of the day
        elif h > 23 or mn > 59 or s > 59:
            return bad, False, None
        if tzinfo is None:
            return None, True, None
    if y > 9999:
        return None, False, FAR_FUTURE
    if y < 1:
        return None, False, None
    start = datetime.combine(date(y, mo, d), datetime.min.time(), tzinfo or _EARLIEST_ZONE)
    try:
        return None, False, start + timedelta(hours=h, minutes=mn, seconds=s) + extra
    except OverflowError:
        return None, False, FAR_FUTURE


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parsed_utc(parsed: Any) -> datetime | None:
    """feedparser's UTC 9-tuple as an aware datetime; None for none or one no datetime holds."""
    if not parsed:
        return None
    try:
        return datetime(
            parsed[0], parsed[1], parsed[2], parsed[3], parsed[4], parsed[5], tzinfo=timezone.utc
        )
    except ValueError:  # a leap second or another out-of-range field: let timegm normalise it
        pass
    import calendar  # (only for such dates: start-up time)

    try:
        return _EPOCH + timedelta(seconds=calendar.timegm(parsed))
    except (OverflowError, ValueError, TypeError):
        return None


# Google News' <news:language>: ISO 639 codes, and zh-cn / zh-tw for Chinese
_TAG = re.compile(r"([A-Za-z]{2,3})(?:[-_]([A-Za-z0-9]{2,8}))*")
# Chinese subtags that name the script (BCP 47 script, or the region that implies it)
_SIMPLIFIED = {"hans", "cn", "sg", "my"}
_TRADITIONAL = {"hant", "tw", "hk", "mo"}


def news_language(tag: Optional[str]) -> Optional[str]:
    """The <news:language> code of a language tag (``en-US`` → ``en``, ``zh-Hant`` → ``zh-tw``),
    None when it gives none Google accepts (Chinese with no script or region, say)."""
    if not tag:
        return None
    text = tag.strip()
    if _TAG.fullmatch(text) is None:
        return None
    parts = [p.lower() for p in re.split(r"[-_]", text)]
    language = parts[0]
    if language == "zh":
        subtags = set(parts[1:])
        if subtags & _TRADITIONAL:
            return "zh-tw"
        if subtags & _SIMPLIFIED:
            return "zh-cn"
        return None
    return language
