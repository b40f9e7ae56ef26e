"""check's notes (severity info, issue 38): what search engines ignore or misread, once a file
with a count; --fail-on info; and the converter's side: --drop-deprecated, and the warning for
Atom entries without a date. Through the installed command and CliRunner, on real files."""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from feed2sitemap import convert
from feed2sitemap.backends import ENV
from feed2sitemap.check import check
from feed2sitemap.cli.check import check_command
from feed2sitemap.model.options import WriteOptions
from feed2sitemap.model.report import Report

from .conftest import run

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/'
        'sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
        'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
        'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n')
# a <url> with every deprecated tag: image (line 3 of the entry), video (4), news (5)
DEPRECATED = (
    "<url><loc>https://example.com/{i}</loc>\n"
    "<image:image><image:loc>https://example.com/{i}.jpg</image:loc>"
    "<image:caption>A cat</image:caption><image:geo_location>Lyon</image:geo_location>"
    "<image:title>Cat</image:title><image:license>https://example.com/l</image:license>"
    "</image:image>\n"
    "<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>"
    "<video:title>T</video:title><video:description>D</video:description>"
    '<video:player_loc allow_embed="yes" autoplay="ap=1">https://example.com/p</video:player_loc>'
    "<video:category>Cooking</video:category><video:gallery_loc>https://example.com/g"
    '</video:gallery_loc><video:price currency="EUR">1.99</video:price>'
    "<video:tvshow><video:show_title>S</video:show_title><video:video_type>full"
    "</video:video_type></video:tvshow></video:video>\n"
    "<news:news><news:publication><news:name>X</news:name><news:language>en</news:language>"
    "</news:publication><news:access>Subscription</news:access><news:genres>Blog</news:genres>"
    "<news:publication_date>2024-01-01</news:publication_date><news:title>T</news:title>"
    "<news:keywords>a, b</news:keywords><news:stock_tickers>NASDAQ:A</news:stock_tickers>"
    "</news:news></url>\n")
IMAGE_TAGS = ["image:caption", "image:geo_location", "image:title", "image:license"]
VIDEO_TAGS = ["video:player_loc@allow_embed", "video:player_loc@autoplay", "video:category",
              "video:gallery_loc", "video:price", "video:tvshow"]
NEWS_TAGS = ["news:access", "news:genres", "news:keywords", "news:stock_tickers"]


def sitemap(path: Path, *entries: str) -> Path:
    path.write_text(HEAD + "".join(entries) + "</urlset>\n")
    return path


def url(i: int, lastmod: str | None = None, extra: str = "") -> str:
    date = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    return f"<url><loc>https://example.com/p{i}</loc>{date}{extra}</url>\n"


def notes(stdout: bytes) -> list[tuple[str, int, str]]:
    """(rule, line, message) of each info diagnostic of ``check --format json``."""
    return [(d["rule"], d["line"], d["message"]) for d in json.loads(stdout)
            if d["severity"] == "info"]


def test_a_build_stamp_and_priority_are_said_and_pass(tmp_path: Path) -> None:
    # the "done when": 1,000 URLs share one lastmod and carry priority
    path = sitemap(tmp_path / "s.xml", *(url(i, "2026-11-30T08:00:00Z", "<priority>0.5"
                                             "</priority>") for i in range(1000)))
    done = run("check", str(path))
    assert done.returncode == 0
    lines = done.stdout.decode().splitlines()
    assert lines == [
        f"{path}:3:39: info: lastmod-shared: 1,000 of the 1,000 lastmods in this file are "
        "'2026-11-30T08:00:00Z': a build's time stamp, not the pages' dates; search engines "
        "learn to ignore such dates (Google Search Central: lastmod must match the page's "
        "last change)",
        f"{path}:3:78: info: changefreq-priority: URLs of this file: 1,000 with <priority>; "
        "Google and Bing ignore both (Yandex still reads priority), lastmod is what they use "
        "(Google Search Central: Build and submit a sitemap)"]
    assert done.stderr.decode().endswith("1,000 URLs, 0 errors, 0 warnings, 2 notes\n")
    # --fail-on info fails on them; warning does not; -q hides them, the summary counts them
    assert run("check", "--fail-on", "info", str(path)).returncode == 1
    assert run("check", "--fail-on", "warning", str(path)).returncode == 0
    quiet = run("check", "-q", "--fail-on", "info", str(path))
    assert (quiet.returncode, quiet.stdout) == (1, b"") and b"2 notes" in quiet.stderr
    shown = run("check", "--format", "json", str(path))
    assert [d["severity"] for d in json.loads(shown.stdout)] == ["info", "info"]


