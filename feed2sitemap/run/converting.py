"""convert(): the one function behind both the command and the library.

The data path, in order (with batches as the contract, see model/batch.py):

    bytes ─▶ reader (reading.py) ─▶ batches ─▶ normalize ─▶ check_length ─▶ within_scope
          ─▶ filter_urls ─▶ merge (─▶ guarded) | dedupe ─▶ apply_defaults ─▶ format (writers/)
          ─▶ files (files/split.py, files/outputs.py) ─▶ publish (publish.py)

Each step is one function over batches (pipeline/steps.py); what a step skips is counted in the
Report. Options come grouped (model/options.py) and are checked before any input is read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import fields, replace
from datetime import datetime, timezone
from typing import NamedTuple, Optional, Union

from ..errors import OptionError, OutputError
from ..files.naming import split_name
from ..files.outputs import OutputSet
from ..files.safety import find_base, real_target, replace_file
from ..files.store import is_store
from ..model.batch import Batch
from ..model.filters import MAX_REMOVALS, Filters, Threshold
from ..model.limits import Profile, profile_of
from ..model.options import (
    Channel,
    Defaults,
    Limits,
    NewsSitemap,
    ReadOptions,
    SiteOptions,
    WriteOptions,
)
from ..model.report import Progress, Report
from ..model.scope import Scope, base_of
from ..model.urls import normalize_url
from ..pipeline.merging import MergeCounts
from ..pipeline.removals import Pruner, Removals, counted, filter_urls, guarded
from ..pipeline.steps import (
    apply_defaults,
    check_length,
    dedupe,
    future_lastmods,
    in_input_order,
    merge,
    news_only,
    normalize,
    within_scope,
)
from ..readers.detect import Source
from ..web.fetch import is_url
from ..writers import Format
from .publish import Changes, Publish, check_publish, robots, submit
from .reading import Reading, Web, source_name
from .writing import (
    Destination,
    Summary,
    check_groups,
    dest_path,
    open_output,
    settings_of,
    write_to,
)

__all__ = ["Publish", "Summary", "Web", "convert"]

DEDUPE_MODES = ("auto", "merge", "first", "none")


def convert(inputs: Sequence[Source], output: Destination, *,
            base_url: Optional[str] = None, scope_check: bool = True,
            dedupe_mode: str = "auto", strict: bool = False,
            report: Optional[Report] = None, progress: Optional[Progress] = None,
            reading: ReadOptions = ReadOptions(), writing: WriteOptions = WriteOptions(),
            limits: Limits = Limits(), defaults: Defaults = Defaults(),
            channel: Channel = Channel(), web: Web = Web(),
            publish: Publish = Publish(), news: Optional[NewsSitemap] = None,
            filters: Filters = Filters(), prune: bool = False,
            max_removals: Union[str, Threshold] = MAX_REMOVALS) -> Summary:
    """Read every input, check and normalise the URLs, and write sitemap file(s).

    ``inputs``: paths, http(s) URLs or binary streams (one str is one input). ``output``: a
    path (written atomically: temporaries renamed when all succeeded) or a binary stream.
    Raises a Feed2SitemapError subclass for bad data or options (OptionError, a ValueError,
    for a bad parameter); problems that only skip a record are counted in ``summary.report``
    (errors with ``strict``). When an input is the output file itself, the run updates it in
    place: an index there stands for its parts, and a file not there yet reads as empty.

    ``dedupe_mode``: "merge" (newest lastmod wins; ``summary.merge`` compares with the output
    when it is an input too), "first" (one streaming pass), "none", or "auto": merge when there
    are several inputs, else first. ``base_url``, the output's directory, is the scope and the
    base of relative links (without it, the first input that states its site gives the scope;
    ``scope_check`` False keeps URLs of other sites). In an update in place, ``prune`` removes
    the earlier output's URLs no other input lists, and a run that would take more than
    ``max_removals`` (a count, or "P%") of them out raises RemovalsRefused before writing.
    """
    call = dict(locals())  # (the call as made: a run to object storage repeats it, stored.py)
    inputs = _inputs(inputs)
    if is_store(dest_path(output)):  # fetched, updated here, and published
        from .stored import to_store

        return to_store(convert, {**call, "inputs": inputs})
    report = report if report is not None else Report(strict=strict)
    # Everything that can be wrong with the options is found before any input is read.
    check_groups(report=(report, Report), progress=(progress, (Progress, type(None))),
                 reading=(reading, ReadOptions), writing=(writing, WriteOptions),
                 limits=(limits, Limits), defaults=(defaults, Defaults),
                 channel=(channel, Channel), web=(web, Web), publish=(publish, Publish),
                 news=(news, (NewsSitemap, type(None))), filters=(filters, Filters))
    plan = _plan(inputs, output, base_url, scope_check, dedupe_mode, report, reading, writing,
                 limits, publish, news, filters, prune, max_removals)
    out = open_output(output, progress, plan.base_url, writing, publish.dry_run)
    changes = Changes() if publish.indexnow is not None else None
    try:
        summary = _run(plan, out, inputs, report, progress, reading, writing, defaults, channel,
                       web, news, changes)
        if publish.robots is not None and not publish.dry_run:
            assert plan.out_path is not None and plan.base_url is not None  # (check_publish)
            summary.robots = robots(publish.robots, summary, plan.out_path, plan.base_url,
                                    writing.lock_timeout)
    finally:
        report.release(stop=True)  # (a failed write leaves the data path's step suspended)
        out.close()
    if changes is not None and publish.indexnow is not None:
        assert plan.out_path is not None  # (check_publish: the output is among the inputs)
        summary.indexnow = submit(publish.indexnow, changes, plan.out_path, web.cache_dir,
                                  publish.dry_run, summary)
    return summary


class _Plan(NamedTuple):
    """The run's options, checked, and what follows from them."""

    base_url: Optional[str]
    scope: Optional[Scope]
    scope_check: bool
    input_url: Optional[str]
    out_path: Optional[str]
    own_input: Optional[str]  # the input that is the output itself (an update in place)
    fmt: Format
    gzip_level: Optional[int]
    limits: Limits
    profile: Profile
    dedupe_mode: str
    filters: Filters
    prune: bool
    max_removals: Threshold


