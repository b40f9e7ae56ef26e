from __future__ import annotations

import io
from datetime import date
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap import Record, Report
from feed2sitemap.backends import reference
from feed2sitemap.model.batch import Batch, batched, unbatched
from feed2sitemap.model.record import make_record
from feed2sitemap.model.scope import scope_of
from feed2sitemap.model.urls import normalize_url
from feed2sitemap.pipeline.steps import (
    apply_defaults,
    check_length,
    dedupe,
    normalize,
    within_scope,
)
from feed2sitemap.readers.text import read_text


def via(step: Any, records: Any, *args: Any, **kwargs: Any) -> list[Record]:
    """A pipeline step (over batches) applied to records, as a library user holding records
    applies it."""
    return list(unbatched(step(batched(records), *args, **kwargs)))


def recs(*locs: str) -> list[Record]:
    return [make_record(loc, source="in.txt", line=i) for i, loc in enumerate(locs, 1)]


def test_normalize_rewrites_locs_and_skips_invalid_ones_with_their_line() -> None:
    messages: list[str] = []
    report = Report(on_message=messages.append)
    got = via(normalize, recs("HTTPS://E.example/a b", "nope", "https://e.example/"), report)
    assert [r.loc for r in got] == ["https://e.example/a%20b", "https://e.example/"]
    assert report.skipped["invalid URL"] == 1
    assert messages == ["in.txt:2: skipped: not an absolute URL: 'nope'; give `base_url` to "
                        "resolve relative links of lists and feeds"]
    # the same problem as a value, for code that wants more than text
    (problem,) = report.problems
    assert (problem.action, problem.kind, problem.source, problem.line, problem.url) == (
        "skipped", "invalid URL", "in.txt", 2, "nope")


def test_scope_without_base_url_is_the_first_urls_scheme_and_host() -> None:
    report = Report()
    got = via(within_scope, recs("https://e.example/a", "https://e.example/b/c",
                                 "http://e.example/a", "https://other.example/",
                                 "https://e.example.evil/x"), report)
    assert [r.loc for r in got] == ["https://e.example/a", "https://e.example/b/c"]
    assert report.skipped["off scope"] == 3
    assert report.hosts_off_scope["http://e.example"] == 1


def test_scope_with_base_url_is_its_directory() -> None:
    report = Report()
    scope = scope_of("https://e.example/blog/")
    got = via(within_scope, recs("https://e.example/blog/a", "https://e.example/blog",
                                 "https://e.example/blogger", "https://e.example/"), report, scope)
    assert [r.loc for r in got] == ["https://e.example/blog/a", "https://e.example/blog"]
    assert report.skipped["off scope"] == 2


def test_dedupe_keeps_the_first_copy_in_place() -> None:
    report = Report()
    got = via(dedupe, [Record("https://e.example/a", date(2024, 1, 1)),
                       Record("https://e.example/b"), Record("https://e.example/a")], report)
    assert got == [Record("https://e.example/a", date(2024, 1, 1)), Record("https://e.example/b")]
    assert report.skipped["duplicate"] == 1


def test_check_length_uses_the_profiles_under_rule() -> None:
    report = Report()
    ok = "https://e.example/" + "a" * (255 - 18)
    got = via(check_length, [Record(ok), Record(ok + "b")], 256, report, "baidu")
    assert got == [Record(ok)] and report.skipped["URL too long"] == 1


@pytest.mark.parametrize("max_loc, long, short", [
    (256, "https://e.example/" + "a" * 238, "http://a.b/"),  # Baidu's rule
    (2048, "https://e.example/" + "a" * 2030, "http://a.b/"),
])
def test_a_list_proven_clean_is_still_held_to_the_length_rules(
        max_loc: int, long: str, short: str) -> None:
    """A block of clean URLs comes with the reader's proof and its longest line: the length
    rules still find the one URL too long and the one too short among them."""
    lines = [f"https://e.example/{i}" for i in range(3000)]
    lines[1234] = long  # (exactly max_loc characters: "under" the limit is the rule)
    report = Report()
    batches = list(read_text(io.BytesIO("\n".join(lines).encode() + b"\n"), "list.txt",
                             report))
    assert batches[0].longest is not None or reference()  # (the fast path's proof)
    kept = [loc for b in check_length(batches, max_loc, report, "p") for loc in b.locs]
    assert len(long) == max_loc and long not in kept and len(kept) == 2999
    assert report.skipped["URL too long"] == 1
    short_list = io.BytesIO(b"".join(f"{short}\n".encode() for _ in range(3)))
    kept = [loc for b in check_length(read_text(short_list, "s.txt", report), max_loc, report)
            for loc in b.locs]
    assert kept == [] and report.skipped["URL too short"] == 3


