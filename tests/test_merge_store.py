"""The merge store (merge.Store, with its spill to disk) held to the plain reference
(merge.ReferenceStore, a dict from URL to its newest record) on random inputs: copies, lastmod
ties, dates against datetimes in other zones, missing fields, extensions, a base, sitemaps of an
index, and budgets small enough that the store spills (into one partition or several)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap.backends import ENV
from feed2sitemap.errors import OutputError
from feed2sitemap.extensions.model import Alternate, Image
from feed2sitemap.model.batch import batched
from feed2sitemap.model.extensions import EMPTY, Extensions
from feed2sitemap.model.record import CHANGEFREQS, Record, format_lastmod, make_record
from feed2sitemap.pipeline import merging as spill
from feed2sitemap.pipeline.merging import MergeCounts, ReferenceStore, Store
from feed2sitemap.pipeline.steps import merge

from .conftest import run

U = "https://example.com/"
ZONES = [timezone.utc, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))]


@contextmanager
def mode(value: str) -> Iterator[None]:
    old = os.environ.get(ENV)
    os.environ[ENV] = value
    try:
        yield
    finally:
        if old is None:
            del os.environ[ENV]
        else:
            os.environ[ENV] = old


@st.composite
def lastmods(draw: st.DrawFn) -> object:
    # few instants, so ties are common; a date ties with the midnight UTC of a datetime
    day = date(2024, 1, draw(st.integers(1, 3)))
    kind = draw(st.sampled_from(["none", "date", "datetime"]))
    if kind == "none":
        return None
    if kind == "date":
        return day
    hour = draw(st.sampled_from([0, 0, 2, 22]))
    return datetime(day.year, day.month, day.day, hour, tzinfo=draw(st.sampled_from(ZONES)))


@st.composite
def extensions(draw: st.DrawFn) -> Extensions:
    i = draw(st.integers(0, 3))
    return draw(st.sampled_from([EMPTY, EMPTY, Extensions(images=(Image(f"{U}i{i}.png"),)),
                                 Extensions(alternates=(Alternate("de", f"{U}de/{i}"),))]))


ROW = st.tuples(st.integers(0, 39), lastmods(), st.one_of(st.none(), st.sampled_from(CHANGEFREQS)),
                st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0])),
                st.integers(0, 20), st.booleans(), extensions())


@st.composite
def records(draw: st.DrawFn) -> list[Record]:
    urls = draw(st.integers(1, 40))
    rows = draw(st.lists(ROW, min_size=1, max_size=150))
    sources = draw(st.integers(1, 3))
    n = len(rows)
    return [make_record(f"{U}p{u % urls}", lm, cf, pr, is_sitemap=kind == 0,  # type: ignore[arg-type]
                        source=f"in{min(i * sources // n, sources - 1)}.xml",
                        line=i + 1 if line else None, extensions=ext)
            for i, (u, lm, cf, pr, kind, line, ext) in enumerate(rows)]


def outcome(value: str, copies: list[Record], size: int, **options: Any) -> tuple[object, ...]:
    """Every merged entry, field by field (a lastmod as written), the counts, the URLs told."""
    told: list[str] = []
    counts = MergeCounts(on_change=told.append)
    with mode(value):
        rows = [(r.loc, r.is_sitemap, r.source, r.line, r.changefreq, r.priority,
                 None if r.lastmod is None else format_lastmod(r.lastmod), r.extensions)
                for b in merge(batched(copies, size), counts, **options) for r in b.records()]
    return rows, (counts.urls, counts.added, counts.updated, counts.copies), told


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(copies=records(), size=st.sampled_from([1, 3, 16, 2048]),
       budget=st.sampled_from([1 << 30, 3000, 0]), partitions=st.integers(1, 4),
       base=st.sampled_from([None, "in0.xml", "in1.xml"]))
def test_the_store_merges_as_the_reference_does(copies: list[Record], size: int, budget: int,
                                                partitions: int, base: Optional[str]) -> None:
    old = spill.PARTITIONS, spill.FLUSH_ROWS, spill.WINDOW_ROWS
    # (rows written, and put back in order, a few at a time: the runs are small)
    spill.PARTITIONS, spill.FLUSH_ROWS, spill.WINDOW_ROWS = partitions, 7, 5
    try:
        options = {"memory_limit": budget, "base": None if base is None else {base}}
        fast = outcome("", copies, size, **options)
    finally:
        spill.PARTITIONS, spill.FLUSH_ROWS, spill.WINDOW_ROWS = old
    assert fast == outcome("1", copies, size, **options)


def test_a_spilled_merge_keeps_first_seen_order_and_counts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,000 URLs, a budget of about 500 (a batch): the other batches spill, into 3 partitions
    first = [make_record(f"{U}a{i}", date(2024, 1, 1), source="one.txt", line=i + 1)
             for i in range(3000)]
    later = [make_record(f"{U}a{i}", datetime(2024, 1, 2, tzinfo=timezone.utc), "daily",
                         source="two.txt", line=i + 1) for i in range(0, 3000, 2)]
    monkeypatch.setattr(spill, "PARTITIONS", 3)
    monkeypatch.setattr(spill, "FLUSH_ROWS", 500)  # (written, and put back, a few at a time)
    monkeypatch.setattr(spill, "WINDOW_ROWS", 700)
    store = Store(memory_limit=100_000)
    for batch in batched(first + later, 500):
        store.add(batch)
    counts = MergeCounts()
    out = [r for b in store.batches(counts) for r in b.records()]
    assert [r.loc for r in out] == [r.loc for r in first]
    assert [(r.lastmod, r.changefreq, r.line) for r in out[:2]] == [
        (datetime(2024, 1, 2, tzinfo=timezone.utc), "daily", 1), (date(2024, 1, 1), None, 2)]
    assert counts.spilled == 2500
    assert (counts.urls, counts.added, counts.updated, counts.copies) == (3000, 3000, 1500, 1500)
    # the plain reference: the same, in memory
    ref = ReferenceStore(memory_limit=0)
    for batch in batched(first + later, 500):
        ref.add(batch)
    ref_counts = MergeCounts()
    assert [r for b in ref.batches(ref_counts) for r in b.records()] == out
    assert ref_counts.spilled == 0 and ref_counts.urls == 3000


def test_a_spill_that_cannot_write_is_one_clear_error(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # the temporary directory gone: an OutputError naming it and TMPDIR, no traceback
    import tempfile

    gone = tmp_path / "gone"
    monkeypatch.setattr(tempfile, "tempdir", str(gone))
    store = Store(memory_limit=0)
    with pytest.raises(OutputError, match=f"temporary files in {gone}.*TMPDIR"):
        for batch in batched([make_record(f"{U}p{i}") for i in range(100)], 20):
            store.add(batch)
        list(store.batches())  # (the rows are written at the latest here)


@pytest.mark.parametrize("budget", ["", "30000"], ids=["memory", "spilled"])
def test_the_command_merges_tsv_lists_with_lastmods_as_the_reference(tmp_path: Path,
                                                                     budget: str) -> None:
    # two TSV lists (the bench's merge-lastmods row, small): the same files both ways
    one, two = tmp_path / "one.tsv", tmp_path / "two.tsv"
    one.write_text("".join(f"{U}p{i}\t2024-01-{1 + i % 3:02d}\n" for i in range(2000)))
    two.write_text("".join(f"{U}p{i}\t2024-01-02T0{i % 2}:00:00+00:00\n{U}q{i}\t2024-01-01\n"
                           for i in range(1000, 2000)))
    outs = []
    for value in ("", "1"):
        out = tmp_path / f"out{value or 0}"
        out.mkdir()
        result = run(str(one), str(two), "--base-url", U, "--max-urls", "1000", "-o",
                     str(out / "sitemap.xml"),
                     env={**os.environ, ENV: value, "FEED2SITEMAP_MERGE_MEMORY": budget})
        assert result.returncode == 0, result.stderr
        outs.append(({p.name: p.read_bytes() for p in sorted(out.iterdir())}, result.stdout))
    assert outs[0] == outs[1]
    files = outs[0][0]
    assert len(files) == 4  # 3,000 URLs, 1,000 a file, and the index
    part = files["sitemap-2.xml"].decode()
    # p1000: a tie of the date and its midnight UTC keeps the first; p1001: the first is newer;
    # p1002: the second is
    for loc, lastmod in (("p1000", "2024-01-02"), ("p1001", "2024-01-03"),
                         ("p1002", "2024-01-02T00:00:00+00:00")):
        assert f"{U}{loc}</loc><lastmod>{lastmod}</lastmod>" in part
