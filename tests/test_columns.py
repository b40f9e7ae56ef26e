"""URL lists with columns (TSV, CSV, JSON Lines) in, JSON Lines out, and the round trips."""

from __future__ import annotations

import gzip
import io
import json
import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from feed2sitemap import ReadOptions, Record, convert, read, write
from feed2sitemap.cli.main import convert_command
from feed2sitemap.errors import InputError
from feed2sitemap.model.options import WriteOptions
from feed2sitemap.model.record import CHANGEFREQS, make_record
from feed2sitemap.model.report import Report
from feed2sitemap.readers.detect import sniff
from feed2sitemap.readers.lines import MAX_JSON_LINE
from feed2sitemap.readers.text import MAX_LINE

from .conftest import SAMPLES, run

UTC = timezone.utc


def read_all(data: bytes, fmt: str = "auto", strict: bool = False) -> tuple[list[Record], Report]:
    report = Report(strict=strict)
    return list(read(io.BytesIO(data), ReadOptions(from_format=fmt),
                     report=report, name="in")), report


def messages(data: bytes, fmt: str = "auto") -> list[str]:
    got: list[str] = []
    report = Report(on_message=got.append)
    list(read(io.BytesIO(data), ReadOptions(from_format=fmt), report=report, name="in"))
    return got


@pytest.mark.parametrize("head,kind", [
    (b"https://a.example/x\t2024-01-01\n", "tsv"),
    (b"\n\n  loc\tlastmod\n", "tsv"),
    (b"loc,lastmod\nhttps://a.example/,2024-01-01\n", "csv"),
    (b"\xef\xbb\xbfURL;x\n", "csv"),  # ";" as European spreadsheets separate fields
    (b"https://a.example/a;b\n", "text"),  # a ";" inside a URL is still a plain list
    (b"Url,Priority\n", "csv"),
    (b"https://a.example/a,b,c\n", "text"),  # a comma inside a URL is still a plain list
    (b'{"loc": "https://a.example/"}\n', "jsonl"),
    (b'{"url": "https://a.example/", "lastmod": "2024-01-01"}\n{"url": ', "jsonl"),
    (b'{"loc": "https://a.example/", }\n', "jsonl"),  # a broken first line is still a line
    (b"https://a.example/\n", "text"),
])
def test_list_format_is_detected_from_the_first_non_blank_line(head: bytes, kind: str) -> None:
    assert sniff(head, "in") == kind


# --------------------------------------------------------------------------- TSV

@pytest.mark.parametrize("fmt,data", [
    ("tsv", b"https://a.example/1\t2024-03-05\nhttps://a.example/2\t\tdaily\n\nhttps://a.example/3\n"),
    ("csv", b"loc,lastmod\nhttps://a.example/1,2024-03-05\n\nhttps://a.example/2,\n"),
    ("jsonl", b'{"loc": "https://a.example/1"}\n\n{"loc": "https://a.example/2", '
              b'"lastmod": "2024-03-05"}\n'),
])
def test_lists_with_columns_take_a_lone_cr_as_a_line_end(fmt: str, data: bytes) -> None:
    """Old Macs and some spreadsheet exports end lines with a lone CR: the same records, on
    the same lines, as with LF or CRLF (as text lists have always read them)."""
    want, _ = read_all(data, fmt)
    for ends in (b"\r", b"\r\n"):
        got, report = read_all(data.replace(b"\n", ends), fmt)
        assert got == want and [r.line for r in got] == [r.line for r in want]
        assert not report.warnings and not report.skipped


def test_tsv_positional_columns() -> None:
    data = (b"https://a.example/1\t2024-03-05\tweekly\t0.8\n"
            b"https://a.example/2\t2024-03-05T10:15:00+01:00\n"
            b"https://a.example/3\n"
            b"https://a.example/4\t\tdaily\r\n")
    got, report = read_all(data)
    assert got == [
        make_record("https://a.example/1", date(2024, 3, 5), "weekly", 0.8),
        make_record("https://a.example/2", datetime(2024, 3, 5, 9, 15, tzinfo=UTC)),
        make_record("https://a.example/3"),
        make_record("https://a.example/4", changefreq="daily"),
    ]
    assert [r.line for r in got] == [1, 2, 3, 4]
    assert not report.warnings


