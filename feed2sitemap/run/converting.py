"""convert(): the one function behind both the command and the library.

The data path, in order (STYLE.md's shape, with batches as the contract, see model/batch.py):

    bytes ─▶ reader (reading.py) ─▶ batches ─▶ normalize ─▶ check_length ─▶ within_scope
          ─▶ merge | dedupe ─▶ apply_defaults ─▶ format (writers/) ─▶ files (files/split.py,
          files/outputs.py) ─▶ publish (publish.py)

Each step is one function over batches (pipeline/steps.py); what a step skips is counted in the
Report. Options come grouped (model/options.py) and are checked before any input is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from typing import NamedTuple, Optional, Union

from ..errors import OptionError
from ..files.outputs import OutputSet
from ..files.safety import find_base
from ..model.batch import Batch
from ..model.filters import MAX_REMOVALS, Filters, Threshold
from ..model.limits import Profile, profile_of
from ..model.options import Channel, Defaults, Limits, NewsSitemap, ReadOptions, WriteOptions
from ..model.report import Progress, Report
from ..model.scope import Scope, base_of
from ..model.urls import normalize_url
from ..pipeline.merging import MergeCounts
from ..pipeline.removals import Pruner, Removals, counted, filter_urls, guarded
from ..pipeline.steps import (
    apply_defaults,
    check_length,
    dedupe,
    merge,
    news_only,
    normalize,
    within_scope,
)
from .publish import Changes, Publish, check_publish, robots, submit
from .reading import Reading, Source, Web, read, read_batches, source_name
from .writing import (
    Destination,
    Settings,
    Summary,
    dest_path,
    open_output,
    output_format,
    settings_of,
    write,
    write_batches,
    write_to,
)

__all__ = ["Publish", "Source", "Summary", "Web", "convert", "output_format", "read",
           "read_batches", "write", "write_batches"]

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
    (errors with ``strict``).

    When an input is the output file itself, the run updates it in place: an index there
    stands for its parts, and a file not there yet reads as empty.

    ``dedupe_mode``: "merge" (one entry per URL, newest lastmod wins, see ``pipeline/merging.py``;
    when
    ``output`` is also an input, ``summary.merge`` compares with it), "first" (the first copy
    wins, one streaming pass), "none", or "auto": merge when there are several inputs, else
    first. ``base_url`` is the output's directory (a last segment without a dot names a
    directory): the scope, and the base of relative links; without it the first input that
    states its site (a feed's own link) gives the scope; ``scope_check`` False keeps URLs of
    other sites. ``web`` says how inputs given by URL are fetched; ``publish`` what to do once
    the files are in place (robots.txt, IndexNow), or ``dry_run`` to write nothing at all.
    ``news`` writes a Google News sitemap (options.NewsSitemap): the feeds' recent articles,
    at most 1,000 URLs a file.

    ``filters`` leave URLs out by rule (model/filters.py). In an update in place, ``prune``
    removes the earlier output's URLs that no other input lists, and a run that would take
    more than ``max_removals`` (a count, or "P%" of the earlier output's URLs) out, for any
    reason, raises RemovalsRefused before writing anything; ``summary.removals`` says what
    was taken out (pipeline/removals.py).
    """
    inputs = _inputs(inputs)
    if news is not None:  # Google News: at most 1,000 <news:news> a sitemap
        from ..extensions.rules import NEWS_PER_FILE

        limits = replace(limits, max_urls=min(limits.max_urls or NEWS_PER_FILE, NEWS_PER_FILE))
    run = _Run.of(inputs, output, base_url, scope_check, dedupe_mode, strict, report,
                  reading, writing, limits, publish)
    removing = _Removing.of(filters, prune, max_removals, run)
    out = open_output(output, progress, run.base_url, writing.atomic, writing.lock_timeout,
                      publish.dry_run)
    changes = Changes() if publish.indexnow is not None else None
    try:
        stream, counts, removals = _steps(run, out, inputs, reading, web, defaults, progress,
                                          changes, news, removing)
        names = ", ".join(source_name(s) for s in inputs)
        summary = write_to(out, stream, run.settings, profile_of(limits.profile, None, None),
                           run.report, run.base_url, names, channel)
        summary.merge = counts
        summary.removals = removals
        summary.dry_run = publish.dry_run
        if publish.robots is not None and run.base_url is not None:
            summary.robots = robots(publish.robots, summary, out, run.base_url,
                                    publish.dry_run, writing.lock_timeout)
    finally:
        out.close()
    if changes is not None and publish.indexnow is not None:
        with changes:
            submit(summary, publish.indexnow, changes, publish.dry_run)
    return summary


def _inputs(inputs: Sequence[Source]) -> list[Source]:
    if isinstance(inputs, (str, bytes, os.PathLike)) or hasattr(inputs, "read"):
        return [inputs]  # type: ignore[list-item]  # one input, not a sequence of characters
    inputs = list(inputs)
    if not inputs:
        raise OptionError("no inputs given", "inputs")
    return inputs


