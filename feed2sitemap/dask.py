"""A finished sitemap set from a Dask bag or dataframe of URLs, in one call (``to_sitemaps``).

Needs the ``dask`` extra. The work is scale/partition.py's, run by Dask's active scheduler:

1. per input partition (task ``feed2sitemap-prepare``): the rows become records, a bad field
   is dropped with a warning, the command's per-URL rules apply, each URL keeps its place;
2. Dask shuffles the rows by a hash of the normalised URL, so the copies of a URL meet;
3. per output partition (``feed2sitemap-write``): the rows are put back in input order, the
   copies merged or deduplicated, and the parts written into a staging directory (with an
   output in a bucket, a staging folder beside it: workers then need no shared disk);
4. here, under the output's lock: the index step (scale/indexing.py).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any, Optional, Union

try:
    import numpy as np
    import pandas as pd
    from dask.base import compute
    from dask.delayed import delayed
except ImportError as exc:  # the optional extra is not installed
    raise ImportError(f"feed2sitemap.dask needs the dask extra: pip install "
                      f"'feed2sitemap[dask]' ({exc})") from None

from .errors import OptionError, OutputError
from .files.naming import split_name
from .files.store import Bucket, is_store
from .model.batch import BATCH, Batch
from .model.filters import Filters
from .model.limits import profile_of
from .model.options import Defaults, Limits, WriteOptions
from .model.record import Lastmod
from .model.report import Report
from .model.scope import base_of
from .pipeline.merging import DEFAULT_MEMORY_LIMIT, MergeCounts
from .pipeline.removals import filter_urls
from .run.converting import Summary
from .scale.indexing import (
    bucket_staging,
    check_index_writing,
    index_output,
    write_index_to,
    write_index_to_bucket,
)
from .scale.partition import PartManifest, check_dedupe_mode, prepare_batches, write_partition
from .scale.rows import partition_batches

__all__ = ["to_sitemaps"]

def _frame(locs: list[str], lastmods: list[str], cfs: list[str], prs: list[float],
           order: Any) -> pd.DataFrame:
    """The rows between the two steps: lastmod as its isoformat() (its own inverse: nothing is
    checked or converted twice), changefreq as text, "" for none; priority NaN for none;
    ``order`` is the row's place in the input."""
    return pd.DataFrame({
        "loc": pd.Series(locs, dtype=object), "lastmod": pd.Series(lastmods, dtype=object),
        "cf": pd.Series(cfs, dtype=object), "pr": np.array(prs, dtype=np.float64),
        "order": np.asarray(order, dtype=np.int64)})


@dataclass
class _Rules:
    """What every task needs to know, picklable."""

    base_url: str
    limits: Limits  # (its profile a Profile, resolved once)
    scope_check: bool
    partitions: int
    directory: str
    stem: str
    writing: WriteOptions  # (gzip and its level resolved from the output's name)
    dedupe_mode: str
    defaults: Defaults
    memory_limit: int
    strict: bool
    filters: Filters


_COUNTERS = ("skipped", "warnings", "hosts_off_scope", "excluded")


@dataclass
class _Counts:
    """A task's report, sent back to the caller: its counters and first messages."""

    counters: dict[str, dict[str, int]]
    messages: list[str]

    @classmethod
    def of(cls, report: Report, messages: list[str]) -> _Counts:
        return cls({c: dict(getattr(report, c)) for c in _COUNTERS}, messages)

    def add_to(self, report: Report) -> None:
        for name, counts in self.counters.items():
            getattr(report, name).update(counts)
        if report.on_message is not None:
            for text in self.messages:
                report.on_message(text)


def _task_report(rules: _Rules) -> tuple[Report, list[str]]:
    messages: list[str] = []
    return Report(strict=rules.strict, on_message=messages.append), messages


def _prepare(part: Any, number: int, rules: _Rules) -> tuple[pd.DataFrame, _Counts]:
    """Step 1, one input partition: rows → checked, normalised rows with their place in the
    input (``order``)."""
    report, messages = _task_report(rules)
    out: tuple[list[Any], ...] = ([], [], [], [], [])
    rows = partition_batches(part, f"<partition {number}>", report)
    batches = prepare_batches(rows, report, base_url=rules.base_url, limits=rules.limits,
                              scope_check=rules.scope_check)
    for b in filter_urls(batches, rules.filters, report) if rules.filters else batches:
        _append(out, b)
    locs, lastmods, cfs, prs, kept = out
    # a row's place: its input partition, then its line in it
    order = np.asarray(kept, dtype=np.int64) + (number << 40)
    return _frame(locs, lastmods, cfs, prs, order), _Counts.of(report, messages)