def test_tsv_header_in_any_order_with_an_unknown_column_reported_once() -> None:
    data = (b"priority\tnotes\tURL\tlastmod\n"
            b"0.5\thome\thttps://a.example/\t2024-01-01\n"
            b"\n"
            b"\tno priority\thttps://a.example/b\t\n")
    got, report = read_all(data)
    assert got == [make_record("https://a.example/", date(2024, 1, 1), priority=0.5),
                   make_record("https://a.example/b")]
    assert [r.line for r in got] == [2, 4]
    assert report.warnings == {"unknown column": 1}


@pytest.mark.parametrize("line,field,message", [
    (b"https://a.example/\tyesterday\n", "lastmod", "lastmod dropped: not a W3C"),
    (b"https://a.example/\t2024-01-01T10:00\n", "lastmod", "time without a timezone"),
    (b"https://a.example/\t2024-02-30\n", "lastmod", "lastmod dropped"),
    (b"https://a.example/\t\tsometimes\n", "changefreq", "changefreq dropped"),
    (b"https://a.example/\t\t\t1.5\n", "priority", "priority 1.5 is outside 0.0-1.0"),
    (b"https://a.example/\t\t\thigh\n", "priority", "not a decimal number"),
])
def test_a_bad_field_is_dropped_with_its_line_and_the_url_kept(line: bytes, field: str,
                                                                message: str) -> None:
    data = b"https://a.example/ok\t2024-01-01\n" + line
    got, report = read_all(data)
    assert [r.loc for r in got] == ["https://a.example/ok", "https://a.example/"]
    assert getattr(got[1], field) is None
    assert report.warnings == {f"bad {field}": 1}
    said = messages(data)
    assert len(said) == 1 and message in said[0] and said[0].startswith("in:2: warning:")
    with pytest.raises(InputError, match=r"in:2: .*\(`strict`\)"):
        read_all(data, strict=True)


def test_tsv_extra_fields_are_reported_once() -> None:
    data = b"https://a.example/1\t\t\t\textra\nhttps://a.example/2\t\t\t\tmore\n"
    got, report = read_all(data)
    assert len(got) == 2 and report.warnings == {"unknown column": 1}


def test_tsv_header_naming_a_column_twice_is_an_error() -> None:
    with pytest.raises(InputError, match="in:1: the header names column 'loc' twice"):
        read_all(b"url\tloc\nhttps://a.example/\thttps://b.example/\n")


def test_a_line_without_a_url_is_skipped_and_counted() -> None:
    got, report = read_all(b"loc\tlastmod\n\t2024-01-01\nhttps://a.example/\t\n")
    assert [r.loc for r in got] == ["https://a.example/"]
    assert report.skipped == {"no loc": 1}


def test_tsv_lines_of_one_width_with_blank_fields_and_lines() -> None:
    # every line has one tab (the block is split at once): blank fields are no value, a blank
    # line is left out silently, a blank URL is a skipped row
    data = (b"https://a.example/1\t 2024-01-01\n"
            b"\t\n"
            b"https://a.example/2\t \n"
            b" \t2024-01-02\n"
            b"https://a.example/3\t2024-01-03\n")
    got, report = read_all(data)
    assert got == [make_record("https://a.example/1", date(2024, 1, 1)),
                   make_record("https://a.example/2"),
                   make_record("https://a.example/3", date(2024, 1, 3))]
    assert [r.line for r in got] == [1, 3, 5]
    assert report.skipped == {"no loc": 1} and not report.warnings


# --------------------------------------------------------------------------- CSV

