"""Protocol limits: exact byte and count accounting, splitting, the index, gzip, atomicity."""

from __future__ import annotations

import gzip
import os
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from feed2sitemap import PROFILES, InputError, LimitError, Record, Report, convert, read, write
from feed2sitemap.files.outputs import part_names
from feed2sitemap.model.batch import BATCH
from feed2sitemap.model.options import Limits, WriteOptions
from feed2sitemap.writers import INDEX, TEXT, URLSET

UTC = timezone.utc
BASE = "https://e.example/maps/"


def urls(n: int, width: int = 0) -> list[Record]:
    return [Record(f"https://e.example/maps/{i:0{width}d}") for i in range(1, n + 1)]


def exact_size(fmt: object, records: list[Record]) -> int:
    """What a single file holding ``records`` weighs, computed independently of the splitter."""
    text = fmt.header() + "".join(fmt.entry(r) for r in records) + fmt.footer()  # type: ignore[attr-defined]
    return len(text.encode("utf-8"))


FORMATS = [("xml", URLSET, "sitemap.xml"), ("text", TEXT, "urls.txt")]


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("to,fmt,name", FORMATS, ids=[f[0] for f in FORMATS])
def test_byte_limit_is_exact_at_the_boundary(profile: str, to: str, fmt: object, name: str,
                                             tmp_path: Path) -> None:
    records = urls(10, width=4)
    size = exact_size(fmt, records)
    fits = PROFILES[profile].lowered(max_bytes=size)
    summary = write(records, tmp_path / name, base_url=BASE, limits=Limits(profile=fits))
    assert [f.size for f in summary.parts] == [size] and not summary.indexes
    assert os.path.getsize(tmp_path / name) == size

    one_over = PROFILES[profile].lowered(max_bytes=size - 1)
    summary = write(records, tmp_path / name, base_url=BASE, limits=Limits(profile=one_over))
    assert [f.count for f in summary.parts] == [9, 1]
    for info in summary.parts:
        assert info.size == os.path.getsize(info.path or "") <= size - 1
    assert len(summary.indexes) == 1


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_url_count_limit_at_the_boundary(profile: str, tmp_path: Path) -> None:
    prof = PROFILES[profile].lowered(max_urls=5)
    assert [f.count for f in write(urls(5), tmp_path / "s.xml", base_url=BASE,
                                   limits=Limits(profile=prof)).parts] == [5]
    assert [f.count for f in write(urls(6), tmp_path / "s.xml", base_url=BASE,
                                   limits=Limits(profile=prof)).parts] == [5, 1]


@pytest.mark.parametrize("profile,limit", [("sitemaps", 2048), ("baidu", 256)])
def test_loc_length_limit_per_profile(profile: str, limit: int, tmp_path: Path) -> None:
    base = "https://e.example/"
    longest = base + "a" * (limit - 1 - len(base))
    inp = tmp_path / "in.txt"
    inp.write_text(f"{longest}\n{longest}b\n")
    summary = convert([inp], tmp_path / "out.xml", limits=Limits(profile=profile))
    assert summary.urls == 1 and summary.report.skipped["URL too long"] == 1
    assert [r.loc for r in read(tmp_path / "out.xml")] == [longest]


@pytest.mark.slow
def test_real_sitemaps_byte_limit_splits_a_52_mb_file_at_the_byte(tmp_path: Path) -> None:
    # Fill 52,428,800 bytes exactly with fewer than 50,000 URLs, then add a single byte.
    limit = PROFILES["sitemaps"].max_bytes
    header_footer = len(URLSET.header()) + len(URLSET.footer())
    entry_overhead = len(URLSET.entry(Record("https://e.example/")))  - len("https://e.example/")
    loc_len = 2000
    per = loc_len + entry_overhead
    n, rest = divmod(limit - header_footer, per)
    prefix = "https://e.example/"
    records = [Record(prefix + f"{i:08d}" + "x" * (loc_len - len(prefix) - 8)) for i in range(n)]
    i = n - 1
    while rest:  # the bytes left over, spread so that every loc stays under 2,048 characters
        add = min(rest, 40)
        records[i] = Record(records[i].loc + "y" * add)
        rest, i = rest - add, i - 1
    assert exact_size(URLSET, records) == limit
    summary = write(records, tmp_path / "sitemap.xml", base_url="https://e.example/")
    assert len(summary.parts) == 1 and summary.parts[0].size == limit
    assert os.path.getsize(tmp_path / "sitemap.xml") == limit
    records[0] = Record(records[0].loc + "z")
    summary = write(records, tmp_path / "sitemap.xml", base_url="https://e.example/")
    assert [f.count for f in summary.parts] == [n - 1, 1]
    assert os.path.getsize(tmp_path / "sitemap-1.xml") <= limit


