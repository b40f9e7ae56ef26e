"""Rows of raw field values → a Batch of validated ones, for the URL lists with columns.

The grammars are model/record.py's, as for XML sitemaps: a bad value is dropped with a warning
and the URL kept (the fields are hints; the URL is the entry).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

from ..backends import fast
from ..model.batch import Batch
from ..model.record import (
    parse_changefreq,
    parse_common_lastmods,
    parse_lastmod,
    parse_priority,
)
from ..model.report import Report
from ..model.rules import (
    COMMON_CHANGEFREQS,
    COMMON_PRIORITIES,
    Fixed,
    canonical_lastmod,
)

__all__ = ["COLUMNS", "COMMON_CHANGEFREQS_BULK", "COMMON_PRIORITIES_BULK", "Problem", "Rows",
           "lookup", "parse_column", "rows_to_batches"]

# The fields of a URL list with columns, in the order a TSV list without a header gives them
COLUMNS = ("loc", "lastmod", "changefreq", "priority")

Problem = tuple[int, str, str]  # (row, field name or "" for the row itself, message)


@dataclass
class Rows:
    """A block of rows, column by column, as the file spelled them (str or None).

    ``problems`` may already hold the reader's findings: a row with field "" is no entry at all
    (it is skipped with that message), "field" names a field that is not read.
    """

    lines: Sequence[int]
    locs: list[Optional[str]]
    lastmods: list[Optional[str]]
    changefreqs: list[Optional[str]]
    priorities: list[Optional[str]]
    sitemaps: Optional[list[bool]] = None
    problems: list[Problem] = field(default_factory=list)
    extensions: Optional[list[Any]] = None  # JSON Lines rows may carry them (Extensions)


def parse_column(raw: Sequence[Optional[str]], parse: Callable[[str], Any], what: str,
                 problems: list[Problem],
                 bulk: Optional[Callable[[Sequence[Optional[str]]], Mapping[str, Any]]] = None,
                 whole: Optional[Callable[[Sequence[Optional[str]]], Optional[list[Any]]]] = None
                 ) -> Optional[list[Any]]:
    """Parse one column (None stays None); a value ``parse`` refuses becomes None and a
    problem. None when no row has a valid value.

    ``whole`` gives the whole column at once when it reads every row (as ``parse`` would),
    else None; ``bulk`` gives the values of the texts it can, each other distinct text is
    parsed once. The reference mode parses each row by itself (_parse_each).
    """
    if not fast("columns parsed at once"):
        return _parse_each(raw, parse, what, problems)
    if not raw or raw[0] is None and raw.count(None) == len(raw):  # (a field no row has)
        return None
    column = None if whole is None else whole(raw)
    if column is not None:
        return column
    given: Mapping[str, Any] = {} if bulk is None else bulk(raw)
    if given:
        try:  # the usual column: a text in every row, each one bulk knows
            return list(map(given.__getitem__, raw))  # type: ignore[arg-type]
        except KeyError:
            pass  # a row without a text, or a text bulk does not know: parsed below
    values: dict[Optional[str], Any] = {None: None}
    values.update(given)
    bad = []
    for text in set(raw).difference(values):
        try:
            values[text] = parse(text)  # type: ignore[arg-type]  # (None is in values)
        except ValueError as exc:
            values[text] = getattr(exc, "value", None)
            bad.append((text, exc))
    for text, problem in bad:
        problems.extend((i, what, _message(what, problem))
                        for i, value in enumerate(raw) if value == text)
    column = list(map(values.__getitem__, raw))
    return column if column.count(None) < len(column) else None


def lookup(values: Mapping[str, Any]) -> Callable[[Sequence[Optional[str]]], Mapping[str, Any]]:
    """A ``bulk`` for parse_column that gives the ``values`` it holds (the common texts)."""
    return lambda texts: values


def _parse_each(raw: Sequence[Optional[str]], parse: Callable[[str], Any], what: str,
                problems: list[Problem]) -> Optional[list[Any]]:
    """parse_column's plain twin: one row at a time."""
    column: list[Any] = []
    for i, text in enumerate(raw):
        value = None
        if text is not None:
            try:
                value = parse(text)
            except ValueError as exc:
                value = getattr(exc, "value", None)
                problems.append((i, what, _message(what, exc)))
        column.append(value)
    return column if any(v is not None for v in column) else None


