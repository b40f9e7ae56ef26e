from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap.model.record import (
    Record,
    check_year,
    format_lastmod,
    lastmod_key,
    make_record,
    parse_changefreq,
    parse_lastmod,
    parse_priority,
)
from feed2sitemap.model.rules import parse_w3c

UTC = timezone.utc


@pytest.mark.parametrize("text,expected", [
    ("2004-12-23", date(2004, 12, 23)),
    ("2004-12-23T18:00:15+00:00", datetime(2004, 12, 23, 18, 0, 15, tzinfo=UTC)),
    ("2004-12-23T18:00Z", datetime(2004, 12, 23, 18, 0, tzinfo=UTC)),
    ("2004-12-23T18:00:15.5-05:30",
     datetime(2004, 12, 23, 18, 0, 15, 500000, tzinfo=timezone(-timedelta(hours=5, minutes=30)))),
    ("  2024-03-05T10:15:00+01:00\n", datetime(2024, 3, 5, 9, 15, tzinfo=UTC)),
    ("2024-03-05T24:00:00Z", datetime(2024, 3, 6, tzinfo=UTC)),
    ("2005-01-01Z", date(2005, 1, 1)),  # xsd:date allows a zone; the date is kept
    ("2005-01-01+05:00", date(2005, 1, 1)),
])
def test_w3c_datetimes_parse(text: str, expected: object) -> None:
    assert parse_lastmod(text) == expected


@pytest.mark.parametrize("text", [
    "2004", "2004-12",  # W3C-valid, but the sitemaps.org XSD accepts only date or dateTime
    "2004-12-23T18:00:15",  # a time without a timezone (sitemaps.org requires one)
    "Tue, 05 Mar 2024 10:15:00 GMT", "2004-13-01", "2004-02-30", "yesterday", "",
    "2004-12-23T25:00:00Z", "2004-12-23T18:00:15+15:00",
    "0001-01-01T00:00:00Z", "0103-12-13", "9999-12-31T23:00:00-05:00",  # outside 1000-9999 UTC
])
def test_invalid_lastmod_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_lastmod(text)


@given(st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32), st.integers(0, 25),
       st.integers(0, 60), st.integers(0, 60),
       st.sampled_from(["Z", "+00:00", "-05:30", "+14:00", "+14:01", "-15:00", "+01:60", ""]),
       st.booleans())
def test_fast_path_for_common_forms_agrees_with_the_general_parser(
        y: int, mo: int, d: int, h: int, mi: int, s: int, tz: str, with_time: bool) -> None:
    text = f"{y:04d}-{mo:02d}-{d:02d}" + (f"T{h:02d}:{mi:02d}:{s:02d}{tz}" if with_time else "")
    try:
        expected: object = check_year(parse_w3c(text))
    except ValueError:
        expected = ValueError
    try:
        got: object = parse_lastmod(text)
    except ValueError:
        got = ValueError
    assert got == expected
    if got is not ValueError:
        assert type(got) is type(expected)


def test_lastmod_is_written_in_utc_with_seconds_and_a_date_stays_a_date() -> None:
    cet = timezone(timedelta(hours=1))
    assert format_lastmod(datetime(2024, 3, 5, 10, 15, tzinfo=cet)) == "2024-03-05T09:15:00+00:00"
    assert format_lastmod(date(2004, 12, 23)) == "2004-12-23"
    assert format_lastmod(datetime(2024, 1, 1, 0, 0, 0, 250000, tzinfo=UTC)) == \
        "2024-01-01T00:00:00.25+00:00"


def test_format_then_parse_gives_the_same_instant() -> None:
    value = datetime(2024, 3, 5, 10, 15, 7, tzinfo=timezone(timedelta(hours=-7)))
    assert parse_lastmod(format_lastmod(value)) == value


def test_dates_and_datetimes_compare_through_lastmod_key() -> None:
    assert lastmod_key(date(2024, 3, 5)) < lastmod_key(datetime(2024, 3, 5, 0, 0, 1, tzinfo=UTC))


@pytest.mark.parametrize("value", ["always", "hourly", "daily", "weekly", "monthly", "yearly",
                                   "never"])
def test_changefreq_values(value: str) -> None:
    assert parse_changefreq(f" {value} ") == value


@pytest.mark.parametrize("value", ["Daily", "sometimes", "", "fortnightly"])
def test_changefreq_is_case_sensitive_and_closed(value: str) -> None:
    with pytest.raises(ValueError):
        parse_changefreq(value)


@pytest.mark.parametrize("text,expected", [("0.0", 0.0), ("1.0", 1.0), (".5", 0.5),
                                           ("1", 1.0), ("0.25", 0.25), ("-0.0", 0.0),
                                           ("+1", 1.0)])
def test_priority_values(text: str, expected: float) -> None:
    assert parse_priority(text) == expected


@pytest.mark.parametrize("text", ["1.1", "-0.1", "high", "1e-1", "", "nan", "-"])
def test_priority_out_of_range_or_not_decimal(text: str) -> None:
    with pytest.raises(ValueError):
        parse_priority(text)


def test_record_validates_its_fields() -> None:
    with pytest.raises(ValueError):
        Record("https://example.com/", changefreq="Daily")
    with pytest.raises(ValueError):
        Record("https://example.com/", priority=1.5)
    with pytest.raises(ValueError):
        Record("https://example.com/", lastmod=datetime(2024, 1, 1))  # naive


def test_record_is_frozen_and_origin_does_not_count_for_equality() -> None:
    a = Record("https://example.com/", source="a.txt", line=3)
    b = make_record("https://example.com/", source="b.txt", line=9)
    assert a == b and hash(a) == hash(b)
    assert b.source == "b.txt" and b.line == 9
    with pytest.raises(AttributeError):
        a.loc = "x"  # type: ignore[misc]