def test_csv_with_rfc4180_quoting() -> None:
    data = (b'loc,lastmod,changefreq,priority\r\n'
            b'"https://a.example/search?q=tea,green",2024-01-01,,0.4\r\n'
            b'"https://a.example/say?""hi""",,"monthly",\r\n'
            b'"https://a.example/multi\nline",,,\r\n'
            b'https://a.example/last,,,\r\n')
    got, report = read_all(data)
    assert [(r.loc, r.line) for r in got] == [
        ("https://a.example/search?q=tea,green", 2), ('https://a.example/say?"hi"', 3),
        ("https://a.example/multi\nline", 4), ("https://a.example/last", 6)]
    assert got[0].priority == 0.4 and got[1].changefreq == "monthly"


def test_csv_without_a_header_is_an_error_saying_what_is_needed() -> None:
    with pytest.raises(InputError, match="in:1: a CSV list needs a header line"):
        read_all(b"https://a.example/,2024-01-01\n", "csv")


def test_semicolon_csv_is_read_by_its_header(tmp_path: Path) -> None:
    """European spreadsheets separate fields by ";": the header says so (issue 36, item 7)."""
    src = tmp_path / "eu.csv"
    src.write_bytes(b'\nloc;lastmod;priority\r\nhttps://a.example/x;2024-03-05;0,5\r\n'
                    b'"https://a.example/y;z";2024-03-06;0.4\r\n')
    done = run(str(src), "-o", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"<url>") == 2
    assert b"<loc>https://a.example/x</loc><lastmod>2024-03-05</lastmod></url>" in done.stdout
    assert b"<loc>https://a.example/y;z</loc><lastmod>2024-03-06</lastmod><priority>0.4" \
        in done.stdout
    assert b"eu.csv:3: warning: priority dropped" in done.stderr  # (a decimal comma)


def test_bad_csv_quoting_names_the_line() -> None:
    with pytest.raises(InputError, match=r"in:3: not valid CSV"):
        read_all(b'url\nhttps://a.example/\n"https://a.example/"x\n')


# --------------------------------------------------------------------------- JSON Lines

def test_jsonl_fields_and_types() -> None:
    data = (b'{"loc": "https://a.example/1", "lastmod": "2024-03-05", "priority": 0.8}\n'
            b'{"url": "https://a.example/2", "changefreq": "daily", "priority": "0.25"}\n'
            b'\n'
            b'  {"loc": "https://a.example/3", "priority": 1}  \n'
            b'{"loc": "https://a.example/4", "priority": 0}\n')
    got, report = read_all(data)
    assert got == [make_record("https://a.example/1", date(2024, 3, 5), priority=0.8),
                   make_record("https://a.example/2", changefreq="daily", priority=0.25),
                   make_record("https://a.example/3", priority=1.0),
                   make_record("https://a.example/4", priority=0.0)]
    assert [r.line for r in got] == [1, 2, 4, 5]
    assert not report.warnings and not report.skipped


def test_jsonl_extensions_are_read_with_the_row() -> None:
    data = (b'{"loc": "https://a.example/x", "images": [{"loc": "https://a.example/i.jpg"}], '
            b'"links": [{"lang": "de", "url": "https://a.example/de/x"}, '
            b'{"lang": "en", "url": "https://a.example/x"}]}\n')
    (record,), report = read_all(data)
    assert record.extensions.images[0].loc == "https://a.example/i.jpg"
    assert [a.hreflang for a in record.extensions.alternates] == ["de", "en"]
    assert not report.warnings


