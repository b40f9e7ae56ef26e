"""The library as a developer meets it: one way to call each step, values checked at the door,
errors that say which parameter, and no file the sitemaps.org schema would reject."""

from __future__ import annotations

import gzip
import inspect
import io
import typing
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
import xmlschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import feed2sitemap
from feed2sitemap import (
    CHANGEFREQS,
    Defaults,
    Feed2SitemapError,
    Limits,
    OptionError,
    Problem,
    ReadOptions,
    Record,
    Report,
    WriteOptions,
    convert,
    read,
    write,
)

CONFORMANCE = Path(__file__).resolve().parents[2] / "shared" / "conformance"


@pytest.fixture(scope="module")
def schemas() -> dict[str, xmlschema.XMLSchema]:
    found = {name: CONFORMANCE / "schemas" / f"{name}.xsd" for name in ("sitemap", "siteindex")}
    missing = [str(p) for p in found.values() if not p.exists()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not there (shared/ is cloned beside the repository)")
    return {name: xmlschema.XMLSchema(str(path)) for name, path in found.items()}


def assert_valid(files: list[Path], schemas: dict[str, xmlschema.XMLSchema]) -> None:
    for path in files:
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        kind = "siteindex" if b"<sitemapindex" in data[:200] else "sitemap"
        schemas[kind].validate(io.BytesIO(data))


# --- values are checked where they come in ------------------------------------------------------


@pytest.mark.parametrize("make, parameter", [
    (lambda: Defaults(changefreq="Daily"), "changefreq"),
    (lambda: Defaults(priority=7.5), "priority"),
    (lambda: Defaults(priority=float("nan")), "priority"),
    (lambda: Defaults(priority="0.5"), "priority"),  # type: ignore[arg-type]
    (lambda: Limits(max_urls=0), "max_urls"),
    (lambda: WriteOptions(gzip_level=10), "gzip_level"),
    (lambda: WriteOptions(index="sometimes"), "index"),
    (lambda: ReadOptions(from_format="yaml"), "from_format"),
    (lambda: Record("https://e.example/", changefreq="Daily"), "changefreq"),
    (lambda: Record("https://e.example/", priority=True), "priority"),
    (lambda: Record("https://e.example/", lastmod="2024-01-01"), "lastmod"),  # type: ignore[arg-type]
    (lambda: Record("https://e.example/", lastmod=datetime(2024, 1, 1)), "lastmod"),
    (lambda: Record(""), "loc"),
])
def test_a_bad_value_is_an_option_error_naming_its_parameter(make: typing.Any,
                                                             parameter: str) -> None:
    with pytest.raises(OptionError) as caught:
        make()
    assert caught.value.parameter == parameter
    assert isinstance(caught.value, ValueError)  # what Python code expects of a bad argument


def test_convert_with_defaults_the_schema_rejects_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://e.example/a\n")
    out = tmp_path / "sitemap.xml"
    with pytest.raises(OptionError, match="changefreq"):
        convert([tmp_path / "urls.txt"], out, defaults=Defaults(changefreq="Daily"))
    assert not out.exists()


def test_one_str_is_one_input_not_a_sequence_of_characters(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://e.example/a\n")
    out = io.BytesIO()
    summary = convert(str(tmp_path / "urls.txt"), out)
    assert summary.urls == 1 and b"<loc>https://e.example/a</loc>" in out.getvalue()


def test_text_streams_are_refused_with_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://e.example/a\n")
    with open(tmp_path / "urls.txt") as text, pytest.raises(OptionError, match="binary") as c:
        list(read(text))
    assert c.value.parameter == "source"
    with pytest.raises(OptionError, match="binary") as c:
        write([Record("https://e.example/a")], io.StringIO())
    assert c.value.parameter == "output"


def test_writing_no_records_is_the_callers_error_not_bad_input() -> None:
    with pytest.raises(OptionError, match="at least one URL"):
        write([], io.BytesIO())


def test_write_takes_the_same_limits_as_convert(tmp_path: Path) -> None:
    records = [Record(f"https://e.example/{i}") for i in range(7)]
    summary = write(records, tmp_path / "s.xml", base_url="https://e.example/",
                    limits=Limits(max_urls=3))
    assert [f.count for f in summary.parts] == [3, 3, 1] and len(summary.indexes) == 1


def test_problems_come_as_values_with_source_line_and_url(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://e.example/a\nnot a url\nhttps://other.example/\n")
    seen: list[Problem] = []
    report = Report(on_problem=seen.append)
    convert([tmp_path / "urls.txt"], io.BytesIO(), base_url="https://e.example/", report=report)
    assert [(p.action, p.kind, p.line) for p in seen] == [
        ("skipped", "white space in line", 2), ("skipped", "off scope", 3)]
    assert seen[1].url == "https://other.example/" and seen[1].source.endswith("urls.txt")
    assert report.problems == seen


def test_library_messages_name_parameters_not_command_line_options(tmp_path: Path) -> None:
    with pytest.raises(OptionError) as caught:
        convert([io.BytesIO(b"https://e.example/\n")], io.BytesIO(), base_url="ftp://x/")
    assert caught.value.parameter == "base_url" and "--" not in str(caught.value)


def test_every_type_in_a_public_signature_is_exported() -> None:
    exported = set(feed2sitemap.__all__)
    for name in ("convert", "read", "write", "read_batches", "write_batches"):
        hints = typing.get_type_hints(getattr(feed2sitemap, name))
        for hint in hints.values():
            for arg in _classes(hint):
                if arg.__module__.startswith("feed2sitemap"):
                    assert arg.__name__ in exported, (name, arg)
    for field, hint in typing.get_type_hints(feed2sitemap.Summary).items():
        for arg in _classes(hint):
            if arg.__module__.startswith("feed2sitemap"):
                assert arg.__name__ in exported, (field, arg)


def _classes(hint: object) -> list[type]:
    if inspect.isclass(hint):
        return [hint]
    return [c for arg in typing.get_args(hint) for c in _classes(arg)]


def test_every_error_is_a_feed2sitemap_error_with_a_kind() -> None:
    for name in ("InputError", "LimitError", "OptionError", "OutputError", "UnsupportedFormat"):
        cls = getattr(feed2sitemap, name)
        assert issubclass(cls, Feed2SitemapError) and cls.kind != "error"


# --- no file the schema rejects, whatever valid records come in ---------------------------------

_UTC = timezone.utc
_ZONES = st.sampled_from([_UTC, timezone(timedelta(hours=14)), timezone(-timedelta(hours=12)),
                          timezone(timedelta(hours=5, minutes=45))])
_LOCS = st.one_of(
    st.builds("https://e.example/{}".format, st.text(max_size=60)),
    st.builds("https://e.example/{}?q={}&r={}#f".format, st.text("ab<>&'\"é ", max_size=8),
              st.text(max_size=5), st.text(max_size=5)),
    st.sampled_from(["HTTPS://E.EXAMPLE:443/a/../b", "https://e.example/" + "x" * 2030,
                     "https://e.example/%7e%41", "https://bücher.example/ü"]),
)
_LASTMODS = st.one_of(st.none(), st.dates(date(1000, 1, 2), date(9999, 12, 30)),
                      st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30),
                                   timezones=_ZONES))
RECORDS = st.lists(st.builds(
    Record, _LOCS, _LASTMODS, st.one_of(st.none(), st.sampled_from(CHANGEFREQS)),
    st.one_of(st.none(), st.sampled_from([0.0, 1.0, 0.5, 0.25, 0.123456789, 1e-9]),
              st.floats(0.0, 1.0))), min_size=1, max_size=20)


@pytest.mark.slow
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(RECORDS, st.sampled_from([None, 5]), st.booleans())  # (20 records: 4 parts, 5 listed)
def test_any_valid_records_written_pass_the_sitemaps_org_schema(
        schemas: dict[str, xmlschema.XMLSchema], tmp_path_factory: pytest.TempPathFactory,
        records: list[Record], max_urls: int | None, compress: bool) -> None:
    where = tmp_path_factory.mktemp("w")
    name = "sitemap.xml.gz" if compress else "sitemap.xml"
    try:
        summary = write(records, where / name, base_url="https://e.example/",
                        limits=Limits(max_urls=max_urls))
    except feed2sitemap.InputError as exc:  # every record was skipped (an unwritable URL)
        assert "no URLs to write" in str(exc)
        return
    assert_valid([Path(f.path) for f in summary.files if f.path], schemas)
    assert summary.urls + summary.report.total_skipped == len(records)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(RECORDS)
def test_any_valid_records_converted_pass_the_sitemaps_org_schema(
        schemas: dict[str, xmlschema.XMLSchema], tmp_path_factory: pytest.TempPathFactory,
        records: list[Record]) -> None:
    where = tmp_path_factory.mktemp("c")
    write(records, where / "in.jsonl")  # JSON Lines keeps every field as given
    try:
        summary = convert([where / "in.jsonl"], where / "out.xml", scope_check=False,
                          defaults=Defaults("weekly", 0.3))
    except feed2sitemap.InputError as exc:
        assert "no URLs to write" in str(exc)
        return
    assert_valid([Path(f.path) for f in summary.files if f.path], schemas)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["changefreq", "priority", "lastmod", "loc", "max_urls", "max_bytes",
                        "gzip_level"]),
       st.one_of(st.text(max_size=5), st.integers(-5, 100), st.floats(allow_nan=True),
                 st.none(), st.booleans(), st.datetimes()))
def test_invalid_values_give_the_librarys_own_error_never_a_file(field: str,
                                                                 value: object) -> None:
    out = io.BytesIO()
    try:
        if field in ("changefreq", "priority"):
            convert([io.BytesIO(b"https://e.example/\n")], out,
                    defaults=Defaults(**{field: value}))  # type: ignore[arg-type]
        elif field in ("lastmod", "loc"):
            kwargs: dict[str, object] = {"loc": "https://e.example/", field: value}
            write([Record(**kwargs)], out)  # type: ignore[arg-type]
        elif field in ("max_urls", "max_bytes"):
            write([Record("https://e.example/")], out, limits=Limits(**{field: value}))  # type: ignore[arg-type]
        else:
            write([Record("https://e.example/")], out,
                  writing=WriteOptions(gzip=True, gzip_level=value))  # type: ignore[arg-type]
    except Feed2SitemapError:
        assert out.getvalue() == b""
        return
    # accepted: then it was a valid value, and what was written is a sitemap
    assert out.getvalue().startswith(b"<?xml") or out.getvalue()[:2] == b"\x1f\x8b"
