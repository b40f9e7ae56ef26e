"""Validation at the type (issue 33, item 6): whatever a library user hands a public writer —
a Batch made by its checked constructor or changed since, records, a base URL — comes out as
the library's own error or as files the sitemaps.org schemas and our own ``check`` accept."""

from __future__ import annotations

import gzip
import importlib.util
import io
import os
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap import (
    CHANGEFREQS,
    Batch,
    Feed2SitemapError,
    Limits,
    OptionError,
    Record,
    read_batches,
    unbatched,
    write,
    write_batches,
)
from feed2sitemap.check import check
from feed2sitemap.model.limits import PROFILES
from feed2sitemap.scale.partition import write_partition

from .conftest import CONFORMANCE, run

# (FEED2SITEMAP_CONFORMANCE: where shared/conformance is when it is not beside the repository)
_SCHEMAS = Path(os.environ.get("FEED2SITEMAP_CONFORMANCE", CONFORMANCE)) / "schemas"
HAS_DASK = importlib.util.find_spec("dask") is not None


@pytest.fixture(scope="module")
def schemas() -> dict[str, Any]:
    xmlschema = pytest.importorskip("xmlschema")
    paths = {k: _SCHEMAS / f"{k}.xsd" for k in ("sitemap", "siteindex")}
    if not all(p.exists() for p in paths.values()):
        pytest.skip(f"{_SCHEMAS}: the sitemaps.org schemas are not there (../shared is "
                    "optional)")
    # the ##other wildcards made lax: extension schemas are not in the conformance folder
    return {k: xmlschema.XMLSchema(p.read_text().replace('processContents="strict"',
                                                         'processContents="lax"'))
            for k, p in paths.items()}


def assert_good(files: list[Path], schemas: dict[str, Any]) -> None:
    """Each file valid against its schema and free of errors by our own ``check``."""
    assert files
    for path in files:
        data = path.read_bytes()
        data = gzip.decompress(data) if path.name.endswith(".gz") else data
        schemas["siteindex" if b"<sitemapindex" in data[:300] else "sitemap"].validate(
            io.BytesIO(data))
        errors = [d for d in check(path) if d.severity == "error"]
        assert not errors, [str(d) for d in errors]


# --- the bugs the item names -----------------------------------------------------------------

def _daily(locs: list[str]) -> Batch:
    """A batch made clean whose changefreqs were changed afterwards (a list is a list)."""
    batch = Batch(locs, changefreqs=["daily"] * len(locs))
    assert batch.changefreqs is not None
    batch.changefreqs[0] = "Daily"
    return batch


def test_the_checked_constructor_refuses_a_bad_value() -> None:
    with pytest.raises(OptionError, match="changefreq.*'Daily'"):
        Batch(["https://e.example/a"], changefreqs=["Daily"])
    for bad, column in [({"priorities": [1.5]}, "priority"), ({"priorities": ["0.5"]}, "priority"),
                        ({"lastmods": ["2020-01-01"]}, "lastmod"),
                        ({"lastmods": [datetime(2020, 1, 1)]}, "lastmod"),
                        ({"changefreqs": ["daily", "daily"]}, "changefreqs")]:
        with pytest.raises(OptionError, match=column):
            Batch(["https://e.example/a"], **bad)
    with pytest.raises(OptionError, match="loc"):
        Batch([b"https://e.example/a"])  # type: ignore[list-item]


@pytest.mark.parametrize("how", ["write_batches", "write", "write_partition"])
def test_a_field_changed_after_the_check_is_left_out_and_counted(tmp_path: Path,
                                                                 how: str) -> None:
    batch = _daily(["https://e.example/a", "https://e.example/b"])
    if how == "write_partition":
        from feed2sitemap import Report
        report = Report()
        write_partition([batch], str(tmp_path), "s", 0, report=report)
        files = list(tmp_path.iterdir())
    else:
        out = tmp_path / "s.xml"
        summary = (write_batches([batch], out) if how == "write_batches" else
                   write(unbatched([batch]), out))
        report, files = summary.report, [out]
    text = b"".join(f.read_bytes() for f in files)
    assert b"Daily" not in text and text.count(b"<changefreq>daily</changefreq>") == 1
    assert report.warnings["bad changefreq"] == 1


