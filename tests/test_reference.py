"""The reference mode (FEED2SITEMAP_REFERENCE=1) against the fast paths: the same bytes out,
the same problems reported, for every sample, the conformance material and generated inputs.

The reference mode takes each reader's and step's plain path (feedparser for feeds, one URL
normalised at a time, every location escaped in full); any difference is a fast path that has
drifted from the rule it shortcuts."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap import Feed2SitemapError, ReadOptions, Record, Report, WriteOptions, convert
from feed2sitemap import write as write_records
from feed2sitemap.backends import ENV

from .conftest import run

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT.parent / "shared" / "conformance"


def _inputs() -> list[Path]:
    found = sorted(p for p in (ROOT / "samples").iterdir() if p.is_file())
    for sub in ("sitemap.js-mocks", "media-feeds", "schema-probes", "feedparser/tests"):
        where = CONFORMANCE / sub
        if where.is_dir():
            found += sorted(p for p in where.rglob("*") if p.is_file() and p.suffix in (
                ".xml", ".txt", ".rss", ".atom", ".rdf", ".json"))
    return found


def _outcome(inputs: list[object], **options: object) -> tuple[object, ...]:
    """Bytes written, problems reported, or the error raised: everything a user sees."""
    out = io.BytesIO()
    report = Report()
    try:
        convert(inputs, out, report=report, **options)  # type: ignore[arg-type]
    except Feed2SitemapError as exc:
        return ("error", type(exc).__name__, str(exc))
    # (lines are left out: feedparser, the feeds' reference path, gives none)
    return (out.getvalue(), [(p.action, p.kind, p.source, p.reason, p.url)
                             for p in report.problems],
            dict(report.skipped), dict(report.warnings))


def both_ways(monkeypatch: pytest.MonkeyPatch, inputs: list[object],
              **options: object) -> Iterator[tuple[object, ...]]:
    for value in ("", "1"):
        monkeypatch.setenv(ENV, value)
        for item in inputs:
            if hasattr(item, "seek"):
                item.seek(0)
        yield _outcome(inputs, **options)


@pytest.mark.slow
@pytest.mark.parametrize("path", _inputs(), ids=lambda p: str(p.relative_to(p.parents[1])))
@pytest.mark.parametrize("to", ["xml", "text"])
def test_every_sample_gives_the_same_output_both_ways(monkeypatch: pytest.MonkeyPatch,
                                                      path: Path, to: str) -> None:
    fast, plain = both_ways(monkeypatch, [path], writing=WriteOptions(to=to),
                            scope_check=False)
    assert fast == plain


_URL_TEXT = st.one_of(
    st.builds("https://e.example/{}".format, st.text(max_size=20)),
    st.builds("{}://{}/{}".format, st.sampled_from(["http", "HTTPS", "ftp", ""]),
              st.sampled_from(["e.example", "E.Example:443", "bücher.example", "u:p@e.example",
                               "[::1]", "e.example:8080"]),
              st.text("abc%/.?#&<>é 09", max_size=12)),
    st.sampled_from(["", " ", "/relative", "https://e.example/a/../b", "https://e.example/%7e"]),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_URL_TEXT, min_size=1, max_size=40), st.sampled_from(["\n", "\r\n"]))
def test_generated_url_lists_give_the_same_output_both_ways(monkeypatch: pytest.MonkeyPatch,
                                                            urls: list[str],
                                                            newline: str) -> None:
    data = newline.join(urls).encode("utf-8", "surrogatepass") + newline.encode()
    fast, plain = both_ways(monkeypatch, [io.BytesIO(data)],
                            reading=ReadOptions(from_format="text"))
    assert fast == plain


_LOC = st.builds("https://e.example/{}".format, st.text("ab/é&'<%", max_size=10))


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.builds(Record, _LOC, st.one_of(st.none(), st.dates(date(1000, 1, 2)))),
                min_size=1,
                max_size=30),
       st.sampled_from(["xml", "rss", "atom", "jsonl"]), st.booleans())
def test_generated_sitemaps_and_feeds_give_the_same_output_both_ways(
        monkeypatch: pytest.MonkeyPatch, records: list[Record], fmt: str,
        twice: bool) -> None:
    monkeypatch.setenv(ENV, "")
    written = io.BytesIO()
    try:
        write_records(records, written, writing=WriteOptions(to=fmt))
    except Feed2SitemapError:
        return
    inputs: list[object] = [io.BytesIO(written.getvalue())]
    if twice:  # two inputs: the merge step too
        inputs.append(io.BytesIO(written.getvalue()))
    fast, plain = both_ways(monkeypatch, inputs)
    assert fast == plain


@pytest.mark.slow
@pytest.mark.parametrize("sample", ["rss2.xml", "urls.txt", "sitemap-index.xml", "urls.tsv"])
def test_the_installed_command_writes_identical_files_both_ways(tmp_path: Path,
                                                                sample: str) -> None:
    outputs = []
    for value in ("", "1"):
        out = tmp_path / value / "sitemap.xml"
        out.parent.mkdir(exist_ok=True)
        done = run(str(ROOT / "samples" / sample), "-o", str(out), "--no-scope-check",
                   env={**os.environ, ENV: value})
        assert done.returncode == 0, done.stderr
        said = done.stderr.replace(str(out).encode(), b"OUT")
        outputs.append((out.read_bytes(), re.sub(rb":\d+: ", b": ", said)))  # (no lines: above)
    assert outputs[0] == outputs[1]
