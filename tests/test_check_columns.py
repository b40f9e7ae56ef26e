"""`check` on TSV, CSV and JSON Lines lists and JSON Feeds: the XML rules' ids, by line."""

from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest

from feed2sitemap.check import check

from .conftest import run

NOW = datetime(2024, 6, 1, tzinfo=timezone.utc)


def problems(data: bytes) -> list[tuple[int, str, str]]:
    return [(d.line, d.severity, d.rule) for d in check(io.BytesIO(data), now=NOW, name="in")]


@pytest.mark.parametrize("data", [
    b"https://a.example/1\t2024-01-01\tdaily\t0.5\n"
    b"https://a.example/2\t2024-01-01T10:00:00\tDaily\t1.5\n"
    b"https://a.example/1\t2030-01-01\n"
    b"\t2024-01-01\n"
    b"https://a.example/x y\n",
    b"url,lastmod,changefreq,priority\n"
    b"https://a.example/1,2024-01-01,daily,0.5\n"
    b"https://a.example/2,2024-01-01T10:00:00,Daily,1.5\n"
    b"https://a.example/1,2030-01-01,,\n"
    b",2024-01-01,,\n"
    b"https://a.example/x y,,,\n",
    b'{"loc": "https://a.example/1", "lastmod": "2024-01-01", "changefreq": "daily"}\n'
    b'{"loc": "https://a.example/2", "lastmod": "2024-01-01T10:00:00", "changefreq": "Daily",'
    b' "priority": 1.5}\n'
    b'{"loc": "https://a.example/1", "lastmod": "2030-01-01"}\n'
    b'{"lastmod": "2024-01-01"}\n'
    b'{"loc": "https://a.example/x y"}\n',
])
def test_every_list_format_reports_the_same_rules_by_line(data: bytes) -> None:
    offset = 1 if data.startswith(b"url,") else 0  # the CSV header line
    assert problems(data) == [(2 + offset, "error", "lastmod-timezone"),
                              (2 + offset, "error", "changefreq"),
                              (2 + offset, "error", "priority"),
                              (3 + offset, "warning", "duplicate-loc"),
                              (3 + offset, "warning", "lastmod-future"),
                              (4 + offset, "error", "missing-loc"),
                              (5 + offset, "error", "loc-chars"),
                              # the file's note, after its problems, at its first place
                              (1 + offset, "info", "changefreq-priority")]


def test_jsonl_syntax_and_unknown_fields() -> None:
    data = b'{"loc": "https://a.example/", "tags": ["a"]}\n{"loc": \n[1]\n'
    assert problems(data) == [(1, "warning", "unknown-field"), (2, "error", "format"),
                              (3, "error", "format")]


def test_no_urls_and_bad_encoding() -> None:
    assert problems(b"loc\tlastmod\n") == [(1, "error", "empty-set")]
    assert problems(b"https://a.example/\t\xff\n") == [(1, "error", "encoding"),
                                                        (1, "error", "empty-set")]


def test_json_feed_is_checked_through_the_command(tmp_path: object) -> None:
    data = (b'{"version": "https://jsonfeed.org/version/1.1", "home_page_url": "https://a.example/",'
            b' "items": [{"id": "1", "url": "/ok"}, {"id": "2", "url": "https://a.example/x y"},'
            b' {"id": "3", "external_url": "https://b.example/"},'
            b' {"id": "4", "url": "https://a.example/d", "date_published": "soon"}]}')
    result = run("check", "-", input=data)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert [line.split(": ")[2] for line in lines] == ["loc-chars", "missing-loc",
                                                       "lastmod-format"]
    assert b"4 URLs" not in result.stderr and b"3 URLs" in result.stderr
    bad = run("check", "-", input=b'{"version": "https://jsonfeed.org/version/1.1", "items": [')
    assert bad.returncode == 1 and b"<stdin>:1:" in bad.stdout and b"format" in bad.stdout


def test_a_json_lines_block_where_no_object_names_a_loc_is_reported_not_a_crash() -> None:
    # found by the fuzzer: every line an object, none with loc or url
    data = b'{"file": "a.xml"}\n{"file": "b.xml"}\n'
    diags = check(io.BytesIO(data), name="list.jsonl")
    assert [(d.rule, d.line) for d in diags if d.rule == "missing-loc"] == [
        ("missing-loc", 1), ("missing-loc", 2)]