def _append(out: tuple[list[Any], ...], b: Batch) -> None:
    locs, lastmods, cfs, prs, lines = out
    n = len(b.locs)
    locs += b.locs
    assert b.lines is not None
    lines += b.lines
    lastmods += [""] * n if b.lastmods is None else [lm.isoformat() if lm else ""
                                                      for lm in b.lastmods]
    cfs += [""] * n if b.changefreqs is None else [v or "" for v in b.changefreqs]
    prs += [math.nan] * n if b.priorities is None else [math.nan if v is None else v
                                                        for v in b.priorities]


def _lastmod(text: str) -> Optional[Lastmod]:
    if not text:
        return None
    return date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)


def _batches(frame: pd.DataFrame, source: str) -> Iterable[Batch]:
    """Step 3's input: the shuffled rows, back in input order, as batches."""
    frame = frame.sort_values("order", kind="stable")
    locs, lastmods, cfs, prs = (frame[c].tolist() for c in ("loc", "lastmod", "cf", "pr"))
    has_lm, has_cf, has_pr = any(lastmods), any(cfs), not all(map(math.isnan, prs))
    for a in range(0, len(locs), BATCH):
        b = a + BATCH
        yield Batch._trusted(
            locs[a:b], source, None,
            [_lastmod(t) for t in lastmods[a:b]] if has_lm else None,
            [c or None for c in cfs[a:b]] if has_cf else None,
            [None if math.isnan(p) else p for p in prs[a:b]] if has_pr else None)


def _write(frame: pd.DataFrame, number: int, rules: _Rules
           ) -> tuple[list[PartManifest], _Counts, MergeCounts]:
    """Step 3, one output partition: merge its copies and write its parts."""
    report, messages = _task_report(rules)
    counts = MergeCounts()
    manifests = write_partition(
        _batches(frame, f"<partition {number}>"), rules.directory, rules.stem, number,
        writing=rules.writing, limits=rules.limits, defaults=rules.defaults,
        dedupe_mode=rules.dedupe_mode, report=report, counts=counts,
        memory_limit=rules.memory_limit)
    return manifests, _Counts.of(report, messages), counts


def to_sitemaps(data: Any, output: Union[str, os.PathLike[str]], *, base_url: str,
                partitions: Optional[int] = None, dedupe_mode: str = "merge",
                scope_check: bool = True, strict: bool = False,
                limits: Limits = Limits(), defaults: Defaults = Defaults(),
                writing: WriteOptions = WriteOptions(), report: Optional[Report] = None,
                staging: Optional[str] = None,
                memory_limit: int = DEFAULT_MEMORY_LIMIT,
                filters: Filters = Filters()) -> Summary:
    """Write the URLs of a Dask bag or dataframe as sitemaps with an index at ``output``.

    ``data``: a dataframe with a column ``loc`` (or ``url``) and optional ``lastmod`` (W3C
    text, dates or datetimes; a datetime without a zone is taken as UTC), ``changefreq`` and
    ``priority``; or a bag of URLs, of (loc, lastmod, changefreq, priority) tuples, or of dicts
    with those keys. ``output``: the index's path or s3:// URL (``.xml`` or ``.xml.gz``); the
    parts, STEM-PARTITION-K.xml[.gz], lie beside it, each listed as ``base_url`` + its name.

    The rules and option groups are ``convert``'s (of ``writing``: ``gzip_level``, ``atomic``,
    ``lock_timeout``, ``cache_control``); ``dedupe_mode`` "merge" (newest lastmod wins),
    "first" or "none". ``partitions``: the output partitions (default: the input's), each
    merging its URLs in memory (about 200 bytes a URL, then temporary files past
    ``memory_limit``); it fixes the part names, so keep it for reruns to find their parts
    unchanged. Returns the command's Summary (``summary.merge`` summed over partitions). A local
    output's directory is locked from start to end, a bucket's output only for the index step
    (a lock object held through a long job would be taken for a dead run's). On failure
    nothing there changes.
    """
    check_dedupe_mode(dedupe_mode)
    prof, directory = profile_of(limits.profile), base_of(base_url)[0]
    output = os.fspath(output)
    name = os.path.basename(output)
    stem, ext = split_name(name)
    if ext not in (".xml", ".xml.gz"):
        raise OptionError(f"{output}: must be an XML sitemap index, named .xml or .xml.gz",
                          parameter="output")
    level = check_index_writing(writing, output)
    report = report if report is not None else Report(strict=strict)
    inputs = data.to_delayed()
    n_out = len(inputs) if partitions is None else partitions
    if n_out < 1:
        raise OptionError("must be 1 or more", parameter="partitions")

    rules = _Rules(directory, replace(limits, profile=prof), scope_check, n_out, "", stem,
                   replace(writing, gzip=ext.endswith(".gz"), gzip_level=level), dedupe_mode,
                   defaults, memory_limit, report.strict, filters)
    if is_store(output):
        if staging is not None:
            raise OptionError("the parts are staged in the bucket, beside the output",
                              parameter="staging")
        bucket = Bucket(output, writing.cache_control)
        with bucket_staging(bucket) as stage:
            listed, merges = _run(inputs, replace(rules, directory=stage), report)
            summary = write_index_to_bucket(bucket, listed, stage, prof, report, level,
                                            directory, writing.lock_timeout)
    else:
        with index_output(output, directory, writing) as (out, beside, _), \
                _staging(staging, beside, name, writing.atomic) as stage:
            listed, merges = _run(inputs, replace(rules, directory=stage), report)
            summary = write_index_to(out, listed, stage, prof, report, level, directory)
    summary.merge = _sum_merge(merges) if dedupe_mode == "merge" else None
    return summary


