"""`feed2sitemap diff OLD NEW`: what changed between two sitemaps, as text, JSON or Markdown,
with gates for CI."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, Optional

import click

from ..model.filters import Threshold
from ..model.options import ReadOptions
from ..model.report import Report
from ..run.diff import KINDS, Diff, diff
from .common import command, count, say

_LABELS = {"added": "added", "removed": "removed", "newer": "lastmod newer",
           "older": "lastmod older", "extensions": "extensions changed"}


def _threshold(ctx: click.Context, param: click.Parameter, value: Optional[str]
               ) -> Optional[Threshold]:
    if value is None:
        return None
    try:
        return Threshold.parse(value, param.opts[0])
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@command("diff")
@click.argument("old", metavar="OLD")
@click.argument("new", metavar="NEW")
@click.option("--follow", is_flag=True,
              help="An index stands for the pages of its parts (found beside it, or fetched).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]),
              default="text", show_default=True,
              help="markdown: tables for CI job summaries and pull requests.")
@click.option("--show", type=click.IntRange(min=0), default=20, show_default=True,
              metavar="N", help="List the first N URLs of each kind of change.")
@click.option("--fail-on-removed", metavar="N|P%", callback=_threshold,
              help="Exit 1 when more than N URLs (or P% of OLD's) were removed.")
@click.option("--fail-on-changed", metavar="N|P%", callback=_threshold,
              help="Exit 1 when more than N URLs (or P% of OLD's) differ in any way: added, "
                   "removed, lastmod moved or extensions changed.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; the exit status only.")
def diff_command(old: str, new: str, follow: bool, fmt: str, show: int,
                 fail_on_removed: Optional[Threshold], fail_on_changed: Optional[Threshold],
                 quiet: bool) -> None:
    """Compare two sitemaps (or sitemap sets, URL lists, feeds): URLs added, removed, with
    their lastmod moved newer or older, or with other extensions, counted per file.

    OLD and NEW are paths, http(s) URLs, or - for stdin (one of them). URLs are compared
    normalised. Exit status: 0 compared (and within the --fail-on gates), 1 a gate exceeded
    or a file unreadable, 2 bad usage.
    """
    if old == "-" and new == "-":
        raise click.UsageError("stdin (-) can be read only once")
    report = Report(on_message=None if quiet else say)
    sources = [sys.stdin.buffer if s == "-" else s for s in (old, new)]
    result = diff(sources[0], sources[1], reading=ReadOptions(follow=follow), report=report,
                  show=show, old_name="<stdin>" if old == "-" else old,
                  new_name="<stdin>" if new == "-" else new)
    if not quiet:
        click.echo(_FORMATS[fmt](result), nl=False)
    gates: list[tuple[int, Optional[Threshold], str, str]] = [
        (result.counts["removed"], fail_on_removed, "removed", "--fail-on-removed"),
        (result.changed, fail_on_changed, "changed", "--fail-on-changed")]
    failed = False
    for n, gate, what, option in gates:
        if gate is not None and n > gate.allowed(result.old.urls):
            failed = True
            if not quiet:
                say(f"{count(n, 'URL')} {what}; {option} {gate} allows "
                    f"{gate.allowed(result.old.urls):,}")
    if failed:
        raise click.exceptions.Exit(1)


def _totals(d: Diff) -> list[tuple[str, int]]:
    return [(_LABELS[k], d.counts[k]) for k in KINDS] + [("unchanged", d.unchanged)]


def _text(d: Diff) -> str:
    lines = [f"old: {d.old.name}: {count(d.old.urls, 'URL')} in {count(len(d.old.files), 'file')}",
             f"new: {d.new.name}: {count(d.new.urls, 'URL')} in {count(len(d.new.files), 'file')}",
             ", ".join(f"{n:,} {label}" for label, n in _totals(d))]
    for file, counter in d.per_file.items():
        lines.append(f"  {file}: " + ", ".join(f"{counter[k]:,} {_LABELS[k]}" for k in KINDS
                                               if counter[k]))
    for kind in KINDS:
        if d.examples[kind]:
            more = d.counts[kind] - len(d.examples[kind])
            lines.append(f"{_LABELS[kind]}:" + (f" (first {len(d.examples[kind]):,}; "
                                                 f"{more:,} more)" if more else ""))
            lines += [f"  {url}" for url in d.examples[kind]]
    return "\n".join(lines) + "\n"


def _json(d: Diff) -> str:
    data: dict[str, Any] = {
        "old": {"name": d.old.name, "urls": d.old.urls, "files": d.old.files},
        "new": {"name": d.new.name, "urls": d.new.urls, "files": d.new.files},
        "counts": {**{k: d.counts[k] for k in KINDS}, "unchanged": d.unchanged},
        "per_file": {f: {k: c[k] for k in KINDS if c[k]} for f, c in d.per_file.items()},
        "examples": d.examples,
    }
    return json.dumps(data, indent=2) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown(d: Diff) -> str:
    lines = ["### Sitemap diff", "",
             "| | file | URLs | files |", "|---|---|---:|---:|",
             f"| old | {_cell(d.old.name)} | {d.old.urls:,} | {len(d.old.files):,} |",
             f"| new | {_cell(d.new.name)} | {d.new.urls:,} | {len(d.new.files):,} |", "",
             "| change | URLs |", "|---|---:|"]
    lines += [f"| {label} | {n:,} |" for label, n in _totals(d)]
    if d.per_file:
        lines += ["", "| file | " + " | ".join(_LABELS[k] for k in KINDS) + " |",
                  "|---|" + "---:|" * len(KINDS)]
        lines += [f"| {_cell(f)} | " + " | ".join(f"{c[k]:,}" for k in KINDS) + " |"
                  for f, c in d.per_file.items()]
    for kind in KINDS:
        if d.examples[kind]:
            lines += ["", f"<details><summary>{_LABELS[kind]} ({d.counts[kind]:,})</summary>",
                      ""] + [f"- `{url}`" for url in d.examples[kind]] + ["", "</details>"]
    return "\n".join(lines) + "\n"


_FORMATS: dict[str, Callable[[Diff], str]] = {"text": _text, "json": _json, "markdown": _markdown}