def _plan(inputs: list[Source], output: Destination, base_url: Optional[str],
          scope_check: bool, dedupe_mode: str, report: Report, reading: ReadOptions,
          writing: WriteOptions, limits: Limits, publish: Publish, news: Optional[NewsSitemap],
          filters: Filters, prune: bool, max_removals: Union[str, Threshold]) -> _Plan:
    if news is not None:  # Google News: at most 1,000 <news:news> a sitemap
        from ..extensions.rules import NEWS_PER_FILE

        limits = replace(limits, max_urls=min(limits.max_urls or NEWS_PER_FILE, NEWS_PER_FILE))
    if publish.indexnow is not None and dedupe_mode == "auto":
        dedupe_mode = "merge"  # what changed is what merging with the old version tells
    if dedupe_mode not in DEDUPE_MODES:
        raise OptionError(f"unknown dedupe mode {dedupe_mode!r}; choose "
                          f"{', '.join(DEDUPE_MODES)}", "dedupe_mode")
    scope = None
    if base_url is not None:
        base_url, scope, note = base_of(base_url)
        if note is not None:
            report.note(note)
        if scope_check:  # (else no scope is held against the URLs)
            report.scope, report.scope_from = scope.prefix, "`base_url`"
    input_url = None
    if reading.input_url is not None:
        try:
            input_url = normalize_url(reading.input_url)
        except ValueError as exc:
            raise OptionError(str(exc), "input_url") from None
    _check_sites(inputs, base_url, reading)
    out_path = dest_path(output)
    fmt, gzip_level = settings_of(out_path, writing, base_url, output, report)
    own_input = find_base(inputs, out_path)
    if dedupe_mode == "auto":  # (an update in place merges, to count what it adds and removes)
        dedupe_mode = "merge" if len(inputs) > 1 or own_input is not None else "first"
    check_publish(publish, out_path, base_url, own_input)
    if isinstance(max_removals, str):
        max_removals = Threshold.parse(max_removals)
    elif not isinstance(max_removals, Threshold):
        raise OptionError("must be a count or a percentage (\"25%\")", "max_removals")
    if prune and (own_input is None or dedupe_mode != "merge"):
        raise OptionError("needs the output among the inputs, merged (feed2sitemap "
                          "sitemap.xml pages.txt -o sitemap.xml --prune): it removes "
                          "pages of the earlier output that no other input lists", "prune")
    profile = profile_of(limits.profile, limits.max_urls, limits.max_bytes)
    return _Plan(base_url, scope, scope_check, input_url, out_path, own_input, fmt,
                 gzip_level, limits, profile, dedupe_mode, filters, bool(prune), max_removals)


def _run(plan: _Plan, out: OutputSet, inputs: list[Source], report: Report,
         progress: Optional[Progress], reading: ReadOptions, writing: WriteOptions,
         defaults: Defaults, channel: Channel, web: Web, news: Optional[NewsSitemap],
         changes: Optional[Changes]) -> Summary:
    """Read, take through the steps, and write: the files in place when it returns."""
    reader = Reading(out, reading, report, plan.input_url or plan.base_url,
                     None if plan.scope is None else plan.scope.prefix, web,
                     plan.scope_check, news)
    # (a special file written through, out.path None, is no earlier version to merge with)
    merging_base = plan.dedupe_mode == "merge" and out.path is not None
    base_name = plan.own_input if merging_base else None
    if base_name is not None:
        reader.base = {base_name}
    reader.filters = plan.filters
    stream, counts, removals = _steps(reader, inputs, base_name, plan, report, progress,
                                      changes, news)
    stream = apply_defaults(stream, defaults.changefreq, defaults.priority)
    own_parts = None
    if reader.base is not None and plan.out_path is not None:  # (an update in place)
        own_parts = _OwnParts(reader.base, plan.out_path)
    summary = write_to(out, stream, plan.fmt, plan.gzip_level, writing, plan.limits, report,
                       plan.base_url, ", ".join(source_name(s) for s in inputs), channel,
                       own_parts)
    if not out.dry_run:  # (a content lastmod's state is written once all is)
        for lastmods in reader.lastmod_sources:
            _write_state(lastmods.state_file())
    summary.merge = counts
    summary.removals = removals
    summary.dry_run = out.dry_run
    return summary


