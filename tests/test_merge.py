"""Merging several inputs: newest lastmod wins, positions kept, in-place updates, --follow."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from feed2sitemap import convert
from feed2sitemap.backends import reference
from feed2sitemap.errors import InputError
from feed2sitemap.files.safety import find_base
from feed2sitemap.model.batch import batched, unbatched
from feed2sitemap.model.options import ReadOptions
from feed2sitemap.model.record import Record, make_record
from feed2sitemap.pipeline.merging import MergeCounts
from feed2sitemap.pipeline.steps import merge as merge_step

UTC = timezone.utc
U = "https://example.com/"


def merge(records: Any, *args: Any, **kwargs: Any) -> list[Record]:
    """The merge step (over batches) applied to records, as a library user holding records
    applies it."""
    return list(unbatched(merge_step(batched(records), *args, **kwargs)))


def rec(path: str, lastmod: object = None, changefreq: str | None = None,
        priority: float | None = None, source: str = "a") -> Record:
    return make_record(U + path, lastmod, changefreq, priority, source=source)  # type: ignore[arg-type]


def dt(day: int, hour: int = 0) -> datetime:
    return datetime(2024, 1, day, hour, tzinfo=UTC)


def fields(r: Record) -> tuple[object, ...]:
    return (r.loc[len(U):], r.lastmod, r.changefreq, r.priority)


# (copies in input order, expected entries in output order)
CASES = {
    "unique URLs pass unchanged, in order": (
        [rec("b", dt(1)), rec("a"), rec("c", date(2024, 1, 3), "daily", 0.3)],
        [("b", dt(1), None, None), ("a", None, None, None),
         ("c", date(2024, 1, 3), "daily", 0.3)]),
    "a later copy keeps the first position": (
        [rec("a", dt(1)), rec("b"), rec("a", dt(5))],
        [("a", dt(5), None, None), ("b", None, None, None)]),
    "the newest lastmod wins whatever the order": (
        [rec("a", dt(5)), rec("a", dt(1)), rec("a", dt(3))],
        [("a", dt(5), None, None)]),
    "fields come from the copy with the newest lastmod": (
        [rec("a", dt(1), "daily", 0.1), rec("a", dt(2), "weekly", 0.9),
         rec("a", dt(1), "never", 0.5)],
        [("a", dt(2), "weekly", 0.9)]),
    "fields missing on the newest copy come from the first copy that has them": (
        [rec("a", dt(1)), rec("a", dt(2), "monthly", 0.7), rec("a", dt(3))],
        [("a", dt(3), "monthly", 0.7)]),
    "changefreq and priority fall back separately": (
        [rec("a", dt(1), "daily", None), rec("a", dt(2), None, 0.4), rec("a", dt(3), None, 0.6)],
        [("a", dt(3), "daily", 0.6)]),
    "no lastmod anywhere: the first copy that has each field": (
        [rec("a"), rec("a", None, "yearly"), rec("a", None, "daily", 0.2)],
        [("a", None, "yearly", 0.2)]),
    "a copy with a lastmod is newer than one without": (
        [rec("a", None, "daily", 0.1), rec("a", dt(1), "hourly")],
        [("a", dt(1), "hourly", 0.1)]),
    "a tie keeps the earlier copy, and its form": (
        [rec("a", date(2024, 1, 2), "daily"), rec("a", dt(2), "weekly")],
        [("a", date(2024, 1, 2), "daily", None)]),
    "a date counts as its midnight UTC": (
        [rec("a", date(2024, 1, 2)), rec("a", dt(1, 23))],
        [("a", date(2024, 1, 2), None, None)]),
    "other time zones compare as instants": (
        [rec("a", datetime(2024, 1, 2, 1, tzinfo=timezone.utc)),
         rec("a", datetime.fromisoformat("2024-01-02T02:30:00+02:00"))],
        [("a", datetime(2024, 1, 2, 1, tzinfo=UTC), None, None)]),
    "microseconds are kept": (
        [rec("a", datetime(2024, 1, 2, 1, 2, 3, 456789, tzinfo=UTC))],
        [("a", datetime(2024, 1, 2, 1, 2, 3, 456789, tzinfo=UTC), None, None)]),
}


@pytest.mark.parametrize("memory_limit", [1 << 30, 0], ids=["in memory", "spilled to disk"])
@pytest.mark.parametrize("case", list(CASES))
def test_merge_semantics(case: str, memory_limit: int) -> None:
    copies, expected = CASES[case]
    assert [fields(r) for r in merge(copies, memory_limit=memory_limit)] == expected


def test_merged_records_keep_kind_source_and_line_of_first_copy() -> None:
    first = make_record(U + "a", None, source="one.xml", line=7)
    later = make_record(U + "a", dt(2), source="two.xml", line=1)
    (out,) = merge([first, later], memory_limit=0)
    assert (out.source, out.line, out.is_sitemap, out.lastmod) == ("one.xml", 7, False, dt(2))


def test_spilling_keeps_first_seen_order_across_memory_and_disk() -> None:
    copies = [rec(f"p{i}", dt(1)) for i in range(30)] + [rec(f"p{i}", dt(2)) for i in range(30)]
    counts = MergeCounts()
    # (batches of 10: the budget holds the first ones, the rest spill)
    out = list(unbatched(merge_step(batched(copies, 10), counts, memory_limit=2000)))
    assert [r.loc for r in out] == [U + f"p{i}" for i in range(30)]
    assert all(r.lastmod == dt(2) for r in out)
    # (the reference merge holds every URL in memory)
    assert 0 < counts.spilled < 30 or (reference() and counts.spilled == 0)
    assert (counts.urls, counts.copies, counts.updated) == (30, 30, 30)


def test_counts_against_a_base_input() -> None:
    base = [rec("a", dt(1), source="old"), rec("b", dt(1), "daily", source="old"),
            rec("c", dt(3), source="old")]
    feed = [rec("a", dt(2), source="new"), rec("d", dt(2), source="new"),
            rec("c", dt(2), source="new"), rec("b", dt(1), source="new")]
    counts = MergeCounts("old")
    out = list(merge(base + feed, counts, base={"old"}))
    assert [fields(r) for r in out] == [("a", dt(2), None, None), ("b", dt(1), "daily", None),
                                        ("c", dt(3), None, None), ("d", dt(2), None, None)]
    # a: newer lastmod; b, c: unchanged (c's feed copy is older); d: not in the base
    assert (counts.urls, counts.added, counts.updated, counts.copies) == (4, 1, 1, 3)


def test_counts_without_base_compare_with_first_copy() -> None:
    counts = MergeCounts()
    list(merge([rec("a", dt(1)), rec("b"), rec("a", dt(2)), rec("b")], counts))
    assert (counts.urls, counts.added, counts.updated, counts.copies) == (2, 2, 1, 2)


def test_find_base_recognises_the_output_among_inputs(tmp_path: Path) -> None:
    out = tmp_path / "sitemap.xml"
    out.write_text("x")
    assert find_base(["feed.xml", str(out)], str(out)) == str(out)
    assert find_base([str(tmp_path / "." / "sitemap.xml")], str(out)) is not None
    assert find_base(["-", "feed.xml"], str(out)) is None
    assert find_base([str(out)], None) is None


# ---- through the command --------------------------------------------------------------------

SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>https://example.com/</loc><priority>1.0</priority></url>
<url><loc>https://example.com/old.html</loc><lastmod>2023-05-01</lastmod>\
<changefreq>yearly</changefreq><priority>0.3</priority></url>
<url><loc>https://example.com/edited.html</loc><lastmod>2024-01-01</lastmod>\
<priority>0.8</priority></url>
</urlset>
"""
FEED = """<?xml version="1.0"?>
<rss version="2.0"><channel><title>Blog</title><link>https://example.com/</link>
<description>d</description>
<item><title>New</title><link>https://example.com/new.html</link>
<pubDate>Tue, 06 Feb 2024 12:00:00 GMT</pubDate></item>
<item><title>Edited</title><link>https://example.com/edited.html</link>
<pubDate>Mon, 05 Feb 2024 12:00:00 GMT</pubDate></item>
<item><title>Old</title><link>https://example.com/old.html</link>
<pubDate>Mon, 01 May 2023 00:00:00 GMT</pubDate></item>
</channel></rss>
"""


