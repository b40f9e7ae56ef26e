"""A partitioned run without an engine: the partition writer, the partitioning key, and the index
step (library and `feed2sitemap index`), through the in-place machinery of the command."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from feed2sitemap import (
    PROFILES,
    Defaults,
    InputError,
    LimitError,
    Limits,
    Record,
    Report,
    WriteOptions,
    read,
)
from feed2sitemap.cli.main import index_command
from feed2sitemap.pipeline.merging import MergeCounts
from feed2sitemap.scale.indexing import write_index
from feed2sitemap.scale.partition import PartManifest, partition_of, prepare, write_partition

from .conftest import run

BASE = "https://example.com/"


def pages(n: int, start: int = 0) -> list[Record]:
    return [Record(f"{BASE}page/{i}", lastmod=date(2024, 1, 1 + i % 28)) for i in range(start, n)]


def test_partition_key_is_the_same_for_every_copy_of_a_url_in_any_process() -> None:
    # a fixed value: Python's hash() is salted per process, a cluster needs one answer
    assert partition_of("https://example.com/", 1_000_003) == partition_of(
        "https://example.com/", 1_000_003)
    code = ("from feed2sitemap.scale.partition import partition_of;"
            "print(partition_of('https://example.com/a', 97))")
    a = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": "1"})
    b = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": "2"})
    assert a.stdout == b.stdout == f"{partition_of('https://example.com/a', 97)}\n"


def test_prepare_applies_the_commands_rules_and_counts_each_skip() -> None:
    report = Report()
    got = list(prepare([Record("HTTPS://Example.COM:443/a b"), Record("ftp://example.com/x"),
                        Record("https://other.example/y"), Record(BASE + "z" * 3000)],
                       report, base_url=BASE))
    assert [r.loc for r in got] == ["https://example.com/a%20b"]
    assert report.skipped == {"invalid URL": 1, "off scope": 1, "URL too long": 1}


def test_partition_parts_obey_the_exact_byte_limit_and_are_named_by_partition(
        tmp_path: Path) -> None:
    prof = PROFILES["sitemaps"].lowered(max_bytes=2000)
    manifests = write_partition(pages(100), str(tmp_path), "sitemap", 7, limits=Limits(prof))
    names = [m.name for m in manifests]
    assert names == [f"sitemap-7-{k}.xml" for k in range(1, len(names) + 1)]
    assert len(names) > 3
    total = 0
    for m in manifests:
        data = (tmp_path / m.name).read_bytes()
        assert len(data) == m.bytes == m.file_bytes <= 2000
        assert m.urls == data.count(b"<url>")
        total += m.urls
        # a file is closed only when the next entry would not fit
        assert m is manifests[-1] or len(data) + len(b"<url><loc>https://example.com/page/10"
                                                     b"</loc><lastmod>2024-01-01</lastmod>"
                                                     b"</url>\n") > 2000 - 5
    assert total == 100
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_partition_manifest_gives_the_newest_lastmod_and_gzip_sizes(tmp_path: Path) -> None:
    recs = [Record(BASE + "a", lastmod=date(2024, 5, 1)),
            Record(BASE + "b", lastmod=datetime(2024, 5, 1, 12, tzinfo=timezone.utc)),
            Record(BASE + "c")]
    [m] = write_partition(recs, str(tmp_path), "s", 0, writing=WriteOptions(gzip=True))
    assert m.name == "s-0-1.xml.gz" and m.urls == 3
    assert m.newest == datetime(2024, 5, 1, 12, tzinfo=timezone.utc)
    raw = (tmp_path / m.name).read_bytes()
    assert m.file_bytes == len(raw) and m.bytes == len(gzip.decompress(raw))
    assert PartManifest.from_dict(json.loads(json.dumps(m.as_dict()))) == m


def test_partition_merge_newest_wins_and_first_wins_as_the_command(tmp_path: Path) -> None:
    recs = [Record(BASE + "a", lastmod=date(2024, 1, 1), priority=0.3),
            Record(BASE + "b"),
            Record(BASE + "a", lastmod=date(2024, 3, 1)),
            Record(BASE + "b", changefreq="daily")]
    counts = MergeCounts()
    [m] = write_partition(recs, str(tmp_path / ""), "m", 0, counts=counts,
                          defaults=Defaults(priority=0.5))
    got = list(read(tmp_path / m.name))
    assert got == [Record(BASE + "a", lastmod=date(2024, 3, 1), priority=0.3),
                   Record(BASE + "b", changefreq="daily", priority=0.5)]
    assert counts.copies == 2
    report = Report()
    [f] = write_partition(recs, str(tmp_path), "f", 0, dedupe_mode="first", report=report)
    assert [r.lastmod for r in read(tmp_path / f.name)] == [date(2024, 1, 1), None]
    assert report.skipped["duplicate"] == 2


def test_empty_partition_writes_nothing(tmp_path: Path) -> None:
    assert write_partition([], str(tmp_path), "sitemap", 3) == []
    assert os.listdir(tmp_path) == []


def test_partition_parts_keep_their_mode_or_take_the_index_s(tmp_path: Path) -> None:
    index = tmp_path / "sitemap.xml"
    write_index(write_partition(pages(3), str(tmp_path), "sitemap", 0), str(index),
                base_url=BASE)
    index.chmod(0o640)
    group = 33 if os.geteuid() == 0 else os.getegid()  # www-data, where we may set one
    os.chown(index, -1, group)
    (tmp_path / "sitemap-0-1.xml").chmod(0o600)
    write_partition(pages(3), str(tmp_path), "sitemap", 0)  # replaces sitemap-0-1.xml
    write_partition(pages(6, 3), str(tmp_path), "sitemap", 1)  # a new part
    modes = {n: ((tmp_path / n).stat().st_mode & 0o777, (tmp_path / n).stat().st_gid)
             for n in ("sitemap-0-1.xml", "sitemap-1-1.xml")}
    assert modes == {"sitemap-0-1.xml": (0o600, os.getegid()), "sitemap-1-1.xml": (0o640, group)}


def _partitioned(tmp_path: Path, n: int, partitions: int, stage: str = "stage",
                 max_urls: int = 30) -> list[PartManifest]:
    """The whole job without an engine: prepare, key, group, write each partition."""
    (tmp_path / stage).mkdir(exist_ok=True)
    groups: dict[int, list[Record]] = {p: [] for p in range(partitions)}
    for r in prepare(pages(n), base_url=BASE):
        groups[partition_of(r.loc, partitions)].append(r)
    prof = PROFILES["sitemaps"].lowered(max_urls=max_urls)
    return [m for p, recs in groups.items()
            for m in write_partition(recs, str(tmp_path / stage), "sitemap", p,
                                       limits=Limits(prof))]


def test_index_lists_exactly_the_parts_moved_beside_it(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 200, 3)
    (tmp_path / "out").mkdir()
    summary = write_index(manifests, str(tmp_path / "out" / "sitemap.xml"), base_url=BASE,
                          directory=str(tmp_path / "stage"))
    index = [r.loc for r in read(tmp_path / "out" / "sitemap.xml")]
    names = sorted(os.listdir(tmp_path / "out"))
    assert index == [BASE + m.name for m in sorted(
        manifests, key=lambda m: tuple(map(int, re.findall(r"\d+", m.name))))]
    assert names == sorted([m.name for m in manifests] + ["sitemap.xml"])
    assert os.listdir(tmp_path / "stage") == []
    assert summary.urls == 200 and len(summary.parts) == len(manifests)
    urls = [r.loc for m in manifests for r in read(tmp_path / "out" / m.name)]
    assert sorted(urls) == sorted(r.loc for r in pages(200))


def test_rerun_leaves_unchanged_parts_alone_and_removes_only_listed_stale_parts(
        tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    index = str(out / "sitemap.xml")
    write_index(_partitioned(tmp_path, 200, 4), index, base_url=BASE,
                directory=str(tmp_path / "stage"))
    (out / "sitemap-9-9.xml").write_text("hand-made, not listed")
    (out / "sitemap-2024.xml").write_text("hand-made")
    before = {p: os.stat(out / p).st_mtime_ns for p in os.listdir(out)}
    again = write_index(_partitioned(tmp_path, 200, 4), index, base_url=BASE,
                        directory=str(tmp_path / "stage"))
    assert len(again.unchanged) == len(again.files)
    assert {p: os.stat(out / p).st_mtime_ns for p in os.listdir(out)} == before
    # fewer partitions: the parts of partition 3 are gone, the hand-made files are not
    fewer = write_index(_partitioned(tmp_path, 200, 2), index, base_url=BASE,
                        directory=str(tmp_path / "stage"))
    assert sorted(os.path.basename(p) for p in fewer.removed) == sorted(
        p for p in before if p.startswith(("sitemap-2-", "sitemap-3-")))
    assert (out / "sitemap-9-9.xml").exists() and (out / "sitemap-2024.xml").exists()
    listed = {r.loc.rpartition("/")[2] for r in read(index)}
    assert listed | {"sitemap.xml", "sitemap-9-9.xml", "sitemap-2024.xml"} == set(
        os.listdir(out))


def test_a_file_in_the_way_is_not_replaced_and_nothing_changes(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 50, 1)
    out = tmp_path / "out"
    out.mkdir()
    (out / manifests[0].name).write_text("mine")
    with pytest.raises(Exception, match="does not list it"):
        write_index(manifests, str(out / "sitemap.xml"), base_url=BASE,
                    directory=str(tmp_path / "stage"))
    assert os.listdir(out) == [manifests[0].name]
    assert (out / manifests[0].name).read_text() == "mine"
    assert sorted(os.listdir(tmp_path / "stage")) == sorted(m.name for m in manifests)


def test_index_splits_into_index_files_past_the_sitemaps_per_index(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 100, 2, max_urls=10)
    prof = replace(PROFILES["sitemaps"], max_sitemaps=4)
    summary = write_index(manifests, str(tmp_path / "sitemap.xml"), base_url=BASE,
                          directory=str(tmp_path / "stage"), limits=Limits(prof))
    assert len(summary.parts) == len(manifests) and 9 <= len(manifests) <= 12
    assert [os.path.basename(f.path or "") for f in summary.indexes] == [
        "sitemap-index-1.xml", "sitemap-index-2.xml", "sitemap-index-3.xml", "sitemap.xml"]
    top = [r.loc for r in read(tmp_path / "sitemap.xml")]
    assert top == [f"{BASE}sitemap-index-{i}.xml" for i in (1, 2, 3)]
    listed = [r.loc for i in (1, 2, 3) for r in read(tmp_path / f"sitemap-index-{i}.xml")]
    assert sorted(listed) == sorted(BASE + m.name for m in manifests)


def test_manifest_that_does_not_match_its_part_is_refused(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 50, 1)
    wrong = [replace(manifests[0], file_bytes=manifests[0].file_bytes + 1)]
    with pytest.raises(InputError, match="its manifest says"):
        write_index(wrong, str(tmp_path / "sitemap.xml"), base_url=BASE,
                    directory=str(tmp_path / "stage"))
    assert not (tmp_path / "sitemap.xml").exists()


def test_parts_over_the_limits_or_of_another_name_are_refused(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 50, 1, max_urls=50)
    with pytest.raises(LimitError, match="1 to 10 URLs"):
        write_index(manifests, str(tmp_path / "sitemap.xml"), base_url=BASE,
                    directory=str(tmp_path / "stage"),
                    limits=Limits(PROFILES["sitemaps"].lowered(max_urls=10)))
    with pytest.raises(InputError, match="must be named other-PARTITION-K.xml"):
        write_index(manifests, str(tmp_path / "other.xml"), base_url=BASE,
                    directory=str(tmp_path / "stage"))


def test_index_command_from_parts_without_manifests(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 120, 2)
    stage = tmp_path / "stage"
    parts = sorted(str(stage / m.name) for m in manifests)
    result = run("index", *parts, "-o", str(tmp_path / "sitemap.xml"), "--base-url", BASE)
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    assert "wrote 1 index file listing 120 URLs in 5 files (5 moved into place)" in err
    assert "wrote " + str(tmp_path / "sitemap-0-1.xml") not in err
    index = list(read(tmp_path / "sitemap.xml"))
    by_name = {m.name: m for m in manifests}
    assert {r.loc: r.lastmod for r in index} == {BASE + n: m.newest for n, m in by_name.items()}
    check = run("check", "--follow", str(tmp_path / "sitemap.xml"))
    assert check.returncode == 0 and b"0 errors, 0 warnings" in check.stderr


def test_index_command_says_it_left_parts_in_place(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for p, urls in enumerate([b"https://example.com/a\n", b"https://example.com/b\n"]):
        assert run("-", "-o", str(site / f"sitemap-{p}-1.xml"), input=urls).returncode == 0
    parts = [str(site / f"sitemap-{p}-1.xml") for p in range(2)]
    result = run("index", *parts, "-o", str(site / "sitemap.xml"), "--base-url", BASE)
    err = result.stderr.decode()
    assert result.returncode == 0, err
    assert f"left in place {parts[0]}: 1 URL" in err and "wrote " + parts[0] not in err
    assert "wrote 1 index file listing 2 URLs in 2 files (2 left in place)" in err


def test_index_command_from_a_manifest_file(tmp_path: Path) -> None:
    manifests = _partitioned(tmp_path, 120, 2)
    path = tmp_path / "stage" / "manifest.jsonl"
    path.write_text("".join(json.dumps(m.as_dict()) + "\n" for m in manifests))
    result = CliRunner().invoke(index_command, [str(path), "-o", str(tmp_path / "s.xml.gz"),
                                                "--base-url", BASE])
    assert result.exit_code == 1
    assert "must be named s-PARTITION-K.xml.gz" in result.output
    result = CliRunner().invoke(index_command, [str(path), "-o",
                                                str(tmp_path / "sitemap.xml"),
                                                "--base-url", BASE])
    assert result.exit_code == 0, result.output
    assert len(list(read(tmp_path / "sitemap.xml"))) == len(manifests)


def test_index_command_bad_input_is_one_line_and_exit_1(tmp_path: Path) -> None:
    bad = tmp_path / "m.jsonl"
    bad.write_text('{"name": "sitemap-0-1.xml", "urls": "many"}\n')
    result = run("index", str(bad), "-o", str(tmp_path / "sitemap.xml"), "--base-url", BASE)
    assert result.returncode == 1
    assert result.stderr.decode().strip() == (
        f'feed2sitemap: {bad}:1: not a part manifest: "urls" must be a whole number')
    usage = run("index", str(bad), "-o", str(tmp_path / "sitemap.xml"))
    assert usage.returncode == 2 and b"--base-url" in usage.stderr
    feed = tmp_path / "sitemap-0-1.xml"
    feed.write_text("https://example.com/a\n")
    result = run("index", str(feed), "-o", str(tmp_path / "sitemap.xml"), "--base-url", BASE)
    assert result.returncode == 1 and b"not an XML sitemap" in result.stderr
    assert sorted(os.listdir(tmp_path)) == ["m.jsonl", "sitemap-0-1.xml"]


def test_the_cron_line_takes_over_a_partitioned_set_and_removes_its_parts(
        tmp_path: Path) -> None:
    # a partitioned run's parts are feed2sitemap's own (STEM-P-K): the command, growing the
    # sitemap in place, reads them through the index and replaces them with its STEM-N parts
    out = tmp_path / "out"
    out.mkdir()
    manifests = _partitioned(tmp_path, 120, 2)
    write_index(manifests, str(out / "sitemap.xml"), base_url=BASE,
                directory=str(tmp_path / "stage"))
    (out / "new.txt").write_text(f"{BASE}page/new\n")
    result = run(str(out / "sitemap.xml"), str(out / "new.txt"), "-o", str(out / "sitemap.xml"),
                 "--base-url", BASE, "--max-urls", "100")
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(out)) == ["new.txt", "sitemap-1.xml", "sitemap-2.xml",
                                       "sitemap.xml"]
    assert b"removed" in result.stderr and b"merged: 1 URL added" in result.stderr
    urls = [r.loc for p in ("sitemap-1.xml", "sitemap-2.xml") for r in read(out / p)]
    assert sorted(urls) == sorted([r.loc for r in pages(120)] + [f"{BASE}page/new"])
