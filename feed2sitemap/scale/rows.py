"""The rows of a Dask partition (a pandas frame, or a bag's items) as a checked Batch: the input
side of feed2sitemap.dask's prepare step."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timezone
from typing import Any, Optional

import pandas as pd

from ..errors import OptionError
from ..model.batch import BATCH, Batch
from ..model.record import Lastmod, parse_changefreq, parse_lastmod
from ..model.report import Report
from ..model.rules import Fixed

__all__ = ["partition_batches"]

_COLUMNS = ("loc", "lastmod", "changefreq", "priority")


def partition_batches(part: Any, source: str, report: Report) -> Iterator[Batch]:
    """An input partition's rows in batches of BATCH, as readers give them: a URL that is not a
    string is skipped, a bad field dropped (each reported); a row's line is its place in the
    partition."""
    locs, cols = _rows(part)
    lines: list[int] | range = range(1, len(locs) + 1)
    if set(map(type, locs)) - {str}:  # (in C: the usual column holds nothing else)
        keep = []
        for i, loc in enumerate(locs):
            if isinstance(loc, str):
                keep.append(i)
            else:
                report.skip("invalid URL", source, i + 1, f"not a URL: {str(loc)[:80]!r}")
        locs = [locs[i] for i in keep]
        cols = {c: [v[i] for i in keep] for c, v in cols.items()}
        lines = [i + 1 for i in keep]
    for a in range(0, len(locs), BATCH):
        cut = slice(a, a + BATCH)
        yield _fields(Batch._trusted(locs[cut], source, lines[cut]),
                      {c: v[cut] for c, v in cols.items()}, report)


def _value(v: Any) -> Any:
    """None for a missing value of any column type (None, NaN, NaT, pd.NA)."""
    if v is None:
        return None
    try:
        return None if pd.isna(v) else v
    except (TypeError, ValueError):  # a list or an array: not a missing value
        return v


def _lastmod(v: Any) -> Optional[Lastmod]:
    """A column's lastmod: W3C text, a date, or a datetime (one without a zone is UTC, as a
    data lake's timestamp columns are)."""
    if isinstance(v, str):
        return parse_lastmod(v)
    if isinstance(v, pd.Timestamp):
        v = v.to_pydatetime()
    if isinstance(v, datetime):
        return v if v.utcoffset() is not None else v.replace(tzinfo=timezone.utc)
    if isinstance(v, date):
        return v
    raise ValueError(f"lastmod {str(v)[:40]!r} is neither W3C text, a date nor a datetime")


def _rows(part: Any) -> tuple[list[str], dict[str, list[Any]]]:
    """An input partition's URLs and optional columns, from a pandas frame (columns loc or
    url, lastmod, changefreq, priority) or a list of bag items (a URL, a tuple in that order,
    or a dict with those keys)."""
    if isinstance(part, pd.DataFrame):
        url = "loc" if "loc" in part.columns else "url"
        if url not in part.columns:
            raise OptionError("the dataframe needs a column 'loc' (or 'url') of URLs")
        cols = {c: part[c].tolist() for c in _COLUMNS[1:] if c in part.columns}
        return part[url].tolist(), cols
    items = list(part)
    if all(isinstance(i, str) for i in items):
        return items, {}
    locs: list[str] = []
    columns: dict[str, list[Any]] = {c: [] for c in _COLUMNS[1:]}
    for item in items:
        if isinstance(item, dict):
            item = tuple(item.get(c, item.get("url") if c == "loc" else None) for c in _COLUMNS)
        elif not isinstance(item, (tuple, list)):  # a URL alone (or something else, skipped)
            item = (item,)
        item = tuple(item[:4]) + (None,) * (4 - len(item))
        locs.append(item[0])
        for c, v in zip(_COLUMNS[1:], item[1:4], strict=True):
            columns[c].append(v)
    return locs, columns


def _fields(batch: Batch, cols: dict[str, list[Any]], report: Report) -> Batch:
    """The batch with its optional columns, each value checked; a bad one is dropped with a
    warning and the URL kept, as the readers do."""
    n = len(batch.locs)
    lastmods: list[Any] = [None] * n
    changefreqs: list[Any] = [None] * n
    priorities: list[Any] = [None] * n
    parse: Any
    for col, out, parse, kind in (("lastmod", lastmods, _lastmod, "bad lastmod"),
                                  ("changefreq", changefreqs, _changefreq, "bad changefreq"),
                                  ("priority", priorities, _priority, "bad priority")):
        values = cols.get(col)
        if values is None:
            continue
        for i, v in enumerate(values):
            v = _value(v)
            if v is None:
                continue
            try:
                out[i] = parse(v)
            except Fixed as exc:
                out[i] = exc.value
                report.warn(kind, *batch.where(i), str(exc))
            except (ValueError, TypeError) as exc:
                report.warn(kind, *batch.where(i), f"{exc}; {col} dropped")
    return Batch._trusted(batch.locs, batch.source, batch.lines,
                          lastmods if "lastmod" in cols else None,
                          changefreqs if "changefreq" in cols else None,
                          priorities if "priority" in cols else None)


def _changefreq(v: Any) -> str:
    if not isinstance(v, str):  # (a number in a changefreq column: no text to parse)
        raise ValueError(f"changefreq {str(v)[:40]!r} is not text")
    return parse_changefreq(v)


def _priority(v: Any) -> float:
    p = float(v)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"priority {v!r} is not between 0.0 and 1.0")
    return p
