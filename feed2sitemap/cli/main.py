"""The converter's command and `index`; `check` is in check.py, imported by its runs only."""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Any, Optional

import click

from ..errors import IndexNowError, InputError
from ..files.store import is_store, open_store, shown
from ..model.filters import Filters, read_remove_files
from ..model.limits import DEFAULT_ENDPOINT, PROFILES
from ..model.options import FORMATS as INPUT_FORMATS
from ..model.options import (
    LASTMOD_FROM,
    PRETTY_URLS,
    Channel,
    Defaults,
    Limits,
    NewsSitemap,
    ReadOptions,
    SiteOptions,
    WriteOptions,
)
from ..model.record import CHANGEFREQS
from ..model.report import Progress, Report
from ..readers.feed.reader import DEFAULT_MAX_FEED_BYTES
from ..run.converting import Publish, Web, convert
from ..web.fetch import DEFAULT_MAX_FETCH_BYTES, DEFAULT_TIMEOUT, MAX_TIME_FACTOR
from ..writers import FORMATS
from .common import (
    PROG,
    PROGRESS_KEY,
    ProgressLine,
    command,
    on_disk,
    say,
    subcommand,
)
from .summary import say_summary


@command()
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
                   "split parts are listed in the index under it. A site directory input is "
                   "served there.")
@click.option("--input-url", metavar="URL",
              help="The inputs' own URL (a feed saved from the web): relative links resolve "
                   "against it before --base-url.")
@click.option("--pretty-urls", type=click.Choice(PRETTY_URLS), default="keep",
              show_default=True,
              help="Site directory: the URL of page.html: keep /page.html (every static "
                   "server answers it), strip to /page or slash /page/ (as your host serves "
                   "it). dir/index.html is always /dir/.")
@click.option("--images", is_flag=True,
              help="Site directory: list the images of each page's main content.")
@click.option("--lastmod-from", type=click.Choice(LASTMOD_FROM), default="page",
              show_default=True,
              help="Site directory: the lastmod of a page without dates of its own (its "
                   "article:modified_time, JSON-LD or itemprop dateModified): none (page), "
                   "its file's last commit (git), or the run that saw its main content change "
                   "(content, needs --state). Never the file's time: a checkout stamps all "
                   "files alike.")
@click.option("--state", metavar="FILE",
              help="--lastmod-from content: the file that keeps each page's fingerprint.")
@click.option("--source", metavar="DIR",
              help="--lastmod-from git: the source tree in the repository the pages were "
                   "built from.")
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
@click.option("--drop-deprecated", is_flag=True,
              help="Leave out the extension tags search engines no longer read (image caption, "
                   "title, geo_location, license; video category, gallery_loc, price, tvshow, "
                   "player_loc's allow_embed and autoplay; news access, genres, keywords, "
                   "stock_tickers, geo_locations), counted in the summary.")
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
@click.option("--prune", is_flag=True,
              help="The inputs list every page: remove the pages of the earlier output (the "
                   "output among the inputs) that no other input lists.")
@click.option("--remove", "remove_files", multiple=True, metavar="FILE",
              help="Remove the URLs FILE lists (one a line, # comments; - for stdin). "
                   "Repeatable.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Leave out URLs whose path (and query) matches GLOB: * within a segment, "
                   "** across (/tags/**, *.pdf). Repeatable.")
@click.option("--include", multiple=True, metavar="GLOB",
              help="Keep only URLs whose path (and query) matches one GLOB. Repeatable. In a "
                   "site directory it also brings in the other files it matches (*.pdf).")
@click.option("--max-removals", default="10%", show_default=True, metavar="N|P%",
              help="Refuse (exit 1, nothing changed) a run that would take more of the "
                   "earlier output's URLs out than N, or P% of them.")
@click.option("-v", "--verbose", is_flag=True,
              help="Name each URL removed from the earlier output, and each file of a site "
                   "directory left out.")
