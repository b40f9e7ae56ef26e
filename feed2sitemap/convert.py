"""convert(): the one function behind both the command and the library.

The run, in order: the inputs are read (reading.py), each URL is normalised, held to the
profile's length and the site's scope, duplicates merged or dropped (pipeline.py), and the
result written (writing.py); then what was written is published (publish.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Optional, Union

from .batch import Batch
from .errors import OptionError
from .limits import Profile
from .merge import MergeCounts, find_base
from .pipeline import (
    apply_defaults,
    check_length,
    dedupe,
    merge,
    normalize,
    within_scope,
)
from .publish import Changes, Publish, check_publish, robots, submit
from .readers.feed import DEFAULT_MAX_FEED_BYTES
from .reading import Reading, Source, Web, read, read_batches, source_name
from .report import Progress, Report
from .urls import Scope, base_directory, normalize_url, scope_of
from .writing import (
    Channel,
    Destination,
    Summary,
    dest_path,
    open_output,
    output_format,
    profile_of,
    settings_of,
    write,
    write_batches,
    write_to,
)

__all__ = ["Publish", "Source", "Summary", "Web", "convert", "output_format", "read",
           "read_batches", "write", "write_batches"]


def convert(inputs: Sequence[Source], output: Destination = None, *,
            from_format: str = "auto", to: Optional[str] = None, base_url: Optional[str] = None,
            changefreq: Optional[str] = None, priority: Optional[float] = None,
            scope_check: bool = True, strict: bool = False,
            profile: Union[str, Profile] = "sitemaps", max_urls: Optional[int] = None,
            max_bytes: Optional[int] = None, gzip: Optional[bool] = None,
            gzip_level: Optional[int] = None, index: str = "auto",
            max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES, report: Optional[Report] = None,
            dedupe_mode: str = "auto", follow: bool = False, title: Optional[str] = None,
            site_url: Optional[str] = None, description: Optional[str] = None,
            progress: Optional[Progress] = None, atomic: bool = True,
            lock_timeout: float = 60.0, web: Optional[Web] = None,
            publish: Optional[Publish] = None, input_url: Optional[str] = None) -> Summary:
    """Read every input, check and normalise the URLs, and write sitemap file(s).

    ``output`` is a path (written atomically: temporaries renamed when all succeeded), a binary
    stream, or None/"-" for stdout. Raises a Feed2SitemapError subclass for bad data or options;
    problems that only skip a record are counted in ``summary.report`` (errors with ``strict``).

    When an input is the output file itself, the run updates it in place: an index there
    stands for its parts (read as with ``follow``), and a file not there yet reads as empty.
    ``atomic`` False overwrites existing files in place instead of renaming temporaries over
    them; ``lock_timeout`` is how long to wait for another run writing in the same directory.

    ``dedupe_mode``: "merge" (one entry per URL, newest lastmod wins, see ``merge.py``; when
    ``output`` is also an input, ``summary.merge`` compares with it), "first" (the first copy
    wins, one streaming pass), "none", or "auto": merge when there are several inputs, else
    first (a single input streams in flat memory and keeps the core's first-wins rule).
    ``follow`` reads the local parts of an index input.
    ``title``, ``site_url`` and ``description`` describe the channel of RSS/Atom output.
    ``web`` says how inputs given by URL are fetched; ``publish`` what to do once the files
    are in place (robots.txt, IndexNow), or ``dry_run`` to write nothing at all.
    ``base_url`` is the output's directory (a last segment without a dot names a directory):
    the scope, and the base of relative links; without it the first input that states its
    site (a feed's own link) gives the scope. ``input_url`` is the inputs' own URL, the base of
    their relative links before ``base_url``.
    """
    if isinstance(inputs, (str, os.PathLike)):  # one input, not a sequence of characters
        inputs = [inputs]
    publish = publish or Publish()
    web = web or Web()
    if publish.indexnow is not None and dedupe_mode == "auto":
        dedupe_mode = "merge"  # what changed is what merging with the old version tells
    if dedupe_mode not in ("auto", "merge", "first", "none"):
        raise OptionError(f"unknown dedupe mode {dedupe_mode!r}; choose auto, merge, first or "
                          "none", "dedupe_mode")
    if dedupe_mode == "auto":
        dedupe_mode = "merge" if len(inputs) > 1 else "first"
    report = report if report is not None else Report(strict=strict)
    prof = profile_of(profile, max_urls, max_bytes)
    scope = None
    if base_url is not None:
        base_url, scope = _base(base_url, report)
        if not scope_check:
            report.scope = None  # no scope was held against the URLs
    if input_url is not None:
        try:
            input_url = normalize_url(input_url)
        except ValueError as exc:
            raise OptionError(str(exc), "input_url") from None
    # a relative link resolves against the input's own URL, else --base-url (issue 20, item 4);
    # only then is it held against the scope
    doc_url = input_url or base_url
    out_path = dest_path(output)
    settings = settings_of(out_path, to, index, base_url, gzip, gzip_level, output,
                         report, max_urls, max_bytes)
    own_input = find_base(inputs, out_path)  # the input that is the output itself, if any
    check_publish(publish, out_path, base_url, own_input)
    out = open_output(output, progress, base_url, atomic, lock_timeout, publish.dry_run)
    changes = Changes() if publish.indexnow is not None else None
    try:
        reading = Reading(out, from_format, report, doc_url, max_feed_bytes, follow,
                           None if scope is None else scope.prefix, web, scope_check)
        # (a special file written through, out.path None, is no earlier version to merge with)
        base_name = own_input if dedupe_mode == "merge" and out.path is not None else None
        if base_name is not None:
            reading.base = {base_name}
        stream: Iterator[Batch] = reading.all(inputs)
        if progress is not None and progress.on_update is not None:
            stream = _counted(stream, progress)
        stream = normalize(stream, report)
        stream = check_length(stream, prof.max_loc, report, prof.name, prof.min_loc)
        if scope_check:
            stream = within_scope(stream, report, scope)
        counts = None
        if dedupe_mode == "merge":
            counts = MergeCounts(base_name)
            if changes is not None:
                counts.on_change = changes.add
            stream = merge(stream, counts, base=reading.base)
        elif dedupe_mode == "first":
            stream = dedupe(stream, report)
        stream = apply_defaults(stream, changefreq, priority)
        names = ", ".join("<stdin>" if s == "-" else source_name(s) for s in inputs)
        summary = write_to(out, stream, settings, profile_of(profile, None, None), report,
                            base_url, names or "<stdin>",
                            Channel(title, site_url, description))
        summary.merge = counts
        summary.dry_run = publish.dry_run
        if publish.robots is not None and base_url is not None:
            summary.robots = robots(publish.robots, summary, out, base_url, publish.dry_run)
    finally:
        out.close()
    if changes is not None and publish.indexnow is not None:
        with changes:
            submit(summary, publish.indexnow, changes, publish.dry_run)
    return summary


def _base(base_url: str, report: Report) -> tuple[str, Scope]:
    """`base_url` as the directory it names, and that scope; a note when it was read as other
    than written (``/blog`` is the directory ``/blog/``, ``/blog/sitemap.xml`` a file in it)."""
    try:
        directory, note = base_directory(base_url)
        scope = scope_of(directory)
    except ValueError as exc:
        raise OptionError(str(exc), "base_url") from None
    if note is not None:
        report.note(note)
    report.scope, report.scope_from = scope.prefix, "`base_url`"
    return directory, scope


def _counted(batches: Iterable[Batch], progress: Progress) -> Iterator[Batch]:
    for batch in batches:
        progress.read(len(batch.locs))
        yield batch