class _OwnParts:
    """The earlier output's parts named as this run names its own (STEM-N.EXT): each begins a
    file of its own (files/split.py), so a part that loses URLs is the only one rewritten.
    Parts of another naming (a partitioned job's STEM-P-K) are all replaced anyway: their URLs
    are packed into full parts. (A live view: the reader adds the parts as it reads them.)"""

    def __init__(self, base: set[Optional[str]], out_path: str) -> None:
        stem, ext = split_name(os.path.basename(out_path))
        self.base = base
        self.pattern = re.compile(re.escape(stem) + r"-[1-9][0-9]*" + re.escape(ext))

    def __contains__(self, source: object) -> bool:
        return (isinstance(source, str) and source in self.base
                and self.pattern.fullmatch(os.path.basename(source)) is not None)


def _steps(reader: Reading, inputs: Sequence[Source], base_name: Optional[str], plan: _Plan,
           report: Report, progress: Optional[Progress], changes: Optional[Changes],
           news: Optional[NewsSitemap]
           ) -> tuple[Iterator[Batch], Optional[MergeCounts], Optional[Removals]]:
    """The data path from the inputs to the batches to write. In an update in place
    (``base_name``), what leaves the earlier output is counted, and guarded."""
    base = reader.base if reader.base is not None else set()
    removals = None
    stream = reader.all(inputs)
    if base_name is not None:
        removals = Removals(on_removed=None if changes is None else changes.add)
        stream = counted(stream, base, removals)
    if progress is not None and progress.on_update is not None:
        stream = _counted(stream, progress)
    stream = normalize(stream, report)
    stream = check_length(stream, plan.profile.max_loc, report, plan.profile.name,
                          plan.profile.min_loc)
    if plan.scope_check:
        stream = within_scope(stream, report, plan.scope)
    if plan.filters:
        stream = filter_urls(stream, plan.filters, report, base, removals)
    pruner = Pruner() if plan.prune else None
    if removals is not None:
        stream = counted(stream, base, removals, reached=True)
        if pruner is not None:
            stream = pruner.watch(stream, base)
    counts = None
    if plan.dedupe_mode == "merge":
        counts = MergeCounts(base_name)
        if changes is not None:
            counts.on_change = changes.add
        stream = merge(stream, counts, base=reader.base)
        if removals is not None:
            stream = guarded(stream, removals, plan.max_removals, base_name or "the output",
                             pruner)
    elif plan.dedupe_mode == "first":
        stream = dedupe(stream, report)
    if news is not None:  # earlier runs' articles age out; what is no article never was news
        from ..extensions.news import now  # (the clock, or SOURCE_DATE_EPOCH)

        stream = news_only(stream, now(), report)
    # (the clock, as check's: SOURCE_DATE_EPOCH, a build's date, would make pages' dates late)
    stream = future_lastmods(stream, datetime.now(timezone.utc), report)
    return in_input_order(stream, report), counts, removals


def _check_sites(inputs: Sequence[Source], base_url: Optional[str],
                 reading: ReadOptions) -> None:
    """A site directory is read as served at `base_url`, which it needs; the site options
    need a site directory."""
    sites = [s for s in inputs if isinstance(s, (str, os.PathLike)) and not is_url(s)
             and os.path.isdir(s)]
    if sites and base_url is None:
        raise OptionError(f"{source_name(sites[0])} is a site directory: its pages' URLs are "
                          "the files' paths under `base_url`; give it", "base_url")
    if not sites and reading.site != SiteOptions():
        changed = [f.name for f in fields(SiteOptions)
                   if getattr(reading.site, f.name) != getattr(SiteOptions(), f.name)]
        raise OptionError("goes with a site directory among the inputs (a built site, read "
                          "as served at `base_url`)", changed[0])


def _inputs(inputs: Sequence[Source]) -> list[Source]:
    if isinstance(inputs, (str, bytes, os.PathLike)) or hasattr(inputs, "read"):
        return [inputs]  # type: ignore[list-item]  # one input, not a sequence of characters
    try:
        inputs = list(inputs)
    except TypeError:
        raise OptionError("must be a list of paths, http(s) URLs or binary streams, not "
                          f"{type(inputs).__name__}", "inputs") from None
    if not inputs:
        raise OptionError("no inputs given", "inputs")
    return inputs


def _counted(batches: Iterator[Batch], progress: Progress) -> Iterator[Batch]:
    for batch in batches:
        progress.read(len(batch.locs))
        yield batch


def _write_state(state: Optional[tuple[str, bytes]]) -> None:
    """A lastmod source's state file (--lastmod-from content), once the run has succeeded."""
    if state is None:
        return
    path, data = state
    try:
        replace_file(real_target(path), data)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write the state file: {exc.strerror}") from None
