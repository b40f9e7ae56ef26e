"""feed2sitemap.dask on Dask's real distributed scheduler: a LocalCluster of 2 worker processes,
one for the module (it takes seconds to start), on generated data whose URLs have copies in
several input partitions."""

from __future__ import annotations

import io
import os
import random
from collections.abc import Iterator
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from feed2sitemap import PROFILES, InputError, Limits, read

from .conftest import conformance

dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
db = pytest.importorskip("dask.bag", reason="the dask extra is not installed")
distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
pd = pytest.importorskip("pandas")

from feed2sitemap.dask import to_sitemaps  # noqa: E402

BASE = "https://example.com/"
PROFILE = PROFILES["sitemaps"].lowered(max_urls=150)  # several parts per partition


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    # A port of its own for the scheduler's HTTP server, which starts even without a dashboard:
    # with None it tries 8787, and a second run on the machine (CI runs the tests in both
    # modes at once) would get a "port in use" warning, an error under our pytest settings.
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address="127.0.0.1:0", silence_logs=40)
    with cluster, distributed.Client(cluster) as c:
        yield c


def _rows(n: int = 1500, seed: int = 16) -> list[tuple[str, Any, Any, Any]]:
    """n distinct pages, each in 1 to 3 copies spread over the whole list (so over partitions),
    with lastmods as text, some dates and some datetimes, a few without; plus rows to skip."""
    rng = random.Random(seed)
    rows: list[tuple[str, Any, Any, Any]] = []
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        for _ in range(rng.choice((1, 1, 2, 3))):
            when = start + timedelta(minutes=rng.randrange(500_000))
            lastmod = (None if rng.random() < 0.1 else when.date().isoformat()
                       if rng.random() < 0.5 else when.strftime("%Y-%m-%dT%H:%M:%SZ"))
            cf = rng.choice((None, "daily", "weekly"))
            pr = rng.choice((None, 0.2, 0.8))
            loc = f"{BASE}item/{i}" if rng.random() < 0.8 else f"HTTPS://EXAMPLE.COM/item/{i}"
            rows.append((loc, lastmod, cf, pr))
    rng.shuffle(rows)
    rows += [("https://elsewhere.example/x", None, None, None), ("not a url", None, None, None)]
    return rows


def _key(lastmod: str | None) -> datetime:
    if lastmod is None:
        return datetime.min.replace(tzinfo=timezone.utc)
    if "T" in lastmod:
        return datetime.fromisoformat(lastmod.replace("Z", "+00:00"))
    return datetime.fromisoformat(lastmod).replace(tzinfo=timezone.utc)


def _expected(rows: list[tuple[str, Any, Any, Any]]) -> dict[str, Any]:
    """Per URL, the newest lastmod (the first copy on a tie), as the command merges."""
    best: dict[str, Any] = {}
    for loc, lastmod, _, _ in rows:
        if not loc.lower().startswith(BASE):
            continue
        loc = BASE + loc[len(BASE):]
        if loc not in best or _key(lastmod) > _key(best[loc]):
            best[loc] = lastmod
    return best


def _frame(rows: list[tuple[str, Any, Any, Any]]) -> Any:
    return pd.DataFrame(rows, columns=["loc", "lastmod", "changefreq", "priority"])


def _files(directory: Path) -> dict[str, bytes]:
    return {p: (directory / p).read_bytes() for p in sorted(os.listdir(directory))}


@pytest.fixture(scope="module")
def first_run(client: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, Any]:
    out = tmp_path_factory.mktemp("dask")
    rows = _rows()
    summary = to_sitemaps(dd.from_pandas(_frame(rows), npartitions=4), out / "sitemap.xml",
                          base_url=BASE, partitions=3, limits=Limits(PROFILE))
    return out, rows, summary


def test_every_url_once_with_its_newest_lastmod(first_run: tuple[Path, Any, Any]) -> None:
    out, rows, summary = first_run
    expected = _expected(rows)
    got = [r for p in sorted(os.listdir(out)) if p != "sitemap.xml" for r in read(out / p)]
    assert len(got) == len({r.loc for r in got}) == len(expected) == summary.urls
    for r in got:
        want = expected[r.loc]
        assert (None if r.lastmod is None else _key(
            r.lastmod.isoformat())) == (None if want is None else _key(want)), r.loc
    assert summary.merge.copies == len(rows) - 2 - len(expected)
    assert summary.report.skipped == {"off scope": 1, "invalid URL": 1}
    assert all(f.count <= 150 for f in summary.parts)


def test_the_index_lists_exactly_the_parts(first_run: tuple[Path, Any, Any]) -> None:
    out, _, summary = first_run
    listed = [r.loc for r in read(out / "sitemap.xml")]
    assert sorted(listed) == sorted(BASE + p for p in os.listdir(out) if p != "sitemap.xml")
    assert len(listed) == len(summary.parts) > 3
    assert not [p for p in os.listdir(out) if p.startswith(".")]  # no staging left


