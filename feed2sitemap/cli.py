"""The command line: options in, one library call, messages and exit codes out."""

from __future__ import annotations

import gc
import itertools
import json
import os
import re
import signal
import sys
import time
from types import FrameType
from typing import Any, Optional

import click

from .convert import Publish, Summary, Web, convert
from .detect import FORMATS as INPUT_FORMATS
from .errors import Feed2SitemapError, OptionError
from .fetch import DEFAULT_TIMEOUT
from .indexnow import DEFAULT_ENDPOINT, IndexNow, IndexNowError
from .limits import PROFILES
from .merge import MergeCounts
from .outputs import FileInfo
from .readers.feed import DEFAULT_MAX_FEED_BYTES
from .record import CHANGEFREQS
from .report import Progress, Report
from .writers import FORMATS

PROG = "feed2sitemap"


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that temporaries are removed on the way out."""


class Interrupted(BaseException):
    """Ctrl-C in the console script's process (see _entry.py). Not KeyboardInterrupt: click
    turns that into "Aborted!" and exit 1 while it parses the options."""


def on_sigint(signum: int, frame: Optional[FrameType]) -> None:
    raise Interrupted


class StdoutGone(BaseException):
    """stdout's reader has gone (`feed2sitemap ... | head -1`). Not an Exception: click would
    turn a broken pipe into exit 1; the console script ends the way other filters do."""


def _on_sigterm(signum: int, frame: Optional[FrameType]) -> None:
    raise Terminated


def _say(text: str) -> None:
    click.echo(f"{PROG}: {render(text)}", err=True)


# The library names a parameter between backticks (errors.py); the command line shows the
# option that sets it. Parameters no option of the same name sets:
_OPTION_OF = {"scope_check": "--no-scope-check", "atomic": "--no-atomic",
              "dedupe_mode": "--merge/--keep-first/--no-dedupe", "output": "-o/--output"}
_PARAMETER = re.compile(r"`([a-z][a-z_]*)`")


def render(text: str) -> str:
    """A library message in the command line's terms: `base_url` becomes --base-url."""
    if "`" not in text:
        return text
    ctx = click.get_current_context(silent=True)
    options = dict(_OPTION_OF)
    if ctx is not None:
        for param in ctx.command.params:
            if isinstance(param, click.Option) and param.name:
                options[param.name] = "/".join(o for o in param.opts if o.startswith("--"))
    return _PARAMETER.sub(lambda m: options.get(m.group(1), m.group(0)), text)


class ProgressLine:
    """A one-line progress display on a terminal's stderr, for runs longer than DELAY seconds.

    Redrawn at most every quarter second (the library calls in once per batch of URLs) and
    cleared before any other message and at the end, so nothing of it stays on the screen.
    """

    DELAY = float(os.environ.get("FEED2SITEMAP_PROGRESS_DELAY", "2"))

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.drawn_at = 0.0
        self.shown = False

    def update(self, progress: Progress) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.DELAY or now - self.drawn_at < 0.25:
            return
        self.drawn_at = now
        rate = progress.urls / elapsed if elapsed else 0.0
        sys.stderr.write(f"\r\x1b[K{PROG}: {progress.urls:,} URLs read, {progress.files} "
                         f"file{'s' if progress.files != 1 else ''} written, {rate:,.0f} URLs/s")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False

    def say(self, text: str) -> None:
        self.clear()
        _say(text)


def _size(n: int) -> str:
    return f"{n:,} bytes"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _summary_lines(summary: Summary) -> list[str]:
    lines = []
    files = summary.files
    what = "sitemap" if summary.of_sitemaps else "URL"
    def sizes(f: FileInfo) -> str:
        gzipped = f", {_size(f.compressed_size)} gzipped" if f.compressed_size is not None else ""
        return _size(f.size) + gzipped

    if len(files) > 1:
        for f in files:
            noun = "sitemap" if f in summary.indexes else what
            verb = "unchanged" if f.unchanged else "wrote"
            lines.append(f"{verb} {f.path}: {_count(f.count, noun)}, {sizes(f)}")
    for path in summary.cleaned:
        lines.append(f"removed {path}: a temporary of an interrupted run")
    for path in summary.left:
        lines.append(f"kept {path}: the replaced index listed it, the new one does not (not "
                     "written by feed2sitemap, so not removed)")
    report = summary.report
    if len(files) == 1:
        verb = "unchanged" if files[0].unchanged else "wrote"
        head = f"{verb} {_count(summary.urls, what)} to {files[0].path} ({sizes(files[0])})"
    else:
        verb = "unchanged:" if len(summary.unchanged) == len(files) else "wrote"
        head = (f"{verb} {_count(summary.urls, what)} in {_count(len(summary.parts), 'file')} "
                f"and {_count(len(summary.indexes), 'index file')}")
        if summary.unchanged and verb == "wrote":
            head += (f" ({len(summary.unchanged):,} of the {len(files):,} files unchanged, "
                     "not rewritten)")
    head += "; " + _skipped_text(report)
    if report.warnings:
        head += "; warnings: " + ", ".join(f"{n:,} {k}" for k, n in report.warnings.items())
    if report.scope is not None:
        lines.append(f"scope: {report.scope} ({report.scope_from})")
    lines.append(head)
    if summary.merge is not None and (summary.merge.base is not None or summary.merge.copies):
        lines.append(_merge_text(summary.merge))
    return lines


