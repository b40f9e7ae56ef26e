"""feed2sitemap.dask writing to a bucket, its workers sharing no disk with the index step
(issue 39): moto's S3 server on 127.0.0.1 (test_cloud's fixtures) and a distributed.LocalCluster.
The cluster runs its workers as threads (processes=False): it starts in a fraction of the time,
and a worker's code is the same (it writes into a temporary folder of its own and uploads from
there; only the manifests come back)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from feed2sitemap import InputError, Limits, WriteOptions
from feed2sitemap.errors import OutputError

from . import test_cloud
from .test_cloud import cli, objects

endpoint, s3 = test_cloud.endpoint, test_cloud.s3  # the fixtures: moto's server, a new bucket

dd = pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
pd = pytest.importorskip("pandas")

from feed2sitemap.dask import to_sitemaps  # noqa: E402

BASE = "https://ex.com/"


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                       dashboard_address="127.0.0.1:0", silence_logs=40)
    with cluster, distributed.Client(cluster) as c:
        yield c


def _rows(n: int = 300, seed: int = 39) -> list[tuple[str, str]]:
    """n pages, a third of them twice with another lastmod, in a shuffled order."""
    rng = random.Random(seed)
    rows = [(f"{BASE}p/{i}", f"2024-{1 + i % 12:02d}-{1 + rng.randrange(28):02d}")
            for i in range(n)]
    rows += [(loc, f"2025-01-{1 + rng.randrange(28):02d}") for loc, _ in rows[::3]]
    rng.shuffle(rows)
    return rows


def _dask(rows: list[tuple[str, str]], output: str, partitions: int, **kw: Any) -> Any:
    frame = pd.DataFrame(rows, columns=["loc", "lastmod"])
    return to_sitemaps(dd.from_pandas(frame, npartitions=3), output, base_url=BASE,
                       partitions=partitions, limits=Limits(max_urls=40), **kw)


def _calls(fs: Any, monkeypatch: pytest.MonkeyPatch, fail_at: int = 0) -> list[str]:
    """The keys the index step asks the store to copy to or upload to (its client is fs:
    fsspec hands every caller in this thread with these options that one, and each worker
    thread its own); with ``fail_at``, that copy fails."""
    calls: list[str] = []
    copies = iter(range(1, 1000))
    call_s3, put_file = fs.call_s3, fs.put_file

    def copying(method: str, **kw: Any) -> Any:
        if method == "copy_object":
            calls.append(kw["Key"])
            if next(copies) == fail_at:
                raise PermissionError("Access Denied")
        return call_s3(method, **kw)

    def putting(lpath: str, rpath: str, **kw: Any) -> Any:
        calls.append(rpath.partition("/")[2])
        return put_file(lpath, rpath, **kw)

    monkeypatch.setattr(fs, "call_s3", copying)
    monkeypatch.setattr(fs, "put_file", putting)
    return calls


@pytest.mark.slow  # (seconds of CPU: the default run's budget)
def test_the_job_in_a_bucket_is_the_commands_set(client: Any, s3: Any, tmp: Path) -> None:
    rows = _rows()
    summary = _dask(rows, f"s3://{s3.bucket}/sitemaps/sitemap.xml", 1)
    assert summary.urls == 300 and summary.merge.copies == 100
    got = objects(s3)
    assert sorted(got) == ["sitemap-0-1.xml", "sitemap-0-2.xml", "sitemap-0-3.xml",
                           "sitemap-0-4.xml", "sitemap-0-5.xml", "sitemap-0-6.xml",
                           "sitemap-0-7.xml", "sitemap-0-8.xml", "sitemap.xml"]
    assert summary.indexes[0].path == f"s3://{s3.bucket}/sitemaps/sitemap.xml"
    # the command on the same rows, in one process: the same bytes, the parts renumbered
    source = tmp / "rows.csv"
    source.write_text("loc,lastmod\n" + "".join(f"{loc},{lm}\n" for loc, lm in rows))
    done = cli(str(source), "-o", str(tmp / "sitemap.xml"), "--base-url", BASE,
               "--max-urls", "40", "--merge")
    assert done.returncode == 0, done.stderr
    renumbered = {n.replace("-0-", "-"): data.replace(b"sitemap-0-", b"sitemap-")
                  for n, data in got.items()}
    assert renumbered == {p.name: p.read_bytes() for p in tmp.glob("sitemap*.xml")}


@pytest.mark.slow  # (seconds of CPU: the default run's budget)
def test_a_rerun_copies_only_the_changed_part_and_a_failed_one_changes_nothing(
        client: Any, s3: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = _rows()
    out = f"s3://{s3.bucket}/sitemap.xml.gz"
    writing = WriteOptions(cache_control="max-age=300")
    dead, live = (f"{s3.bucket}/.sitemap.xml.gz.parts.{t}-0a1b2c3d/sitemap-0-1.xml.gz"
                  for t in (1_000_000_000, 4_000_000_000))  # a killed run's, a running one's
    s3.pipe_file(dead, b"x")
    s3.pipe_file(live, b"x")
    _dask(rows, out, 3, writing=writing)
    assert not s3.exists(dead) and s3.exists(live)
    s3.rm_file(live)
    first = objects(s3)
    head = s3.call_s3("head_object", Bucket=s3.bucket, Key="sitemap-2-1.xml.gz")
    assert (head["ContentType"], head["CacheControl"]) == ("application/gzip", "max-age=300")
    assert len(first) > 6
    rows[rows.index(max(rows))] = (max(rows)[0], "2026-06-01")  # one page changed
    calls = _calls(s3, monkeypatch)
    again = _dask(rows, out, 3, writing=writing)
    monkeypatch.undo()
    second = objects(s3)
    changed = [n for n, data in second.items() if first.get(n) != data]
    assert sorted(changed) == sorted([changed[0], "sitemap.xml.gz"]) and len(changed) == 2
    # the workers' uploads into the staging folder (when they share this thread's client)
    staged = [c for c in calls if c.startswith(".") and "/earlier/" not in c]
    assert len(staged) in (0, len(first) - 1)
    # then the index step's requests: the one changed part saved in the staging folder (to
    # be put back on failure) and copied into place, then the index uploaded
    step = [c for c in calls if c not in staged]
    assert step[0].startswith(".sitemap.xml.gz.parts.") and step[0].endswith(
        f"/earlier/{changed[0]}")
    assert step[1:] == [changed[0], "sitemap.xml.gz"]
    assert len(again.unchanged) == len(first) - 2
    head = s3.call_s3("head_object", Bucket=s3.bucket, Key=changed[0])
    assert (head["ContentType"], head["CacheControl"]) == ("application/gzip", "max-age=300")

    _calls(s3, monkeypatch, fail_at=5)  # the store refuses a copy mid-step
    with pytest.raises(OutputError, match="cannot copy: access denied; nothing was changed"):
        _dask(_rows(seed=40), out, 3, writing=writing)
    monkeypatch.undo()
    assert objects(s3) == second  # parts put back, no staging, journal or lock left


@pytest.mark.slow  # (two runs of the job, ~1.5 s of CPU)
def test_a_failed_worker_leaves_the_earlier_set_and_no_staging(client: Any, s3: Any) -> None:
    out = f"s3://{s3.bucket}/sitemap.xml"
    _dask(_rows(), out, 2)
    earlier = objects(s3)
    with pytest.raises(InputError, match="`strict`"):
        _dask(_rows(seed=40) + [("https://elsewhere.example/x", "2024-01-01")], out, 2,
              strict=True)
    assert objects(s3) == earlier


@pytest.mark.slow  # (a cluster of worker processes takes seconds to start)
def test_worker_processes_write_what_the_local_job_writes(s3: Any, tmp: Path) -> None:
    # worker processes of their own, their credentials and endpoint from the environment
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address="127.0.0.1:0", silence_logs=40) as cluster, \
            distributed.Client(cluster):
        _dask(_rows(), f"s3://{s3.bucket}/sitemap.xml", 3)
        _dask(_rows(), str(tmp / "sitemap.xml"), 3)
    assert objects(s3) == {p.name: p.read_bytes() for p in tmp.iterdir()}