def _message(what: str, problem: ValueError) -> str:
    """A problem's warning: the value was dropped, or (rules.Fixed) read as the message says."""
    return str(problem) if isinstance(problem, Fixed) else f"{what} dropped: {problem}"


def canonical_texts(raw: list[Optional[str]], parsed: list[Any]) -> Optional[list[Optional[str]]]:
    """Per row, the lastmod's text if it is the very text the writers would make of it
    (rules.canonical_lastmod), else None; None when no row's is.

    The usual column is proved at once: every text was accepted, is ASCII and either 10
    characters long (a date) or 25 ending "+00:00" and not at hour 24 (no other accepted text
    has those lengths).
    """
    distinct = set(raw)
    distinct.discard(None)
    if not distinct:
        return None
    valid = parsed.count(None) == raw.count(None)
    joined = "\n".join(distinct)  # type: ignore[arg-type]
    sizes = set(map(len, distinct))  # type: ignore[arg-type]
    # with lengths 10 and 25 only, the 25s are (characters - 10 per text) / 15
    times = (len(joined) - (len(distinct) - 1) - 10 * len(distinct)) // 15
    if valid and joined.isascii() and sizes <= {10, 25} and "T24" not in joined and \
            joined.count("+00:00") == times:
        return raw
    canonical = canonical_lastmod().fullmatch
    ok = {t for t in distinct if canonical(t)}  # type: ignore[arg-type]
    if not ok:
        return None
    return [t if t in ok and v is not None else None for t, v in zip(raw, parsed, strict=True)]


COMMON_CHANGEFREQS_BULK = lookup(COMMON_CHANGEFREQS)
COMMON_PRIORITIES_BULK = lookup(COMMON_PRIORITIES)


def rows_to_batches(rows: Rows, source: str, report: Report) -> list[Batch]:
    """The rows' entries as batches (one per run of pages or of sitemaps), after reporting
    every problem in row order: a row without a loc is skipped, a bad field dropped."""
    problems = list(rows.problems)
    raw_locs = rows.locs
    locs = (list(map(str.strip, raw_locs)) if None not in raw_locs  # type: ignore[arg-type]
            else [loc.strip() if loc is not None else "" for loc in raw_locs])
    skipped = {i for i, what, _ in problems if not what}
    missing = ([i for i, loc in enumerate(locs) if not loc and i not in skipped]
               if "" in locs else [])
    problems += [(i, "", "no loc (the URL) on this line") for i in missing]
    lastmods = parse_column(rows.lastmods, parse_lastmod, "lastmod", problems,
                            parse_common_lastmods)
    texts = canonical_texts(rows.lastmods, lastmods) \
        if lastmods is not None and fast("lastmod texts") else None
    changefreqs = parse_column(rows.changefreqs, parse_changefreq, "changefreq", problems,
                               COMMON_CHANGEFREQS_BULK)
    priorities = parse_column(rows.priorities, parse_priority, "priority", problems,
                              COMMON_PRIORITIES_BULK)
    drop = sorted(skipped.union(missing))
    for i, what, message in sorted(problems):
        if what:
            if i not in skipped and i not in missing:
                report.warn("unknown field" if what == "field" else f"bad {what}", source,
                            rows.lines[i], message)
        elif i in missing:
            report.skip("no loc", source, rows.lines[i], message)
        else:
            report.skip("bad line", source, rows.lines[i], message)
    extensions = None
    if rows.extensions is not None:
        from .urlext import held_to_rules  # (only rows with extensions)

        extensions = held_to_rules(rows.extensions, locs, rows.lines, source, report)
    batch = Batch._trusted(locs, source, rows.lines, lastmods, changefreqs, priorities,
                           extensions=extensions)
    batch.lastmod_texts = texts
    if rows.sitemaps is None or not any(rows.sitemaps):
        rest = batch.without(drop)
        return [rest] if rest.locs else []
    # Index entries ("sitemap": true) and pages do not share a batch: one per kind.
    gone = set(drop)
    out = []
    for kind in (False, True):
        part = batch.without([i for i, s in enumerate(rows.sitemaps) if s != kind or i in gone])
        if part.locs:
            part.is_sitemap = kind
            out.append(part)
    return out
