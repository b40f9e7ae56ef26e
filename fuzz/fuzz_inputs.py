#!/usr/bin/env python3
"""Coverage-guided fuzzing of read() and check() over every input format (atheris/libFuzzer).

Not part of the test run (atheris is not a test dependency): run by hand, for example

    python fuzz/make_seeds.py /tmp/seeds
    FUZZ_FINDINGS=/tmp/findings nice -n 10 python fuzz/fuzz_inputs.py /tmp/corpus /tmp/seeds \\
        -max_total_time=600 -rss_limit_mb=300 -timeout=5 -max_len=65536

then keep the minimised corpus (``-merge=1 tests/fuzz_corpus /tmp/corpus``):
tests/test_fuzz_corpus.py replays it in every test run. The first byte of an input picks the
format read (auto, feed, text, sitemap) and whether it is also checked; only the project's own
errors may escape. With FUZZ_FINDINGS set, an input raising anything else, or taking over 5 s,
is saved there with its traceback and the campaign goes on (libFuzzer would stop at the first).
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import time
import traceback

import atheris

with atheris.instrument_imports(include=["feed2sitemap"]):
    from feed2sitemap import Feed2SitemapError, ReadOptions, Report, read
    from feed2sitemap.check import check

FORMATS = ("auto", "feed", "text", "sitemap")


FINDINGS = os.environ.get("FUZZ_FINDINGS")


def one_input(data: bytes) -> None:
    if not FINDINGS:
        return run(data)
    start = time.monotonic()
    try:
        run(data)
        problem = "" if time.monotonic() - start < 5 else "slow: over 5 s\n"
    except Exception:  # noqa: BLE001 - any exception but ours is a finding
        problem = traceback.format_exc()
    if problem:
        name = os.path.join(FINDINGS, hashlib.sha1(data).hexdigest())
        with open(name, "wb") as f:
            f.write(data)
        with open(name + ".txt", "w") as f:
            f.write(problem)


def run(data: bytes) -> None:
    if not data:
        return
    fmt, body = FORMATS[data[0] % 4], data[1:]
    try:
        for _ in read(io.BytesIO(body), ReadOptions(from_format=fmt), report=Report()):
            pass
    except Feed2SitemapError:
        pass
    if data[0] & 4:
        try:
            check(io.BytesIO(body), name="fuzz")
        except Feed2SitemapError:
            pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
