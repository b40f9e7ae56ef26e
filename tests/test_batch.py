"""Batches: records held column by column, and the writers' whole-batch formatting."""

from __future__ import annotations

from datetime import date

from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap import Record, Report
from feed2sitemap.model.batch import BATCH, Batch, batched, unbatched
from feed2sitemap.model.record import make_record
from feed2sitemap.pipeline.steps import normalize
from feed2sitemap.writers import INDEX, TEXT, URLSET

RECORDS = st.lists(st.builds(
    make_record,
    st.text(min_size=1, max_size=30).map(lambda s: "https://e.example/" + s),
    st.one_of(st.none(), st.dates(min_value=date(2000, 1, 1))),
    st.one_of(st.none(), st.sampled_from(["daily", "never"])),
    st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0])),
    st.booleans(), st.sampled_from(["a.txt", "b.txt"]), st.integers(1, 99)), max_size=40)


@given(RECORDS)
def test_batching_and_unbatching_gives_the_records_back_with_their_origin(
        records: list[Record]) -> None:
    back = list(unbatched(batched(records, size=7)))
    assert back == records
    assert [(r.source, r.line) for r in back] == [(r.source, r.line) for r in records]


def test_a_change_of_kind_starts_a_new_batch() -> None:
    records = [Record("https://e.example/a"), Record("https://e.example/s.xml", is_sitemap=True),
               Record("https://e.example/b")]
    assert [(len(b), b.is_sitemap) for b in batched(records)] == [
        (1, False), (1, True), (1, False)]


def test_without_drops_rows_in_every_column() -> None:
    batch = Batch.of_records([Record(f"https://e.example/{i}", date(2024, 1, i + 1), line=i)
                              for i in range(5)])
    rest = batch.without([1, 3])
    assert rest.locs == ["https://e.example/0", "https://e.example/2", "https://e.example/4"]
    assert rest.lastmods == [date(2024, 1, 1), date(2024, 1, 3), date(2024, 1, 5)]
    assert rest.lines == [0, 2, 4]


LOCS = st.lists(st.text(alphabet="abc&'<>\"é \x01/", max_size=12).map(
    lambda s: "https://e.example/" + s), min_size=1, max_size=30)


@given(LOCS)
def test_whole_batch_formatting_equals_the_entries_joined(locs: list[str]) -> None:
    raw = Batch(locs)
    assert URLSET.block(raw) == "".join(URLSET.entries(raw))
    assert TEXT.block(raw) == "".join(TEXT.entries(raw))
    # the same locations normalised: the cheap escaping path for known URIs
    for batch in normalize([Batch(list(locs))], Report()):
        assert batch.proven
        assert URLSET.block(batch) == "".join(URLSET.entries(batch)) == "".join(
            URLSET.entry(r) for r in batch.records())


def test_index_entries_match_record_by_record_formatting() -> None:
    records = [Record("https://e.example/s-1.xml?a=1&b=2", date(2024, 1, 1), is_sitemap=True),
               Record("https://e.example/s-2.xml", is_sitemap=True)]
    batch = Batch.of_records(records)
    assert INDEX.entries(batch) == [INDEX.entry(r) for r in records]


def test_batch_size_is_bounded() -> None:
    records = [Record(f"https://e.example/{i}") for i in range(BATCH + 1)]
    assert [len(b) for b in batched(records)] == [BATCH, 1]
