"""model/rules.py: one copy of the value rules, and the converter and ``check`` held to agree on it.

The XSD's reading (what check calls an error) against xmlschema itself; the converter's reading
against the XSD's (what check accepts, the converter reads as the same value, or check warns);
what the converter writes, the XSD accepts.
"""

from __future__ import annotations

import io
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
import xmlschema
from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap.check import check
from feed2sitemap.errors import OptionError
from feed2sitemap.model.rules import (
    CHANGEFREQS,
    bad_bracket,
    bad_uri_char,
    format_lastmod,
    lastmod_key,
    parse_changefreq,
    parse_lastmod,
    parse_priority,
    xsd_lastmod,
    xsd_priority,
)
from feed2sitemap.model.urls import normalize_url

from .conftest import run

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)

# --- the XSD's reading against xmlschema itself -----------------------------------------------

VALUES = {
    "lastmod": ["2005-01-01", "2005-01-01Z", "2005-01-01+01:00", "2004-02-29", "2005-02-29",
                "1900-02-29", "2000-02-29", "0000-01-01", "-0001-01-01", "10000-01-01",
                "02005-01-01", "2005-1-01", " 2005-01-01 ", "2005-01-01T12:00:00Z",
                "2005-01-01T12:00:00.5+14:00", "2005-01-01T12:00:00+14:01",
                "2005-01-01T12:00:00-00:00", "2005-01-01T24:00:00Z", "2005-01-01T24:00:01Z",
                "2005-01-01T23:59:60Z", "2005-01-01T12:60:00Z", "2005-01-01T12:00:00.Z",
                "2005-01-01T12:00:00+0100", "2005-01-01t12:00:00Z", "2005-01-01 12:00:00Z",
                "2005-01-01T12:00Z", "2005-04-31", "2005-13-01", "2005", "2005-01", "",
                "2005-01-01T12:00:00"],
    "priority": ["0", "1", "1.", ".5", "+.5", "-0", "-0.0", "00.5", "1.0000", " 0.5 ",
                 "1.00001", "-0.1", "1e-1", "0.5.", "", "0,5", "1.00000000000000001", "٠.٥"],
    "changefreq": [*CHANGEFREQS, "Daily", " daily", "daily\n", ""],
}


@pytest.fixture(scope="module")
def sitemap_xsd() -> xmlschema.XMLSchema:
    path = CONFORMANCE / "schemas" / "sitemap.xsd"
    if not path.exists():
        pytest.skip(f"{path} is not there (shared/ is cloned beside the repository in CI)")
    return xmlschema.XMLSchema(str(path))


@pytest.mark.parametrize("field, value", [(k, v) for k, vs in VALUES.items() for v in vs])
def test_value_rules_agree_with_xmlschema(sitemap_xsd: xmlschema.XMLSchema, field: str,
                                          value: str) -> None:
    doc = (f'<urlset xmlns="{NS}"><url><loc>http://example.com/</loc>'
           f"<{field}>{value}</{field}></url></urlset>")
    if field == "lastmod":
        ours = xsd_lastmod(value)[0] is None
    elif field == "priority":
        ours = xsd_priority(value) is None
    else:
        ours = value in CHANGEFREQS
    assert ours == sitemap_xsd.is_valid(doc)


# --- the converter's reading against the XSD's ------------------------------------------------

_ZONES = st.sampled_from(["", "Z", "+00:00", "-00:00", "+14:00", "-14:00", "+05:30", "-09:45"])


@given(st.dates(date(1000, 1, 2), date(9999, 12, 30)), st.none() | st.times(), _ZONES)
def test_every_lastmod_the_xsd_accepts_the_converter_reads_as_the_same_instant(
        day: date, time: object, zone: str) -> None:
    text = day.isoformat() + (f"T{time.isoformat()}" if time is not None else "") + zone
    problem, naive, instant = xsd_lastmod(text)
    assert problem is None
    if naive:
        with pytest.raises(ValueError):  # a time without a zone: refused by both readings
            parse_lastmod(text)
        return
    value = parse_lastmod(text)
    if time is None:
        assert value == day  # a date stays a date (its zone, if any, is not kept)
    else:  # (the XSD's instant is for the "in the future" warning: to the second)
        assert isinstance(value, datetime) and value.replace(microsecond=0) == instant


@given(st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30),
                    timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=-7)),
                                               timezone(timedelta(hours=14))])) | st.dates())
def test_every_lastmod_the_converter_writes_the_xsd_accepts(value: object) -> None:
    assert isinstance(value, (date, datetime))
    if value.year < 1000:
        return
    text = format_lastmod(value)
    assert xsd_lastmod(text)[:2] == (None, False)
    assert lastmod_key(parse_lastmod(text)) == lastmod_key(value)