def test_shared_lastmods_below_the_thresholds_are_not_said(tmp_path: Path) -> None:
    # 89% of 1,000 (the rest all different), and 99 URLs all alike: no note
    mixed = [url(i, "2026-11-30" if i % 100 < 89 else f"2020-01-{i % 28 + 1:02d}T00:{i % 60:02d}"
                 ":00Z") for i in range(1000)]
    few = [url(i, "2026-11-30") for i in range(99)]
    runner = CliRunner()
    for entries in (mixed, few):
        path = sitemap(tmp_path / "s.xml", *entries)
        done = runner.invoke(check_command, ["--format", "json", str(path)])
        assert (done.exit_code, notes(done.stdout_bytes)) == (0, [])
    # 90% of 100 lastmods (the others all different; URLs without one do not count): said
    path = sitemap(tmp_path / "s.xml", url(0), *(url(i, "2026-11-30" if i <= 90 else
                                                   f"2020-01-{i - 80:02d}") for i in range(1, 101)))
    done = runner.invoke(check_command, ["--format", "json", str(path)])
    assert [(r, line) for r, line, _ in notes(done.stdout_bytes)] == [("lastmod-shared", 4)]
    assert "90 of the 100 lastmods" in notes(done.stdout_bytes)[0][2]


def test_deprecated_tags_are_noted_once_a_tag_with_a_count(tmp_path: Path) -> None:
    path = sitemap(tmp_path / "s.xml", url(0), DEPRECATED.format(i=1), DEPRECATED.format(i=2))
    done = run("check", "--format", "json", str(path))
    assert done.returncode == 0  # (and no problem but the news' age: they are valid tags)
    assert {d["rule"] for d in json.loads(done.stdout) if d["severity"] != "info"} == \
        {"news-old"}
    found = notes(done.stdout)
    assert [rule for rule, _, _ in found] == ["ext-deprecated"] * 14
    tags = {m.group(1): (line, message) for _, line, message in found
            if (m := re.match(r"<([a-z_:@]+)>", message))}
    assert sorted(tags) == sorted(IMAGE_TAGS + VIDEO_TAGS + NEWS_TAGS)
    for tag in IMAGE_TAGS + VIDEO_TAGS + NEWS_TAGS:  # each at its first item, counted
        line, message = tags[tag]
        assert line == {"image": 5, "video": 6, "news": 7}[tag.partition(":")[0]]
        assert message.endswith("leaves it out (1 more in this file)")
    assert "Google in 2022" in tags["image:caption"][1]
    assert "News sitemap documentation" in tags["news:keywords"][1]


def test_placeholder_dates_are_noted_once_a_file(tmp_path: Path) -> None:
    path = sitemap(tmp_path / "s.xml", url(0, "2024-05-01"), url(1, "1970-01-01"),
                   url(2, "1900-01-01T00:00:00Z"), url(3, "1969-12-31T19:00:00-05:00"),
                   url(4, "1969-12-31T12:00:00Z"), url(5, "0001-01-01"))
    for env in ({}, {"FEED2SITEMAP_REFERENCE": "1"}):  # the fast path and its reference
        done = run("check", "--format", "json", str(path), env={**os.environ, **env})
        diags = [(d["severity"], d["rule"], d["line"]) for d in json.loads(done.stdout)]
        # 0001-01-01 stays what it was: no date at all for the converter, a warning
        assert diags == [("warning", "lastmod-dropped", 8),
                         ("info", "lastmod-placeholder", 4)], env
        assert notes(done.stdout)[0][2].startswith("lastmod 1970-01-01 is a placeholder")
        assert notes(done.stdout)[0][2].endswith("(2 more in this file)")
    # in a list too (the converter would write them)
    listed = tmp_path / "list.tsv"
    listed.write_text("https://example.com/a\t1970-01-01\nhttps://example.com/b\t2024-01-01\n")
    done = run("check", "--format", "json", str(listed))
    assert [(r, line) for r, line, _ in notes(done.stdout)] == [("lastmod-placeholder", 1)]


def test_drop_deprecated_leaves_the_tags_out_and_counts_them(tmp_path: Path) -> None:
    source = sitemap(tmp_path / "in.xml", DEPRECATED.format(i=1), DEPRECATED.format(i=2))
    kept, dropped = tmp_path / "kept.xml", tmp_path / "dropped.xml"
    assert run(str(source), "-o", str(kept)).returncode == 0
    done = run(str(source), "-o", str(dropped), "--drop-deprecated")
    assert done.returncode == 0
    assert "; dropped 28 deprecated extension tags (image:caption ×2, image:geo_location ×2, " \
        in done.stderr.decode()
    assert "news:stock_tickers ×2)" in done.stderr.decode()
    text = dropped.read_text()
    for tag in IMAGE_TAGS + VIDEO_TAGS + NEWS_TAGS:
        element, _, attribute = tag.partition("@")
        assert (f"{attribute}=" if attribute else f"<{element}") not in text, tag
        assert (f"{attribute}=" if attribute else f"<{element}") in kept.read_text(), tag
    # what stays: the images, videos and news themselves
    assert text.count("<image:loc>") == text.count("<video:player_loc>") == 2
    assert text.count("<news:title>") == 2
    assert [r for r, _, _ in notes(run("check", "--format", "json", str(kept)).stdout)] == \
        ["ext-deprecated"] * 14
    assert notes(run("check", "--format", "json", str(dropped)).stdout) == []