def test_a_bad_base_url_is_an_option_error_not_a_relative_index(tmp_path: Path) -> None:
    records = [Record(f"https://e.example/{i}") for i in range(3)]
    for bad in ("nope", "", "ftp://e.example/", 5):
        with pytest.raises(OptionError, match="base_url"):
            write(records, tmp_path / "w.xml", base_url=bad,  # type: ignore[arg-type]
                  limits=Limits(max_urls=1))
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_proven_list_cannot_change_under_its_proof(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("https://e.example/a\nhttps://e.example/b\n")
    batch = next(read_batches(src))
    # (the text reader proves a block of clean lines at once; the reference mode does not)
    try:
        batch.locs[0] = 'https://e.example/"<x>'  # type: ignore[index]
    except TypeError:  # the proof's own immutable copy: nothing to change under it
        pass
    out = tmp_path / "s.xml"
    write_batches([batch], out)
    assert "<x>" not in out.read_text()
    # another list in its place is no longer proven: it is normalised as any other
    batch.locs = ['https://e.example/x"<y>', "https://e.example/b"]
    write_batches([batch], out)
    text = out.read_text()
    assert "<y>" not in text and "x%22%3Cy%3E" in text


def test_what_is_not_a_record_is_an_option_error(tmp_path: Path) -> None:
    for items in (["https://e.example/a"], [Record("https://e.example/a"), None]):
        with pytest.raises(OptionError, match="Record"):
            write(items, tmp_path / "s.xml")  # type: ignore[arg-type]
    with pytest.raises(OptionError, match="Batch"):
        write_batches([[Record("https://e.example/a")]], tmp_path / "s.xml")  # type: ignore[list-item]
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_proven_lists_that_check_accepts(tmp_path: Path) -> None:
    # the command's own path (readers' proofs, now tuples) is unchanged in what it writes
    src = tmp_path / "list.txt"
    src.write_text("".join(f"https://e.example/p/{i}\n" for i in range(6000))
                   + "https://e.example/q?a=1&b='2'\nhttps://e.example/\"<x>\n")
    done = run(str(src), "-o", str(tmp_path / "s.xml"), "--base-url", "https://e.example/",
               "--max-urls", "2500")
    assert done.returncode == 0, done.stderr
    assert run("check", "--follow", str(tmp_path / "s.xml")).returncode == 0
    text = "".join(p.read_text() for p in tmp_path.glob("s-*.xml"))
    assert text.count("<loc>") == 6002 and "<x>" not in text and "&amp;" in text


def test_check_takes_a_profile_as_the_writers_do(tmp_path: Path) -> None:
    out = tmp_path / "s.xml"
    write([Record("https://e.example/a")], out)
    assert check(out, profile=PROFILES["baidu"]) == check(out, profile="baidu") == []
    with pytest.raises(OptionError, match="profile"):
        check(out, profile=["sitemaps"])  # type: ignore[arg-type]


# --- the property: random input through every public writer ----------------------------------

_ZONE = st.sampled_from([timezone.utc, timezone(timedelta(hours=5, minutes=30))])
_GOOD_LOC = st.builds(lambda p: "https://e.example/" + p, st.text(max_size=30))
LOCS = st.one_of(
    _GOOD_LOC, _GOOD_LOC, _GOOD_LOC,
    st.sampled_from(["", "/relative", "a b", "https://e.example/?a=1&b='2'",
                     "https://e.example/" + "x" * 2100, "https://other.example/p",
                     "HTTPS://E.EXAMPLE/%7e#frag", "javascript:alert(1)", "http://a.b/"]))
# mostly good values (so that files get written, and split), with bad ones among them
CHANGEFREQ = st.one_of(st.none(), st.none(), st.sampled_from(CHANGEFREQS),
                       st.sampled_from(["Daily", "", "sometimes", 3]))
PRIORITY = st.one_of(st.none(), st.none(), st.floats(0.0, 1.0), st.sampled_from([0.0, 1, 1.0]),
                     st.one_of(st.floats(allow_nan=True), st.sampled_from(["0.5", True, -1])))
LASTMOD = st.one_of(st.none(), st.none(), st.dates(date(1990, 1, 1), date(2100, 1, 1)),
                    st.datetimes(datetime(1990, 1, 1), timezones=_ZONE),
                    st.one_of(st.datetimes(datetime(1990, 1, 1)),  # no zone: refused
                              st.sampled_from(["2020-01-01", 5, date(1, 1, 1)])))
ROW = st.tuples(LOCS, LASTMOD, CHANGEFREQ, PRIORITY)
BASE = st.one_of(st.sampled_from(["https://e.example/", "https://e.example/blog"]),
                st.sampled_from([None, "nope", "", "ftp://e.example/"]))


def _batch(rows: list[tuple[Any, ...]], checked: bool) -> Batch:
    """The rows as a Batch: through its checked constructor, or made plain and then given the
    columns (a caller changing a batch's lists after it was checked)."""
    cols = [list(c) for c in zip(*rows, strict=True)]
    if checked:
        return Batch(cols[0], "given", None, cols[1], cols[2], cols[3])
    batch = Batch(["https://e.example/"] * len(rows))
    batch.locs, batch.lastmods, batch.changefreqs, batch.priorities = cols
    return batch


def _records(rows: list[tuple[Any, ...]]) -> list[Record]:
    return [Record(*row) for row in rows]


def _outcome(call: Any) -> Any:
    """The call's result, or None when it raised the library's own error; anything else
    raised (a TypeError, a KeyError...) fails the test."""
    try:
        return call()
    except Feed2SitemapError:
        return None


PROPERTY = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(st.lists(ROW, min_size=1, max_size=8), BASE, st.booleans(), st.booleans(),
       st.sampled_from([None, 2]), st.sampled_from(["s.xml", "s.xml.gz"]))
def test_write_and_write_batches_give_our_error_or_valid_files(
        schemas: dict[str, Any], tmp_path_factory: pytest.TempPathFactory,
        rows: list[tuple[Any, ...]], base: str | None, checked: bool, as_records: bool,
        max_urls: int | None, name: str) -> None:
    where = tmp_path_factory.mktemp("w")

    def run() -> Any:
        limits = Limits(max_urls=max_urls)
        if as_records:
            return write(_records(rows), where / name, base_url=base, limits=limits)
        return write_batches([_batch(rows, checked)], where / name, base_url=base,
                             limits=limits)

    summary = _outcome(run)
    if summary is None:
        return
    assert_good([Path(f.path) for f in summary.files if f.path], schemas)
    assert not list(where.glob("*.tmp"))


@PROPERTY
@given(st.lists(ROW, min_size=1, max_size=8), st.booleans(), st.booleans())
def test_write_partition_gives_our_error_or_valid_files(
        schemas: dict[str, Any], tmp_path_factory: pytest.TempPathFactory,
        rows: list[tuple[Any, ...]], checked: bool, as_records: bool) -> None:
    where = tmp_path_factory.mktemp("p")
    manifests = _outcome(lambda: write_partition(
        _records(rows) if as_records else [_batch(rows, checked)], str(where), "s", 0))
    if manifests:
        assert_good([where / m.name for m in manifests], schemas)


@pytest.mark.skipif(not HAS_DASK, reason="the dask extra is not installed")
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(ROW, min_size=1, max_size=6), BASE)
def test_to_sitemaps_gives_our_error_or_valid_files(
        schemas: dict[str, Any], tmp_path_factory: pytest.TempPathFactory,
        rows: list[tuple[Any, ...]], base: str | None) -> None:
    import dask
    import dask.bag as db

    from feed2sitemap.dask import to_sitemaps

    where = tmp_path_factory.mktemp("d")
    with dask.config.set(scheduler="synchronous"):
        summary = _outcome(lambda: to_sitemaps(db.from_sequence(rows, npartitions=1),
                                               where / "index.xml", base_url=base,
                                               scope_check=False))
    if summary is not None:
        assert_good([Path(f.path) for f in summary.files if f.path], schemas)
