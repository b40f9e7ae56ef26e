"""Entry dates as feedparser reads them, as aware UTC datetimes, with a quick path for the two
common shapes (split from the fast pass, fastpass.py, whose rules are in compat.py)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from functools import cache
from typing import Any

from ...model.rules import parsed_utc

__all__ = ["MONTH_DASHED", "entry_date"]

_UTC = timezone.utc
_EPOCH = datetime(1970, 1, 1, tzinfo=_UTC)


def _known(parsed: Any) -> Any:
    """A parsed date, or None for the Unix epoch itself, which means "unknown".

    Atom requires an <updated> on every entry even where the time is unknown; our Atom writer
    (like many generators) then writes 1970-01-01T00:00:00Z, and that must not come back as a
    page's date: the published time is taken instead, if there is one.
    """
    if parsed and tuple(parsed[:6]) == (1970, 1, 1, 0, 0, 0):
        return None
    return parsed


# The two date forms nearly every feed writes: RSS's "Tue, 05 Mar 2024 10:15:00 +0100" and
# Atom's "2024-03-05T10:15:00Z". For exactly these shapes feedparser's answer is computed here
# directly (its chain of handlers tries W3C-DTF, then RFC 822, and costs a third of a large
# feed's reading): the shape is checked by a regex and the values by the C-coded fromisoformat,
# given an ISO 8601 form that every supported Python reads, in UTC; the zone's offset is then
# subtracted. A property test holds the two to the same results. Anything else, or a value out
# of range, goes through feedparser's own _parse_date.
MONTH_DASHED = {m: f"-{i:02d}-" for i, m in enumerate(  # (the runs' columns' too)
    "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_RFC822 = re.compile(r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?(\d\d?) "
                     r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) "
                     r"(\d\d:\d\d:\d\d) ((?:[+-]\d{4})|GMT|UT)")
_ZERO = timedelta(0)
# Zone as written -> its offset, or None where fromisoformat refuses it (say "+99:99").
_OFFSETS: dict[str, timedelta | None] = {"Z": _ZERO, "GMT": _ZERO, "UT": _ZERO}


def _offset(zone: str) -> timedelta | None:
    iso = zone if ":" in zone else zone[:3] + ":" + zone[3:]
    try:
        value = datetime.fromisoformat("2000-01-01T00:00:00" + iso).utcoffset()
    except ValueError:
        value = None
    _OFFSETS[zone] = value
    return value


@cache  # (compiled when first used: an RSS feed's run needs it not)
def _w3cdtf() -> re.Pattern[str]:
    return re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(Z|[+-]\d\d:\d\d)")


def entry_date(text: str, epoch_is_unknown: bool = True) -> datetime | None:
    """feedparser's date for ``text``, as an aware UTC datetime (None: no date)."""
    m = _RFC822.fullmatch(text)
    if m is not None:
        day, month, year, clock, zone = m.groups()
        local: str | None = year + MONTH_DASHED[month] + day.zfill(2) + "T" + clock + "+00:00"
    else:
        m = _w3cdtf().fullmatch(text)
        if m is not None:
            local, zone = m.group(1) + "+00:00", m.group(2)
        else:
            local = None
    if local is not None:
        offset = _OFFSETS[zone] if zone in _OFFSETS else _offset(zone)
        try:
            value = datetime.fromisoformat(local) - offset if offset is not None else None
        except (ValueError, OverflowError):
            value = None  # feedparser's handlers decide what such a date means
        if value is not None and value.year > 1:
            if value == _EPOCH and epoch_is_unknown:
                return None
            return value
    from feedparser.datetimes import _parse_date  # (imports feedparser: only for rare shapes)

    parsed = _parse_date(text)
    return parsed_utc(_known(parsed) if epoch_is_unknown else parsed)
