"""Third-party material: feedparser's corpus, the official XSDs, sitemap.js's sample inputs.

Uses ../shared/conformance when it is present beside the repository; skips, saying so, otherwise.
"""

from __future__ import annotations

import io
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from feed2sitemap import InputError, Record, Report, convert, read, write
from feed2sitemap.model.options import Limits
from feed2sitemap.model.urls import normalize_url

from .conftest import CONFORMANCE, SAMPLES, conformance, run
from .test_feedstream import by_guid_rule


def _jsonl(*parts: str) -> list[dict[str, Any]]:
    path = CONFORMANCE.joinpath(*parts)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


FEEDS = _jsonl("feedparser", "feed_expect.jsonl")


def _ids(rows: list[dict[str, Any]]) -> list[str]:
    return [row["file"] for row in rows]


@pytest.mark.parametrize("case", FEEDS or [None], ids=_ids(FEEDS) or ["absent"])
def test_feedparser_corpus_gives_the_expected_records(case: dict[str, Any] | None) -> None:
    if case is None:
        conformance("feedparser", "feed_expect.jsonl")
        return
    path = conformance("feedparser", "tests", case["file"])
    report = Report()
    got = list(read(path, report=report, base_url=case["base_url"]))
    expected = [r for r in by_guid_rule(path.read_bytes(), case["records"]) if r["loc"]]
    assert [r.loc for r in got] == [r["loc"] for r in expected]
    for record, want in zip(got, expected, strict=True):
        if want["absolute"]:
            # the corpus keeps the host's case; we lower-case it (RFC 3986 normal form)
            assert normalize_url(record.loc) == normalize_url(want["loc_uri"])
        lastmod = record.lastmod
        assert (lastmod.isoformat() if isinstance(lastmod, datetime) else lastmod) == \
            want["lastmod"]


ILL = _jsonl("feedparser", "feed_expect_illformed.jsonl")


@pytest.mark.parametrize("case", ILL or [None], ids=_ids(ILL) or ["absent"])
def test_illformed_feeds_are_read_with_a_warning(case: dict[str, Any] | None) -> None:
    if case is None:
        conformance("feedparser", "feed_expect_illformed.jsonl")
        return
    report = Report()
    got = list(read(conformance("feedparser", "tests", case["file"]), report=report))
    assert [r.loc for r in got] == case["recovered_links"]
    assert report.warnings["malformed feed"] == 1


def _validator(name: str, extensions: bool = False) -> Any:
    """The sitemaps.org schema; with ``extensions``, its ##other wildcards made lax: Google's
    image, video and news schemas, which strict processing needs, are not redistributable and
    not in the conformance folder (tests/test_extensions_xml.py uses them when present)."""
    xmlschema = pytest.importorskip("xmlschema")
    path = conformance("schemas", name)
    if not extensions:
        return xmlschema.XMLSchema(path)
    return xmlschema.XMLSchema(path.read_text().replace('processContents="strict"',
                                                        'processContents="lax"'))


def _assert_valid(data: bytes) -> None:
    name = "siteindex.xsd" if b"<sitemapindex" in data[:200] else "sitemap.xsd"
    head = data[:data.find(b">", data.find(b"<urlset")) + 1]
    _validator(name, extensions=b"xmlns:" in head).validate(io.BytesIO(data))


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.*")))
def test_every_sample_converts_to_xsd_valid_output(sample: str) -> None:
    buf = io.BytesIO()
    convert([SAMPLES / sample], buf)
    _assert_valid(buf.getvalue())


def test_split_parts_and_index_are_xsd_valid(tmp_path: Path) -> None:
    records = [Record(f"https://e.example/p/{i}?a=1&b='2'", changefreq="daily", priority=0.5)
               for i in range(25)]
    summary = write(records, tmp_path / "sitemap.xml", base_url="https://e.example/p/",
                    limits=Limits(max_urls=10))
    assert len(summary.files) == 4
    for info in summary.files:
        _assert_valid(Path(info.path or "").read_bytes())


MOCKS_VALID = ["alltags.xml", "alltags-index.xml", "video.xml", "cli-urls.json.xml"]


@pytest.mark.parametrize("mock", MOCKS_VALID)
def test_sitemap_js_mocks_convert_to_valid_sitemaps(mock: str) -> None:
    buf = io.BytesIO()
    summary = convert([conformance("sitemap.js-mocks", mock)], buf, scope_check=False)
    assert summary.urls >= 1
    _assert_valid(buf.getvalue())


@pytest.mark.parametrize("mock", ["unescaped-lt.xml", "index-unescaped-lt.xml"])
def test_sitemap_js_broken_mocks_are_refused_with_a_line(mock: str) -> None:
    result = run(str(conformance("sitemap.js-mocks", mock)))
    assert result.returncode == 1
    err = result.stderr.decode()
    assert f"{mock}:" in err and "not well-formed" in err and "Traceback" not in err


@pytest.mark.parametrize("mock,count", [("short-list.txt", 1000), ("cli-urls.txt", None),
                                        ("cli-urls-2.txt", None)])
def test_sitemap_js_url_lists(mock: str, count: int | None, tmp_path: Path) -> None:
    src = conformance("sitemap.js-mocks", mock)
    lines = {line.strip() for line in src.read_text().splitlines() if line.strip()}
    out = tmp_path / "out.xml"
    result = run(str(src), "-o", str(out))
    assert result.returncode == 0, result.stderr
    _assert_valid(out.read_bytes())
    written = [r.loc for r in read(out)]
    assert len(written) == len(lines) == (count or len(lines))


PROBES = _jsonl("schema-probes", "verdicts.jsonl")


@pytest.mark.parametrize("probe", PROBES or [None], ids=_ids(PROBES) or ["absent"])
def test_what_we_write_from_each_probe_is_xsd_valid(probe: dict[str, Any] | None) -> None:
    if probe is None:
        conformance("schema-probes", "verdicts.jsonl")
        return
    buf = io.BytesIO()
    try:
        convert([conformance("schema-probes", probe["file"])], buf)
    except InputError as exc:
        # a probe with nothing we can write, or one that is not even XML, is refused; what is
        # written is always valid
        assert "no URLs to write" in str(exc) or (
            "not well-formed" in str(exc) and probe["xmllint"].startswith("invalid"))
        return
    _assert_valid(buf.getvalue())
