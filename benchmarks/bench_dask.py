"""The `dask` scenario of bench.py: one large URL list with duplicates, written by the command in
one process and by feed2sitemap.dask on a LocalCluster of worker processes.

Opt-in (`bench.py --only dask`): the full size is 20,000,000 URLs (a 1.3 GB list), too big for
the default run. The command is timed as every other scenario (a whole child process); the Dask
side is a child process too, which starts the cluster, times ``to_sitemaps`` alone (the cluster's
start-up is reported apart) and asks each worker for its peak RSS and CPU time. Like bench.py,
this module never imports feed2sitemap: the child does.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

FULL_URLS = 20_000_000
QUICK_URLS = 1_000_000
DUPLICATES = 0.10  # a tenth of the lines repeat an earlier URL
WORKERS = 2
GEN_VERSION = 1

# The child: start the cluster, run to_sitemaps, report figures as one JSON line.
CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import dask.dataframe as dd
from distributed import Client, LocalCluster
from feed2sitemap.dask import to_sitemaps

src, out, base, workers = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def usage():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_maxrss, r.ru_utime + r.ru_stime

if __name__ == "__main__":
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address="127.0.0.1:0", silence_logs=40,
                      memory_limit=0) as cluster, Client(cluster) as client:
        started = time.perf_counter()
        before = client.run(usage)
        # a list of URLs, one a line: read as a one-column table (no quoting in these URLs)
        frame = dd.read_csv(src, header=None, names=["loc"], blocksize="64MB",
                            dtype={"loc": "object"}, quoting=3)
        summary = to_sitemaps(frame, out, base_url=base, dedupe_mode="first")
        done = time.perf_counter()
        after = client.run(usage)
    print(json.dumps({
        "startup": started - t0, "run": done - started, "urls": summary.urls,
        "parts": len(summary.parts), "skipped": summary.report.total_skipped,
        "workers": [{"peak_kib": after[w][0], "cpu": after[w][1] - before[w][1]}
                    for w in sorted(after)],
    }))
"""


def gen_list(path: Path, n: int, log: Callable[[str], None]) -> None:
    """n lines, DUPLICATES of them copies of an earlier line, each at its random place."""
    marker = path.with_suffix(".json")
    want = {"n": n, "duplicates": DUPLICATES, "version": GEN_VERSION}
    if path.exists() and marker.exists() and json.loads(marker.read_text()) == want:
        return
    log(f"making {path} ({n:,} URLs, {DUPLICATES:.0%} duplicates)...")
    rng = random.Random(20261130)
    sections = ("item", "shop/product", "blog/2024", "maps/place", "listing")
    distinct = n - int(n * DUPLICATES)
    with open(path, "w", encoding="ascii") as f:
        chunk: list[str] = []
        made = 0
        for i in range(n):
            if made < distinct and (made == 0 or rng.random() >= DUPLICATES
                                    or n - i <= distinct - made):
                j = made
                made += 1
            else:
                j = rng.randrange(made)
            chunk.append(f"https://example.com/{sections[j % 5]}/{j * 7919 % 1000003}-{j}\n")
            if len(chunk) >= 100_000:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
    marker.write_text(json.dumps(want))


def run_dask(py: str, src: Path, out: Path, base: str, work: Path) -> dict[str, Any]:
    script = work / "dask_child.py"
    script.write_text(CHILD)
    out.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    res = subprocess.run([py, str(script), str(src), str(out / "sitemap.xml"), base,
                          str(WORKERS)], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if res.returncode != 0:
        return {"error": (res.stderr.strip().splitlines() or ["?"])[-1], "wall": wall}
    figures: dict[str, Any] = json.loads(res.stdout.strip().splitlines()[-1])
    figures["wall"] = wall
    return figures


def dask_scenario(cmd: list[str], py: str, data_dir: Path, out_dir: Path, work: Path,
                  runner_run: Callable[[list[str], Path], object], quick: bool, base: str,
                  log: Callable[[str], None]) -> str:
    """Run both sides once (the data is large and the machine shared) and return the
    markdown rows for the report."""
    n = QUICK_URLS if quick else FULL_URLS
    src = data_dir / f"dask-urls-{n}.txt"
    data_dir.mkdir(parents=True, exist_ok=True)
    gen_list(src, n, log)
    distinct = n - int(n * DUPLICATES)
    log(f"\n## dask: {n:,} URLs ({DUPLICATES:.0%} duplicates) -> parts + index, command vs "
        f"Dask ({WORKERS} worker processes)")
    od = out_dir / "dask" / "command"
    run = runner_run([*cmd, str(src), "-f", "text", "--base-url", base, "-o",
                      str(od / "sitemap.xml"), "-q"], od)
    rc, wall, rss, cpu = (getattr(run, k) for k in ("rc", "wall", "rss_kib", "cpu"))
    log(f"  command: rc {rc}, {wall:.1f}s (cpu {cpu:.1f}s), {rss / 1024:.0f} MB")
    d = run_dask(py, src, out_dir / "dask" / "dask", base, work)
    if "error" in d:
        log(f"  dask: failed: {d['error']}")
        return f"| dask | failed: {d['error'][:80]} |"
    peaks = [w["peak_kib"] / 1024 for w in d["workers"]]
    cpus = [w["cpu"] for w in d["workers"]]
    log(f"  dask: {d['run']:.1f}s for to_sitemaps (+{d['startup']:.1f}s cluster start-up), "
        f"worker CPU {sum(cpus):.1f}s, worker peaks {', '.join(f'{p:.0f} MB' for p in peaks)}; "
        f"{d['urls']:,} URLs in {d['parts']} parts (expected {distinct:,})")
    return "\n".join([
        "| side | wall | CPU | peak memory | URLs written | per URL (CPU) |",
        "|---|---:|---:|---:|---:|---:|",
        f"| command, 1 process | {wall:.1f} s | {cpu:.1f} s | {rss / 1024:.0f} MB | "
        f"{distinct:,} | {cpu / n * 1e6:.2f} µs |",
        f"| Dask, {WORKERS} workers | {d['run']:.1f} s (+{d['startup']:.1f} s start-up) | "
        f"{sum(cpus):.1f} s (workers) | {' / '.join(f'{p:.0f}' for p in peaks)} MB per worker "
        f"| {d['urls']:,} | {sum(cpus) / n * 1e6:.2f} µs |",
    ])


if __name__ == "__main__":
    sys.exit("run through bench.py: python benchmarks/bench.py --only dask")