@pytest.mark.parametrize("line,kind,message", [
    (b'{"loc": "https://a.example/x", "lastmod": 20240101}', "bad lastmod",
     "lastmod dropped: a number, not a string"),
    (b'{"loc": "https://a.example/x", "priority": true}', "bad priority",
     "priority dropped: true or false, not a number"),
    (b'{"loc": "https://a.example/x", "priority": 2.5}', "bad priority", "outside 0.0-1.0"),
    (b'{"loc": "https://a.example/x", "changefreq": ["daily"]}', "bad changefreq",
     "an array, not a string"),
    (b'{"loc": "https://a.example/x", "sitemap": "yes"}', "bad sitemap", "not true or false"),
    (b'{"loc": "https://a.example/x", "tags": ["a"]}', "unknown field", "unknown field 'tags'"),
    (b'{"loc": "https://a.example/x", "images": [{"caption": "no loc"}]}', "bad extension",
     "extension dropped: images[0]"),
    (b'{"loc": "https://a.example/x", "videos": [{"title": "T", "description": "D", '
     b'"thumbnail_loc": "https://a.example/t.jpg"}]}', "bad videos extension",
     "content_loc"),
])
def test_jsonl_bad_field_is_dropped_and_reported_by_line(line: bytes, kind: str,
                                                          message: str) -> None:
    data = b'{"loc": "https://a.example/ok"}\n' + line + b"\n"
    got, report = read_all(data)
    assert [r.loc for r in got] == ["https://a.example/ok", "https://a.example/x"]
    assert report.warnings == {kind: 1}
    said = messages(data)
    assert len(said) == 1 and said[0].startswith("in:2: warning:") and message in said[0]


@pytest.mark.parametrize("line,message", [
    (b'{"loc": "https://a.example/x"', "not valid JSON: Expecting ',' delimiter (column 30)"),
    (b'"https://a.example/x"', "a string, not a JSON object"),
    (b'[1, 2]', "an array, not a JSON object"),
    (b'{"loc": "https://a.example/x", "loc": "https://a.example/y"}',
     "field 'loc' appears twice"),
    (b'{"lastmod": "2024-01-01", "lastmod": "2025-01-01", "loc": "https://a.example/y"}',
     "field 'lastmod' appears twice"),
    (b'{"loc": "https://a.example/x", "priority": NaN}', "NaN is not JSON"),
    (b'{"loc": "https://a.example/x", "url": "https://a.example/y"}', "both loc and url"),
    (b'{"loc": 5}', "loc is a number, not a string"),
    (b'{"lastmod": "2024-01-01"}', "no loc"),
    (b'{"loc": "https://a.example/x"}, {"loc": "https://a.example/y"}', "not valid JSON"),
    (b'{"a": ' * 5000 + b"1" + b"}" * 5000, "nested too deeply"),
    (b'{"loc": "https://a.example/x", "priority": ' + b"1" * 4301 + b"}",
     "a number with more digits than Python reads (4,300); refused"),
])
def test_jsonl_bad_line_is_skipped_and_reported_by_line(line: bytes, message: str) -> None:
    data = b'{"loc": "https://a.example/ok"}\n' + line + b'\n{"loc": "https://a.example/z"}\n'
    got, report = read_all(data)
    assert [r.loc for r in got] == ["https://a.example/ok", "https://a.example/z"]
    assert [r.line for r in got] == [1, 3]
    assert report.total_skipped == 1
    said = messages(data)
    assert len(said) == 1 and said[0].startswith("in:2: skipped:") and message in said[0], said
    with pytest.raises(InputError, match=r"^in:2: "):
        read_all(data, strict=True)


def test_a_field_named_twice_is_found_in_a_large_block_too() -> None:
    # the block fast path proves "each field once" by counting; one object breaking it is found
    lines = [json.dumps({"loc": f"https://a.example/{i}"}) for i in range(3000)]
    lines[2500] = '{"loc": "https://a.example/a", "loc": "https://a.example/b"}'
    got, report = read_all(("\n".join(lines) + "\n").encode())
    assert len(got) == 2999 and report.total_skipped == 1
    # a value that happens to be a field's name is not a duplicate
    lines[2500] = '{"loc": "https://a.example/loc", "changefreq": "daily", "x": "loc"}'
    got, report = read_all(("\n".join(lines) + "\n").encode())
    assert len(got) == 3000 and report.total_skipped == 0


