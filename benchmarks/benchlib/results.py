"""The report: the results table, the gzip table, notes, the machine, the JSON file."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .running import Scenario, Side

NOISY = 0.25  # a spread of wall times beyond this fraction of the median is flagged


def fmt(x: float | None, spec: str) -> str:
    return format(x, spec) if x is not None else "-"


def table(scenarios: list[Scenario]) -> str:
    # "cpu ratio" (user + system time) is the one to read when the machine was busy.
    rows = ["| scenario | ours wall | floor wall | ratio | URLs/s | ours peak MB | floor peak MB "
            "| cpu ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scenarios:
        o = s.ours
        for b in s.baselines:
            label = s.name if b.label == "floor" else f"{s.name} vs {b.label}"
            ow = o.wall if o.status == "ok" else None
            ratio = ow / b.wall if ow and b.wall else None
            cpu = o.cpu / b.cpu if ow and o.cpu and b.cpu else None
            rows.append(
                f"| {label} | {fmt(ow, '.2f') + 's' if ow else o.status} | "
                f"{fmt(b.wall, '.2f') + 's' if b.wall else b.status} | "
                f"{fmt(ratio, '.2f') + 'x' if ratio else '-'} | "
                f"{fmt(s.n / ow if ow else None, ',.0f')} | "
                f"{fmt(o.rss_mb if ow else None, '.1f')} | "
                f"{fmt(b.rss_mb, '.1f')} | {fmt(cpu, '.2f') + 'x' if cpu else '-'} |")
    return "\n".join(rows)


def gzip_table(scenarios: list[Scenario], plain: Scenario | None) -> str:
    rows = ["| gzip level | ours wall | ours size MB | floor wall | floor size MB |",
            "|---|---:|---:|---:|---:|"]
    def mb(side: Side) -> str:
        return fmt(side.out_bytes / 1e6 if side.out_bytes else None, ".1f")

    def wall(side: Side) -> str:
        return fmt(side.wall, ".2f") + "s" if side.wall else side.status

    for level, s in ([("none", plain)] if plain else []) + [(x.name[5:], x) for x in scenarios]:
        o, f = s.ours, s.baselines[0]
        rows.append(f"| {level} | {wall(o)} | {mb(o)} | {wall(f)} | {mb(f)} |")
    return "\n".join(rows)


def machine(cmd: list[str], fpy: str) -> dict[str, Any]:
    cpu = "unknown"
    try:
        m = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass

    def ask(argv: list[str]) -> str:
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            if res.returncode != 0:
                return "?"
            return (res.stdout.strip() or res.stderr.strip()).splitlines()[-1]
        except (OSError, subprocess.SubprocessError, IndexError):
            return "?"

    return {
        "nproc": os.cpu_count(),
        # Other work on the machine skews wall times; recorded so a reader can judge.
        "load_start": os.getloadavg()[0],
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu": cpu,
        "platform": platform.platform(),
        "bench_python": platform.python_version(),
        "floor_python": ask([fpy, "-c", "import platform; print(platform.python_version())"]),
        "feedparser": ask([fpy, "-c", "import feedparser; print(feedparser.__version__)"]),
        "command": " ".join(cmd),
        "command_version": ask([*cmd, "--version"]),
    }


def python_of(cmd: list[str]) -> str:
    """The interpreter our command runs on, so the floors run on the same one: the
    `python` in `--cmd "python -m feed2sitemap"`, or a console script's shebang."""
    if "python" in Path(cmd[0]).name:
        return shutil.which(cmd[0]) or cmd[0]
    exe = shutil.which(cmd[0])
    if exe:
        try:
            with open(exe, "rb") as f:
                first = f.readline(500).decode("utf-8", "replace")
            if first.startswith("#!") and "python" in first:
                interp = first[2:].split()
                if interp and Path(interp[0]).exists():
                    return interp[0]
        except OSError:
            pass
    return sys.executable



def notes(scenarios: list[Scenario], mach: dict[str, Any]) -> list[str]:
    """What a reader of the table should know: fallbacks, wrong counts, noise, a busy machine."""
    out = [f"- {s.name}: {s.note}" for s in scenarios if s.note]
    out += [f"- {s.name} {side.label}: wrote {side.out_urls:,} URLs, expected {s.n:,}"
            for s in scenarios for side in (s.ours, *s.baselines)
            if side.out_urls is not None and side.out_urls != s.n]
    out += [f"- {s.name} {side.label}: noisy, wall times spread {side.spread:.0%} of the median"
            for s in scenarios for side in (s.ours, *s.baselines)
            if side.spread is not None and side.spread > NOISY]
    if mach["load_start"] > 0.5 or mach["load_end"] > 1.5:
        out.append(f"- the machine was busy (1-min load average {mach['load_start']:.1f} at the "
                   f"start, {mach['load_end']:.1f} at the end): wall times are less reliable; "
                   "the CPU times above (and in --json) are steadier")
    return out


def print_report(scenarios: list[Scenario], dask_rows: str, repeat: int, mach: dict[str, Any],
                 total: float) -> None:
    if scenarios:
        print(f"\n## Results (medians of {repeat} runs; ratios = ours / floor)\n")
        print(table(scenarios))
    if dask_rows:
        print("\n### dask (one run each; see benchmarks/README.md)\n")
        print(dask_rows)
    gz = [s for s in scenarios if s.name.startswith("gzip-")]
    if gz:
        plain = next((s for s in scenarios if s.name == "text-ascii"), None)
        print("\n### gzip levels (ASCII list; sizes are all files, parts + index)\n")
        print(gzip_table(gz, plain))
    said = notes(scenarios, mach)
    if said:
        print("\nNotes:\n" + "\n".join(said))
    print(f"\nMachine: {mach['nproc']} CPUs ({mach['usable_cpus']} usable), {mach['cpu']}; "
          f"Python {mach['floor_python']} (floors), feedparser {mach['feedparser']}; "
          f"{mach['platform']}; load {mach['load_start']:.1f} -> {mach['load_end']:.1f}.  "
          f"Total {total:.0f}s.")