def test_every_file_is_valid_against_the_xsd(first_run: tuple[Path, Any, Any]) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    urlset = xmlschema.XMLSchema(conformance("schemas", "sitemap.xsd"))
    index = xmlschema.XMLSchema(conformance("schemas", "siteindex.xsd"))
    out, _, _ = first_run
    for name, data in _files(out).items():
        (index if name == "sitemap.xml" else urlset).validate(io.BytesIO(data))


def test_rerun_is_byte_identical_and_rewrites_nothing(client: Any,
                                                      first_run: tuple[Path, Any, Any]) -> None:
    out, rows, _ = first_run
    before = _files(out)
    mtimes = {p: os.stat(out / p).st_mtime_ns for p in before}
    again = to_sitemaps(dd.from_pandas(_frame(rows), npartitions=4), out / "sitemap.xml",
                        base_url=BASE, partitions=3, limits=Limits(PROFILE))
    assert _files(out) == before
    assert {p: os.stat(out / p).st_mtime_ns for p in before} == mtimes
    assert len(again.unchanged) == len(again.files)


def test_a_bag_of_the_same_rows_gives_the_same_files(client: Any, tmp_path: Path,
                                                     first_run: tuple[Path, Any, Any]) -> None:
    out, rows, _ = first_run
    summary = to_sitemaps(db.from_sequence(rows, npartitions=4), tmp_path / "sitemap.xml",
                          base_url=BASE, partitions=3, limits=Limits(PROFILE))
    assert summary.urls == len(_expected(rows))
    assert _files(tmp_path) == _files(out)


def test_datetime_columns_and_gzip(client: Any, tmp_path: Path) -> None:
    frame = pd.DataFrame({
        "url": [f"{BASE}a", f"{BASE}b", f"{BASE}a"],
        "lastmod": pd.to_datetime(["2024-01-01 10:00", "2024-02-01 00:00", "2024-03-01 08:30"]),
    })
    summary = to_sitemaps(dd.from_pandas(frame, npartitions=2), tmp_path / "sitemap.xml.gz",
                          base_url=BASE, partitions=2)
    got = {r.loc: r.lastmod for p in summary.parts for r in read(p.path)}
    utc = timezone.utc
    assert got == {f"{BASE}a": datetime(2024, 3, 1, 8, 30, tzinfo=utc),
                   f"{BASE}b": datetime(2024, 2, 1, tzinfo=utc)}
    assert all(f.path and f.path.endswith(".xml.gz") for f in summary.files)
    assert date(2024, 3, 1) == summary.indexes[0].newest.date()  # type: ignore[union-attr]


def test_strict_failure_changes_nothing(client: Any, tmp_path: Path,
                                        first_run: tuple[Path, Any, Any]) -> None:
    out, rows, _ = first_run
    before = _files(out)
    with pytest.raises(InputError, match="`strict`"):
        to_sitemaps(db.from_sequence(rows, npartitions=2), out / "sitemap.xml",
                    base_url=BASE, partitions=3, limits=Limits(PROFILE), strict=True)
    assert _files(out) == before


@pytest.mark.slow
def test_progress_shows_in_dasks_own_task_stream(client: Any, tmp_path: Path) -> None:
    # what a user watches on the dashboard: our steps under names of their own
    from dask.utils import key_split

    with distributed.get_task_stream(client) as stream:
        to_sitemaps(db.from_sequence([f"{BASE}a", f"{BASE}b"], npartitions=2),
                    tmp_path / "sitemap.xml", base_url=BASE)
    names = {key_split(task["key"]) for task in stream.data}
    assert {"feed2sitemap-prepare", "feed2sitemap-write"} <= names


@pytest.mark.slow
def test_rows_that_are_not_urls_are_skipped_and_named(client: Any, tmp_path: Path) -> None:
    messages: list[str] = []
    from feed2sitemap import Report

    report = Report(on_message=messages.append)
    summary = to_sitemaps(db.from_sequence([f"{BASE}a", None, 42, f"{BASE}b"], npartitions=1),
                          tmp_path / "sitemap.xml", base_url=BASE, report=report)
    assert summary.urls == 2 and report.skipped["invalid URL"] == 2
    assert messages == ["<partition 0>:2: skipped: not a URL: 'None'",
                        "<partition 0>:3: skipped: not a URL: '42'"]


def test_filters_leave_urls_out_on_the_workers(client: Any, tmp_path: Path) -> None:
    from feed2sitemap import Report
    from feed2sitemap.model.filters import Filters

    report = Report()
    urls = [f"{BASE}keep/{i}" for i in range(20)] + [f"{BASE}tags/{i}" for i in range(5)]
    summary = to_sitemaps(db.from_sequence(urls, npartitions=3), tmp_path / "sitemap.xml",
                          base_url=BASE, partitions=2, report=report,
                          filters=Filters(exclude=("/tags/**",)))
    got = sorted(r.loc for p in summary.parts for r in read(p.path))
    assert got == sorted(urls[:20])
    assert report.excluded == {"--exclude /tags/**": 5}