@click.option("--title", help="Feed output: channel title (default: the site's host).")
@click.option("--site-url", metavar="URL",
              help="Feed output: channel link (default: --base-url, else the first URL's site).")
@click.option("--description",
              help="Feed output: channel description (default: 'Pages of HOST').")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
              show_default=True, metavar="SECONDS",
              help="Inputs by URL: give up when the server has not answered (or sent more) "
                   "for this long.")
@click.option("--max-time", type=click.FloatRange(min=0), metavar="SECONDS",
              help=f"Inputs by URL: give up on one that takes longer than this in all, its "
                   f"whole body read (default: {MAX_TIME_FACTOR} times --timeout; 0: no limit).")
@click.option("--max-fetch-bytes", type=click.IntRange(min=1), default=DEFAULT_MAX_FETCH_BYTES,
              show_default=True, metavar="N",
              help="Inputs by URL: give up on one whose body, as sent, is larger.")
@click.option("--allow-private-redirects", is_flag=True,
              help="Inputs by URL: follow redirects to loopback, private and link-local "
                   "addresses on another host too (refused by default).")
@click.option("--cache", "cache_dir", metavar="DIR",
              help="Inputs by URL: keep each one's ETag, Last-Modified and body in DIR and ask "
                   "again conditionally; an unchanged input is read from DIR.")
@click.option("--skip-unreadable-parts", is_flag=True,
              help="--follow on an index by URL: report each part that cannot be read and go "
                   "on without it (by default the run stops and writes nothing).")
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
@click.option("--cache-control", metavar="VALUE",
              help="The Cache-Control header of the objects written to object storage "
                   "(-o s3://...), e.g. \"max-age=3600\".")
@click.option("--news-name", metavar="NAME",
              help="Write a Google News sitemap: the feeds' articles of the last two days, "
                   "NAME the publication (at most 1,000 URLs a file).")
@click.option("--news-language", metavar="CODE",
              help="The articles' language (ISO 639: en, fr, ...; zh-cn, zh-tw); default: "
                   "the feed's own.")
@click.option("--strict", is_flag=True,
              help="Treat every reported problem (skipped URL, dropped field, malformed feed) "
                   "as an error: exit 1, write nothing.")
@click.option("-q", "--quiet", is_flag=True, help="No warnings or summary; errors only.")
@click.version_option(None, "--version", package_name="feed2sitemap", prog_name=PROG)
def convert_command(inputs: tuple[str, ...], quiet: bool, verbose: bool, **o: Any) -> None:
    """Turn RSS/Atom feeds, URL lists and sitemaps into sitemaps.

    INPUT is a file, an http(s) URL, a robots.txt (its Sitemap: lines), a built site's
    directory (served at --base-url) or - for stdin (the default), plain or gzip-compressed.
    Messages go to stderr. Exit status: 0 success (warnings allowed), 1 bad data or nothing to
    write, 2 bad usage, 130/143/129 interrupted (Ctrl-C, SIGTERM, SIGHUP).

    Several inputs are read in order and a URL's copies are merged (newest lastmod wins); with
    one input the first copy wins. Grow a sitemap from a feed in place:
    feed2sitemap sitemap.xml feed.xml -o sitemap.xml; from the site's full list, removing what
    it no longer lists: feed2sitemap sitemap.xml pages.txt -o sitemap.xml --prune

    Validate sitemaps, indexes, URL lists and feeds: feed2sitemap check FILE...; compare two:
    feed2sitemap diff OLD NEW; list a partitioned job's parts in an index: feed2sitemap index;
    picture a sitemap set: feed2sitemap report SITEMAP -o report.html (see their --help; a
    file so named is given as ./check, ./diff, ./index or ./report).
    """
    _check_usage(inputs, o)
    reads_stdin = not inputs or "-" in inputs or "-" in o["remove_files"]
    if reads_stdin and not quiet and sys.stdin is not None and sys.stdin.isatty():
        say("reading URLs or a feed from standard input (Ctrl-D to end; feed2sitemap --help "
            "for inputs)")
    display = None if quiet or not sys.stderr.isatty() else ProgressLine()
    report = Report(strict=o["strict"], on_message=None if quiet else display.say if display
                    else say)
    report.name_each = verbose
    progress = click.get_current_context().meta.setdefault(PROGRESS_KEY, Progress())
    if display is not None:
        progress.on_update = display.update
    output = o["output"]
    try:
        summary = convert([_stdin() if s == "-" else s for s in inputs or ["-"]],
                          sys.stdout.buffer if output in (None, "-") else output,
                          report=report, progress=progress, **_groups(o))
    except IndexNowError as exc:  # the files are written: say so, then what failed
        say_summary(exc.summary, quiet)
        raise
    finally:
        if display is not None:
            display.clear()
    say_summary(summary, quiet, verbose)


