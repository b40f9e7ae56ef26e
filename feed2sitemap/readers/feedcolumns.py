"""A run's links and dates a column at a time (feedruns.py), for the shapes nearly every feed
writes: each value proven by one regular expression over the whole column, so that no Python
code runs per entry. Where a column is not all of one such shape, None: feedruns computes each
entry's value with the handler path's functions instead.

Each value below is proven to be one whose answer by those functions is known without calling
them, and a property test holds the two equal (tests/test_feedruns_columns.py):

- a link whose text (or href) is an absolute http(s) URL that urljoin leaves as it is
  (feedcompat.PLAIN_ABS; so resolve() gives it back whatever the base), ASCII (clean() leaves
  it), with no reference but "&amp;" (so it is "&" to expat) and nothing that link_text
  repairs (no "&name;" after decoding);
- a date in RFC 822's or W3C-DTF's usual shape (feeddates._RFC822, _w3cdtf), which
  entry_date turns into the same instant through fromisoformat: here the whole column is made
  ISO 8601 by C-coded replacements, splits and slices and parsed by ``map``; a date out of
  range, at the epoch (which means "unknown") or in year 1 sends the column back to entry_date.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from operator import methodcaller
from typing import Any

from .feedcompat import PLAIN_ABS
from .feeddates import MONTH_DASHED

__all__ = ["atom_links", "dates", "rss_links"]

_UTC = timezone.utc
_EPOCH = datetime(1970, 1, 1, tzinfo=_UTC)
_ABS = PLAIN_ABS
# Values as the grammar captures them, each followed by its end tag's "</" (Atom's attribute
# strings by a NUL, which the run holds nowhere: feedruns refuses control characters)
_RSS_LINKS = re.compile(f"(?:{_ABS}</)*")
_ATOM_LINKS = re.compile(
    f'(?:(?:[ \t\n]+rel="alternate")?(?:[ \t\n]+type="text/html")?[ \t\n]+href="{_ABS}"\0)*')
_HREF = re.compile('href="([^"]*)"')
_AMP_NAME = re.compile("&[A-Za-z0-9_]+;")  # what feedcompat.link_text repairs
Odd = Callable[[str], Any]  # the handler path's answer for one value (with its separator)


def _pieces(joined: str, plain: re.Pattern[str], sep: str) -> Iterator[tuple[bool, str]]:
    """The column cut into stretches of plain values (True) and single other values."""
    pos, n = 0, len(joined)
    while pos < n:
        m = plain.match(joined, pos)
        end = m.end() if m else pos
        if end > pos:
            yield True, joined[pos:end]
        if end == n:
            return
        after = joined.index(sep, end) + len(sep)
        yield False, joined[end:after]
        pos = after


def _decoded(text: str) -> str | None:
    """Plain values with "&amp;" as "&" when that is their only reference and nothing is
    left that link_text would repair, else None."""
    if "&" not in text:
        return text
    if text.count("&") != text.count("&amp;"):
        return None
    text = text.replace("&amp;", "&")
    return None if _AMP_NAME.search(text) else text


def _links(joined: str, plain: re.Pattern[str], sep: str, odd: Odd,
           split: Callable[[str], list[str]]) -> list[Any]:
    out: list[Any] = []
    for ok, text in _pieces(joined, plain, sep):
        decoded = _decoded(text) if ok else None
        if decoded is not None:
            out += split(decoded)
        elif ok:
            out += [odd(v + sep) for v in text.split(sep)[:-1]]
        else:
            out.append(odd(text))
    return out


def _rss_split(text: str) -> list[str]:
    links = text.split("</")
    links.pop()
    return links


def rss_links(column: Sequence[str], odd: Odd) -> list[Any]:
    """The links of a column of RSS <link> texts: a plain absolute URL is its own link;
    ``odd`` gives any other's."""
    return _links("".join(column), _RSS_LINKS, "</", odd, _rss_split)