def _removal_lines(summary: Summary, quiet: bool) -> list[str]:
    """Deletions are said even under -q (shortened to one line): a user must be able to see
    every file a scheduled run removed."""
    lines = [f"warning: could not remove {path}: {why}" for path, why in summary.not_removed]
    if quiet and summary.removed:
        names = ", ".join(os.path.basename(p) for p in summary.removed[:5])
        more = len(summary.removed) - 5
        lines.append(f"removed {_count(len(summary.removed), 'file')} of the earlier output "
                     f"that this run no longer writes: {names}"
                     f"{f', +{more} more' if more > 0 else ''}")
    elif summary.removed:
        lines += [f"removed {path}: listed by the replaced index, no longer written"
                  for path in summary.removed]
    return lines


def _merge_text(m: MergeCounts) -> str:
    if m.base is not None:
        return (f"merged: {m.added:,} URLs added, {m.updated:,} updated, compared with "
                f"{m.base}")
    return (f"merged: {m.urls:,} distinct URLs, {m.copies:,} duplicate copies folded in, "
            f"{m.updated:,} entries changed by a later copy")


def _skipped_text(report: Report) -> str:
    if not report.total_skipped:
        return "skipped none"
    parts = []
    for kind, n in report.skipped.most_common():
        if kind == "off scope" and report.hosts_off_scope:
            hosts = ", ".join(f"{c:,} {h}" for h, c in report.hosts_off_scope.most_common(5))
            more = len(report.hosts_off_scope) - 5
            parts.append(f"{n:,} off scope ({hosts}{f', +{more} hosts' if more > 0 else ''})")
        else:
            parts.append(f"{n:,} {kind}")
    return f"skipped {report.total_skipped:,}: " + ", ".join(parts)


