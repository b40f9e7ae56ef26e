"""One option vocabulary (issue 33, item 6): every entry point of the library takes the option
groups `convert` takes, and honours or refuses each option it is given, never ignores it."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from feed2sitemap import (
    Defaults,
    Limits,
    OptionError,
    ReadOptions,
    Record,
    UnsupportedFormat,
    WriteOptions,
    read,
    write,
)
from feed2sitemap.scale.indexing import write_index
from feed2sitemap.scale.partition import write_partition

BASE = "https://example.com/"


def _site(tmp_path: Path) -> Path:
    """A sitemap index and its two parts, as a site serves them."""
    write([Record(f"{BASE}p{i}") for i in range(5)], tmp_path / "sitemap.xml",
          base_url=BASE, limits=Limits(max_urls=3))
    return tmp_path / "sitemap.xml"


def test_read_follows_an_index_when_its_reading_options_say_so(tmp_path: Path) -> None:
    index = _site(tmp_path)
    assert [r.loc for r in read(index)] == [f"{BASE}sitemap-1.xml", f"{BASE}sitemap-2.xml"]
    got = [r.loc for r in read(index, ReadOptions(follow=True), base_url=BASE)]
    assert got == [f"{BASE}p{i}" for i in range(5)]


def test_read_resolves_relative_lines_against_the_input_url(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("/a\nb/c\n")
    got = [r.loc for r in read(tmp_path / "urls.txt",
                               ReadOptions(input_url="https://example.com/blog/list.txt"))]
    assert got == ["https://example.com/a", "https://example.com/blog/b/c"]
    got = [r.loc for r in read(tmp_path / "urls.txt", ReadOptions(from_format="text"),
                               base_url="https://example.org/")]
    assert got == ["https://example.org/a", "https://example.org/b/c"]


def test_read_takes_its_options_as_a_group_and_says_so_otherwise(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n")
    with pytest.raises(OptionError) as info:
        list(read(tmp_path / "urls.txt", "text"))  # type: ignore[arg-type]
    assert info.value.parameter == "reading"


def test_write_partition_takes_the_groups_convert_takes(tmp_path: Path) -> None:
    recs = [Record(f"{BASE}p{i}") for i in range(25)]
    manifests = write_partition(recs, str(tmp_path), "s", 0,
                                writing=WriteOptions(gzip=True, gzip_level=1),
                                limits=Limits(max_urls=10),
                                defaults=Defaults(changefreq="daily"))
    assert [m.urls for m in manifests] == [10, 10, 5]
    assert all(m.name.endswith(".xml.gz") for m in manifests)
    body = gzip.decompress((tmp_path / manifests[0].name).read_bytes())
    assert body.count(b"<changefreq>daily</changefreq>") == 10


@pytest.mark.parametrize(("kwargs", "parameter"), [
    ({"writing": WriteOptions(to="text")}, "to"),
    ({"limits": Limits("bing")}, "profile"),
    ({"dedupe_mode": "auto"}, "dedupe_mode"),
])
def test_write_partition_refuses_what_it_cannot_do(tmp_path: Path, kwargs: dict[str, object],
                                                  parameter: str) -> None:
    with pytest.raises(OptionError) as info:
        write_partition([Record(BASE)], str(tmp_path), "s", 0, **kwargs)  # type: ignore[arg-type]
    assert info.value.parameter == parameter
    assert list(tmp_path.iterdir()) == []


def test_write_index_takes_limits_and_writing_and_refuses_a_gzip_its_name_denies(
        tmp_path: Path) -> None:
    stage = tmp_path / "stage"
    stage.mkdir()
    manifests = write_partition([Record(f"{BASE}p{i}") for i in range(3)], str(stage), "sitemap",
                                0, writing=WriteOptions(gzip=True))
    with pytest.raises(OptionError) as info:
        write_index(manifests, str(tmp_path / "sitemap.xml.gz"), base_url=BASE,
                    directory=str(stage), writing=WriteOptions(gzip=False))
    assert info.value.parameter == "gzip"
    with pytest.raises(UnsupportedFormat):
        write_index(manifests, str(tmp_path / "sitemap.xml.gz"), base_url=BASE,
                    directory=str(stage), limits=Limits("bing"))
    assert not (tmp_path / "sitemap.xml.gz").exists()
    summary = write_index(manifests, str(tmp_path / "sitemap.xml.gz"), base_url=BASE,
                          directory=str(stage), writing=WriteOptions(gzip_level=9))
    assert summary.urls == 3
    assert [r.loc for r in read(tmp_path / "sitemap.xml.gz")] == [f"{BASE}sitemap-0-1.xml.gz"]


def test_to_sitemaps_checks_the_groups_before_any_task_runs(tmp_path: Path) -> None:
    db = pytest.importorskip("dask.bag")
    from feed2sitemap.dask import to_sitemaps

    bag = db.from_sequence([f"{BASE}a"], npartitions=1)
    with pytest.raises(OptionError) as info:
        to_sitemaps(bag, tmp_path / "sitemap.xml", base_url=BASE,
                    writing=WriteOptions(gzip=True))
    assert info.value.parameter == "gzip"
    with pytest.raises(OptionError) as info:
        to_sitemaps(bag, tmp_path / "sitemap.xml", base_url=BASE, dedupe_mode="sometimes")
    assert info.value.parameter == "dedupe_mode"
    assert list(tmp_path.iterdir()) == []