def atom_links(column: Sequence[str], odd: Odd) -> list[Any]:
    """The links of a column of Atom <link> attributes: where rel="alternate" (or none) and
    type="text/html" (or none) come in that order, then href, a plain absolute URL, the href;
    ``odd`` gives any other's (from the attributes and their NUL)."""
    return _links("\0".join(column) + "\0", _ATOM_LINKS, "\0", odd, _HREF.findall)


_RFC822 = re.compile(r"(?:(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?\d\d? "
                     r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} "
                     r"\d\d:\d\d:\d\d (?:[+-]\d{4}|GMT|UT)</)*")
_WEEKDAYS = tuple(f"{d}, " for d in "Mon Tue Wed Thu Fri Sat Sun".split())
_DAY_T = {k: f"{d:02d}T" for d in range(1, 32) for k in (str(d), f"{d:02d}")}
_W3CDTF = re.compile(r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:\d\d)</)*")
_TO_UTC = methodcaller("astimezone", _UTC)


def dates(column: Sequence[str], epoch_is_unknown: bool, odd: Odd) -> list[Any]:
    """entry_date of each value of a column (all present): the usual shapes in bulk, ``odd``
    for the others (and for a stretch where one is out of range, the epoch or year 1)."""
    joined = "".join(column)
    rfc = not joined[:1].isdigit()  # (the first value's shape is taken for the column's)
    out: list[Any] = []
    for ok, text in _pieces(joined, _RFC822 if rfc else _W3CDTF, "</"):
        values = _iso_dates(text, rfc, epoch_is_unknown) if ok and text.isascii() else None
        if values is None:
            values = [odd(v + "</") for v in text.split("</")[:-1]]
        out += values
    return out


def _iso_dates(text: str, rfc: bool, epoch_is_unknown: bool) -> list[datetime] | None:
    n = text.count("</")
    made = _rfc822_isos(text, n) if rfc else _w3cdtf_isos(text, n)
    if made is None:
        return None
    isos, utc = made
    try:
        values = list(map(datetime.fromisoformat, isos))
        if not utc:  # (a zero offset is read as timezone.utc already)
            values = list(map(_TO_UTC, values))
    except (ValueError, OverflowError):
        return None
    if min(values).year <= 1 or epoch_is_unknown and _EPOCH in values:
        return None
    return values


def _rfc822_isos(text: str, n: int) -> tuple[list[str], bool] | None:
    """The ``n`` values of ``text`` (of _RFC822's shape) as ISO 8601 strings, made in C: the
    fields cut at the spaces and put in ISO's order by slices, the month's number and the
    zone's offset looked up; and whether every offset is zero."""
    commas = text.count(",")  # (a comma only ends a weekday)
    if commas and commas != n:  # some with a weekday, some without
        for weekday in _WEEKDAYS:
            text = text.replace(weekday, "")
        commas = 0
    w = 6 if commas else 5  # [weekday,] day, month, year, clock, zone; ...; ""
    fields = text.replace("</", " ").split(" ")
    if len(fields) != w * n + 1:
        return None
    fields.pop()
    k = w - 5  # the day's index
    zone = fields[k + 4 :: w]
    offsets = {z: ("+00:00" if z[0] not in "+-" else z[:3] + ":" + z[3:]) + "\0"
               for z in set(zone)}
    iso = [""] * (5 * n)
    iso[0::5] = fields[k + 2 :: w]
    try:
        iso[1::5] = map(MONTH_DASHED.__getitem__, fields[k + 1 :: w])
        iso[2::5] = map(_DAY_T.__getitem__, fields[k::w])  # (a day past 31: entry_date's)
    except KeyError:
        return None
    iso[3::5] = fields[k + 3 :: w]
    iso[4::5] = map(offsets.__getitem__, zone)
    isos = "".join(iso).split("\0")
    isos.pop()
    return isos, set(offsets.values()) == {"+00:00\0"}


def _w3cdtf_isos(text: str, n: int) -> tuple[list[str], bool]:
    """The ``n`` values of ``text`` (of _W3CDTF's shape) as ISO 8601 strings, and whether
    every offset is zero."""
    isos = text.replace("Z</", "+00:00</").split("</")
    isos.pop()
    return isos, text.count("Z</") == n