@pytest.mark.parametrize("fmt,data", [
    ("text", b"https://a.example/" + b"x" * MAX_LINE + b"\n"),
    ("tsv", b"https://a.example/\t" + b"x" * MAX_LINE + b"\n"),
    ("jsonl", b'{"loc": "' + b"x" * MAX_JSON_LINE + b'"}\n'),  # (a URL's extensions: 4 MiB)
    ("csv", b"loc\n" + b"x" * (2 * MAX_LINE)),
])
def test_line_length_is_bounded(fmt: str, data: bytes) -> None:
    with pytest.raises(InputError, match=r"line longer than (65,536|4,194,304) bytes|field larger"):
        read_all(data, fmt)


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
@pytest.mark.parametrize("data,message", [
    (b"\xff\xfeh\x00t\x00", "UTF-16"),
    (b"loc\nhttps://a.example/\xe9\n", r"in:2: not UTF-8 \(byte offset 22\)"),
    (b"loc\nhttps://a.example/\x00\n", "in:2: binary data"),
])
def test_bad_encoding_is_an_error_with_the_line(fmt: str, data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        read_all(data, fmt)


# --------------------------------------------------------------------------- JSON Lines out

def test_jsonl_output_is_lossless_and_reads_back_equal(tmp_path: Path) -> None:
    recs = [make_record("https://a.example/", date(2024, 1, 1), "daily", 1.0),
            make_record("https://a.example/é?q=\"x\"&y", datetime(2024, 1, 1, 10, 0, 0, 123400,
                                                                  tzinfo=UTC)),
            make_record("https://a.example/b", priority=0.25),
            make_record("https://a.example/c", priority=1e-05),
            make_record("https://a.example/d")]
    for name in ("out.jsonl", "out.jsonl.gz"):
        out = tmp_path / name
        write(recs, str(out))
        data = out.read_bytes()
        if name.endswith(".gz"):
            data = gzip.decompress(data)
        assert data.decode().splitlines()[1] == (
            '{"loc":"https://a.example/é?q=\\"x\\"&y","lastmod":"2024-01-01T10:00:00.1234+00:00"}')
        assert list(read(str(out))) == recs
    index = [make_record("https://a.example/s-1.xml", date(2024, 1, 1), is_sitemap=True)]
    buf = io.BytesIO()
    write(index, buf, writing=WriteOptions(to="jsonl"))
    assert buf.getvalue() == b'{"loc":"https://a.example/s-1.xml","lastmod":"2024-01-01",' \
                             b'"sitemap":true}\n'
    assert list(read(io.BytesIO(buf.getvalue()))) == index


URLS = st.sampled_from(["https://a.example/", "https://a.example/p?x=1&y=2", "http://b.example/é",
                        "https://a.example/q\"uote", "https://a.example/back\\slash"])
# a year before 1000 is a placeholder, not a date (record.MIN_YEAR): no record holds one
DATES = st.one_of(st.none(), st.dates(min_value=date(1000, 1, 1)),
                  st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.just(UTC)))
RECORDS = st.builds(make_record, URLS, DATES, st.one_of(st.none(), st.sampled_from(CHANGEFREQS)),
                    st.one_of(st.none(), st.floats(0.0, 1.0)))


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(RECORDS, min_size=1, max_size=20))
def test_any_records_round_trip_through_jsonl(recs: list[Record]) -> None:
    buf = io.BytesIO()
    write(recs, buf, writing=WriteOptions(to="jsonl"))
    assert list(read(io.BytesIO(buf.getvalue()), ReadOptions(from_format="jsonl"))) == recs


def test_sitemap_to_jsonl_to_sitemap_is_byte_identical(tmp_path: Path) -> None:
    first = tmp_path / "first.xml"
    assert run(str(SAMPLES / "sitemap.xml"), "-o", str(first)).returncode == 0
    jsonl = tmp_path / "urls.jsonl.gz"
    assert run(str(first), "-o", str(jsonl)).returncode == 0
    again = tmp_path / "again.xml"
    result = run(str(jsonl), "-o", str(again))
    assert result.returncode == 0, result.stderr
    assert again.read_bytes() == first.read_bytes()