def test_split_writes_numbered_parts_and_an_index_pointing_at_each(tmp_path: Path) -> None:
    records = [Record(f"https://e.example/maps/{i}", date(2024, 1, i % 28 + 1))
               for i in range(1, 24)]
    records[3] = Record(records[3].loc, datetime(2024, 5, 1, 12, tzinfo=UTC))
    prof = PROFILES["sitemaps"].lowered(max_urls=10)
    summary = write(records, tmp_path / "sitemap.xml.gz", base_url=BASE,
                    limits=Limits(profile=prof))
    assert [f.count for f in summary.parts] == [10, 10, 3]
    index = list(read(tmp_path / "sitemap.xml.gz"))
    assert index == [
        Record(BASE + "sitemap-1.xml.gz", datetime(2024, 5, 1, 12, tzinfo=UTC), is_sitemap=True),
        Record(BASE + "sitemap-2.xml.gz", date(2024, 1, 21), is_sitemap=True),
        Record(BASE + "sitemap-3.xml.gz", date(2024, 1, 24), is_sitemap=True),
    ]
    back = [r for i in (1, 2, 3) for r in read(tmp_path / f"sitemap-{i}.xml.gz")]
    assert back == records


def test_index_lastmod_is_omitted_when_no_record_has_one(tmp_path: Path) -> None:
    write(urls(3), tmp_path / "s.xml", base_url=BASE, limits=Limits(max_urls=2))
    assert [r.lastmod for r in read(tmp_path / "s.xml")] == [None, None]


def test_gzip_parts_stay_within_the_limit_uncompressed(tmp_path: Path) -> None:
    records = urls(200, width=5)
    limit = exact_size(URLSET, records[:50])
    summary = write(records, tmp_path / "s.xml.gz", base_url=BASE,
                    limits=Limits(profile=PROFILES["sitemaps"].lowered(
        max_bytes=limit)))
    assert len(summary.parts) == 4
    for info in summary.parts:
        raw = gzip.decompress(Path(info.path or "").read_bytes())
        assert len(raw) == info.size <= limit
        assert info.compressed_size == os.path.getsize(info.path or "")


def test_gzip_output_is_reproducible(tmp_path: Path) -> None:
    write(urls(10), tmp_path / "a.xml.gz")
    write(urls(10), tmp_path / "b.xml.gz")
    assert (tmp_path / "a.xml.gz").read_bytes() == (tmp_path / "b.xml.gz").read_bytes()


def test_index_always_writes_an_index_for_a_single_part(tmp_path: Path) -> None:
    summary = write(urls(2), tmp_path / "s.xml", base_url=BASE,
                    writing=WriteOptions(index="always"))
    assert len(summary.parts) == 1 and len(summary.indexes) == 1
    assert [r.loc for r in read(tmp_path / "s.xml")] == [BASE + "s-1.xml"]


def test_more_parts_than_an_index_may_list_makes_an_index_of_indexes(tmp_path: Path) -> None:
    prof = replace(PROFILES["sitemaps"], max_urls=2, max_sitemaps=2)
    summary = write(urls(9), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))
    assert len(summary.parts) == 5  # 5 parts → 3 indexes → 2 indexes → 1
    assert [os.path.basename(f.path or "") for f in summary.indexes] == [
        "s-index-1.xml", "s-index-2.xml", "s-index-3.xml", "s-index2-1.xml", "s-index2-2.xml",
        "s.xml"]
    top = list(read(tmp_path / "s.xml"))
    assert [r.loc for r in top] == [BASE + f"s-index2-{i}.xml" for i in (1, 2)]
    mid = [r.loc for i in (1, 2) for r in read(tmp_path / f"s-index2-{i}.xml")]
    assert mid == [BASE + f"s-index-{i}.xml" for i in (1, 2, 3)]
    listed = [r.loc for i in (1, 2, 3) for r in read(tmp_path / f"s-index-{i}.xml")]
    assert listed == [BASE + f"s-{i}.xml" for i in range(1, 6)]


