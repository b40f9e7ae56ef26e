"""A run's columns read in bulk (readers/feed/runs.py) give what the handler path's functions
give value by value, and the resolver's IRI shortcut what feedparser's urljoin gives."""

from __future__ import annotations

import pytest
from feedparser.urls import _urljoin
from hypothesis import example, given, settings
from hypothesis import strategies as st

from feed2sitemap.readers.feed.compat import entry_date, link_text, resolver
from feed2sitemap.readers.feed.runs import _value, atom_links, dates, rss_links

DAY = st.integers(0, 32).map(str)
RFC = st.builds(
    "{}{} {} {} {:02d}:{:02d}:{:02d} {}".format,
    st.sampled_from(["", "Mon, ", "Tue, ", "Sun, ", "Foo, "]), DAY | DAY.map(lambda d: d.zfill(2)),
    st.sampled_from(["Jan", "Feb", "Dec", "Mar", "jan"]),
    st.sampled_from(["0001", "1970", "2024", "9999", "1999"]), st.integers(0, 25),
    st.integers(0, 60), st.integers(0, 61),
    st.sampled_from(["+0000", "GMT", "UT", "-0530", "+2400", "+9999", "EST", "Z", "+01:00"]))
W3C = st.builds(
    "{}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}{}".format,
    st.sampled_from(["0001", "1970", "2024", "9999"]), st.integers(0, 13), st.integers(0, 32),
    st.integers(0, 24), st.integers(0, 60), st.integers(0, 60),
    st.sampled_from(["Z", "+00:00", "-05:30", "+24:00", "+99:99", "", "z"]))
DATE = RFC | W3C | st.sampled_from(["", " 2024-01-01T00:00:00Z", "1970-01-01T00:00:00Z",
                                    "Thu, 01 Jan 1970 00:00:00 GMT", "&amp;", "2024"])


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(DATE, min_size=1, max_size=30), st.booleans())
def test_dates_in_bulk_are_entry_dates(values: list[str], epoch_is_unknown: bool) -> None:
    column = [v + "</" for v in values]

    def one(raw: str) -> object:
        return entry_date(_value(raw), epoch_is_unknown=epoch_is_unknown)

    assert dates(column, epoch_is_unknown, one) == [one(raw) for raw in column]


URL = st.builds(
    "{}://{}{}{}".format, st.sampled_from(["https", "http", "HTTP", "ftp"]),
    st.sampled_from(["e.example", "e.example:8080", "E.example", ""]),
    st.text(alphabet="/ab-~%.é日;\xa0\x85Ã©\u3000\u2028\u1680𝔘", max_size=10),
    st.sampled_from(["", "?q=1&amp;r=2", "?", "#", "#f", "?a&amp;amp;b", "&lt;", "&b;"]))
RSS = URL | st.sampled_from(["", "rel/x", " https://e.example/ws ", "/abs"])


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(st.lists(RSS, min_size=1, max_size=20), st.sampled_from(["", "http://b.example/d/"]))
@example(["https://e.example/\u00e9\u3000", "https://e.example/\x85", "https://e.example/\u00c3\u00a9",
          "https://e.example/\u00e9\u65e5"], "")  # what only some non-ASCII characters change
def test_rss_links_in_bulk_are_link_text(values: list[str], base: str) -> None:
    resolve = resolver()

    def one(raw: str) -> str:
        return link_text(_value(raw), base, resolve)

    column = [v + "</" for v in values]
    assert rss_links(column, one) == [one(raw) for raw in column]


ATTRS = st.builds(
    ' {}{}href="{}"'.format,
    st.sampled_from(['rel="alternate" ', "", 'rel="self" ', 'rel="Alternate" ']),
    st.sampled_from(['type="text/html" ', "", 'type="application/pdf" ']), URL)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(ATTRS, min_size=1, max_size=20))
def test_atom_links_in_bulk_are_the_hrefs_the_handlers_take(values: list[str]) -> None:
    seen: list[str] = []

    def one(raw: str) -> str:
        seen.append(raw)
        return "odd"

    got = atom_links(values, one)
    assert len(got) == len(values)
    for value, link in zip(values, got, strict=True):
        plain = (' rel="alternate"' in value or "rel=" not in value) and (
            'type="text/html"' in value or "type=" not in value)
        if link != "odd":  # read in bulk: only a plain alternate HTML link, its href decoded
            assert plain and value.split('href="')[1][:-1].replace("&amp;", "&") == link
    assert len(seen) == got.count("odd")


IRI = st.builds("{}://e.example{}".format, st.sampled_from(["https", "http"]),
                st.text(alphabet="/aé日\u00a0\u3000\U0001f600?#;%[]|`^ \t\x85", max_size=12))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["", "http://b.example/d/", "https://other.example"]), IRI)
def test_the_iri_shortcut_is_feedparsers_urljoin(base: str, uri: str) -> None:
    assert resolver()(base, uri) == _urljoin(base, uri)
