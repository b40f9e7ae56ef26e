"""Replay of the inputs the coverage-guided fuzzer found (fuzz/fuzz_inputs.py, issue 19).

Each file's first byte picks the format read (auto, feed, text, sitemap) and whether `check`
runs on it too, as in the fuzzer. Only the project's own errors may escape, and no input may
take over 5 s (the fuzzer's bound; here they take milliseconds). The fuzzer also held every
input under 300 MB of memory.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from feed2sitemap import Feed2SitemapError, ReadOptions, Report, read
from feed2sitemap.check import check

CORPUS = Path(__file__).parent / "fuzz_corpus"
FORMATS = ("auto", "feed", "text", "sitemap")


def replay(data: bytes) -> None:
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


def test_the_corpus_is_there() -> None:
    assert len(list(CORPUS.iterdir())) > 100


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_fuzz_corpus_raises_only_our_errors_and_is_quick(chunk: int) -> None:
    files = sorted(CORPUS.iterdir())[chunk::4]
    slow = []
    for path in files:
        start = time.monotonic()
        try:
            replay(path.read_bytes())
        except Exception as exc:  # noqa: BLE001 - name the input that failed
            raise AssertionError(f"{path.name}: {exc!r}") from exc
        if time.monotonic() - start > 5:
            slow.append(path.name)
    assert not slow