def test_splitting_without_base_url_fails_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(LimitError, match="`base_url`"):
        write(urls(3), tmp_path / "s.xml", limits=Limits(max_urls=2))
    assert list(tmp_path.iterdir()) == []


def test_stale_parts_of_a_larger_run_are_removed(tmp_path: Path) -> None:
    prof = PROFILES["sitemaps"].lowered(max_urls=3)
    write(urls(7), tmp_path / "s.xml", base_url=BASE,
          limits=Limits(profile=replace(prof, max_sitemaps=2)))
    assert (tmp_path / "s-index-1.xml").exists()
    (tmp_path / "s-other.xml").write_text("not ours")
    summary = write(urls(4), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "s-1.xml", "s-2.xml", "s-other.xml", "s.xml"]
    assert sorted(os.path.basename(p) for p in summary.removed) == [
        "s-3.xml", "s-index-1.xml", "s-index-2.xml"]
    # and a run that now fits one file removes every part
    write(urls(1), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s-other.xml", "s.xml"]


def test_failed_run_leaves_the_earlier_output_set_untouched(tmp_path: Path) -> None:
    prof = PROFILES["sitemaps"].lowered(max_urls=3)
    write(urls(7), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def failing() -> object:
        yield from urls(4)
        raise InputError("in.txt", 5, "boom")

    with pytest.raises(InputError):
        write(failing(), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))  # type: ignore[arg-type]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_entry_larger_than_a_whole_file_is_skipped_and_reported(tmp_path: Path) -> None:
    records = [Record("https://e.example/a"), Record("https://e.example/" + "b" * 500)]
    limit = exact_size(URLSET, records[:1]) + 10
    report = Report()
    summary = write(records, tmp_path / "s.xml", report=report, limits=Limits(max_bytes=limit))
    assert summary.urls == 1 and report.skipped["entry too large"] == 1


def test_a_part_lastmod_in_the_index_counts_only_the_entries_written_to_it(
        tmp_path: Path) -> None:
    # one batch across three parts (three URLs, three, one), with an entry too large for any
    # file: the newest lastmod of all is the skipped entry's, and each part's is its own entries'
    day = [date(2024, 1, d) for d in range(1, 8)]
    records = [Record(f"{BASE}{i}", day[i]) for i in range(3)]
    records.append(Record(BASE + "x" * 1000, date(2025, 1, 1)))
    records += [Record(f"{BASE}{i}", day[i]) for i in (6, 5, 4, 3)]
    limit = exact_size(URLSET, records[:3]) + 400  # (room for the index, not the long one)
    report = Report()
    write(records, tmp_path / "s.xml", base_url=BASE, report=report,
          limits=Limits(max_urls=3, max_bytes=limit))
    assert report.skipped["entry too large"] == 1
    assert [r.lastmod for r in read(tmp_path / "s.xml")] == [day[2], day[6], day[3]]


def test_index_files_obey_the_byte_limit_too(tmp_path: Path) -> None:
    prof = replace(PROFILES["sitemaps"], max_urls=2, max_sitemaps=2, max_bytes=400)
    summary = write(urls(6), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))
    assert len(summary.indexes) > 1
    for info in summary.files:
        assert os.path.getsize(info.path or "") <= 400


def test_max_urls_limits_the_entries_of_the_index_too(tmp_path: Path) -> None:
    summary = write(urls(4), tmp_path / "s.xml", base_url=BASE, limits=Limits(max_urls=2))
    assert len(summary.parts) == 2 and len(summary.indexes) == 1
    # five parts would need an index of five: no index of indexes for a limit the user chose
    with pytest.raises(LimitError, match=r"5 sitemap files .* raise `max_urls` to at least 3"):
        write(urls(5), tmp_path / "t.xml", base_url=BASE, limits=Limits(max_urls=1))
    assert not (tmp_path / "t.xml").exists()


