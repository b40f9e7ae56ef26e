"""Random and mutated inputs: only the project's own errors may escape, never another exception.

FEED2SITEMAP_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz.py runs a longer campaign.
"""

from __future__ import annotations

import gzip
import io
import os

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap import Feed2SitemapError, ReadOptions, Report, convert, read
from feed2sitemap.cli.main import convert_command
from feed2sitemap.model.options import Limits

from .conftest import SAMPLES

EXAMPLES = int(os.environ.get("FEED2SITEMAP_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SEEDS = [p.read_bytes() for p in sorted(SAMPLES.glob("*.*")) if p.is_file()]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 8))):
        if not data:
            break
        op = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "repeat"]))
        i = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[i] = draw(st.integers(0, 255))
        elif op == "insert":
            data[i:i] = draw(st.sampled_from([b"<", b">", b"&", b"]]>", b"<!ENTITY x 'y'>",
                                              b"\x00", b"\xff\xfe", b"&amp;", b"<url>",
                                              b"</loc>", b"\n", b"\xe9", b"<![CDATA[",
                                              b"<?xml version='1.0' encoding='latin-1'?>"]))
        elif op == "delete":
            del data[i: i + draw(st.integers(1, 40))]
        elif op == "truncate":
            del data[i:]
        else:
            data[i:i] = data[i: i + draw(st.integers(1, 200))] * draw(st.integers(1, 5))
    out = bytes(data)
    return gzip.compress(out) if draw(st.booleans()) else out


inputs = st.one_of(mutated(), st.binary(max_size=2000))


@FUZZ
@given(inputs, st.sampled_from(["auto", "feed", "text", "sitemap"]))
def test_readers_raise_only_their_own_errors(data: bytes, fmt: str) -> None:
    try:
        for _ in read(io.BytesIO(data), ReadOptions(from_format=fmt), report=Report()):
            pass
    except Feed2SitemapError:
        pass


@FUZZ
@given(inputs, st.booleans())
def test_convert_raises_only_its_own_errors(data: bytes, strict: bool) -> None:
    try:
        convert([io.BytesIO(data)], io.BytesIO(), strict=strict, base_url=None,
                limits=Limits(max_urls=3))
    except Feed2SitemapError:
        pass


@settings(max_examples=max(20, EXAMPLES // 5), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(inputs, st.sampled_from(["xml", "text", "rss", "atom"]))
def test_command_exits_cleanly_on_any_input(data: bytes, to: str) -> None:
    result = CliRunner().invoke(convert_command, ["-", "-t", to], input=data)
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        repr(result.exception)
    assert "Traceback" not in result.stderr
