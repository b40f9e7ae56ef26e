"""The converter's messages: in input order, one line for what happens to many URLs, no line of
spaces in an RSS file (issue 36, item 12). Through the installed command."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .conftest import run

BASE = "https://e.example/"


def _lines(stderr: bytes, word: str) -> list[str]:
    return [line for line in stderr.decode().splitlines() if f": {word}: " in line]


def test_skips_and_warnings_come_in_input_order(tmp_path: Path) -> None:
    # each line fails at another step: the reader, normalising, the length, the scope
    rows = [f"{BASE}a\t2024-01-01", "not a url", f"{BASE}b\t2024-13-01", f"{BASE}{'x' * 3000}",
            "https://other.example/x", f"{BASE}c\t2024-01-01\tsometimes", "ftp://e.example/",
            f"{BASE}d"]
    (tmp_path / "in.tsv").write_text("\n".join(rows) + "\n")
    done = run("in.tsv", "-o", "out.xml", "--base-url", BASE, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [int(m[1]) for m in re.finditer(r"in\.tsv:(\d+): (?:skipped|warning)",
                                           done.stderr.decode())]
    assert said == [2, 3, 4, 5, 6, 7], done.stderr


def test_future_lastmods_are_kept_and_said_in_one_line(tmp_path: Path) -> None:
    soon = (datetime.now(timezone.utc) + timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = [f"{BASE}a\t2024-01-01", f"{BASE}b\t2999-01-01", f"{BASE}c\t{soon}",
            f"{BASE}d\t2998-05-05T10:00:00Z"]
    (tmp_path / "in.tsv").write_text("\n".join(rows) + "\n")
    done = run("in.tsv", "-o", "out.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # a clock's day of skew is no future: c is not counted
    assert _lines(done.stderr, "warning") == [
        f"feed2sitemap: in.tsv:2: warning: 2 lastmods are in the future (first: '{BASE}b', "
        "2999-01-01); kept"]
    assert "warnings: 2 lastmod in the future" in done.stderr.decode()
    out = (tmp_path / "out.xml").read_text()
    assert "<lastmod>2999-01-01</lastmod>" in out and "2998-05-05T10:00:00" in out


def test_text_output_says_once_that_it_leaves_extensions_out(tmp_path: Path) -> None:
    image = "<image:image><image:loc>{}.jpg</image:loc></image:image>"
    urls = "".join(f"<url><loc>{BASE}{n}</loc>{image.format(BASE + n) if n != 'b' else ''}"
                   "</url>\n" for n in "abcd")
    (tmp_path / "in.xml").write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n' + urls + "</urlset>\n")
    done = run("in.xml", "-t", "text", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split() == [BASE + n for n in "abcd"]
    assert _lines(done.stderr, "warning") == [
        f"feed2sitemap: in.xml:2: warning: text output cannot carry images: left out of 3 URLs "
        f"(first: {BASE}a)"]
    assert "warnings: 3 extensions left out" in done.stderr.decode()


def test_an_rss_file_without_dates_has_no_line_of_spaces(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n{BASE}b\n")
    done = run("urls.txt", "-o", "out.rss", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "out.rss").read_text().splitlines()
    assert all(line.strip() for line in lines), lines
    assert not any(line != line.rstrip() for line in lines), lines
    assert "<rss" in lines[1] and "lastBuildDate>" not in "".join(lines)
