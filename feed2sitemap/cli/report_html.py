"""`feed2sitemap report`'s HTML: one self-contained page, inline CSS and SVG, no script, nothing
loaded (its Content-Security-Policy forbids any load), every value from the input escaped.
Numbers a script may read carry an id (``urls``, ``errors``, ...), a ``data-rule`` (problem
rows: ``td.count``, ``td.listed``) or a ``data-file`` (file rows: ``td.entries``)."""

from __future__ import annotations

from html import escape
from typing import Any

__all__ = ["FILES_SHOWN", "render_html"]

FILES_SHOWN = 1_000  # file rows drawn; the rest summed in one row (the JSON has them all)

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:72em;padding:0 1em;
color:#222;background:#fff}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}
th,td{padding:.2em .6em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
td.name{overflow-wrap:anywhere;min-width:14em;max-width:36em}
.part td.name{padding-left:2em}.bad{color:#b00}.warn{color:#a60}.ok{color:#070}
.error td.sev{color:#b00}.warning td.sev{color:#a60}.info td.sev{color:#06c}
svg{display:block}svg.meter{display:inline-block;vertical-align:middle}.muted{color:#777}
td{white-space:nowrap}td.name,td.msg{white-space:normal}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _n(value: int | None) -> str:
    return "" if value is None else f"{value:,}"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _meter(used: int | None, limit: int) -> str:
    """A small bar: ``used`` against ``limit`` (red past it)."""
    if used is None:
        return ""
    share = used / limit if limit else 0.0
    width = max(1.0, min(share, 1.0) * 100)
    color = "#b00" if share > 1 else "#a60" if share > 0.9 else "#4a7"
    return (f'<svg class="meter" width="100" height="10" role="img" aria-label="'
            f'{share:.1%} of the limit"><rect width="100" height="10" fill="#eee"/>'
            f'<rect width="{width:.1f}" height="10" fill="{color}"/></svg> {share:.1%}')


def _summary(d: dict[str, Any]) -> str:
    p = d["profile"]
    errors = f'<span class="{"bad" if d["errors"] else "ok"}" id="errors">{_n(d["errors"])}'
    return (f'<p><b id="urls">{_n(d["urls"])}</b> URLs in <b id="files">{len(d["files"]):,}'
            f'</b> files; <span id="sitemaps">{_n(d["sitemaps"])}</span> sitemaps listed in '
            f'indexes; {errors}</span> errors, <span id="warnings">{_n(d["warnings"])}</span>'
            f' warnings, <span id="notes">{_n(d["notes"])}</span> notes. '
            f'Limits ({_e(p["name"])}): {_n(p["max_urls"])} URLs and '
            f'{_n(p["max_bytes"])} bytes per file.</p>')


def _files(d: dict[str, Any]) -> str:
    p = d["profile"]
    rows = ['<table><tr><th>file</th><th>kind</th><th class="n">entries</th><th>of the '
            'limit</th><th class="n">bytes</th><th>of the limit</th><th class="n">stored</th>'
            '<th>HTTP</th><th class="n">errors</th><th class="n">warnings</th></tr>']
    for i, f in enumerate(d["files"][:FILES_SHOWN]):
        stored = _n(f["stored"]) + (" gzip" if f["gzip"] else "")
        limit = p["max_sitemaps"] if f["kind"] == "index" else p["max_urls"]
        rows.append(
            f'<tr class="{"part" if f["listed_in"] else "top"}" data-file="{i}">'
            f'<td class="name">{"↳ " if f["listed_in"] else ""}{_e(f["name"])}</td>'
            f'<td>{_e(f["kind"])}</td><td class="n entries">{_n(f["entries"])}</td>'
            f'<td>{_meter(f["entries"], limit)}</td><td class="n">{_n(f["bytes"])}'
            f'</td><td>{_meter(f["bytes"], p["max_bytes"])}</td><td class="n">{stored}</td>'
            f'<td>{_http(f["http"])}</td><td class="n">{_n(f["errors"])}</td>'
            f'<td class="n">{_n(f["warnings"])}</td></tr>')
    rest = d["files"][FILES_SHOWN:]
    if rest:
        rows.append(f'<tr><td class="name">{len(rest):,} more files</td><td></td><td class="n">'
                    f'{sum(f["entries"] for f in rest):,}</td><td colspan="7"></td></tr>')
    return "\n".join(rows) + "</table>"


def _http(http: dict[str, Any] | None) -> str:
    if not http:
        return ""
    shown = [("status", http.get("status")), ("Content-Length", http.get("content_length")),
             ("ETag", http.get("etag")), ("Last-Modified", http.get("last_modified")),
             ("Content-Type", http.get("content_type")),
             ("Content-Encoding", http.get("content_encoding"))]
    return "<br>".join(f'{k}: <span class="http-{k.lower()}">{_e(v)}</span>'
                       for k, v in shown if v is not None)


def _histogram(bars: list[list[Any]]) -> str:
    """The lastmods as an SVG bar chart, one bar per day, month or year."""
    if not bars:
        return '<p class="muted">No lastmods.</p>'
    top = max(n for _, n in bars) or 1
    step = max(2.0, min(40.0, 800 / len(bars)))
    width, height = step * len(bars), 160
    # (room for the first label under a single bar)
    parts = [f'<svg id="lastmod-chart" width="{max(width + 60, 160):.0f}" height="{height + 40}" '
             f'role="img" aria-label="lastmods over time">',
             f'<text x="0" y="12" font-size="11">{top:,}</text>']
    for i, (label, n) in enumerate(bars):
        h = n / top * height
        x = 50 + i * step
        parts.append(f'<rect x="{x:.1f}" y="{height + 16 - h:.1f}" width="{step * 0.85:.1f}" '
                     f'height="{h:.1f}" fill="#4a7"><title>{_e(label)}: {n:,}</title></rect>')
    first, last = bars[0][0], bars[-1][0]
    parts.append(f'<text x="50" y="{height + 32}" font-size="11">{_e(first)}</text>')
    if len(bars) > 1:
        parts.append(f'<text x="{width + 50:.0f}" y="{height + 32}" font-size="11" '
                     f'text-anchor="end">{_e(last)}</text>')
    return "".join(parts) + "</svg>"


def _share(parts: list[tuple[str, int, str]], chart_id: str) -> str:
    """A horizontal stacked bar of ``parts`` (label, count, color), with its legend."""
    total = sum(n for _, n, _ in parts) or 1
    x, rects, legend = 0.0, [], []
    for label, n, color in parts:
        w = n / total * 400
        rects.append(f'<rect x="{x:.1f}" width="{w:.1f}" height="16" fill="{color}">'
                     f'<title>{_e(label)}: {n:,}</title></rect>')
        legend.append(f'<span style="color:{color}">■</span> {_e(label)}: {n:,} '
                      f'({n / total:.1%})')
        x += w
    return (f'<svg id="{chart_id}" width="400" height="16" role="img" aria-label="shares">'
            + "".join(rects) + "</svg><p>" + " &nbsp; ".join(legend) + "</p>")


def _lastmods(d: dict[str, Any]) -> str:
    lm = d["lastmods"]
    notes = []
    if lm["unparsed"]:
        notes.append(f"{lm['unparsed']:,} lastmods with no readable day (not drawn)")
    if lm["other"]:
        notes.append(f"{lm['other']:,} lastmods past the days kept (not drawn)")
    return (f'<h2>Lastmods by {_e(lm["unit"])}</h2>' + _histogram(lm["bars"])
            + _share([("with a lastmod", lm["dated"], "#4a7"),
                      ("without", lm["undated"], "#bbb")], "lastmod-share")
            + f'<p class="muted">With: <span id="dated">{_n(lm["dated"])}</span>; without: '
            f'<span id="undated">{_n(lm["undated"])}</span>. {"; ".join(notes)}</p>')


def _extensions(d: dict[str, Any]) -> str:
    urls = d["urls"] or 1
    rows = ['<table><tr><th>extension</th><th class="n">URLs with it</th><th>share</th>'
            '<th class="n">items</th><th class="n">per URL with it</th></tr>']
    for kind, c in d["extensions"].items():
        per = f'{c["items"] / c["urls"]:.2f}' if c["urls"] else ""
        rows.append(f'<tr><td>{_e(kind)}</td><td class="n">{_n(c["urls"])}</td>'
                    f'<td>{_meter(c["urls"], urls)}</td><td class="n">{_n(c["items"])}</td>'
                    f'<td class="n">{per}</td></tr>')
    h = d["hreflang"]
    note = "" if h["complete"] else " (only the first links were kept: the rest not judged)"
    return ("<h2>Extensions</h2>" + "\n".join(rows) + "</table>"
            + f'<p>hreflang links to other pages: {_n(h["links"])}{note}.</p>'
            + _share([("linked back", h["reciprocal"], "#4a7"),
                      ("not linked back", h["not_reciprocal"], "#b00"),
                      ("target not in these files", h["outside"], "#bbb")], "hreflang-share"))


def _problems(d: dict[str, Any]) -> str:
    if not d["problems"]:
        return '<h2>Problems</h2><p class="ok">None.</p>'
    rows = ['<table><tr><th>severity</th><th>rule</th><th class="n">count</th><th class="n">'
            'listed by check</th><th>first at</th><th>message</th></tr>']
    for p in d["problems"]:
        rows.append(f'<tr class="{_e(p["severity"])}" data-rule="{_e(p["rule"])}">'
                    f'<td class="sev">{_e(p["severity"])}</td><td>{_e(p["rule"])}</td>'
                    f'<td class="n count">{_n(p["total"])}</td><td class="n listed">'
                    f'{_n(p["count"])}</td><td class="name">'
                    f'{_e(p["file"])}:{p["line"]}</td><td class="msg">{_e(p["message"])}</td></tr>')
    return ('<h2>Problems</h2><p class="muted">By rule: all of them, and those check lists (past '
            '50 of a rule in a file it counts them only).</p>' + "\n".join(rows) + "</table>")


def _robots(d: dict[str, Any]) -> str:
    r = d["robots"]
    if r is None:
        return ""
    rows = [f'<tr><td class="name">{_e(name)}</td><td class="{"ok" if ok else "bad"}">'
            f'{"listed" if ok else "not listed"}</td></tr>' for name, ok in r["listed"].items()]
    return (f'<h2>robots.txt</h2><p>Sitemap: lines of {_e(r["file"])}</p><table>'
            + "".join(rows) + "</table>")


def render_html(d: dict[str, Any], title: str) -> str:
    """The page for a report's JSON form ``d`` (SiteReport.as_dict)."""
    return "\n".join([
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        f"<title>Sitemap report: {_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Sitemap report: {_e(title)}</h1>", _summary(d), "<h2>Files</h2>", _files(d),
        _lastmods(d), _extensions(d), _problems(d), _robots(d),
        '<p class="muted">Made by feed2sitemap report.</p></body></html>', ""])