def test_drop_deprecated_in_the_library_and_from_json_lines(tmp_path: Path) -> None:
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"loc": "https://example.com/a", "images": [
        {"loc": "https://example.com/a.jpg", "caption": "A", "title": "T"}]}) + "\n")
    report = Report()
    convert([str(lines)], str(tmp_path / "out.xml"), report=report,
            writing=WriteOptions(drop_deprecated=True))
    assert report.dropped_tags == {"image:caption": 1, "image:title": 1}
    assert "caption" not in (tmp_path / "out.xml").read_text()


def test_atom_output_without_dates_is_warned_about(tmp_path: Path) -> None:
    pages = tmp_path / "pages.txt"
    pages.write_text("".join(f"https://example.com/{i}\n" for i in range(5)))
    atom = tmp_path / "feed.atom"
    done = run(str(pages), "-o", str(atom))
    err = done.stderr.decode()
    assert done.returncode == 0 and atom.read_text().count("1970-01-01T00:00:00Z") == 6
    assert err.count("has no date") == 1  # one warning, naming the way out, and a count
    assert f"{pages}:1: warning: https://example.com/0 has no date: Atom requires one" in err
    assert "-t rss leaves the date out" in err
    assert "warnings: 5 Atom entries without a date" in err
    # RSS leaves the date out: no warning; dated entries: none either
    rss = run(str(pages), "-t", "rss", "-o", str(tmp_path / "feed.rss"))
    assert rss.returncode == 0 and b"no date" not in rss.stderr
    assert "<pubDate>" not in (tmp_path / "feed.rss").read_text()
    dated = tmp_path / "dated.tsv"
    dated.write_text("https://example.com/a\t2024-01-01\n")
    ok = run(str(dated), "-o", str(tmp_path / "dated.atom"))
    assert ok.returncode == 0 and b"no date" not in ok.stderr
    assert b"without a date" not in ok.stderr  # (not even counted as 0)


def test_the_fast_path_counts_as_the_handlers_do(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,000 entries over several chunks, one in ten taken by the handlers (an image)
    image = "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>"
    path = sitemap(tmp_path / "s.xml", *(url(i, "2026-11-30", (
        "<changefreq>daily</changefreq>" if i % 7 else "") + (image if i % 10 == 3 else ""))
        for i in range(3000)))
    said = []
    for reference in ("", "1"):
        monkeypatch.setenv(ENV, reference)
        said.append(check(path, now=datetime(2026, 12, 1, tzinfo=timezone.utc)))
    assert said[0] == said[1]
    assert [(d.rule, d.line) for d in said[0]] == [("lastmod-shared", 3),
                                                   ("changefreq-priority", 4)]
    assert said[0][0].message.startswith("3,000 of the 3,000 lastmods")
    assert said[0][1].message.startswith("URLs of this file: 2,571 with <changefreq>;")


def test_a_stamp_after_many_other_dates_is_found_in_bounded_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a sitemap sorted by date: 2,000 distinct old dates (more than the 1,024 counted), then
    # 20,000 pages with the build's stamp: a bound on the count, said as such, on both paths
    old = (url(i, f"20{10 + i // 336:02d}-{i // 28 % 12 + 1:02d}-{i % 28 + 1:02d}T00:00:00Z")
           for i in range(2000))
    path = sitemap(tmp_path / "s.xml", *old, *(url(i, "2026-11-30T08:00:00Z")
                                               for i in range(2000, 22000)))
    for reference in ("", "1"):
        monkeypatch.setenv(ENV, reference)
        (note,) = check(path, now=datetime(2026, 12, 1, tzinfo=timezone.utc))
        assert note.rule == "lastmod-shared" and note.line == 3
        assert re.match(r"at least (19,9\d\d|20,000) of the 22,000 lastmods in this file are "
                        r"'2026-11-30T08:00:00Z'", note.message), note.message


def test_distinct_lastmods_leave_no_note_and_no_traceback(tmp_path: Path) -> None:
    # 1,025 values met once each: the bounded summary lets them all go at once
    path = sitemap(tmp_path / "s.xml", *(url(i, f"2020-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}"
                                             f"+{i // 3600:02d}:00") for i in range(1025)))
    for reference in ("", "1"):
        done = run("check", str(path), env={**os.environ, ENV: reference})
        assert (done.returncode, done.stdout) == (0, b""), done.stderr
        assert done.stderr.endswith(b"1,025 URLs, 0 errors, 0 warnings\n")
