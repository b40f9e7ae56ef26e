"""`feed2sitemap report`: the facts of a sitemap set as HTML, Markdown and JSON, their numbers
equal to check's, hostile values escaped, HTTP facts for URLs (issue 38)."""

from __future__ import annotations

import gzip
import http.server
import json
import os
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from feed2sitemap import Limits, convert
from feed2sitemap.cli.report import report_command

from .conftest import run
from .test_cli import _run_on_a_terminal

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
XHTML = 'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
IMAGE = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'


def _urlset(body: str, ns: str = NS) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {ns}>\n{body}</urlset>\n'.encode()


def _cli(*args: str) -> tuple[int, str]:
    """The command in this process (CliRunner): its exit code and stdout."""
    got = CliRunner().invoke(report_command, list(args))
    return got.exit_code, got.stdout


def _json(*args: str) -> dict[str, Any]:
    code, out = _cli("--format", "json", *args)
    assert code == 0, out
    data: dict[str, Any] = json.loads(out)
    return data


def _check(*args: str) -> tuple[list[dict[str, Any]], str]:
    """check --format json's diagnostics and its summary line."""
    result = run("check", "--format", "json", *args)
    return json.loads(result.stdout), result.stderr.decode().strip().splitlines()[-1]


@pytest.fixture(scope="module")
def split_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """120,000 URLs written by the converter as an index and three parts."""
    d = tmp_path_factory.mktemp("split")
    src = d / "urls.tsv"
    src.write_text("".join(f"https://e.example/p/{i}\t2024-{i % 12 + 1:02d}-15\n"
                           for i in range(120_000)))
    convert([str(src)], str(d / "sitemap.xml"), base_url="https://e.example/")  # type: ignore[arg-type]
    return d / "sitemap.xml"


