"""Running one side of a scenario as a child process, and what a scenario is."""

from __future__ import annotations

import gzip
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .datasets import size_of
from .floors import (
    FLOOR_EXPAT,
    FLOOR_FEEDPARSER,
    FLOOR_SITEMAP,
    FLOOR_TEXT,
    FLOOR_YARDSTICK,
    LAUNCHER,
    YARDSTICK_SCRIPT,
)


@dataclass
class Run:
    rc: int
    wall: float  # seconds
    rss_kib: int
    cpu: float  # user + system seconds: less swayed than wall time by a busy machine
    stderr: str


class Runner:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.launcher = work / "launcher.py"
        self.launcher.write_text(LAUNCHER)
        for name, src in (("floor_text.py", FLOOR_TEXT), ("floor_expat.py", FLOOR_EXPAT),
                          ("floor_feedparser.py", FLOOR_FEEDPARSER),
                          ("floor_sitemap.py", FLOOR_SITEMAP), (YARDSTICK_SCRIPT, FLOOR_YARDSTICK)):
            (work / name).write_text(src)

    def script(self, name: str) -> str:
        return str(self.work / name)

    def run(self, argv: list[str], outdir: Path) -> Run:
        # A clean output dir each time, so no run is helped or hurt by the one before.
        shutil.rmtree(outdir, ignore_errors=True)
        outdir.mkdir(parents=True)
        so, se = self.work / "child.out", self.work / "child.err"
        res = subprocess.run(
            [sys.executable, "-I", "-S", str(self.launcher), str(so), str(se), *argv],
            capture_output=True, text=True, check=True)
        rc, wall, rss, cpu = res.stdout.split()
        err = se.read_text(errors="replace")
        return Run(int(rc), float(wall), int(rss), float(cpu), err)


def is_usage_error(run: Run) -> bool:
    """Click exits 2 with "No such option" for an option the command does not know yet."""
    low = run.stderr.lower()
    return run.rc == 2 and ("no such option" in low or "usage:" in low)


# --------------------------------------------------------------------------- scenarios

@dataclass
class Side:
    label: str
    argv: list[str]
    outdir: Path
    output: str  # "xml" (sitemap files), "text" (one record per line)
    runs: list[Run] = field(default_factory=list)
    status: str = "ok"  # ok | unsupported | failed: ...
    out_urls: int | None = None
    out_bytes: int | None = None
    prepare: Callable[[], None] | None = None  # before each run, untimed (a bucket emptied)

    @property
    def wall(self) -> float | None:
        ok = [r.wall for r in self.runs if r.rc == 0]
        return statistics.median(ok) if ok else None

    @property
    def cpu(self) -> float | None:
        ok = [r.cpu for r in self.runs if r.rc == 0]
        return statistics.median(ok) if ok else None

    @property
    def spread(self) -> float | None:
        """(max - min) / median of the wall times: how far to trust the median."""
        ok = [r.wall for r in self.runs if r.rc == 0]
        return (max(ok) - min(ok)) / statistics.median(ok) if len(ok) > 1 else None

    @property
    def rss_mb(self) -> float | None:
        ok = [r.rss_kib for r in self.runs if r.rc == 0]
        return statistics.median(ok) / 1024 if ok else None


@dataclass
class Scenario:
    name: str
    what: str
    n: int  # input URLs / items, for URLs/s and to check the output count
    ours: Side
    baselines: list[Side]  # first one is the floor; the rest are references
    fallback: list[str] | None = None  # our argv to use if the first is unsupported
    note: str = ""



def count_output(side: Side) -> tuple[int, int, int]:
    """(URLs written, bytes on disk, files) for one side's last run; not timed.
    Index files are skipped (a split text output still gets an XML index)."""
    urls = files = 0
    for p in sorted(side.outdir.rglob("*")):
        if not p.is_file():
            continue
        files += 1
        raw = p.read_bytes()
        if p.suffix == ".gz":
            raw = gzip.decompress(raw)
        if b"<sitemapindex" in raw[:500]:
            continue
        if side.output == "xml":
            urls += raw.count(b"</url>")
        else:
            urls += sum(1 for line in raw.splitlines() if line.strip())
    return urls, size_of(side.outdir), files



def run_scenario(s: Scenario, r: Runner, repeat: int, log: Callable[[str], None],
                 once: frozenset[str] = frozenset()) -> None:
    """Run each side ``repeat`` times, interleaved; the sides labelled in ``once`` only once."""
    log(f"\n## {s.name}: {s.what}")
    sides = [s.ours, *s.baselines]
    for i in range(repeat):
        # Interleave ours and the floors so drift (thermal, noisy neighbours) hits both.
        for side in sides:
            if side.status != "ok" or (i > 0 and side.label in once):
                continue
            if side.prepare is not None:
                side.prepare()
            run = r.run(side.argv, side.outdir)
            if side is s.ours and i == 0 and is_usage_error(run) and s.fallback:
                s.note = "; ".join(filter(None, ["option unsupported; ran the fallback form",
                                                 s.note]))
                log(f"  ours: {run.stderr.strip().splitlines()[-1]}; trying fallback form")
                side.argv = s.fallback
                run = r.run(side.argv, side.outdir)
            if run.rc != 0:
                last = (run.stderr.strip().splitlines() or ["(no stderr)"])[-1]
                side.status = "unsupported" if is_usage_error(run) else f"failed rc={run.rc}"
                log(f"  {side.label}: {side.status}: {last[:200]}")
                continue
            side.runs.append(run)
            log(f"  {side.label:<10} run {i + 1}/{repeat}: {run.wall:7.2f}s "
                f"(cpu {run.cpu:6.2f}s) {run.rss_kib / 1024:7.1f} MB")
    for side in sides:
        if side.status == "ok" and side.runs:
            # "none": a check writes nothing; it read the scenario's n entries
            side.out_urls, side.out_bytes, files = count_output(side) \
                if side.output != "none" else (s.n, 0, 0)
            flag = "" if side.out_urls == s.n else f"  <-- expected {s.n:,}"
            log(f"  {side.label:<10} median {side.wall:.2f}s (cpu {side.cpu:.2f}s), "
                f"{side.rss_mb:.1f} MB; wrote "
                f"{side.out_urls:,} URLs in {files} file(s), {side.out_bytes / 1e6:.1f} MB{flag}")