class _Failed(click.ClickException):
    """A library error, shown as `feed2sitemap: FILE:LINE: what is wrong`, with its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # a ClassVar in click's stubs

    def show(self, file: Any = None) -> None:
        _say(self.message)


class _Command(click.Command):
    """A click command that turns the library's errors and signals into messages and exit codes
    (1 bad data, 2 bad usage, 130 Ctrl-C, 143 SIGTERM) instead of tracebacks."""

    def invoke(self, ctx: click.Context) -> Any:
        progress = ctx.meta.setdefault(_PROGRESS, Progress())
        try:
            return super().invoke(ctx)
        except Feed2SitemapError as exc:
            raise _Failed(render(str(exc)), 2 if isinstance(exc, OptionError) else 1) from None
        except (KeyboardInterrupt, Interrupted):
            raise _Failed(_stopped("interrupted", progress), 130) from None
        except Terminated:
            raise _Failed(_stopped("terminated", progress), 143) from None
        except BrokenPipeError:
            raise StdoutGone from None


_PROGRESS = "feed2sitemap.progress"


def _stopped(how: str, progress: Progress) -> str:
    # Ctrl-C and SIGTERM are held while files are put in place (filesafety.deferred_signals),
    # so either all of the output is in place or none of it.
    if progress.written:
        return f"{how} after the output was written"
    return f"{how}; nothing was written"


@click.command(cls=_Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, metavar="[INPUT]...")
@click.option("-o", "--output", metavar="FILE",
              help="Where to write (default: stdout). Replaced only when the run succeeds. "
                   "A .gz name compresses.")
@click.option("-t", "--to", "to", type=click.Choice(sorted(FORMATS)),
              help="Output format (default: from the -o name: .txt is text, .rss rss, .atom "
                   "atom, .jsonl jsonl, else xml).")
@click.option("-f", "--from", "from_format", default="auto", show_default=True,
              type=click.Choice(["auto", *INPUT_FORMATS]),
              help="Input format; auto looks at the first bytes (and a list's first line).")
@click.option("--base-url", metavar="URL",
              help="Public URL of the output's directory: only URLs under it are kept, and "
                   "split parts are listed in the index under it.")
@click.option("--input-url", metavar="URL",
              help="The inputs' own URL (a feed saved from the web): relative links resolve "
                   "against it before --base-url.")
@click.option("--changefreq", type=click.Choice(CHANGEFREQS),
              help="changefreq for URLs whose input gave none.")
@click.option("--priority", type=click.FloatRange(0.0, 1.0),
              help="priority (0.0-1.0) for URLs whose input gave none.")
@click.option("--no-scope-check", is_flag=True,
              help="Keep URLs of other hosts (cross-host sitemaps declared in robots.txt).")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="sitemaps",
              show_default=True, help="Limits to obey: sitemaps.org or Baidu's.")
@click.option("--max-urls", type=click.IntRange(min=1), metavar="N",
              help="Fewer URLs per file than the profile allows.")
@click.option("--max-bytes", type=click.IntRange(min=1), metavar="N",
              help="Fewer uncompressed bytes per file than the profile allows.")
@click.option("--gzip/--no-gzip", "gzip", default=None,
              help="Compress every file (default: when the -o name ends in .gz).")
@click.option("--gzip-level", type=click.IntRange(0, 9), metavar="0-9",
              help="gzip compression level (default 6).")
@click.option("--index", type=click.Choice(["auto", "always"]), default="auto",
              show_default=True, help="always: write an index even for a single part.")
@click.option("--max-feed-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_FEED_BYTES,
              show_default=True, metavar="N",
              help="Refuse a feed larger than this (feeds are parsed whole).")
@click.option("--merge", "merge_copies", is_flag=True,
              help="Duplicate URLs: merge the copies, newest lastmod wins (the default with "
                   "several inputs).")
@click.option("--keep-first", is_flag=True,
              help="Duplicate URLs: keep the first copy as it is, in one streaming pass (the "
                   "default with one input).")
@click.option("--no-dedupe", is_flag=True,
              help="Keep duplicate URLs (no memory of URLs at all).")
@click.option("--follow", is_flag=True,
              help="An index input stands for its parts: read them from the files beside it.")
@click.option("--title", help="Feed output: channel title (default: the site's host).")
@click.option("--site-url", metavar="URL",
              help="Feed output: channel link (default: --base-url, else the first URL's site).")
@click.option("--description",
              help="Feed output: channel description (default: 'Pages of HOST').")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="Inputs by URL: give up when the server has not answered (or sent more) "
                   "for this long.")
@click.option("--cache", "cache_dir", metavar="DIR",
              help="Inputs by URL: keep each one's ETag, Last-Modified and body in DIR and ask "
                   "again conditionally; an unchanged input is read from DIR.")
@click.option("--robots", metavar="PATH",
              help="Keep the Sitemap: lines of this robots.txt naming what the run wrote (other "
                   "lines untouched; created if missing). Needs -o and --base-url.")
@click.option("--indexnow", "indexnow_key", metavar="KEY",
              help="Submit the URLs this run added or updated to IndexNow with this key (its "
                   "key file must be on the site). Needs the output among the inputs.")
@click.option("--indexnow-endpoint", metavar="URL", default=DEFAULT_ENDPOINT, show_default=True,
              help="Where IndexNow submissions go.")
@click.option("--indexnow-key-location", metavar="URL",
              help="The key file's URL, when it is not /KEY.txt at the site's root.")
@click.option("--dry-run", is_flag=True,
              help="Write nothing and send nothing: say what would be written, removed and "
                   "submitted (IndexNow requests are printed to stdout).")
@click.option("--no-atomic", "no_atomic", is_flag=True,
              help="Overwrite existing output files in place instead of renaming a temporary "
                   "over each (for a file you may write in a directory you may not). The run "
                   "is prepared in TMPDIR first; a crash while copying can leave a partial file.")
@click.option("--lock-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              metavar="SECONDS",
              help="How long to wait for another run writing in the output's directory.")
@click.option("--strict", is_flag=True,
              help="Treat every reported problem (skipped URL, dropped field, malformed feed) "
                   "as an error: exit 1, write nothing.")
@click.option("-q", "--quiet", is_flag=True, help="No warnings or summary; errors only.")
@click.version_option(None, "--version", package_name="feed2sitemap", prog_name=PROG)
def convert_command(inputs: tuple[str, ...], output: Optional[str], quiet: bool,
                    no_scope_check: bool, merge_copies: bool, keep_first: bool,
                    no_dedupe: bool, no_atomic: bool, timeout: float, cache_dir: Optional[str],
                    robots: Optional[str], indexnow_key: Optional[str], indexnow_endpoint: str,
                    indexnow_key_location: Optional[str], dry_run: bool,
                    **options: Any) -> None:
    """Turn RSS/Atom feeds, URL lists and sitemaps into sitemaps.

    INPUT is a file, an http(s) URL, a robots.txt (its Sitemap: lines) or - for stdin (the
    default), plain or gzip-compressed. Messages go to
    stderr. Exit status: 0 success (warnings allowed), 1 bad data or nothing to write,
    2 bad usage, 130/143 interrupted.

    Several inputs are read in order and a URL's copies are merged (newest lastmod wins); with
    one input the first copy wins. Grow a sitemap from a feed in place:
    feed2sitemap sitemap.xml feed.xml -o sitemap.xml

    Validate sitemaps, indexes, URL lists and feeds: feed2sitemap check FILE... (see
    feed2sitemap check --help; a file named "check" is given as ./check).
    """
    if inputs.count("-") > 1:
        raise click.UsageError("stdin (-) can be read only once")
    if merge_copies + keep_first + no_dedupe > 1:
        raise click.UsageError("--merge, --keep-first and --no-dedupe exclude each other")
    display = None if quiet or not sys.stderr.isatty() else ProgressLine()
    report = Report(strict=options["strict"],
                    on_message=None if quiet else display.say if display else _say)
    mode = ("merge" if merge_copies else "first" if keep_first else "none" if no_dedupe
            else "auto")
    progress = click.get_current_context().meta.setdefault(_PROGRESS, Progress())
    if display is not None:
        progress.on_update = display.update
    indexnow = None
    if indexnow_key is not None:
        indexnow = IndexNow(indexnow_key, indexnow_endpoint, indexnow_key_location, timeout)
    try:
        summary = convert(list(inputs) or ["-"], output, scope_check=not no_scope_check,
                          report=report, dedupe_mode=mode, progress=progress,
                          atomic=not no_atomic, web=Web(timeout, cache_dir),
                          publish=Publish(robots, indexnow, dry_run), **options)
    except IndexNowError as exc:  # the files are written: say so, then what failed
        _say_summary(exc.summary, quiet)  # type: ignore[attr-defined]
        raise
    finally:
        if display is not None:
            display.clear()
    _say_summary(summary, quiet)


def _say_summary(summary: Summary, quiet: bool) -> None:
    for line in ([] if quiet else _summary_lines(summary)) + _removal_lines(summary, quiet):
        _say(("dry run: would have " + line) if summary.dry_run and not line.startswith(
            "dry run") else line)
    if summary.indexnow is not None:
        sub = summary.indexnow
        for body in sub.bodies:
            click.echo(json.dumps(body))
        if not quiet:
            _say(f"IndexNow: {'would submit' if summary.dry_run else 'submitted'} "
                 f"{_count(sub.urls, 'URL')} in {_count(sub.requests, 'request')}"
                 if sub.urls else "IndexNow: no URL was added or updated; nothing submitted")
    if summary.robots is not None and not quiet:
        _say("robots.txt: Sitemap: lines updated" if summary.robots
             else "robots.txt: Sitemap: lines already right, not rewritten")


class CheckProgressLine(ProgressLine):
    """The converter's progress line, counting what check has read."""

    def update_check(self, urls: int, files: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        if elapsed < self.DELAY or now - self.drawn_at < 0.25:
            return
        self.drawn_at = now
        sys.stderr.write(f"\r\x1b[K{PROG} check: {urls:,} entries read in {_count(files, 'file')}"
                         f", {urls / elapsed:,.0f}/s")
        sys.stderr.flush()
        self.shown = True


@click.command("check", cls=_Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="sitemaps",
              show_default=True, help="Limits to check against: sitemaps.org or Baidu's.")
@click.option("--base-url", metavar="URL",
              help="Public URL of the files' directory: URLs outside it are warned about "
                   "(default: the scheme and host of each file's first URL).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text: FILE:LINE:COLUMN: severity: rule: message; "
                                      "json: a list of objects.")
@click.option("--follow", is_flag=True,
              help="For an index, also check the parts it lists: by their path under the "
                   "index's URL directory (--base-url), else by name beside it. A part with "
                   "no file is an error.")
@click.option("--fail-on", type=click.Choice(["error", "warning"]), default="error",
              show_default=True, help="Exit 1 on errors only, or on warnings too.")
@click.option("--robots", "robots_txt", metavar="FILE_OR_URL",
              help="The site's robots.txt: warn about URLs it disallows for Googlebot and "
                   "about FILEs it names in no Sitemap: line.")
@click.option("--site", "site_dir", metavar="DIR",
              type=click.Path(exists=True, file_okay=False),
              help="The built site (needs --base-url): warn about URLs with no file, pages "
                   "marked noindex or canonical elsewhere, and HTML pages no sitemap lists.")
@click.option("-q", "--quiet", count=True,
              help="-q: only the summary; -qq: nothing (the exit status only).")
def check_command(files: tuple[str, ...], profile: str, base_url: str | None, fmt: str,
                  follow: bool, fail_on: str, robots_txt: str | None, site_dir: str | None,
                  quiet: int) -> None:
    """Check sitemaps, sitemap indexes, URL lists and feeds against sitemaps.org's rules.

    FILE is a path or - for stdin, plain or gzip-compressed. Problems go to stdout sorted by
    position, a summary to stderr. Exit status: 0 no errors (warnings allowed, unless
    --fail-on warning), 1 errors (a missing or unreadable file is one), 2 bad usage.
    """
    from .check import CheckStats, iter_check, site_diagnostics  # only this command needs it
    from .check.robots import load_robots
    from .check.site import Site
    from .urls import scope_of

    if files.count("-") > 1:
        raise click.UsageError("stdin (-) can be read only once")
    if follow and "-" in files:
        raise click.UsageError("--follow needs the index as a file: its parts are found "
                               "beside it, and stdin (-) has no directory")
    site = None
    if site_dir is not None:
        if base_url is None:
            raise click.UsageError("--site needs --base-url: the URL the site is served at")
        try:
            site = Site(site_dir, scope_of(base_url).prefix)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--base-url") from None
    display = CheckProgressLine() if quiet == 0 and sys.stderr.isatty() else None
    stats = CheckStats(progress=None if display is None else
                       lambda s: display.update_check(s.urls + s.sitemaps, s.files),
                       robots=None if robots_txt is None else load_robots(robots_txt),
                       site=site)
    first = True
    runs = [iter_check(sys.stdin.buffer if name == "-" else name, profile=profile,
                       base_url=base_url, follow=follow, stats=stats,
                       name="<stdin>" if name == "-" else None) for name in files]
    for d in itertools.chain(*runs, site_diagnostics(stats)):
        if quiet:
            continue
        if display is not None:
            display.clear()
        if fmt == "json":
            click.echo(("[\n  " if first else ",\n  ") + json.dumps(d.as_dict()), nl=False)
        else:
            click.echo(str(d))
        first = False
    if display is not None:
        display.clear()
    if fmt == "json" and not quiet:
        click.echo("[]" if first else "\n]")
    if quiet < 2:
        click.echo(f"{PROG} check: {_check_summary(stats)}", err=True)
    if stats.errors or (fail_on == "warning" and stats.warnings):
        raise click.exceptions.Exit(1)


def _check_summary(stats: Any) -> str:
    # index entries are sitemaps, not URLs: counted apart, and only when there are some
    listed = f", {_count(stats.sitemaps, 'sitemap')} listed in indexes" if stats.sitemaps \
        else ""
    return (f"{_count(stats.files, 'file')} checked, {_count(stats.urls, 'URL')}{listed}, "
            f"{_count(stats.errors, 'error')}, {_count(stats.warnings, 'warning')}")


def main(argv: Optional[list[str]] = None) -> None:
    """Entry point: `feed2sitemap check ...` validates, `feed2sitemap index ...` lists a
    partitioned job's parts; anything else converts."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    # The modules loaded so far (click, feedparser, ...) live as long as the process: move them
    # out of the collector's sight, so that its full collections, which a run of a million
    # records triggers a few dozen times, walk only what the run itself holds.
    gc.freeze()
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check"]:  # a file named "check" is converted as ./check
        check_command.main(args[1:], prog_name=f"{PROG} check")
    elif args[:1] == ["index"]:  # likewise "index": ./index
        from .cli_index import main as index_main  # only this command needs it

        index_main(args[1:])
    else:
        convert_command.main(args, prog_name=PROG)