def test_split_sitemap_set_to_jsonl_is_one_file_with_every_url(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"https://a.example/p{i}\n" for i in range(60_001)))
    result = run(str(src), "-o", str(tmp_path / "sitemap.xml"), "--base-url",
                 "https://a.example/")
    assert result.returncode == 0, result.stderr
    out = tmp_path / "all.jsonl"
    result = run(str(tmp_path / "sitemap.xml"), "--follow", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert len(out.read_bytes().splitlines()) == 60_001
    assert not [n for n in os.listdir(tmp_path) if n.startswith("all-")]  # never split
    # an explicit limit is obeyed: the file is refused whole, nothing written
    result = run(str(src), "-o", str(tmp_path / "few.jsonl"), "--max-urls", "10")
    assert result.returncode == 1 and b"JSON Lines is never split" in result.stderr
    assert not (tmp_path / "few.jsonl").exists()


def test_jsonl_to_stdout_with_cli_runner() -> None:
    result = CliRunner().invoke(convert_command, ["-", "-t", "jsonl", "-q"],
                                input=b"https://a.example/a\thourly\n")
    # "hourly" in the lastmod column is a bad lastmod, dropped with a warning (-q hides it)
    assert result.exit_code == 0, result.output
    assert result.output == '{"loc":"https://a.example/a"}\n'


def parse_lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def test_npm_sitemap_style_lines_are_read() -> None:
    # what the npm sitemap CLI takes: url, lastmod, changefreq, priority (img, links: later)
    data = (b'{"url": "https://a.example/", "changefreq": "daily", "priority": 0.3, '
            b'"lastmod": "2024-01-02T03:04:05.000Z", "img": [], "video": [], "links": []}\n')
    got, report = read_all(data)
    assert not report.warnings  # empty extension fields lose nothing
    assert got == [make_record("https://a.example/", datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
                               "daily", 0.3)]
    out = io.BytesIO()
    convert([io.BytesIO(data)], out, writing=WriteOptions(to="jsonl"))
    assert parse_lines(out.getvalue()) == [{"loc": "https://a.example/",
                                            "lastmod": "2024-01-02T03:04:05+00:00",
                                            "changefreq": "daily", "priority": 0.3}]


LASTMOD_TEXTS = st.one_of(
    st.dates(min_value=date(1, 1, 1)).map(lambda d: d.isoformat()),
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.isoformat()),
    st.datetimes(timezones=st.just(UTC)).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")),
    st.sampled_from(["2024-01-01T24:00:00+00:00", "2024-01-01T10:00:00.50+00:00",
                     "2024-01-01T10:00:00-00:00", " 2024-01-01", "2024-01-01T10:00+00:00",
                     "２０２４-01-01T10:00:00+00:00", "2024-01-01T10:00:00+01:00"]))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(LASTMOD_TEXTS, min_size=1, max_size=8))
def test_a_lastmod_text_is_passed_on_only_when_it_is_what_the_writer_would_write(
        texts: list[str]) -> None:
    from feed2sitemap.model.record import format_lastmod, parse_lastmod
    from feed2sitemap.readers.fields import canonical_texts

    def parsed(t: str) -> Any:
        try:
            return parse_lastmod(t)
        except ValueError:
            return None

    values = [parsed(t) for t in texts]
    kept = canonical_texts(list(texts), values) or [None] * len(texts)
    for text, value, passed in zip(texts, values, kept, strict=True):
        if passed is not None:
            assert passed == text == format_lastmod(value)


@pytest.mark.slow
def test_unknown_jsonl_fields_are_named_in_one_order_every_run() -> None:
    # `check` named them in a set's order, which changes from run to run (each run here has
    # its own hash seed): eight runs, one order, the fields' sorted one
    line = b'{"loc": "https://a.example/", "zeta": 1, "beta": 2, "mid": 3, "alpha": 4}\n'
    orders = set()
    for _ in range(8):
        done = run("check", "-", input=line)
        orders.add(tuple(m.split("'")[1] for m in done.stdout.decode().splitlines()
                         if "unknown field" in m))
    assert orders == {("alpha", "beta", "mid", "zeta")}
