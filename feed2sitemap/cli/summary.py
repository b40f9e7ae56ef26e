"""The converter's and index's summary: what was written, skipped, merged and removed."""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Optional

import click

from ..model.report import Report
from .common import count, say

if TYPE_CHECKING:
    from ..files.outputs import FileInfo
    from ..pipeline.merging import MergeCounts
    from ..pipeline.removals import Removals
    from ..run.writing import Summary


def summary_lines(summary: Summary) -> list[str]:
    lines = []
    files = summary.files
    what = "sitemap" if summary.of_sitemaps else "URL"

    def verb(f: FileInfo) -> str:
        return summary.placed.get(f.path or "") or ("unchanged" if f.unchanged else "wrote")

    def sizes(f: FileInfo) -> str:
        gzipped = (f", {f.compressed_size:,} bytes gzipped" if f.compressed_size is not None
                   else "")
        return f"{f.size:,} bytes{gzipped}"

    if len(files) > 1:
        for f in files:
            noun = "sitemap" if f in summary.indexes else what
            lines.append(f"{verb(f)} {f.path}: {count(f.count, noun)}, {sizes(f)}")
    lines += [f"removed {path}: a temporary of an interrupted run" for path in summary.cleaned]
    lines += [f"kept {path}: the replaced index listed it, the new one does not (not written "
              "by feed2sitemap, so not removed)" for path in summary.left]
    if len(files) == 1 and files[0].unchanged:
        head = (f"unchanged: {files[0].path} already holds these {count(summary.urls, what)} "
                f"({sizes(files[0])})")
    elif len(files) == 1:
        head = f"wrote {count(summary.urls, what)} to {files[0].path} ({sizes(files[0])})"
    elif summary.placed:
        head = _index_head(summary, what)
    else:
        all_same = len(summary.unchanged) == len(files)
        head = (f"{'unchanged:' if all_same else 'wrote'} {count(summary.urls, what)} in "
                f"{count(len(summary.parts), 'file')} and "
                f"{count(len(summary.indexes), 'index file')}")
        if summary.unchanged and not all_same:
            head += (f" ({len(summary.unchanged):,} of the {len(files):,} files unchanged, "
                     "not rewritten)")
    report = summary.report
    head += "; " + _skipped_text(report)
    if report.excluded:
        head += f"; {sum(report.excluded.values()):,} excluded (" + ", ".join(
            f"{n:,} {rule}" for rule, n in report.excluded.most_common()) + ")"
    if report.dropped_tags:
        head += f"; dropped {count(report.dropped_tags.total(), 'deprecated extension tag')} (" \
            + ", ".join(f"{tag} ×{n:,}" for tag, n in report.dropped_tags.most_common()) + ")"
    if report.warnings:
        head += "; warnings: " + ", ".join(f"{n:,} {k}" for k, n in report.warnings.items())
    if report.scope is not None:
        lines.append(f"scope: {report.scope} ({report.scope_from})")
    lines.append(head)
    for rule, n in report.excluded.most_common():
        names = report.excluded_names.get(rule, [])
        if names:
            more = n - len(names)
            lines.append(f"excluded, {rule}: {', '.join(names)}"
                         + (f" and {more:,} more" if more > 0 else ""))
    if summary.merge is not None and (summary.merge.base is not None or summary.merge.copies):
        lines.append(_merge_text(summary.merge, summary.removals))
    return lines


def _index_head(summary: Summary, what: str) -> str:
    """The index command's line: the index files it wrote, and what it did with the parts."""
    done = Counter(summary.placed.values())
    unchanged = all(f.unchanged for f in summary.indexes)
    return (f"{'unchanged:' if unchanged else 'wrote'} "
            f"{count(len(summary.indexes), 'index file')} listing {count(summary.urls, what)} in "
            f"{count(len(summary.parts), 'file')} ("
            + ", ".join(f"{n:,} {verb}" for verb, n in sorted(done.items())) + ")")


def _merge_text(m: MergeCounts, removals: Optional[Removals]) -> str:
    if m.base is not None:
        gone = "" if removals is None else f", {_removed_text(removals)}"
        return (f"merged: {count(m.added, 'URL')} added, {m.updated:,} updated{gone}, "
                f"compared with {m.base}")
    return (f"merged: {count(m.urls, 'distinct URL')}, {m.copies:,} duplicate "
            f"{'copy' if m.copies == 1 else 'copies'} folded in, {m.updated:,} "
            f"{'entry' if m.updated == 1 else 'entries'} changed by a later copy")


def _removed_text(removals: Removals) -> str:
    """"K removed (n by rule, ...)": what left the earlier output, and why."""
    if not removals.total:
        return "0 removed"
    why = [f"{n:,} {'listed by no input, --prune' if r == '--prune' else 'by ' + r}"
           for r, n in removals.reasons.most_common() if n]
    if removals.dropped_on_the_way:
        why.append(f"{removals.dropped_on_the_way:,} skipped (see above)")
    return f"{removals.total:,} removed ({', '.join(why)})"


def _removed_names(removals: Removals) -> list[str]:
    named = [f"removed {url}" for url in removals.names]
    rest = sum(removals.reasons.values()) - len(removals.names)
    if rest > 0:
        named.append(f"removed {rest:,} more URLs (only the first {len(removals.names):,} "
                     "are named)")
    return named


def removal_lines(summary: Summary, quiet: bool) -> list[str]:
    """Deletions are said even under -q (shortened to one line): a user must be able to see
    every file a scheduled run removed."""
    lines = [f"warning: could not remove {path}: {why}" for path, why in summary.not_removed]
    if quiet and summary.removed:
        names = ", ".join(os.path.basename(p) for p in summary.removed[:5])
        more = len(summary.removed) - 5
        lines.append(f"removed {count(len(summary.removed), 'file')} of the earlier output "
                     f"that this run no longer writes: {names}"
                     f"{f', +{more} more' if more > 0 else ''}")
    elif summary.removed:
        lines += [f"removed {path}: listed by the replaced index, no longer written"
                  for path in summary.removed]
    return lines


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


def _dry(line: str) -> str:
    """A summary line of a dry run: what would have been done."""
    if line.startswith("dry run"):
        return line
    verb, _, rest = line.partition(" ")
    done = {"wrote": "written", "removed": "removed", "kept": "kept"}.get(verb)
    return f"dry run: would have {done} {rest}" if done else f"dry run: {line}"


def say_summary(summary: Summary, quiet: bool, verbose: bool = False) -> None:
    lines = [] if quiet else summary_lines(summary)
    if quiet and summary.merge is not None and summary.removals is not None \
            and summary.removals.total:  # (removals are counted in merges only)
        lines.append(_merge_text(summary.merge, summary.removals))  # one line even with -q
    if verbose and summary.removals is not None:
        lines += _removed_names(summary.removals)
    for line in lines + removal_lines(summary, quiet):
        say(_dry(line) if summary.dry_run else line)
    if summary.indexnow is not None:
        import json

        sub = summary.indexnow
        for body in sub.bodies:
            click.echo(json.dumps(body))
        if not quiet:
            say(f"IndexNow: {'would submit' if summary.dry_run else 'submitted'} "
                f"{count(sub.urls, 'URL')} in {count(sub.requests, 'request')}"
                if sub.urls else "IndexNow: no URL was added or updated; nothing submitted")
    if summary.robots is not None and not quiet:
        say("robots.txt: Sitemap: lines updated" if summary.robots
            else "robots.txt: Sitemap: lines already right, not rewritten")
