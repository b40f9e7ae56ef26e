"""The GitHub Action's step (action.yml): build a sitemap from a site directory, or take an
existing one; check it; compare it with the deployed one; submit what changed to IndexNow.

The inputs come as INPUT_* variables (action.yml names them); the counts go to
$GITHUB_OUTPUT (url-count, added, removed, problems: added and removed are empty when nothing
was compared) and a Markdown summary to $GITHUB_STEP_SUMMARY. Exit status: 0 done, 1 the build
failed or the check found errors (with strict, warnings too) or IndexNow failed, 2 bad inputs.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections.abc import Sequence

from feed2sitemap import Feed2SitemapError, IndexNow, ReadOptions, Report, diff
from feed2sitemap.check import CheckStats, Diagnostic, hreflang_diagnostics, iter_check
from feed2sitemap.run.diff import KINDS, Diff

SHOWN = 20  # the problems listed in the summary and as annotations
SUBMITTED = 10_000  # IndexNow's limit for one request


def main() -> int:
    given = {name: os.environ.get("INPUT_" + name.upper().replace("-", "_"), "").strip()
             for name in ["site-dir", "sitemap", "base-url", "output", "lastmod-from", "source",
                          "state", "strict", "diff-against", "indexnow-key"]}
    if bool(given["site-dir"]) == bool(given["sitemap"]):
        return fail("give one of site-dir (a built site to map) and sitemap (one to check)", 2)
    if given["indexnow-key"] and not given["diff-against"]:
        return fail("indexnow-key needs diff-against: the deployed sitemap tells which URLs "
                    "are new or updated", 2)
    sitemap = given["sitemap"]
    said: list[str] = []
    if given["site-dir"]:
        sitemap = given["output"] or os.path.join(given["site-dir"], "sitemap.xml")
        code, said = build(given, sitemap)
        if code:
            summarize([f"The sitemap could not be built from {cell(given['site-dir'])} (exit "
                       f"status {code}):", "", "```text", *said[:SHOWN], "```"])
            return fail("the sitemap could not be built", code)
    stats = CheckStats()
    found: list[Diagnostic] = []  # the first SHOWN; stats counts them all
    try:
        for d in itertools.chain(iter_check(sitemap, follow=True, stats=stats),
                                 hreflang_diagnostics(stats)):
            if len(found) < SHOWN:
                found.append(d)
                annotate(d)
    except Feed2SitemapError as exc:
        return fail(str(exc), 1)
    compared = compare(given["diff-against"], sitemap)
    submitted = submit(given["indexnow-key"], compared) if compared is not None else None
    counts = {"url-count": stats.urls, "problems": stats.errors + stats.warnings,
              "added": "" if compared is None else compared.counts["added"],
              "removed": "" if compared is None else compared.counts["removed"]}
    with open(os.environ.get("GITHUB_OUTPUT", os.devnull), "a", encoding="utf-8") as f:
        f.writelines(f"{name}={value}\n" for name, value in counts.items())
    lines = summary(sitemap, stats, found, compared, given["diff-against"], submitted)
    if said:  # the build's warnings and counts of pages left out, shallow clones included
        lines += ["", "Built:", "", "```text", *said[:SHOWN], "```"]
    summarize(lines)
    strict = given["strict"].lower() in ("true", "yes", "1")
    if stats.errors or (strict and stats.warnings):
        return fail(f"{sitemap}: errors: {stats.errors:,}, warnings: {stats.warnings:,}", 1)
    return 1 if submitted is not None and submitted.startswith("failed") else 0


def build(given: dict[str, str], sitemap: str) -> tuple[int, list[str]]:
    """Run the converter on the site directory: its exit status and messages (in the log
    too)."""
    command = [sys.executable, "-m", "feed2sitemap", given["site-dir"], "-o", sitemap]
    for option in ["base-url", "lastmod-from", "source", "state"]:
        if given[option]:
            command += ["--" + option, given[option]]
    print("$ " + " ".join(command[2:]), flush=True)
    done = subprocess.run(command, check=False, stderr=subprocess.PIPE, text=True,
                          errors="replace")
    print(done.stderr, end="", file=sys.stderr)
    return done.returncode, done.stderr.splitlines()


def compare(deployed: str, sitemap: str) -> Diff | None:
    """The diff from the deployed sitemap to this one; None when there is none to compare
    with (not asked, or unreadable: a first deploy has none, so that is a warning)."""
    if not deployed:
        return None
    try:
        return diff(deployed, sitemap, reading=ReadOptions(follow=True), show=SUBMITTED,
                    report=Report(on_message=lambda text: print(text, file=sys.stderr)))
    except Feed2SitemapError as exc:
        print(f"::warning::no diff: the deployed sitemap cannot be read: {escape(str(exc))}")
        return None


def submit(key: str, compared: Diff) -> str | None:
    """Submit the URLs added or with a newer lastmod to IndexNow; what happened, in words."""
    if not key:
        return None
    urls = (compared.examples["added"] + compared.examples["newer"])[:SUBMITTED]
    left = compared.counts["added"] + compared.counts["newer"] - len(urls)
    try:
        done = IndexNow(key).submit(urls)
    except Feed2SitemapError as exc:
        print(f"::error::IndexNow: {escape(str(exc))}")
        return f"failed: {exc}"
    more = f"; {left:,} more not submitted (over {SUBMITTED:,})" if left > 0 else ""
    return f"{done.urls:,} URLs submitted in {done.requests:,} requests{more}"


def summary(sitemap: str, stats: CheckStats, found: Sequence[Diagnostic], compared: Diff | None,
            deployed: str, submitted: str | None) -> list[str]:
    lines = [f"### Sitemap: {cell(sitemap)}", "", "| | count |", "|---|---:|",
             f"| URLs | {stats.urls:,} |", f"| errors | {stats.errors:,} |",
             f"| warnings | {stats.warnings:,} |"]
    if compared is not None:
        lines += [f"| {kind} since {cell(deployed)} | {compared.counts[kind]:,} |"
                  for kind in KINDS]
    if submitted is not None:
        lines += ["", f"IndexNow: {cell(submitted)}"]
    if found:
        total = stats.errors + stats.warnings
        more = f" (the first {len(found):,} of {total:,})" if total > len(found) else ""
        lines += ["", f"Problems{more}:", "", "```text"] + [str(d) for d in found] + ["```"]
    return lines


def summarize(lines: list[str]) -> None:
    with open(os.environ.get("GITHUB_STEP_SUMMARY", os.devnull), "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n\n")


def annotate(d: Diagnostic) -> None:
    level = "error" if d.severity == "error" else "warning"
    print(f"::{level} file={escape(d.file)},line={d.line},col={d.column}::"
          f"{escape(d.rule + ': ' + d.message)}")


def escape(text: str) -> str:
    """A value for a workflow command (GitHub's escapes)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def fail(message: str, code: int) -> int:
    print(f"::error::{escape(message)}")
    return code


if __name__ == "__main__":
    sys.exit(main())
