#!/usr/bin/env python3
"""Benchmark the installed ``feed2sitemap`` command against minimal "floor" programs.

Every measurement is a whole child process: wall time plus the child's peak RSS
(``ru_maxrss`` from ``wait4``).  Beside each run of our command we run, in the same
session and measured the same way, the smallest Python loop that does the same job
(the floor), so the ratio ours/floor says how much our checks and structure cost.

Standard library only, and it never imports feed2sitemap: it shells out to the
command, so it measures what a user runs.  See benchmarks/README.md.

    python benchmarks/bench.py --quick
    python benchmarks/bench.py --only text,gzip --repeat 3 --json out.json
    python benchmarks/bench.py --cmd "python -m feed2sitemap"
"""

from __future__ import annotations

import sys
from pathlib import Path

# the package beside this script (benchlib) and bench_dask.py, whatever the working directory
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(description=__doc__.split("\n\n")[0]))
