"""`feed2sitemap report`: a picture of a sitemap set (check/report.py) as an HTML page
(report_html.py), Markdown tables, or JSON (its keys: check/report.py's docstring)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from ..model.limits import PROFILES
from .common import PROG, ProgressLine, check_stdin, command, count
from .report_html import FILES_SHOWN, _n, render_html

_MD_ROWS = 100  # lastmod bars listed in Markdown (the busiest; the HTML draws them all)


@command("report")
@click.argument("files", nargs=-1, required=True, metavar="SITEMAP|URL...",
                type=click.Path(allow_dash=True))
@click.option("--follow", is_flag=True,
              help="For an index, also read the parts it lists (as check --follow finds them).")
@click.option("--robots", "robots_txt", metavar="FILE_OR_URL",
              help="The site's robots.txt: say whether its Sitemap: lines list each SITEMAP.")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="sitemaps",
              show_default=True, help="Limits to measure against: sitemaps.org or Baidu's.")
@click.option("--base-url", metavar="URL", help="As for check: the files' public directory.")
@click.option("-o", "--output", metavar="FILE",
              help="Where to write (default: stdout). Replaced only when the report is made.")
@click.option("--format", "fmt", type=click.Choice(["html", "markdown", "json"]),
              help="html: one self-contained page; markdown: tables (for CI summaries); json: "
                   "for scripts (default: from the -o name: .html/.htm html, .json json, else "
                   "markdown).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]),
              help="Exit 1 when check finds errors (or warnings, or notes too); the report is "
                   "written anyway. Default: exit 0 once the report is made.")
def report_command(files: tuple[str, ...], follow: bool, robots_txt: str | None, profile: str,
                   base_url: str | None, output: str | None, fmt: str | None,
                   fail_on: str | None) -> None:
    """Report on sitemaps: the index and its parts with their counts and sizes against the
    limits (and HTTP facts for URLs), lastmods over time, extension coverage, hreflang
    reciprocity, check's problems by rule, and with --robots whether robots.txt lists them.

    SITEMAP is a path, an http(s) URL or - for stdin. One streaming pass: the report
    summarises, it never lists every URL. Exit status: 0 the report was made (whatever it
    shows), 1 a SITEMAP named could not be read or a --fail-on verdict (the report is written
    anyway), 2 bad usage.
    """
    from ..check import report

    check_stdin(files, follow)
    fmt = fmt or _format_of(output)
    display = ProgressLine("report", "1") if sys.stderr.isatty() else None
    sources = [sys.stdin.buffer if name == "-" else name for name in files]
    made = report(sources, profile=profile, base_url=base_url, follow=follow, robots=robots_txt,
                  progress=None if display is None else display.checked)
    if display is not None:
        display.clear()
    data = made.as_dict()
    title = ", ".join(f["name"] for f in data["files"] if f["listed_in"] is None)
    text = {"html": render_html, "markdown": _markdown, "json": _json}[fmt](data, title)
    if output is None or output == "-":
        click.echo(text, nl=False)
    else:
        _write(output, text, fmt)
    stats = made.stats
    click.echo(f"{PROG} report: {count(stats.files, 'file')}, {count(stats.urls, 'URL')}, "
               f"{count(stats.errors, 'error')}, {count(stats.warnings, 'warning')}"
               + (f", {count(stats.notes, 'note')}" if stats.notes else "")
               + (f"; written to {_shown(output)}" if output not in (None, "-") else ""),
               err=True)
    unread = [f["name"] for f in data["files"] if f["listed_in"] is None
              and f["kind"] == "unreadable"]
    if unread or (fail_on is not None and stats.errors) or \
            (fail_on in ("warning", "info") and stats.warnings) or \
            (fail_on == "info" and stats.notes):
        raise click.exceptions.Exit(1)


def _format_of(output: str | None) -> str:
    name = (output or "").lower()
    if name.endswith((".html", ".htm")):
        return "html"
    return "json" if name.endswith(".json") else "markdown"


def _json(data: dict[str, Any], title: str) -> str:
    return json.dumps(data, indent=2) + "\n"


def _cell(value: object) -> str:
    """A Markdown table cell: no HTML (escaped), no column break, one line."""
    from html import escape

    text = escape(str(value), quote=False).replace("|", "\\|")
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def _pct(part: int | None, whole: int) -> str:
    return "" if part is None or not whole else f"{part / whole:.1%}"


def _markdown(d: dict[str, Any], title: str) -> str:
    p = d["profile"]
    lines = [f"### Sitemap report: {_cell(title)}", "",
             f"{d['urls']:,} URLs in {len(d['files']):,} files, {d['sitemaps']:,} sitemaps "
             f"listed in indexes; {d['errors']:,} errors, {d['warnings']:,} warnings, "
             f"{d['notes']:,} notes "
             f"(limits, {p['name']}: {p['max_urls']:,} URLs and {p['max_bytes']:,} bytes "
             "per file).", "",
             "| file | kind | entries | of limit | bytes | of limit | stored | HTTP |"
             " errors | warnings |", "|---|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    for f in d["files"][:FILES_SHOWN]:
        http = f["http"] or {}
        limit = p["max_sitemaps"] if f["kind"] == "index" else p["max_urls"]
        shown = "; ".join(f"{k}: {_cell(http[k])}" for k in ("status", "etag", "last_modified")
                          if http.get(k) is not None)
        lines.append(f"| {'↳ ' if f['listed_in'] else ''}{_cell(f['name'])} | {f['kind']} | "
                     f"{_n(f['entries'])} | {_pct(f['entries'], limit)} | "
                     f"{_n(f['bytes'])} | {_pct(f['bytes'], p['max_bytes'])} | "
                     f"{_n(f['stored'])}{' gzip' if f['gzip'] else ''} | {shown} | "
                     f"{f['errors']:,} | {f['warnings']:,} |")
    rest = d["files"][FILES_SHOWN:]
    if rest:
        lines.append(f"| {len(rest):,} more files | | {sum(f['entries'] for f in rest):,} | | | "
                     "| | | | |")
    lines += _md_lastmods(d) + _md_extensions(d) + _md_problems(d)
    if d["robots"] is not None:
        lines += ["", f"#### robots.txt ({_cell(d['robots']['file'])})", "",
                  "| sitemap | Sitemap: line |", "|---|---|"]
        lines += [f"| {_cell(name)} | {'listed' if ok else '**not listed**'} |"
                  for name, ok in d["robots"]["listed"].items()]
    return "\n".join(lines) + "\n"


def _md_lastmods(d: dict[str, Any]) -> list[str]:
    lm = d["lastmods"]
    whole = lm["dated"] + lm["undated"]
    lines = ["", f"#### Lastmods by {lm['unit']}", "",
             f"With a lastmod: {lm['dated']:,}; without: {lm['undated']:,} "
             f"({_pct(lm['undated'], whole) or '0%'})."]
    bars = [b for b in lm["bars"] if b[1]]
    if bars:
        shown = sorted(sorted(bars, key=lambda b: -b[1])[:_MD_ROWS])
        lines += ["", f"| {lm['unit']} | URLs |", "|---|---:|"]
        lines += [f"| {label} | {n:,} |" for label, n in shown]
        if len(bars) > len(shown):
            lines.append(f"| ({len(bars) - len(shown):,} more {lm['unit']}s) | |")
    return lines


def _md_extensions(d: dict[str, Any]) -> list[str]:
    lines = ["", "#### Extensions", "", "| extension | URLs with it | share | items |",
             "|---|---:|---:|---:|"]
    lines += [f"| {kind} | {c['urls']:,} | {_pct(c['urls'], d['urls'])} | {c['items']:,} |"
              for kind, c in d["extensions"].items()]
    h = d["hreflang"]
    lines += ["", f"hreflang links to other pages: {h['links']:,}; linked back: "
              f"{h['reciprocal']:,}; not linked back: {h['not_reciprocal']:,}; target in no "
              f"file read: {h['outside']:,}" + ("" if h["complete"] else
                                                 " (past the limit: not all kept)") + "."]
    return lines


def _md_problems(d: dict[str, Any]) -> list[str]:
    if not d["problems"]:
        return ["", "#### Problems", "", "None."]
    lines = ["", "#### Problems", "", "| severity | rule | count | listed by check | first at "
             "| message |", "|---|---|---:|---:|---|---|"]
    lines += [f"| {p['severity']} | {_cell(p['rule'])} | {p['total']:,} | {p['count']:,} | "
              f"{_cell(p['file'])}:{p['line']} | {_cell(p['message'])} |"
              for p in d["problems"]]
    return lines


def _shown(output: str) -> str:
    from ..files.store import is_store, shown

    return shown(output) if is_store(output) else output


_TYPES = {"html": "text/html; charset=utf-8", "markdown": "text/markdown; charset=utf-8",
          "json": "application/json"}


def _write(output: str, text: str, fmt: str) -> None:
    """Write the report to ``output`` as a whole (a temporary renamed over it), or through a
    device or pipe; an existing file keeps its mode and owner."""
    from ..errors import OutputError
    from ..files.safety import is_special, real_target, replace_file
    from ..files.store import is_store, store_put

    data = text.encode("utf-8")
    if is_store(output):  # (one PUT: a reader finds the earlier report or this one, whole)
        store_put(output, data, _TYPES[fmt])
        return
    try:
        if is_special(output):  # (appended, as the converter's: a >> file keeps its text)
            with open(output, "ab") as f:
                f.write(data)
        else:
            replace_file(real_target(output), data)
    except OSError as exc:
        raise OutputError(f"{output}: cannot write: {exc.strerror or exc}; nothing was "
                          "written") from None

