"""A new user's first day with sitemaps and URL lists (session 17's hunt): each case failed
before its fix, through the installed command.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import run

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _urlset(*entries: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
            + "\n".join(entries) + "\n</urlset>\n").encode()


def _plain(start: int, n: int) -> list[str]:
    return [f"<url><loc>https://example.com/p{i}</loc></url>" for i in range(start, start + n)]


def test_a_second_loc_in_one_url_is_counted_not_silently_dropped(tmp_path: Path) -> None:
    # in the middle of a large file (the fast path's region) and in its head
    twice = ("<url><loc>https://example.com/first</loc><loc>https://example.com/second</loc>"
             "<lastmod>2024-01-01</lastmod><lastmod>2024-02-02</lastmod></url>")
    src = tmp_path / "sitemap.xml"
    src.write_bytes(_urlset(twice, *_plain(0, 3000), twice.replace("first", "third"),
                            *_plain(3000, 3000)))
    done = run(str(src), "-t", "text")
    assert done.returncode == 0, done.stderr
    urls = done.stdout.decode().split()
    assert "https://example.com/first" in urls and "https://example.com/third" in urls
    assert "https://example.com/second" not in urls and len(urls) == 6002
    err = done.stderr.decode()
    assert f"{src}:3: skipped: a second <loc> in this <url>: 'https://example.com/second'" in err
    assert "skipped 2: 2 second loc" in err
    assert "warnings: 2 second lastmod" in err
    jsonl = run(str(src), "-t", "jsonl", "-q")
    assert '{"loc":"https://example.com/first","lastmod":"2024-01-01"}' in jsonl.stdout.decode()


def test_check_of_a_csv_broken_near_its_end_judges_the_rows_before(tmp_path: Path) -> None:
    src = tmp_path / "pages.csv"
    src.write_bytes(b'loc,lastmod\nhttps://example.com/a,2024-01-01\nhttps://example.com/b,'
                    b'2024-13-01\n"https://example.com/c\n')
    done = run("check", str(src))
    assert done.returncode == 1
    out = done.stdout.decode()
    assert f"{src}:3:1: error: lastmod-format:" in out
    assert f"{src}:4:1: error: format: not valid CSV: unexpected end of data" in out
    assert "empty-set" not in out  # (it said "no URLs in the file")
    assert "2 URLs, 2 errors" in done.stderr.decode()
    out_file = tmp_path / "sitemap.xml"
    converted = run(str(src), "-o", str(out_file))
    assert converted.returncode == 1 and not out_file.exists()
    assert f"{src}:4: not valid CSV" in converted.stderr.decode()


@pytest.mark.slow  # (50,001 entries written and checked: seconds)
def test_a_feed_the_converter_writes_past_50000_entries_passes_check(tmp_path: Path) -> None:
    # a feed is written whole (README: 50,000 is a sitemap rule, not a feed rule); check
    # called that an error, so it rejected the converter's own output
    src = tmp_path / "pages.txt"
    src.write_text("".join(f"https://example.com/p{i}\n" for i in range(50_001)))
    feed = tmp_path / "feed.rss"
    done = run(str(src), "-o", str(feed), "--base-url", "https://example.com/", "-q")
    assert done.returncode == 0, done.stderr
    checked = run("check", str(feed))
    assert checked.returncode == 0, checked.stdout
    assert ": warning: too-many-urls: entry 50,001: a feed reader takes them all, a search " \
        "engine given the feed as a sitemap only 50,000" in checked.stdout.decode()
    assert "0 errors, 1 warning" in checked.stderr.decode()


def test_check_follow_says_an_index_that_lists_itself_is_nested(tmp_path: Path) -> None:
    # each file is checked once in a run, so the index's own entry passed without a word
    (tmp_path / "sitemap.xml").write_bytes(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>https://example.com/posts.xml</loc></sitemap>\n"
        "<sitemap><loc>https://example.com/sitemap.xml</loc></sitemap>\n"
        "</sitemapindex>\n".encode())
    (tmp_path / "posts.xml").write_bytes(_urlset(*_plain(0, 2)))
    done = run("check", "--follow", "sitemap.xml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.decode() == (
        "sitemap.xml:4:10: error: nested-index: the index lists itself "
        "(https://example.com/sitemap.xml); sitemaps.org: an index lists sitemaps, not indexes\n")
    assert "2 files checked, 2 URLs" in done.stderr.decode()


def test_check_of_a_robots_txt_says_what_it_is_in_one_line(tmp_path: Path) -> None:
    # the converter reads a robots.txt as its Sitemap: lines; check read it as a URL list and
    # called each of its lines a bad URL
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nDisallow: /admin\n\nSitemap: https://example.com/s.xml\n")
    done = run("check", str(robots))
    assert done.returncode == 1
    assert done.stdout.decode() == (
        f"{robots}:1:1: error: format: a robots.txt, not a sitemap or URL list: check the "
        "sitemaps its Sitemap: lines name, with --robots robots.txt to hold them to its rules\n")


def test_elements_of_another_namespace_outside_url_are_counted_when_left_out(
        tmp_path: Path) -> None:
    # an index's entries and the root's children keep no extension: they went without a word
    index = tmp_path / "index.xml"
    index.write_bytes(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}" '
        'xmlns:x="urn:example:x">\n<sitemap><loc>https://example.com/a.xml</loc>'
        "<x:meta><x:owner>ops</x:owner></x:meta></sitemap>\n</sitemapindex>\n".encode())
    done = run(str(index), "-t", "jsonl")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b'{"loc":"https://example.com/a.xml","sitemap":true}\n'
    assert f"{index}:3: warning: 2 elements of urn:example:x left out: other namespaces are " \
        "kept inside <url> only" in done.stderr.decode()
    urlset = tmp_path / "sitemap.xml"
    urlset.write_bytes(_urlset('<x:generator xmlns:x="urn:example:x">cms 1.0</x:generator>',
                               *_plain(0, 2)))
    done = run(str(urlset), "-t", "text")
    assert done.returncode == 0, done.stderr
    assert "warnings: 1 element of another namespace" in done.stderr.decode()


def test_a_year_0001_lastmod_east_of_utc_is_not_called_after_9999(tmp_path: Path) -> None:
    # 0001-01-01T00:00:00+14:00 falls in year 0 in UTC: the message said "after the year 9999"
    src = tmp_path / "pages.tsv"
    src.write_bytes(b"loc\tlastmod\nhttps://example.com/a\t0001-01-01T00:00:00+14:00\n"
                    b"https://example.com/b\t9999-12-31T23:59:59-12:00\n")
    done = run(str(src), "-t", "jsonl")
    assert done.returncode == 0, done.stderr
    err = done.stderr.decode()
    assert f"{src}:2: warning: lastmod dropped: 0001-01-01T00:00:00+14:00 is a placeholder (a " \
        "year before 1000), not a date; no lastmod" in err
    assert f"{src}:3: warning: lastmod dropped: 9999-12-31T23:59:59-12:00 is after the year " \
        "9999 in UTC" in err


def test_check_names_utf32_as_utf32(tmp_path: Path) -> None:
    src = tmp_path / "sitemap.xml"
    src.write_bytes(_urlset(*_plain(0, 1)).decode().encode("utf-32"))
    done = run("check", str(src))
    assert done.returncode == 1
    assert done.stdout.decode() == f"{src}:1:1: error: encoding: the file is UTF-32; " \
        "sitemaps.org requires UTF-8: save it as UTF-8 (checking stopped here)\n"
    src.write_bytes(_urlset(*_plain(0, 1)).decode().encode("utf-16"))
    assert b"the file is UTF-16;" in run("check", str(src)).stdout