class _Run:  # (internal: a plain class, as a dataclass's __init__ is compiled at start-up)
    """The parts of a run decided before any input is read."""

    __slots__ = ("report", "base_url", "scope", "doc_url", "dedupe_mode", "own_input",
                 "settings", "profile", "scope_check")

    def __init__(self, report: Report, base_url: Optional[str], scope: Optional[Scope],
                 doc_url: Optional[str], dedupe_mode: str, own_input: Optional[str],
                 settings: Settings, profile: Profile, scope_check: bool) -> None:
        self.report = report
        self.base_url = base_url
        self.scope = scope
        self.doc_url = doc_url  # the base of relative links: the inputs' own URL, else base_url
        self.dedupe_mode = dedupe_mode
        self.own_input = own_input  # the input that is the output itself (an update in place)
        self.settings = settings
        self.profile = profile
        self.scope_check = scope_check

    @classmethod
    def of(cls, inputs: Sequence[Source], output: Destination, base_url: Optional[str],
           scope_check: bool, dedupe_mode: str, strict: bool, report: Optional[Report],
           reading: ReadOptions, writing: WriteOptions, limits: Limits,
           publish: Publish) -> _Run:
        if publish.indexnow is not None and dedupe_mode == "auto":
            dedupe_mode = "merge"  # what changed is what merging with the old version tells
        if dedupe_mode not in DEDUPE_MODES:
            raise OptionError(f"unknown dedupe mode {dedupe_mode!r}; choose "
                              f"{', '.join(DEDUPE_MODES)}", "dedupe_mode")
        report = report if report is not None else Report(strict=strict)
        scope = None
        if base_url is not None:
            base_url, scope = _base(base_url, report)
            if not scope_check:
                report.scope = None  # no scope was held against the URLs
        input_url = _input_url(reading.input_url)
        out_path = dest_path(output)
        settings = settings_of(out_path, writing, base_url, output, report, limits)
        own_input = find_base(inputs, out_path)
        if dedupe_mode == "auto":  # (an update in place merges, to count what it adds and removes)
            dedupe_mode = "merge" if len(inputs) > 1 or own_input is not None else "first"
        check_publish(publish, out_path, base_url, own_input)
        return cls(report, base_url, scope, input_url or base_url, dedupe_mode, own_input,
                   settings, profile_of(limits.profile, limits.max_urls, limits.max_bytes),
                   scope_check)


class _Removing(NamedTuple):
    """What the run takes out, by rule (``filters``) and, in place, by ``prune``."""

    filters: Filters
    prune: bool
    max_removals: Threshold

    @classmethod
    def of(cls, filters: Filters, prune: bool, max_removals: Union[str, Threshold],
           run: _Run) -> _Removing:
        if not isinstance(filters, Filters):
            raise OptionError(f"must be a Filters, not {type(filters).__name__}", "filters")
        if isinstance(max_removals, str):
            max_removals = Threshold.parse(max_removals)
        elif not isinstance(max_removals, Threshold):
            raise OptionError("must be a count or a percentage (\"25%\")", "max_removals")
        if prune and (run.own_input is None or run.dedupe_mode != "merge"):
            raise OptionError("needs the output among the inputs, merged (feed2sitemap "
                              "sitemap.xml pages.txt -o sitemap.xml --prune): it removes "
                              "pages of the earlier output that no other input lists", "prune")
        return cls(filters, bool(prune), max_removals)


def _steps(run: _Run, out: OutputSet, inputs: Sequence[Source], reading: ReadOptions,
           web: Web, defaults: Defaults, progress: Optional[Progress],
           changes: Optional[Changes], news: Optional[NewsSitemap], removing: _Removing
           ) -> tuple[Iterator[Batch], Optional[MergeCounts], Optional[Removals]]:
    """The batches to write: the inputs read, then each step of the data path in turn."""
    report, prof = run.report, run.profile
    reader = Reading(out, reading.from_format, report, run.doc_url, reading.max_feed_bytes,
                     reading.follow, None if run.scope is None else run.scope.prefix, web,
                     run.scope_check, news)
    # (a special file written through, out.path None, is no earlier version to merge with)
    base_name = run.own_input if run.dedupe_mode == "merge" and out.path is not None else None
    if base_name is not None:
        reader.base = {base_name}
    stream: Iterator[Batch] = reader.all(inputs)
    base = reader.base if reader.base is not None else set()
    removals = None
    if base_name is not None:  # an update in place: what leaves the earlier output is counted
        removals = Removals(on_removed=None if changes is None else changes.add)
        stream = counted(stream, base, removals)
    if progress is not None and progress.on_update is not None:
        stream = _counted(stream, progress)
    stream = normalize(stream, report)
    stream = check_length(stream, prof.max_loc, report, prof.name, prof.min_loc)
    if run.scope_check:
        stream = within_scope(stream, report, run.scope)
    if removing.filters:
        stream = filter_urls(stream, removing.filters, report, base, removals)
    pruner = Pruner() if removing.prune else None
    if removals is not None:
        stream = counted(stream, base, removals, reached=True)
        if pruner is not None:
            stream = pruner.watch(stream, base)
    counts = None
    if run.dedupe_mode == "merge":
        counts = MergeCounts(base_name)
        if changes is not None:
            counts.on_change = changes.add
        stream = merge(stream, counts, base=reader.base)
    if removals is not None:
        stream = guarded(stream, removals, removing.max_removals,
                         base_name or "the output", pruner)
    elif run.dedupe_mode == "first":
        stream = dedupe(stream, report)
    if news is not None:  # articles of earlier runs age out; what is no article never was news
        from ..extensions.news import now  # (the clock, or SOURCE_DATE_EPOCH)

        stream = news_only(stream, now(), report)
    return apply_defaults(stream, defaults.changefreq, defaults.priority), counts, removals


def _input_url(input_url: Optional[str]) -> Optional[str]:
    if input_url is None:
        return None
    try:
        return normalize_url(input_url)
    except ValueError as exc:
        raise OptionError(str(exc), "input_url") from None


def _base(base_url: str, report: Report) -> tuple[str, Scope]:
    """`base_url` as the directory it names (model/scope.py's base_of), and that scope."""
    directory, scope, note = base_of(base_url)
    if note is not None:
        report.note(note)
    report.scope, report.scope_from = scope.prefix, "`base_url`"
    return directory, scope


def _counted(batches: Iterable[Batch], progress: Progress) -> Iterator[Batch]:
    for batch in batches:
        progress.read(len(batch.locs))
        yield batch
