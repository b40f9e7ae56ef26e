"""bench.py's command line: make the data, run the scenarios, print the report."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_dask import dask_scenario  # (opt-in: --only dask)

from .cloudrow import NAME as S3_NAME
from .cloudrow import ensure_s3, s3_rows
from .datasets import Data, ensure_data
from .extbench import NAME as EXT_NAME
from .extbench import ensure_ext_data
from .feedrows import feed_rows
from .results import machine, print_report, python_of
from .running import Runner, Scenario, run_scenario
from .scenarios import FULL, QUICK, build_scenarios, select
from .siterows import ensure_site_data, site_rows
from .words import BASE_URL

HERE = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str] | None, description: str) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=description,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cmd", default="feed2sitemap",
                    help='our command, e.g. "python -m feed2sitemap" (default: on PATH)')
    ap.add_argument("--python", help="interpreter for the floors (default: the command's own)")
    ap.add_argument("--quick", action="store_true",
                    help="small data (100k URLs, 5k items), 3 repeats: about 1.5 minutes")
    ap.add_argument("--repeat", type=int, help="runs per measurement; medians are reported")
    ap.add_argument("--only", action="append", default=[],
                    help="scenario names or prefixes, comma-separated (repeatable); `dask` "
                         "(20M URLs, command vs Dask workers) and merge-lastmods-10m run only when "
                         "named")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--data-dir", type=Path, default=HERE / "data")
    ap.add_argument("--out-dir", type=Path, default=HERE / "out",
                    help="where outputs go (emptied before each run)")
    ap.add_argument("--node-modules", type=Path, default=HERE / "node_modules",
                    help="the node_modules folder holding sitemap.js (npm install --no-save "
                         "--prefix benchmarks sitemap), for its rows beside sitemap-set and "
                         "text-ascii")
    ap.add_argument("--json", type=Path, help="also write every run's figures here")
    ap.add_argument("--keep-output", action="store_true", help="leave --out-dir behind")
    return ap.parse_args(argv)


def main(argv: list[str] | None = None, description: str = "") -> int:
    a = parse_args(argv, description)
    sizes = dict(QUICK if a.quick else FULL)
    repeat = a.repeat or sizes["repeat"]
    cmd = shlex.split(a.cmd)
    fpy = a.python or python_of(cmd)
    log: Callable[[str], None] = lambda msg: print(msg, flush=True)  # noqa: E731

    with tempfile.TemporaryDirectory(prefix="f2s-bench-") as tmp:
        r = Runner(Path(tmp))
        if a.list:
            d = Data(*(Path("-"),) * 7, sizes["urls"], sizes["feed_items"], sizes["sitemap_urls"])
            for s in [*build_scenarios(cmd, fpy, d, a.out_dir, r, yardstick=False,
                                       node_modules=a.node_modules),
                      *feed_rows(cmd, fpy, a.data_dir, a.out_dir, r, a.quick, log,
                                 yardstick=False, make=False),
                      *site_rows(cmd, fpy, a.data_dir, a.out_dir, r, a.quick),
                      *s3_rows(cmd, fpy, d.urls_ascii, d.n_urls, a.out_dir, r)]:
                print(f"{s.name:<14} {s.what}")
            return 0
        t0 = time.perf_counter()
        mach = machine(cmd, fpy)
        log(f"# feed2sitemap benchmark ({'quick' if a.quick else 'full'}, {repeat} repeats)")
        log(f"command: {a.cmd}  ({mach['command_version']});  floors on {fpy}")
        log(f"data: {a.data_dir}")
        scenarios, dask_rows = run_all(a, sizes, repeat, cmd, fpy, r, Path(tmp), log)
        if not a.keep_output:
            shutil.rmtree(a.out_dir, ignore_errors=True)
        total = time.perf_counter() - t0
        mach["load_end"] = os.getloadavg()[0]

    print_report(scenarios, dask_rows, repeat, mach, total)
    if a.json:
        write_json(a.json, a.quick, repeat, mach, sizes, total, scenarios)
        print(f"JSON written to {a.json}")
    return 0


# References that are no target's yardstick, run once under --quick to keep it about a minute:
# feedparser takes 2 s a run at the quick size (its ratio is the README's "x faster" figure,
# measured with every repeat in a full run).
ONCE_IN_QUICK = frozenset({"feedparser"})


def run_all(a: argparse.Namespace, sizes: dict[str, int], repeat: int, cmd: list[str],
            fpy: str, r: Runner, tmp: Path,
            log: Callable[[str], None]) -> tuple[list[Scenario], str]:
    """Make the data, run the chosen scenarios; the Dask rows too when `dask` is named."""
    words = [w.strip() for o in a.only for w in o.split(",") if w.strip()]
    only = [w for w in words if w != "dask"]
    scenarios = []
    if "dask" not in words or only:
        d = ensure_data(a.data_dir, sizes, log)
        # merge-lastmods-10m (20 million rows, minutes a run) runs only when named
        big = "merge-lastmods-10m" in only
        scenarios = select([*build_scenarios(cmd, fpy, d, a.out_dir, r, big=big,
                                             node_modules=a.node_modules),
                            *feed_rows(cmd, fpy, a.data_dir, a.out_dir, r, a.quick, log),
                            *site_rows(cmd, fpy, a.data_dir, a.out_dir, r, a.quick),
                            *s3_rows(cmd, fpy, d.urls_ascii, d.n_urls, a.out_dir, r)], only)
        if any(s.name == EXT_NAME for s in scenarios):
            ensure_ext_data(a.data_dir, a.quick, log)
        if any(s.name == "site-dir" for s in scenarios):
            ensure_site_data(a.data_dir, r, a.quick, log)
        for s in scenarios:
            if s.name == S3_NAME:
                ensure_s3(s, cmd, fpy, r, log)
    for s in scenarios:
        run_scenario(s, r, repeat, log, once=ONCE_IN_QUICK if a.quick else frozenset())
    dask_rows = (dask_scenario(cmd, fpy, a.data_dir, a.out_dir, tmp, r.run, a.quick,
                               BASE_URL, log) if "dask" in words else "")
    return scenarios, dask_rows


def write_json(path: Path, quick: bool, repeat: int, mach: dict[str, Any],
               sizes: dict[str, int], total: float, scenarios: list[Scenario]) -> None:
    path.write_text(json.dumps({
        "mode": "quick" if quick else "full", "repeat": repeat, "machine": mach,
        "sizes": sizes, "total_seconds": round(total, 1),
        "scenarios": [{
            "name": s.name, "what": s.what, "n": s.n, "note": s.note,
            "sides": [{
                "label": side.label, "argv": side.argv, "status": side.status,
                "median_wall": side.wall, "median_cpu": side.cpu,
                "median_peak_mb": side.rss_mb,
                "out_urls": side.out_urls, "out_bytes": side.out_bytes,
                "runs": [{"wall": x.wall, "cpu": x.cpu, "peak_kib": x.rss_kib}
                         for x in side.runs],
            } for side in (s.ours, *s.baselines)],
        } for s in scenarios],
    }, indent=1))
