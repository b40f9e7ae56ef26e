"""Peak memory and time of the merge step over N distinct URLs (and of the other dedupe modes).

    python benchmarks/merge_memory.py 1000000 merge      # in-memory merge
    python benchmarks/merge_memory.py 1000000 spill      # merge with a 1 MiB budget: SQLite
    python benchmarks/merge_memory.py 1000000 first      # first-wins dedupe (hash set)
    python benchmarks/merge_memory.py 1000000 none       # no dedupe

Records are made in memory (URLs of ~50 characters with a lastmod, every tenth with a priority)
and streamed through the step into a counter, so the figures are the step's own plus the
interpreter's baseline (printed first). Each mode should run in its own process: peak RSS
(ru_maxrss) never goes down.
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from feed2sitemap.pipeline import dedupe, merge
from feed2sitemap.record import Record, make_record
from feed2sitemap.report import Report


def records(n: int) -> Iterator[Record]:
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        yield make_record(f"https://www.example.com/blog/2024/post-number-{i:08d}.html",
                          start + timedelta(seconds=i), None, 0.5 if i % 10 == 0 else None,
                          source="bench.xml", line=i + 3)


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    n = int(sys.argv[1])
    mode = sys.argv[2]
    base = peak_mib()
    t0 = time.perf_counter()
    stream: Iterator[Record]
    if mode == "merge":
        stream = merge(records(n))
    elif mode == "spill":
        stream = merge(records(n), memory_limit=1 << 20)
    elif mode == "first":
        stream = dedupe(records(n), Report())
    else:
        stream = records(n)
    count = sum(1 for _ in stream)
    elapsed = time.perf_counter() - t0
    peak = peak_mib()
    print(f"{mode}: {count:,} URLs in {elapsed:.1f} s; peak RSS {peak:.0f} MiB "
          f"(baseline {base:.0f} MiB, {(peak - base) * 1048576 / n:.0f} bytes per URL)")


if __name__ == "__main__":
    main()
