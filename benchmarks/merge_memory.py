"""Peak memory and time of the merge step over N distinct URLs (and of the other dedupe modes),
in bytes per distinct URL.

    python benchmarks/merge_memory.py 1500000 merge      # in-memory merge (the column store)
    python benchmarks/merge_memory.py 1500000 spill      # merge with a 1 MiB budget: spilled
    python benchmarks/merge_memory.py 1500000 first      # first-wins dedupe (hash set)
    python benchmarks/merge_memory.py 1500000 none       # no dedupe
    FEED2SITEMAP_REFERENCE=1 python benchmarks/merge_memory.py 1500000 merge   # its twin

The input is two lists as bench.py's merge-lists row has them: the first holds URLs 1 to 2N/3,
the second N/3 to N, so there are N distinct URLs and N/3 copies. URLs are ~60 characters (as
in bench.py's data); with ``--fields`` each row has a lastmod and every tenth a priority. Batches
are made in memory, column by column as the readers make them, and streamed through the step
into a counter, so the figures are the step's own plus the interpreter's baseline (printed
first). Each mode should run in its own process: peak RSS (ru_maxrss) never goes down.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from feed2sitemap.model.batch import Batch
from feed2sitemap.model.report import Report
from feed2sitemap.pipeline.steps import dedupe, merge

ROWS = 2048


def batches(n: int, fields: bool) -> Iterator[Batch]:
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    third = n // 3
    for source, first, last in (("one.txt", 0, n - third), ("two.txt", third, n)):
        for lo in range(first, last, ROWS):
            ids = range(lo, min(lo + ROWS, last))
            locs = [f"https://www.example.com/blog/2024/11/post-number-{i:08d}.html" for i in ids]
            batch = Batch(locs, source, range(ids.start - first + 1, ids.stop - first + 1))
            if fields:
                batch.lastmods = [start + timedelta(seconds=i) for i in ids]
                batch.priorities = [0.5 if i % 10 == 0 else None for i in ids]
            yield batch


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    n = int(sys.argv[1])
    mode = sys.argv[2]
    fields = "--fields" in sys.argv[3:]
    base = peak_mib()
    t0 = time.perf_counter()
    stream: Iterator[Batch]
    if mode == "merge":
        stream = merge(batches(n, fields))
    elif mode == "spill":
        stream = merge(batches(n, fields), memory_limit=1 << 20)
    elif mode == "first":
        stream = dedupe(batches(n, fields), Report())
    else:
        stream = batches(n, fields)
    count = sum(len(b) for b in stream)
    elapsed = time.perf_counter() - t0
    peak = peak_mib()
    print(f"{mode}: {count:,} URLs out ({n:,} distinct) in {elapsed:.1f} s; peak RSS "
          f"{peak:.0f} MiB (baseline {base:.0f} MiB, {(peak - base) * 1048576 / n:.0f} bytes "
          "per distinct URL)")


if __name__ == "__main__":
    main()