@given(st.from_regex(r"[+-]?(?:[0-9]{1,3}(?:\.[0-9]{0,20})?|\.[0-9]{1,20})", fullmatch=True))
def test_priority_the_xsd_accepts_is_what_the_converter_reads(text: str) -> None:
    try:
        number: float | None = parse_priority(text)
    except ValueError:
        number = None
    assert (xsd_priority(text) is None) == (number is not None)
    if number is not None:
        assert abs(Decimal(number) - Decimal(text)) < Decimal("1e-15")


def test_a_priority_a_hair_above_one_is_refused_by_both() -> None:
    # 1.0 as a float, above 1 as the XSD's decimal: the converter used to write it as 1.0
    assert xsd_priority("1.00000000000000001") is not None
    with pytest.raises(ValueError):
        parse_priority("1.00000000000000001")


@pytest.mark.parametrize("text", ["-0." + "0" * 400 + "1", "-0." + "0" * 330 + "5"])
def test_a_negative_that_underflows_to_zero_is_refused_by_both(text: str) -> None:
    # the float reads -0.0 (inside 0-1); the XSD's exact decimal is below zero
    assert float(text) == 0.0
    assert xsd_priority(text) is not None
    with pytest.raises(ValueError):
        parse_priority(text)
    assert xsd_priority("-0." + "0" * 400) is None  # a negative zero is still zero
    assert parse_priority("-0." + "0" * 400) == 0.0


@pytest.mark.parametrize("value", CHANGEFREQS)
def test_changefreq_values_are_one_list(value: str) -> None:
    assert parse_changefreq(value) == value


@pytest.mark.parametrize("code", [c for c in range(128) if chr(c) not in "%#"])
def test_check_calls_bad_exactly_the_characters_the_converter_percent_encodes(code: int) -> None:
    url = f"https://example.com/a{chr(code)}b"
    bad = bad_uri_char().search(url) is not None or bad_bracket(url) >= 0
    assert bad == (normalize_url(url) != url)


# --- check warns where the converter would drop what the XSD allows ---------------------------

def _urlset(*entries: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
            + "".join(e + "\n" for e in entries) + "</urlset>\n").encode()


@pytest.mark.parametrize("lastmod", ["0001-01-01T00:00:00Z", "0999-12-31",
                                     "9999-12-31T23:00:00-05:00"])
def test_a_lastmod_the_converter_reads_no_date_from_is_a_warning(lastmod: str,
                                                                 tmp_path: Path) -> None:
    data = _urlset(f"<url><loc>https://example.com/a</loc><lastmod>{lastmod}</lastmod></url>")
    diags = check(io.BytesIO(data), now=NOW)
    assert [(d.severity, d.rule, d.line) for d in diags] == [("warning", "lastmod-dropped", 3)]
    src = tmp_path / "in.xml"
    src.write_bytes(data)
    result = run(str(src), "-o", str(tmp_path / "out.xml"))
    assert result.returncode == 0
    assert b"<lastmod>" not in (tmp_path / "out.xml").read_bytes()
    assert b"lastmod" in result.stderr  # the converter says what it dropped


def test_a_listed_url_too_short_for_a_sitemap_is_a_warning(tmp_path: Path) -> None:
    data = b"http://a.b/\nhttp://a.b/long-enough\n"
    diags = check(io.BytesIO(data), now=NOW)
    assert [(d.severity, d.rule, d.line) for d in diags] == [("warning", "loc-too-short", 1)]
    src = tmp_path / "urls.txt"
    src.write_bytes(data)
    assert run(str(src), "-o", str(tmp_path / "out.xml")).returncode == 0
    assert b"http://a.b/<" not in (tmp_path / "out.xml").read_bytes()


# --- check's parameters -----------------------------------------------------------------------

@pytest.mark.parametrize("kw, parameter", [({"base_url": "not a url"}, "base_url"),
                                           ({"profile": "google"}, "profile")])
def test_check_names_a_bad_parameter_by_its_library_name(kw: dict[str, str],
                                                         parameter: str) -> None:
    with pytest.raises(OptionError) as exc:
        check(io.BytesIO(_urlset()), **kw)  # type: ignore[arg-type]
    assert exc.value.parameter == parameter
    assert f"`{parameter}`" in str(exc.value) and "--" not in str(exc.value)


def test_the_command_names_the_option(tmp_path: Path) -> None:
    src = tmp_path / "s.xml"
    src.write_bytes(_urlset("<url><loc>https://example.com/a</loc></url>"))
    result = run("check", "--base-url", "not a url", str(src))
    assert result.returncode == 2
    assert result.stderr.startswith(b"feed2sitemap: --base-url: ")
    robots = run("check", "--robots", str(tmp_path / "missing.txt"), str(src))
    assert robots.returncode == 1 and b"--robots: cannot read" in robots.stderr
    assert b"`" not in robots.stderr