def _check_usage(inputs: tuple[str, ...], o: dict[str, Any]) -> None:
    """What the options cannot be together, refused before anything is read."""
    if inputs.count("-") + o["remove_files"].count("-") > 1:
        raise click.UsageError("stdin (-) can be read only once")
    on_disk(state=o["state"], source=o["source"], robots=o["robots"])
    if o["news_language"] is not None and o["news_name"] is None:
        raise click.UsageError("--news-language needs --news-name (a news sitemap)")
    if o["merge_copies"] + o["keep_first"] + o["no_dedupe"] > 1:
        raise click.UsageError("--merge, --keep-first and --no-dedupe exclude each other")


def _groups(o: dict[str, Any]) -> dict[str, Any]:
    """convert()'s keywords from the command's options."""
    indexnow = None
    if o["indexnow_key"] is not None:
        from ..web.indexnow import IndexNow  # (the runs that submit import it: start-up time)

        indexnow = IndexNow(o["indexnow_key"], o["indexnow_endpoint"],
                            o["indexnow_key_location"], o["timeout"])
    mode = ("merge" if o["merge_copies"] else "first" if o["keep_first"] else "none"
            if o["no_dedupe"] else "auto")
    news = None if o["news_name"] is None else NewsSitemap(o["news_name"], o["news_language"])
    site = SiteOptions(o["pretty_urls"], o["images"], o["lastmod_from"], o["state"],
                       o["source"])
    return dict(
        base_url=o["base_url"], scope_check=not o["no_scope_check"], dedupe_mode=mode,
        web=Web(o["timeout"], o["cache_dir"], max_time=o["max_time"],
                max_fetch_bytes=o["max_fetch_bytes"],
                allow_private_redirects=o["allow_private_redirects"],
                skip_unreadable_parts=o["skip_unreadable_parts"]),
        publish=Publish(o["robots"], indexnow, o["dry_run"]), news=news,
        reading=ReadOptions(o["from_format"], o["max_feed_bytes"], o["follow"], o["input_url"],
                            site),
        writing=WriteOptions(o["to"], o["gzip"], o["gzip_level"], o["index"], not o["no_atomic"],
                             o["lock_timeout"], o["cache_control"],
                             drop_deprecated=o["drop_deprecated"]),
        limits=Limits(o["profile"], o["max_urls"], o["max_bytes"]),
        defaults=Defaults(o["changefreq"], o["priority"]),
        channel=Channel(o["title"], o["site_url"], o["description"]),
        filters=_filters(o["remove_files"], o["exclude"], o["include"]), prune=o["prune"],
        max_removals=o["max_removals"])


def _filters(remove_files: tuple[str, ...], exclude: tuple[str, ...],
             include: tuple[str, ...]) -> Filters:
    files = [io.TextIOWrapper(_stdin(), encoding="utf-8-sig") if f == "-" else
             _StoredList(f) if is_store(f) else f for f in remove_files]
    try:
        return Filters(include, exclude, read_remove_files(files) if files else frozenset())
    except UnicodeDecodeError:  # (a path's is said by read_remove_files)
        name = next(f.name for f in files if isinstance(f, _StoredList))
        raise InputError(name, None, "not UTF-8 text") from None


