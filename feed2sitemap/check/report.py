"""report(): a picture of a sitemap set, made in one check run (``iter_check`` with ``follow``),
with the facts the checks gather on the way (facts.py). Summaries only: its size does not grow
with the URLs.

``SiteReport.as_dict()`` is the JSON form (``feed2sitemap report --format json``); its keys:

- ``profile``: ``name``, ``max_urls``, ``max_bytes``, ``max_sitemaps`` (the limits per file);
- ``urls``, ``sitemaps`` (entries of indexes), ``errors``, ``warnings``, ``notes``: the run's
  totals, as ``check`` counts them in its summary line;
- ``files``: one object per file in the order read (an index before its parts): ``name``,
  ``listed_in`` (the index that listed it, or null), ``kind`` ("index", "urlset", a list or
  feed format, "unknown" or "unreadable"), ``entries``, ``bytes`` (uncompressed, XML only, else
  null), ``stored`` (bytes on disk or as sent), ``gzip``, ``errors``, ``warnings``, ``http``
  (null, or ``url``, ``status``, ``content_length``, ``etag``, ``last_modified``,
  ``content_type``, ``content_encoding``);
- ``lastmods``: ``dated`` and ``undated`` (URLs with and without a lastmod), ``unit`` ("day",
  "month" or "year"), ``bars`` (a list of [label, count], gaps filled with 0), ``unparsed``
  (lastmods with no readable day) and ``other`` (days past the MAX_DAYS kept);
- ``extensions``: per kind (images, videos, news, alternates) ``urls`` (URLs with some) and
  ``items``;
- ``hreflang``: ``links`` (alternates to another page, up to HreflangLinks.limit, kept for
  reciprocity), ``reciprocal``, ``not_reciprocal`` (the target, read in the run, does not link
  back), ``outside`` (the target is in no file read), ``complete`` (false past the limit);
- ``problems``: per rule, as ``check --format json`` lists them: ``severity``, ``rule``,
  ``count`` (the diagnostics listed: past 50 of a rule in a file check counts them only),
  ``total`` (all of them, as check's summary counts them), and the first one's ``file``,
  ``line``, ``column``, ``message``;
- ``robots``: null, or ``file`` (the robots.txt) and ``listed`` ({name: true/false} for each
  file named by the user).
"""

from __future__ import annotations

import itertools
import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ..model.limits import Profile, profile_of
from .diagnostics import CheckStats, Diagnostic
from .facts import EXTENSION_KINDS, Facts, FileFacts
from .run import Source, follow_order, hreflang_diagnostics, iter_check
from .site import load_robots

__all__ = ["SiteReport", "report"]

MAX_BARS = 400  # gaps between bars are filled up to this many bars
_SEVERITIES = {"error": 0, "warning": 1, "info": 2}


@dataclass
class RuleCount:
    severity: str
    rule: str
    count: int  # the diagnostics listed (as check --format json lists them)
    first: Diagnostic
    total: int = 0  # every problem of the rule, listed or only counted


@dataclass
class SiteReport:
    """What one report run found (see the module's docstring for the JSON form)."""

    profile: Profile
    stats: CheckStats
    files: list[FileFacts]
    facts: Facts
    hreflang: dict[str, Any]
    problems: list[RuleCount]
    robots: dict[str, Any] | None = None

    def lastmods(self) -> dict[str, Any]:
        """The lastmod histogram: by day over a short span, by month, or by year."""
        facts = self.facts
        days: dict[date, int] = {}
        unparsed = 0
        for text, n in facts.days.items():
            try:
                d = date.fromisoformat(text)
            except ValueError:
                unparsed += n  # (a year or a month alone, or a bad value: check says which)
                continue
            days[d] = n
        unit, bars = _bars(days)
        return {"dated": facts.dated, "undated": max(self.stats.urls - facts.dated, 0),
                "unit": unit, "bars": bars, "unparsed": unparsed, "other": facts.other_days}

    def as_dict(self) -> dict[str, Any]:
        stats, p = self.stats, self.profile
        return {
            "profile": {"name": p.name, "max_urls": p.max_urls, "max_bytes": p.max_bytes,
                        "max_sitemaps": p.max_sitemaps},
            "urls": stats.urls, "sitemaps": stats.sitemaps, "errors": stats.errors,
            "warnings": stats.warnings, "notes": stats.notes,
            "files": [vars(f) for f in self.files],
            "lastmods": self.lastmods(),
            "extensions": {k: {"urls": self.facts.with_ext[k], "items": self.facts.items[k]}
                           for k in EXTENSION_KINDS},
            "hreflang": self.hreflang,
            "problems": [{"severity": r.severity, "rule": r.rule, "count": r.count,
                          "total": r.total, "file": r.first.file, "line": r.first.line,
                          "column": r.first.column, "message": r.first.message}
                         for r in self.problems],
            "robots": self.robots,
        }