def test_defaults_fill_only_missing_fields_and_never_index_entries() -> None:
    got = via(apply_defaults, [Record("https://e.example/a", changefreq="daily"),
                               Record("https://e.example/b", priority=0.1),
                               Record("https://e.example/s.xml", is_sitemap=True)],
                              "weekly", 0.5)
    assert got == [Record("https://e.example/a", changefreq="daily", priority=0.5),
                   Record("https://e.example/b", changefreq="weekly", priority=0.1),
                   Record("https://e.example/s.xml", is_sitemap=True)]


def test_steps_are_lazy() -> None:
    def endless() -> object:
        i = 0
        while True:
            i += 1
            yield make_record(f"https://e.example/{i}")

    stream = unbatched(dedupe(within_scope(normalize(batched(endless()), Report()),  # type: ignore[arg-type]
                                           Report()), Report()))
    assert next(stream).loc == "https://e.example/1"


def test_check_length_skips_urls_the_schema_finds_too_short() -> None:
    report = Report()
    got = via(check_length, [Record("http://a.b/"), Record("http://a.b/c")], 2048, report)
    assert got == [Record("http://a.b/c")] and report.skipped["URL too short"] == 1


def test_dedupe_across_and_within_batches_keeps_first_copies_in_order() -> None:
    locs = [f"https://e.example/{i}" for i in range(5000)]
    stream = locs[:3000] + ["https://e.example/10", "https://e.example/2999"] + locs[3000:] + [
        "https://e.example/4999", "https://e.example/0", "https://e.example/5000",
        "https://e.example/5000"]
    report = Report()
    got = [r.loc for r in via(dedupe, [make_record(loc) for loc in stream], report)]
    assert got == locs + ["https://e.example/5000"]
    assert report.skipped["duplicate"] == 5


_LOCS = st.one_of(
    st.builds("https://a.example/{}".format, st.text("abz09-_/?=&%.~", max_size=8)),
    st.sampled_from(["https://a.example/é", "http://B.example/x", "not a url", "",
                     " https://a.example/ ", "https://a.example/x\nhttps://a.example/y",
                     "https://a.example/%41", "ftp://a/x", "https://a.example/<",
                     "https://a.example:443/p"]),
)


@given(st.lists(_LOCS, max_size=30))
def test_normalize_treats_each_loc_as_normalize_url_does(locs: list[str]) -> None:
    """However the batch is scanned, each loc comes out as normalize_url makes it, or is
    reported and skipped; a newline inside a loc is never taken for two clean URLs."""
    want = []
    for loc in locs:
        try:
            want.append(normalize_url(loc))
        except ValueError:
            pass
    report = Report()
    got = [loc for batch in normalize([Batch(list(locs), "s")], report)
           for loc in batch.locs]
    assert got == want
    assert report.skipped.get("invalid URL", 0) == len(locs) - len(want)


def test_dedupe_after_a_batch_with_a_url_twice_still_knows_its_urls() -> None:
    """A batch of new URLs with one twice is taken back out of the seen set before the slow
    path: its URLs must still count as seen for the batches after it."""
    first = [make_record(f"https://e.example/{i}") for i in (1, 2, 2, 3)]
    later = [make_record(f"https://e.example/{i}") for i in (3, 4)]
    report = Report()
    got = [r.loc for r in via(dedupe, [*first, *later], report)]
    assert got == [f"https://e.example/{i}" for i in (1, 2, 3, 4)]
    assert report.skipped["duplicate"] == 2