class _StoredList(io.TextIOWrapper):
    """A --remove list in object storage, named in messages as shown()."""

    def __init__(self, url: str) -> None:
        super().__init__(open_store(url), encoding="utf-8-sig")
        self.url = shown(url)

    @property
    def name(self) -> str:
        return self.url


@command("index")
@click.argument("sources", nargs=-1, required=True, metavar="MANIFEST_OR_PART...")
@click.option("-o", "--output", metavar="FILE", required=True,
              help="The index to write (.gz: gzip-compressed); parts are moved beside it.")
@click.option("--base-url", metavar="URL", required=True,
              help="Public URL of the output's directory: each part is listed as URL + name.")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="sitemaps",
              show_default=True, help="Limits the parts must obey, and the index's own.")
@click.option("--gzip-level", type=click.IntRange(0, 9), metavar="0-9",
              help="Compression level of a .gz index (default 6).")
@click.option("--no-atomic", "no_atomic", is_flag=True,
              help="Overwrite files in place instead of renaming temporaries over them.")
@click.option("--lock-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              metavar="SECONDS", help="How long to wait for another run in the directory.")
@click.option("-q", "--quiet", is_flag=True, help="No summary; errors only.")
def index_command(sources: tuple[str, ...], output: str, base_url: str, profile: str,
                  gzip_level: Optional[int], no_atomic: bool, lock_timeout: float,
                  quiet: bool) -> None:
    """Write a sitemap index listing the parts a partitioned job wrote (STEM-P-K.xml[.gz]).

    Each MANIFEST_OR_PART is a manifest (JSON Lines, one part a line, names relative to the
    manifest's directory) or a part itself, then read for its URL count, size and newest
    lastmod. Parts elsewhere are moved beside the index; the replaced index's parts that are no
    longer listed are removed. Exit status: 0 written, 1 bad parts (nothing changed), 2 usage.
    """
    import os

    from ..scale.indexing import is_manifest, open_regular, read_manifest, write_index
    from ..scale.partition import PartManifest

    on_disk(*sources, output=output)
    parts: list[PartManifest | str] = []
    for source in sources:
        open_regular(source).close()  # (an InputError saying what it is, when not a file)
        if is_manifest(source):
            parts += read_manifest(source)
        else:
            parts.append(source)
    report = Report(on_message=None if quiet else say)
    progress = click.get_current_context().meta.setdefault(PROGRESS_KEY, Progress())
    summary = write_index(parts, output, base_url=base_url, directory=os.getcwd(),
                          limits=Limits(profile), report=report, progress=progress,
                          writing=WriteOptions(gzip_level=gzip_level, atomic=not no_atomic,
                                               lock_timeout=lock_timeout))
    say_summary(summary, quiet)


class _Terminal(io.FileIO):
    """stdin on a terminal, where Ctrl-D ends one read, not the input: the readers read again
    after an empty read (a file's end is for good), and each read waited for one more Ctrl-D."""

    ended = False

    def readinto(self, buf: Any) -> int:
        n = 0 if self.ended else super().readinto(buf)
        self.ended = not n
        return n or 0


def _stdin() -> Any:
    """stdin as a binary stream named "<stdin>" for messages (click's test runner gives a
    nameless one)."""
    if sys.stdin is None:
        raise click.UsageError("stdin (-) is closed: name an INPUT")
    stream = sys.stdin.buffer
    if stream.isatty():
        terminal = _Terminal(stream.fileno(), closefd=False)
        terminal.name = "<stdin>"
        stream = io.BufferedReader(terminal)
    if getattr(stream, "name", None) != "<stdin>":
        with contextlib.suppress(AttributeError):
            setattr(stream, "name", "<stdin>")  # noqa: B010  (IO.name is read-only to mypy)
    return stream


def main(argv: Optional[list[str]] = None) -> None:
    """The command line ``argv`` (default: the process's), a subcommand's or the converter's."""
    subcommand(list(sys.argv[1:] if argv is None else argv))()