def test_limits_that_let_an_index_list_one_sitemap_are_an_error(tmp_path: Path) -> None:
    prof = replace(PROFILES["sitemaps"], max_urls=1, max_sitemaps=1)
    with pytest.raises(LimitError, match="only one sitemap"):
        write(urls(3), tmp_path / "s.xml", base_url=BASE, limits=Limits(profile=prof))
    assert list(tmp_path.iterdir()) == []


def test_part_names() -> None:
    assert part_names("sitemap.xml", 2) == ["sitemap-1.xml", "sitemap-2.xml"]
    assert part_names("sitemap.xml.gz", 1) == ["sitemap-1.xml.gz"]
    assert part_names("urls.txt", 1) == ["urls-1.txt"]
    assert part_names("my.site.xml", 1) == ["my.site-1.xml"]
    assert part_names("sitemap", 1) == ["sitemap-1"]
    assert part_names("s.xml", 1, "index") == ["s-index-1.xml"]


def test_index_of_an_index_input_is_an_index(tmp_path: Path) -> None:
    recs = [Record("https://e.example/a.xml", is_sitemap=True)]
    write(recs, tmp_path / "i.xml")
    assert (tmp_path / "i.xml").read_text().count("<sitemapindex") == 1
    assert INDEX.entry(recs[0]) in (tmp_path / "i.xml").read_text()


def test_index_lastmod_is_the_newest_of_each_part_dates_and_times_alike(tmp_path: Path) -> None:
    plus2 = timezone(timedelta(hours=2))
    lastmods = [
        date(2024, 3, 1), date(2024, 5, 1), date(2024, 4, 1),  # dates only
        datetime(2024, 1, 1, 23, tzinfo=plus2), datetime(2024, 1, 1, 22, tzinfo=UTC), None,
        date(2024, 6, 2), datetime(2024, 6, 1, 23, 30, tzinfo=UTC),  # a date is its midnight UTC
        datetime(2024, 6, 3, 1, tzinfo=plus2),  # 2024-06-02T23:00Z, the newest
    ]
    records = [Record(f"{BASE}{i}", lm) for i, lm in enumerate(lastmods)]
    write(records, tmp_path / "s.xml", base_url=BASE, limits=Limits(max_urls=3))
    assert [r.lastmod for r in read(tmp_path / "s.xml")] == [
        date(2024, 5, 1), datetime(2024, 1, 1, 22, tzinfo=UTC),
        datetime(2024, 6, 2, 23, tzinfo=UTC)]


_MIDNIGHT = datetime(2024, 7, 1, tzinfo=UTC)


@pytest.mark.parametrize("lastmods,newest", [
    ([date(2024, 3, 1), date(2024, 5, 1), None, date(2024, 4, 1)], date(2024, 5, 1)),
    ([date(2024, 7, 2), datetime(2024, 7, 1, 23, tzinfo=UTC)], date(2024, 7, 2)),
    ([date(2024, 6, 30), datetime(2024, 7, 1, 1, tzinfo=timezone(timedelta(hours=2)))],
     datetime(2024, 6, 30, 23, tzinfo=UTC)),
    ([_MIDNIGHT, date(2024, 7, 1)], _MIDNIGHT),  # the same instant: the first one
    ([date(2024, 7, 1), date(2020, 1, 1), _MIDNIGHT], date(2024, 7, 1)),
])
def test_index_lastmod_of_one_part_is_its_newest(lastmods: list, newest: object,
                                                  tmp_path: Path) -> None:
    # after a first batch without lastmods, so that these make a batch written whole
    records = urls(BATCH) + [Record(f"{BASE}x{i}", lm) for i, lm in enumerate(lastmods)]
    write(records, tmp_path / "s.xml", base_url=BASE, writing=WriteOptions(index="always"))
    assert [r.lastmod for r in read(tmp_path / "s.xml")] == [newest]
