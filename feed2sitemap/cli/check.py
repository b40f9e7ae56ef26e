"""`feed2sitemap check`: validate sitemaps, indexes, URL lists and feeds."""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

import click

from ..files.store import is_store
from ..model.limits import PROFILES
from .common import PROG, ProgressLine, check_stdin, command, count, on_disk, render


class SiteDir(click.Path):
    """A folder that must exist; a URL of object storage passes, for on_disk's one line."""

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        return value if is_store(value) else super().convert(value, param, ctx)


@command("check")
@click.argument("files", nargs=-1, required=True, metavar="FILE...",
                type=click.Path(allow_dash=True))  # (a directory: an unreadable file; a URL)
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
                   "index's URL directory (--base-url), else by name beside it; for an index "
                   "given by URL, fetched from its host. A part not found is an error. Each "
                   "file is checked once, as a part of its index if one given lists it.")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="error",
              show_default=True, help="Exit 1 on errors only, on warnings too, or on notes "
                                      "(info: what search engines ignore) too.")
@click.option("--robots", "robots_txt", metavar="FILE_OR_URL",
              help="The site's robots.txt: warn about URLs it disallows for Googlebot and "
                   "about FILEs it names in no Sitemap: line.")
@click.option("--site", "site_dir", metavar="DIR",
              type=SiteDir(exists=True, file_okay=False),
              help="The built site (needs --base-url): warn about URLs with no file, pages "
                   "marked noindex or canonical elsewhere, and HTML pages no sitemap lists.")
@click.option("-q", "--quiet", count=True,
              help="-q: only the summary; -qq: nothing (the exit status only).")
def check_command(files: tuple[str, ...], profile: str, base_url: str | None, fmt: str,
                  follow: bool, fail_on: str, robots_txt: str | None, site_dir: str | None,
                  quiet: int) -> None:
    """Check sitemaps, sitemap indexes, URL lists and feeds against sitemaps.org's rules.

    FILE is a path, an http(s) URL or - for stdin, plain or gzip-compressed. Problems go to
    stdout sorted by position (a file's notes after its other problems), a summary to stderr.
    Notes (severity info) say what is legal but ignored or misread by search engines, once a
    file each. Exit status: 0 no errors (warnings and notes allowed, unless --fail-on warning
    or info), 1 errors (a missing or unreadable file is one), 2 bad usage.
    """
    from ..check import (
        CheckStats,
        Site,
        follow_order,
        hreflang_diagnostics,
        iter_check,
        load_robots,
        site_diagnostics,
    )
    from ..model.scope import scope_of

    check_stdin(files, follow)
    site = None
    on_disk(site_dir=site_dir)
    if site_dir is not None:
        if base_url is None:
            raise click.UsageError("--site needs --base-url: the URL the site is served at")
        try:
            site = Site(site_dir, scope_of(base_url).prefix)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--base-url") from None
    display = ProgressLine("check", "1") if quiet == 0 and sys.stderr.isatty() else None
    stats = CheckStats(progress=None if display is None else display.checked,
                       robots=None if robots_txt is None else load_robots(robots_txt),
                       site=site)
    first = True
    if follow:
        files = tuple(follow_order(files, profile=profile, base_url=base_url))
    runs = [iter_check(sys.stdin.buffer if name == "-" else name, profile=profile,
                       base_url=base_url, follow=follow, stats=stats,
                       name="<stdin>" if name == "-" else None) for name in files]
    for d in itertools.chain(*runs, hreflang_diagnostics(stats), site_diagnostics(stats)):
        if quiet:
            continue
        if display is not None:
            display.clear()
        if fmt == "json":
            item = {**d.as_dict(), "message": render(d.message)}
            click.echo(("[\n  " if first else ",\n  ") + json.dumps(item), nl=False)
        else:
            click.echo(render(str(d)))
        first = False
    if display is not None:
        display.clear()
    if fmt == "json" and not quiet:
        click.echo("[]" if first else "\n]")
    if quiet < 2:
        # index entries are sitemaps, not URLs: counted apart, and only when there are some
        listed = f", {count(stats.sitemaps, 'sitemap')} listed in indexes" \
            if stats.sitemaps else ""
        # notes (info) only when there are some, as the sitemaps listed
        notes = f", {count(stats.notes, 'note')}" if stats.notes else ""
        click.echo(f"{PROG} check: {count(stats.files, 'file')} checked, "
                   f"{count(stats.urls, 'URL')}{listed}, {count(stats.errors, 'error')}, "
                   f"{count(stats.warnings, 'warning')}{notes}", err=True)
    if stats.errors or (fail_on != "error" and stats.warnings) or \
            (fail_on == "info" and stats.notes):
        raise click.exceptions.Exit(1)