def test_split_set_shows_the_index_its_parts_and_the_count(split_set: Path) -> None:
    data = json.loads(run("report", "--follow", "--format", "json", str(split_set)).stdout)
    names = [(Path(f["name"]).name, f["kind"], f["entries"], f["listed_in"] is not None)
             for f in data["files"]]
    assert names == [("sitemap.xml", "index", 3, False), ("sitemap-1.xml", "urlset", 50_000, True),
                     ("sitemap-2.xml", "urlset", 50_000, True),
                     ("sitemap-3.xml", "urlset", 20_000, True)]
    assert (data["urls"], data["sitemaps"], data["errors"]) == (120_000, 3, 0)
    assert data["files"][1]["bytes"] == data["files"][1]["stored"] == \
        (split_set.parent / "sitemap-1.xml").stat().st_size
    lm = data["lastmods"]
    assert (lm["unit"], lm["dated"], lm["undated"]) == ("month", 120_000, 0)
    assert lm["bars"] == [[f"2024-{m:02d}", 10_000] for m in range(1, 13)]
    _, summary = _check("--follow", str(split_set))
    assert "120,000 URLs" in summary


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10,000 URLs as an index and three parts (--max-urls 4000)."""
    d = tmp_path_factory.mktemp("small")
    src = d / "urls.tsv"
    src.write_text("".join(f"https://e.example/p/{i}\t2024-{i % 12 + 1:02d}-15\n"
                           for i in range(10_000)))
    convert([str(src)], str(d / "sitemap.xml"), base_url="https://e.example/",  # type: ignore[arg-type]
            limits=Limits(max_urls=4000))
    return d / "sitemap.xml"


def _html_and_markdown(sitemap: Path, out: Path, urls: str, part: str) -> None:
    result = run("report", "--follow", str(sitemap), "-o", str(out))
    assert result.returncode == 0
    assert b"written to" in result.stderr and result.stdout == b""
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and f'<b id="urls">{urls}</b>' in page
    assert "sitemap-3.xml" in page and '<svg id="lastmod-chart"' in page
    assert "<script" not in page and "http://" not in page
    md = _cli("--follow", str(sitemap))[1]  # markdown by default
    assert "| file | kind | entries |" in md and "|---|---|---:|" in md
    assert f"| {part} |" in md and "| ↳ " in md and "| 2024-03 |" in md


def test_html_and_markdown_forms(small_set: Path, tmp_path: Path) -> None:
    _html_and_markdown(small_set, tmp_path / "r.html", "10,000", "4,000 | 8.0%")


@pytest.mark.slow
def test_html_and_markdown_of_the_split_set(split_set: Path, tmp_path: Path) -> None:
    _html_and_markdown(split_set, tmp_path / "r.html", "120,000", "50,000 | 100.0%")


def test_json_numbers_equal_checks(tmp_path: Path) -> None:
    body = "".join(f"<url><loc>https://e.example/{i}</loc><lastmod>2024-13-01</lastmod></url>\n"
                   for i in range(60))  # 60 bad lastmods: check lists 50 of them
    body += "<url><loc>https://e.example/0</loc><priority>2</priority></url>\n"
    body += "<url><loc>https://other.example/x</loc></url>\n<url><lastmod>2024-01-01</lastmod>" \
            "</url>\n"
    (tmp_path / "s.xml").write_bytes(_urlset(body))
    data = _json(str(tmp_path / "s.xml"))
    diags, summary = _check(str(tmp_path / "s.xml"))
    assert {(p["severity"], p["rule"]): p["count"] for p in data["problems"]} == \
        dict(Counter((d["severity"], d["rule"]) for d in diags))
    totals = {p["rule"]: p["total"] for p in data["problems"]}
    assert totals["lastmod-format"] == 60 and totals["priority"] == 1
    assert sum(p["total"] for p in data["problems"]) == \
        data["errors"] + data["warnings"] + data["notes"]
    for p in data["problems"]:
        first = next(d for d in diags if d["rule"] == p["rule"])
        assert (p["file"], p["line"], p["column"]) == (first["file"], first["line"],
                                                       first["column"])
    assert f"{data['urls']:,} URLs, {data['errors']:,} errors, {data['warnings']:,} warnings" \
        in summary


def test_hostile_values_are_escaped(tmp_path: Path) -> None:
    bad = "https://e.example/&lt;script&gt;alert(1)&lt;/script&gt;|&quot;&gt;&lt;img src=x&gt;"
    (tmp_path / "<b>|.xml").write_bytes(_urlset(f"<url><loc>{bad}</loc></url>\n"
                                                f"<url><loc>{bad}</loc></url>\n"))
    name = str(tmp_path / "<b>|.xml")
    page = _cli("--format", "html", name)[1]
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;b&gt;|.xml" in page
    md = _cli(name)[1]
    assert "<script" not in md and "<img" not in md and "&lt;b&gt;\\|.xml" in md


def test_lastmods_one_date_one_bar_by_day_and_share_without(tmp_path: Path) -> None:
    body = "".join(f"<url><loc>https://e.example/{i}</loc><lastmod>2024-05-0{1 + i % 3}"
                   "</lastmod></url>\n" for i in range(9))
    body += "<url><loc>https://e.example/none</loc></url>\n"
    (tmp_path / "s.xml").write_bytes(_urlset(body))
    lm = _json(str(tmp_path / "s.xml"))["lastmods"]
    assert lm["unit"] == "day" and lm["bars"] == [["2024-05-01", 3], ["2024-05-02", 3],
                                                  ["2024-05-03", 3]]
    assert (lm["dated"], lm["undated"]) == (9, 1)
    same = "".join(f"<url><loc>https://e.example/{i}</loc><lastmod>2020-01-01T00:00:00Z"
                   "</lastmod></url>\n" for i in range(1000))
    (tmp_path / "same.xml").write_bytes(_urlset(same))
    assert _json(str(tmp_path / "same.xml"))["lastmods"]["bars"] == [["2020-01-01", 1000]]


def test_extensions_and_hreflang_reciprocity(tmp_path: Path) -> None:
    def url(page: str, *alts: str, images: int = 0) -> str:
        links = "".join(f'<xhtml:link rel="alternate" hreflang="{h}" href="https://e.example/'
                        f'{h}"/>' for h in alts)
        imgs = "".join(f"<image:image><image:loc>https://e.example/{page}-{i}.png</image:loc>"
                       "</image:image>" for i in range(images))
        return f"<url><loc>https://e.example/{page}</loc>{links}{imgs}</url>\n"
    body = url("en", "en", "de", images=2) + url("de", "de") + url("fr", "fr", "en", "it")
    (tmp_path / "s.xml").write_bytes(_urlset(body, f"{NS} {XHTML} {IMAGE}"))
    data = _json(str(tmp_path / "s.xml"))
    assert data["extensions"]["images"] == {"urls": 1, "items": 2}
    assert data["extensions"]["alternates"] == {"urls": 3, "items": 6}
    # en -> de and fr -> en are not linked back; fr -> it points outside the files read
    assert data["hreflang"] == {"links": 3, "reciprocal": 0, "not_reciprocal": 2,
                                "outside": 1, "complete": True}


def test_robots_gzip_and_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "a.xml.gz").write_bytes(gzip.compress(_urlset(
        "<url><loc>https://e.example/a</loc></url>\n")))
    (tmp_path / "b.xml").write_bytes(_urlset("<url><loc>https://e.example/b</loc></url>\n"))
    (tmp_path / "robots.txt").write_text("Sitemap: https://e.example/a.xml.gz\n")
    data = _json("--robots", str(tmp_path / "robots.txt"), str(tmp_path / "a.xml.gz"),
                 str(tmp_path / "b.xml"))
    assert data["robots"]["listed"] == {str(tmp_path / "a.xml.gz"): True,
                                        str(tmp_path / "b.xml"): False}
    a = data["files"][0]
    assert a["gzip"] and a["stored"] == (tmp_path / "a.xml.gz").stat().st_size < a["bytes"]
    missing = run("report", str(tmp_path / "nothing.xml"), "-o", str(tmp_path / "r.json"))
    assert missing.returncode == 1  # the report is written, saying so
    assert json.loads((tmp_path / "r.json").read_text())["problems"][0]["rule"] == "unreadable"
    assert _cli("--fail-on", "warning", str(tmp_path / "b.xml"))[0] == 0
    assert _cli("--fail-on", "warning", str(tmp_path / "b.xml"), "--base-url",
                "https://other.example/")[0] == 1
    assert _cli("--follow", "-")[0] == 2
    gone = run("report", "--robots", str(tmp_path / "no-robots.txt"), str(tmp_path / "b.xml"))
    assert gone.returncode == 1 and len(gone.stderr.splitlines()) == 1


class _Handler(http.server.SimpleHTTPRequestHandler):
    def end_headers(self) -> None:
        self.send_header("ETag", '"v1"')
        super().end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    handler = lambda *a: _Handler(*a, directory=str(tmp_path))  # noqa: E731
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_url_input_shows_http_facts(tmp_path: Path, served: str) -> None:
    (tmp_path / "part.xml").write_bytes(_urlset(f"<url><loc>{served}a</loc></url>\n"))
    (tmp_path / "index.xml").write_bytes(
        f'<?xml version="1.0"?>\n<sitemapindex {NS}><sitemap><loc>{served}part.xml</loc>'
        "</sitemap></sitemapindex>\n".encode())
    data = _json("--follow", served + "index.xml")
    index, part = data["files"]
    assert (index["kind"], part["kind"], part["entries"]) == ("index", "urlset", 1)
    http = part["http"]
    assert (http["status"], http["etag"], http["content_length"]) == \
        (200, '"v1"', (tmp_path / "part.xml").stat().st_size)
    assert http["last_modified"].endswith("GMT")
    md = _cli("--follow", served + "index.xml")[1]
    assert 'status: 200; etag: "v1"; last_modified: ' in md


def test_progress_line_on_a_terminal_only(small_set: Path) -> None:
    env = {"FEED2SITEMAP_PROGRESS_DELAY": "0"}
    code, screen = _run_on_a_terminal(["report", "--follow", "--format", "json",
                                       str(small_set)], env)
    assert code == 0 and b"feed2sitemap report: " in screen and b"entries read in" in screen
    assert b"\r\x1b[K" in screen[screen.rindex(b"entries read in"):]
    piped = run("report", "--follow", str(small_set), env=dict(os.environ, **env))
    assert b"entries read" not in piped.stderr and b"\r" not in piped.stderr


def test_baidu_profile_limits(tmp_path: Path) -> None:
    (tmp_path / "s.xml").write_bytes(_urlset("<url><loc>https://e.example/a</loc></url>\n"))
    data = _json("--profile", "baidu", str(tmp_path / "s.xml"))
    assert data["profile"]["name"] == "baidu" and data["profile"]["max_bytes"] < 52_428_800
    assert "of the limit" in _cli("--profile", "baidu", "--format", "html",
                                  str(tmp_path / "s.xml"))[1]