def _run(inputs: list[Any], rules: _Rules, report: Report
         ) -> tuple[list[PartManifest], list[MergeCounts]]:
    """Build the graph (prepare → shuffle → write) and compute it in one go: the parts written,
    and each partition's merge counts; the tasks' reports are added to ``report``."""
    import dask.dataframe as dd

    run = uuid.uuid4().hex
    prepared = [delayed(_prepare, nout=2, pure=False)(
        part, i, rules, dask_key_name=f"feed2sitemap-prepare-{run}-{i}")
        for i, part in enumerate(inputs)]
    meta = _frame([], [], [], [], [])
    rows = dd.from_delayed([p[0] for p in prepared], meta=meta, verify_meta=False)
    # Dask hashes each normalised URL (pandas' hash, the same in every process) to choose its
    # partition: every copy of a URL lands in one
    shuffled = rows.shuffle(on="loc", npartitions=rules.partitions)
    written = [delayed(_write, nout=3, pure=False)(
        part, i, rules, dask_key_name=f"feed2sitemap-write-{run}-{i}")
        for i, part in enumerate(shuffled.to_delayed())]
    out, prep_counts = compute(written, [p[1] for p in prepared])
    for counts in [*prep_counts, *(w[1] for w in out)]:
        counts.add_to(report)
    return [m for w in out for m in w[0]], [w[2] for w in out]


def _sum_merge(counts: list[MergeCounts]) -> MergeCounts:
    return MergeCounts(**{f: sum(getattr(c, f) for c in counts)
                          for f in ("urls", "added", "updated", "copies", "spilled")})


@contextlib.contextmanager
def _staging(staging: Optional[str], directory: str, name: str, atomic: bool) -> Iterator[str]:
    """A new directory for the workers' parts: beside the output (so parts are renamed into
    place) unless ``staging`` says where, or, without ``atomic``, in the system's temporary
    directory. Removed at the end, whatever happened. Staging directories of killed runs for
    the same output are removed first: the directory is locked, so no run is using them."""
    where = staging or (directory if atomic else tempfile.gettempdir())
    prefix = f".{name}.parts."
    if where == directory:
        pattern = re.compile(re.escape(prefix) + r"[a-z0-9_]{8}")
        for entry in os.listdir(directory):
            path = os.path.join(directory, entry)
            if pattern.fullmatch(entry) and os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
    try:
        stage = tempfile.mkdtemp(prefix=prefix, dir=where)
    except OSError as exc:
        raise OutputError(f"cannot make a staging directory in {where}: "
                          f"{exc.strerror}") from None
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