def command() -> list[str]:
    exe = shutil.which("feed2sitemap", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "feed2sitemap"]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command() + list(args), cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def test_update_in_place_is_idempotent_and_counts(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text(SITEMAP)
    (tmp_path / "feed.xml").write_text(FEED)
    first = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "merged: 1 URL added, 1 updated, 0 removed, compared with sitemap.xml" in first.stderr
    after_first = (tmp_path / "sitemap.xml").read_text()
    assert after_first == SITEMAP.replace(
        "<lastmod>2024-01-01</lastmod>", "<lastmod>2024-02-05T12:00:00+00:00</lastmod>"
    ).replace("</urlset>", "<url><loc>https://example.com/new.html</loc>"
              "<lastmod>2024-02-06T12:00:00+00:00</lastmod></url>\n</urlset>")
    second = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "merged: 0 URLs added, 0 updated, 0 removed, compared with sitemap.xml" in second.stderr
    assert (tmp_path / "sitemap.xml").read_text() == after_first
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_keep_first_and_no_dedupe(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text(SITEMAP)
    (tmp_path / "feed.xml").write_text(FEED)
    keep = run("sitemap.xml", "feed.xml", "--keep-first", "-t", "text", cwd=tmp_path)
    assert keep.returncode == 0
    assert keep.stdout.splitlines() == [U, U + "old.html", U + "edited.html", U + "new.html"]
    assert "skipped 2: 2 duplicate" in keep.stderr
    first_xml = run("sitemap.xml", "feed.xml", "--keep-first", cwd=tmp_path).stdout
    assert "<lastmod>2024-01-01</lastmod>" in first_xml  # the first copy, not the newest
    flat = run("sitemap.xml", "feed.xml", "--no-dedupe", "-t", "text", cwd=tmp_path)
    assert flat.stdout.splitlines() == [U, U + "old.html", U + "edited.html", U + "new.html",
                                        U + "edited.html", U + "old.html"]
    both = run("sitemap.xml", "--no-dedupe", "--keep-first", cwd=tmp_path)
    assert both.returncode == 2


def test_the_merge_summary_counts_in_words(tmp_path: Path) -> None:
    """One URL, one copy: the summary a daily cron run prints speaks in the singular."""
    (tmp_path / "a.txt").write_text("https://example.com/x\n")
    (tmp_path / "b.txt").write_text("https://example.com/x\n")
    one = run("a.txt", "b.txt", "-t", "text", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert ("merged: 1 distinct URL, 1 duplicate copy folded in, 0 entries changed by a later "
            "copy") in one.stderr
    (tmp_path / "b.txt").write_text("https://example.com/x\nhttps://example.com/y\n"
                                    "https://example.com/x\n")
    more = run("a.txt", "b.txt", "-t", "text", cwd=tmp_path)
    assert "merged: 2 distinct URLs, 2 duplicate copies folded in" in more.stderr


def _split_set(tmp_path: Path) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "in.xml").write_text(SITEMAP)
    done = run("in.xml", "-o", "sitemap.xml", "--max-urls", "2", "--base-url",
               "https://example.com/", cwd=tmp_path / "site")
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "site")) == ["in.xml", "sitemap-1.xml", "sitemap-2.xml",
                                                     "sitemap.xml"]