def report(sources: Sequence[Source], *, profile: str | Profile = "sitemaps",
           base_url: str | None = None, follow: bool = False, robots: str | None = None,
           now: datetime | None = None,
           progress: Callable[[CheckStats], None] | None = None) -> SiteReport:
    """Check ``sources`` (paths, http(s) URLs or binary streams) as ``check`` does, with
    ``follow`` the parts of their indexes, and sum up what was read. ``robots``: a robots.txt
    (path or URL) whose Sitemap: lines should list the sources. Raises InputError when the
    robots.txt cannot be read; a sitemap that cannot be read is a problem in the report."""
    facts = Facts()
    stats = CheckStats(progress=progress, robots=None if robots is None else
                       load_robots(robots), facts=facts)
    names = [s for s in sources if isinstance(s, (str, os.PathLike))]
    if follow and len(names) == len(sources):
        sources = follow_order([os.fspath(s) for s in names], profile=profile,
                               base_url=base_url)
    runs = [iter_check(s, profile=profile, base_url=base_url, follow=follow, now=now,
                       stats=stats) for s in sources]
    rules: dict[tuple[str, str], RuleCount] = {}
    unlisted: set[str] = set()
    for d in itertools.chain(*runs, hreflang_diagnostics(stats)):
        r = rules.get((d.severity, d.rule))
        if r is None:
            rules[d.severity, d.rule] = RuleCount(d.severity, d.rule, 1, d)
        else:
            r.count += 1
        if d.rule == "robots-unlisted":
            unlisted.add(d.file)
    hreflang = _reciprocity(stats)
    for r in rules.values():
        # (robots-unlisted and the like are never capped: listed = all)
        r.total = max(r.count, facts.problems[r.severity, r.rule])
        if r.rule == "hreflang-reciprocal":
            r.total = hreflang["not_reciprocal"]
    problems = sorted(rules.values(), key=lambda r: (_SEVERITIES.get(r.severity, 3),
                                                     -r.total, r.rule))
    listed = None
    if stats.robots is not None:
        tops = [f.name for f in facts.files if f.listed_in is None]
        listed = {"file": stats.robots.where, "listed": {n: n not in unlisted for n in tops}}
    return SiteReport(profile_of(profile), stats, facts.files, facts, hreflang, problems, listed)


def _reciprocity(stats: CheckStats) -> dict[str, Any]:
    """The hreflang links counted as hreflang_diagnostics judges them."""
    links = stats.hreflang
    back = not_back = outside = 0
    for page, target, *_ in links.links:
        if page in links.pages.get(target, ()):
            back += 1
        elif stats.seen.place(target) is None:
            outside += 1
        else:
            not_back += 1
    return {"links": len(links.links), "reciprocal": back, "not_reciprocal": not_back,
            "outside": outside, "complete": not links.full}


def _bars(days: dict[date, int]) -> tuple[str, list[list[Any]]]:
    """[label, count] bars over the span of ``days``: by day up to two months, by month up to
    twenty years, else by year; the gaps filled with zero bars up to MAX_BARS."""
    if not days:
        return "month", []
    first, last = min(days), max(days)
    if (last - first).days <= 62:
        unit = "day"
    elif _index("month", last) - _index("month", first) < 240:
        unit = "month"
    else:
        unit = "year"
    counts: Counter[int] = Counter()
    for d, n in days.items():
        counts[_index(unit, d)] += n
    low, high = _index(unit, first), _index(unit, last)
    span = range(low, high + 1) if high - low < MAX_BARS else sorted(counts)
    return unit, [[_label(unit, i), counts[i]] for i in span]


def _index(unit: str, d: date) -> int:
    """The number of ``d``'s bar: its day, month or year counted from year 1."""
    if unit == "day":
        return d.toordinal()
    return d.year * 12 + d.month - 1 if unit == "month" else d.year


def _label(unit: str, i: int) -> str:
    if unit == "day":
        return date.fromordinal(i).isoformat()
    return f"{i // 12:04d}-{i % 12 + 1:02d}" if unit == "month" else f"{i:04d}"
