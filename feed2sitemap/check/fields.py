"""<lastmod>, <changefreq> and <priority> values, judged by rules.py: the XSD's reading for
errors, the converter's own reading for what it would drop.

The same judge serves XML sitemaps (xml.py) and TSV/CSV/JSON Lines lists (columns.py), with
the same rule ids. A lastmod is judged once per distinct text in a file, as the converter
parses it (most lastmods of a large sitemap repeat); a priority likewise.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from operator import itemgetter
from typing import TYPE_CHECKING

from ..rules import CHANGEFREQ_SET, CHANGEFREQS, parse_lastmod, xsd_lastmod, xsd_priority

if TYPE_CHECKING:
    from .diagnostics import FileCheck

__all__ = ["judge_changefreq", "judge_lastmod", "judge_plain_lastmod", "judge_priority",
           "plain_lastmods_fine", "priority_fine"]

_Verdict = tuple[str, str, str]  # (severity, rule, message); ("", "", "") when all is well
_FINE: _Verdict = ("", "", "")
_REMEMBERED = 1 << 16  # distinct lastmods remembered per file: flat memory on any input


def judge_lastmod(f: FileCheck, text: str, line: int, col: int) -> None:
    verdicts = f.lastmod_verdicts
    verdict = verdicts.get(text)
    if verdict is None:
        if len(verdicts) >= _REMEMBERED:
            verdicts.clear()
        verdict = verdicts[text] = _lastmod_verdict(text, f.now)
    if verdict is not _FINE:
        _report(f, verdict, line, col)


# The two forms nearly every sitemap writes, with every field in range but the day of the month:
# a subset of what the XSD (xsd_lastmod) and the converter (parse_lastmod) both accept. Such a
# value is fine when its day is a real one, with a year past 1000, at least two days ago (in any
# zone of ±14:00 it is then a year >= 1000 in UTC, and not in the future). Its day is judged
# once: days repeat where the times do not. tests/test_check_fast.py holds it to the slow
# verdict.
_PLAIN_TEXT = (r"([1-9]\d{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))"
               r"(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:Z|[+-](?:0\d|1[0-3]):[0-5]\d))?")
PLAIN_LASTMOD = re.compile(_PLAIN_TEXT)
_PLAIN_LASTMODS = re.compile(f"(?:{_PLAIN_TEXT}\n)*")  # many at once, each ending in "\n"
_DAY = itemgetter(slice(0, 10))


def judge_plain_lastmod(f: FileCheck, text: str, line: int, col: int) -> None:
    """judge_lastmod, taking a shortcut for the common forms (the fast path's, xmlfast.py)."""
    m = PLAIN_LASTMOD.fullmatch(text)
    if m is not None:
        days = f.lastmod_days
        day = m.group(1)
        past = days.get(day)
        if past is None:
            if len(days) >= _REMEMBERED:
                days.clear()
            past = days[day] = _long_past(day, f.now)
        if past:
            return
    judge_lastmod(f, text, line, col)


def plain_lastmods_fine(f: FileCheck, texts: list[str]) -> bool:
    """Whether judge_plain_lastmod would find nothing to say of any of ``texts``: all in the
    common forms (one regex over them), every distinct day long past."""
    if _PLAIN_LASTMODS.fullmatch("\n".join(texts) + "\n") is None:
        return False
    days = f.lastmod_days
    for day in set(map(_DAY, texts)):
        past = days.get(day)
        if past is None:
            if len(days) >= _REMEMBERED:
                days.clear()
            past = days[day] = _long_past(day, f.now)
        if not past:
            return False
    return True


def _long_past(day: str, now: datetime) -> bool:
    try:
        d = date.fromisoformat(day)
    except ValueError:  # February 30th: the slow path says so
        return False
    return d.year > 1000 and d < now.date() - timedelta(days=2)


def _report(f: FileCheck, verdict: _Verdict, line: int, col: int) -> None:
    severity, rule, message = verdict
    (f.error if severity == "error" else f.warn)(rule, line, col, message)


def _lastmod_verdict(text: str, now: datetime) -> _Verdict:
    problem, naive, instant = xsd_lastmod(text)
    shown = text.strip()[:40]
    if problem:
        return "error", "lastmod-format", problem
    if naive:
        return "error", "lastmod-timezone", f"{shown!r} has a time without a timezone; " \
               "sitemaps.org requires one (Z or +hh:mm)"
    digits = len(text.strip().lstrip("-").partition("-")[0])
    if digits > 4:  # the XSD takes any year; W3C Datetime, which sitemaps.org names, YYYY
        return "error", "lastmod-format", f"{shown!r} has a year of {digits:,} digits; " \
               "sitemaps.org requires W3C Datetime (YYYY-MM-DD): four"
    try:
        parse_lastmod(text)
    except ValueError as exc:  # valid for the XSD; no date for the converter (a year 0001)
        return "warning", "lastmod-dropped", f"lastmod {shown}: the converter reads no date " \
               f"from it ({exc})"
    if instant is not None and instant > now:
        return "warning", "lastmod-future", f"lastmod {shown} is in the future"
    return _FINE


def judge_changefreq(f: FileCheck, text: str, line: int, col: int, stripped: bool) -> None:
    """``stripped``: a list's column, taken stripped as the converter takes it (an XML value
    is an xsd:string: no white space collapsing). Case matters in both."""
    if (text.strip() if stripped else text) not in CHANGEFREQ_SET:
        spaces = "" if stripped else ", no spaces"
        f.error("changefreq", line, col, f"{text[:40]!r} is not one of "
                f"{', '.join(CHANGEFREQS)} (exactly, lower-case{spaces})")


def judge_priority(f: FileCheck, text: str, line: int, col: int) -> None:
    verdict = _priority_verdict(f, text)
    if verdict is not _FINE:
        _report(f, verdict, line, col)


def priority_fine(f: FileCheck, text: str) -> bool:
    return _priority_verdict(f, text) is _FINE


def _priority_verdict(f: FileCheck, text: str) -> _Verdict:
    verdicts = f.priority_verdicts  # a site uses a handful of priorities
    verdict = verdicts.get(text)
    if verdict is None:
        if len(verdicts) >= _REMEMBERED:
            verdicts.clear()
        problem = xsd_priority(text)
        verdict = verdicts[text] = ("error", "priority", problem) if problem else _FINE
    return verdict