def test_follow_updates_a_split_set_in_place(tmp_path: Path) -> None:
    _split_set(tmp_path)
    site = tmp_path / "site"
    (site / "feed.xml").write_text(FEED)
    args = ("sitemap.xml", "--follow", "feed.xml", "-o", "sitemap.xml", "--max-urls", "2",
            "--base-url", "https://example.com/")
    done = run(*args, cwd=site)
    assert done.returncode == 0, done.stderr
    assert "merged: 1 URL added, 1 updated, 0 removed, compared with sitemap.xml" in done.stderr
    assert "https://example.com/new.html" in (site / "sitemap-2.xml").read_text()
    locs = run("sitemap.xml", "--follow", "-t", "text", cwd=site).stdout.splitlines()
    assert locs == [U, U + "old.html", U + "edited.html", U + "new.html"]
    again = run(*args, cwd=site)
    assert "merged: 0 URLs added, 0 updated" in again.stderr


def test_follow_missing_part_is_an_error_naming_it(tmp_path: Path) -> None:
    _split_set(tmp_path)
    site = tmp_path / "site"
    os.unlink(site / "sitemap-2.xml")
    done = run("sitemap.xml", "--follow", "-o", "out.xml", cwd=site)
    assert done.returncode == 1
    assert "part https://example.com/sitemap-2.xml is missing" in done.stderr
    assert not (site / "out.xml").exists()


@pytest.mark.parametrize("loc", ["https://example.com/..", "https://example.com/a/..%2Fsecret",
                                 "https://example.com/"])
def test_follow_refuses_names_outside_the_directory(tmp_path: Path, loc: str) -> None:
    index = tmp_path / "index.xml"
    index.write_text('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                     f"<sitemap><loc>{loc}</loc></sitemap></sitemapindex>")
    with pytest.raises(InputError, match="names no file"):
        convert([str(index)], str(tmp_path / "out.xml"), reading=ReadOptions(follow=True))


def test_follow_needs_a_file_not_a_stream(tmp_path: Path) -> None:
    import io
    data = (b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            b"<sitemap><loc>https://example.com/s-1.xml</loc></sitemap></sitemapindex>")
    with pytest.raises(InputError, match="needs the index as a file"):
        convert([io.BytesIO(data)], io.BytesIO(), reading=ReadOptions(follow=True))
