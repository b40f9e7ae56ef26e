"""The two common lastmod forms ("2024-03-05", "2024-03-05T10:15:00+01:00" or "...Z"), proved
and parsed a column at a time, as rules.parse_lastmod parses each one: a few C passes over the
texts joined by newlines prove their shape (_laid_out, else one regex), then map() hands them
to the C-coded fromisoformat. What is not proved is left to parse_lastmod.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timezone
from functools import cache
from itertools import compress, groupby, repeat
from operator import not_
from typing import Optional, Union, cast


# (Years 0xxx, and the two days whose time may leave 1000-9999 in UTC, go one by one.)
@cache  # (compiled when first used: most runs need none of it, start-up time)
def _common_shape(dates: bool) -> re.Pattern[str]:
    """The lines of common dates (``dates``) or common times."""
    if dates:
        return re.compile(r"(?:[1-9]\d{3}-\d\d-\d\d\n)*")
    return re.compile(r"(?:(?!1000-01-01|9999-12-31)[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d"
                      r"(?:Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))\n)*")


def parse_common_lastmods(texts: Iterable[Optional[str]]) -> dict[str, Union[date, datetime]]:
    """Those of ``texts`` that are in the two common forms, parsed as parse_lastmod parses them
    (None and "" are no text).

    The rest are left out, for parse_lastmod to parse or refuse one by one. (On Python 3.10,
    whose fromisoformat does not read "Z", a column with a "Z" is all left out.)
    """
    out: dict[str, Union[date, datetime]] = {}
    for size, grouped in groupby(sorted(filter(None, texts), key=len), key=len):
        group = list(grouped)
        values = _parsed(group, size)
        if values is not None:
            out.update(zip(group, values, strict=True))
    return out


def _parsed(group: Sequence[str], size: int) -> Optional[list[Union[date, datetime]]]:
    """``group`` (texts of length ``size``) parsed, when every one is in a common form; else
    None (a value out of range, a 30 February, is left to parse_lastmod too)."""
    layout = _LAYOUTS.get(size)
    if layout is None:
        return None
    joined = "\n".join(group) + "\n"
    if not _laid_out(joined, len(group), layout) and (
            _common_shape(size == 10).fullmatch(joined) is None):
        return None
    try:
        return list(map(date.fromisoformat if size == 10 else datetime.fromisoformat, group))
    except ValueError:
        return None


# The layouts of the common forms by length: "d" an ASCII digit, "s" a sign, "0" the digit 0
# (offsets up to 09:59 here; the regexes above judge the rest), "5" a digit 0-5.
_LAYOUTS = {10: "dddd-dd-dd", 20: "dddd-dd-ddTdd:dd:ddZ", 25: "dddd-dd-ddTdd:dd:dds0d:5d"}
# Each layout as bytes.translate(_DIGIT_TO_D) makes a text of it, with "-" for a sign
_SHAPES = {size: (layout.translate(str.maketrans("05s", "dd-")) + "\n").encode()
           for size, layout in _LAYOUTS.items()}
_DIGIT_TO_D = bytes.maketrans(b"0123456789+", b"dddddddddd-")


def _laid_out(joined: str, n: int, layout: str) -> bool:
    """Whether ``joined`` (``n`` texts of ``layout``'s length, each ending in a newline) is
    ``n`` texts of that layout, in a year 1000-9999 and, for a time, not on one of the two days
    whose UTC year may leave that range: proved in C a few passes over the text (one
    translation of every digit to "d" and of "+" to "-", compared with the layout repeated;
    then the sign, "0" and "5" columns, sliced), without a regex pass over every character.
    Implies _common_shape."""
    stride = len(layout) + 1
    if len(joined) != n * stride or not joined.isascii():
        return False
    data = joined.encode()
    shape = data.translate(_DIGIT_TO_D)
    if shape != _SHAPES[len(layout)] * n:
        return False
    sign = layout.find("s")  # the only place where "+" may be (it was read as "-" above)
    millennia = joined[::stride]
    ok = ("0" not in millennia  # (a year 0xxx)
          and data.count(b"+") == (data[sign::stride].count(b"+") if sign >= 0 else 0))
    for at, kind in enumerate(layout):
        if kind == "0":
            ok = ok and not joined[at::stride].strip("0")
        elif kind == "5":
            ok = ok and not joined[at::stride].strip("012345")
    # (the two days are looked for only where a year 1xxx or 9xxx is)
    return ok and (len(layout) == 10 or (("1" not in millennia or "1000-01-01" not in joined)
                                         and ("9" not in millennia or "9999-12-31" not in joined)))


def lastmod_key(value: Union[date, datetime]) -> datetime:
    """A comparable instant for 'newest' decisions; a date counts as its midnight UTC."""
    if isinstance(value, datetime):
        return value
    return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)


def newest_of(lastmods: Iterable[Optional[Union[date, datetime]]]
              ) -> Optional[Union[date, datetime]]:
    """The newest of the lastmods (the first of equal instants); None when there is none."""
    present = list(filter(None, lastmods))  # (no date or datetime is false)
    if not present:
        return None
    try:  # in C: all dates, or all datetimes (aware, so compared as instants)
        return max(present)
    except TypeError:  # both: a date is its midnight UTC (each kind's newest found in C)
        kinds = list(map(isinstance, present, repeat(datetime)))
        time = max(compress(present, kinds))
        day = max(compress(present, map(not_, kinds)))
        if lastmod_key(day) != time:
            return day if lastmod_key(day) > time else time
        return day if present.index(day) < present.index(time) else time


def parse_lastmod_column(raw: Sequence[Optional[str]]) -> Optional[list[Union[date, datetime]]]:
    """Every row's lastmod, parsed as parse_lastmod parses it, when every row holds a text in
    one of the common forms (the usual column of a sitemap); else None."""
    texts = cast("Sequence[str]", raw)  # (a None is refused at once: no len)
    try:
        sizes = set(map(len, texts))
    except TypeError:
        return None
    if len(sizes) == 1:  # one form (the usual)
        return _parsed(texts, sizes.pop())
    parsed = parse_common_lastmods(texts)
    try:
        return list(map(parsed.__getitem__, texts))
    except KeyError:  # a row not in a common form
        return None
