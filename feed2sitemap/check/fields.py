"""<lastmod>, <changefreq> and <priority> values, judged by rules.py: the XSD's reading for
errors, the converter's own reading for what it would drop.

The same judge serves XML sitemaps (xml.py) and TSV/CSV/JSON Lines lists (lists.py), with
the same rule ids. A lastmod is judged once per distinct text in a file, as the converter
parses it (most lastmods of a large sitemap repeat); a priority likewise.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from ..model.rules import CHANGEFREQ_SET, CHANGEFREQS, parse_lastmod, xsd_lastmod, xsd_priority

if TYPE_CHECKING:
    from .diagnostics import FileCheck

__all__ = ["judge_changefreq", "judge_lastmod", "judge_priority", "priority_fine"]

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
