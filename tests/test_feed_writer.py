"""RSS 2.0 and Atom 1.0 output, feed splitting, and write → read round trips for every format."""

from __future__ import annotations

import gzip
import io
import os
import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import feedparser
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from feed2sitemap import convert, read, write
from feed2sitemap.cli.main import convert_command
from feed2sitemap.errors import LimitError, OptionError
from feed2sitemap.model.limits import PROFILES
from feed2sitemap.model.options import Channel, Limits, WriteOptions
from feed2sitemap.model.record import CHANGEFREQS, Record, lastmod_key, make_record
from feed2sitemap.model.urls import normalize_url
from feed2sitemap.writers import ATOM, RSS, FeedFormat
from feed2sitemap.writers.feed import UNKNOWN_UPDATED, atom_time, rfc822_time, title_for

UTC = timezone.utc
ATOM_NS = "{http://www.w3.org/2005/Atom}"


def records(*specs: tuple[str, object]) -> list[Record]:
    return [make_record(loc, lm) for loc, lm in specs]  # type: ignore[arg-type]


def written(recs: list[Record], to: str | None = None, base_url: str | None = None,
            **channel: str | None) -> bytes:
    out = io.BytesIO()
    write(recs, out, base_url=base_url, writing=WriteOptions(to=to), channel=Channel(**channel))
    return out.getvalue()


def parsed(data: bytes) -> feedparser.FeedParserDict:
    result = feedparser.parse(data)
    assert not result.bozo, result.get("bozo_exception")
    return result


SAMPLE = records(("https://example.com/", None),
                 ("https://example.com/blog/first-post.html", datetime(2024, 2, 5, 12, tzinfo=UTC)),
                 ("https://example.com/about?a=1&b='2'", date(2024, 3, 1)))


def test_rss_channel_items_and_last_build_date() -> None:
    data = written(SAMPLE, to="rss")
    feed = parsed(data)
    assert feed.version == "rss20"
    assert (feed.feed.title, feed.feed.link, feed.feed.description) == (
        "example.com", "https://example.com/", "Pages of example.com")
    assert [e.link for e in feed.entries] == [r.loc for r in SAMPLE]
    assert [e.id for e in feed.entries] == [r.loc for r in SAMPLE]
    assert [e.title for e in feed.entries] == ["example.com", "first post", "about"]
    assert "published" not in feed.entries[0]
    assert feed.entries[1].published == "Mon, 05 Feb 2024 12:00:00 GMT"
    assert feed.entries[2].published == "Fri, 01 Mar 2024 00:00:00 GMT"
    # the newest lastmod of the file (the date counts as its midnight UTC)
    assert feed.feed.updated == "Fri, 01 Mar 2024 00:00:00 GMT"
    guid = ET.fromstring(data).find("channel/item/guid")
    assert guid is not None and guid.get("isPermaLink") == "true"


def test_atom_required_elements() -> None:
    data = written(SAMPLE, to="atom", title="My <site> & co", description="All pages")
    feed = parsed(data)
    assert feed.version == "atom10"
    assert (feed.feed.id, feed.feed.title, feed.feed.subtitle) == (
        "https://example.com/", "My <site> & co", "All pages")
    assert feed.feed.updated == "2024-03-01T00:00:00Z"
    assert feed.feed.author == "My <site> & co"
    root = ET.fromstring(data)
    for entry, rec in zip(root.iter(ATOM_NS + "entry"), SAMPLE, strict=True):
        assert entry.findtext(ATOM_NS + "id") == rec.loc
        assert entry.findtext(ATOM_NS + "title")
        link = entry.find(ATOM_NS + "link")
        assert link is not None and (link.get("rel"), link.get("href")) == ("alternate", rec.loc)
        assert entry.findtext(ATOM_NS + "updated")


def test_atom_entry_without_lastmod_gets_the_epoch_and_reads_back_without_one() -> None:
    data = written(SAMPLE[:1], to="atom")
    assert b"<updated>1970-01-01T00:00:00Z</updated></entry>" in data
    assert b"<updated>1970-01-01T00:00:00Z</updated>\n" in data  # the feed's: nothing known
    assert [r.lastmod for r in read(io.BytesIO(data))] == [None]


def test_feed_reader_takes_published_when_updated_is_the_epoch() -> None:
    data = (b'<feed xmlns="http://www.w3.org/2005/Atom"><id>x</id><title>t</title>'
            b"<updated>2024-01-01T00:00:00Z</updated><entry><id>https://example.com/a</id>"
            b'<title>a</title><link href="https://example.com/a"/>'
            b"<updated>1970-01-01T00:00:00Z</updated>"
            b"<published>2023-06-01T10:00:00Z</published></entry></feed>")
    assert [r.lastmod for r in read(io.BytesIO(data))] == [datetime(2023, 6, 1, 10, tzinfo=UTC)]


def test_rss_without_any_lastmod_leaves_out_last_build_date_at_the_same_size() -> None:
    data = written(SAMPLE[:1], to="rss")
    assert b"<lastBuildDate" not in data and b"pubDate" not in data
    assert "updated" not in parsed(data).feed
    assert len(RSS.header()) == len(RSS.file_header(datetime(2024, 1, 1, tzinfo=UTC)))


@pytest.mark.parametrize("fmt", [RSS, ATOM], ids=["rss", "atom"])
@pytest.mark.parametrize("newest", [None, date(1, 1, 1), date(9999, 12, 31), UNKNOWN_UPDATED,
                                    datetime(2024, 5, 6, 7, 8, 9, 123, tzinfo=UTC),
                                    datetime(2024, 5, 6, 23, 30, tzinfo=timezone(
                                        timedelta(hours=-5)))])
def test_stamped_header_has_a_fixed_size(fmt: FeedFormat, newest: object) -> None:
    site = fmt.for_site("https://example.com/", "Ünïcode title", "d")
    assert len(site.file_header(newest).encode()) == len(site.header().encode())  # type: ignore[arg-type]


def test_dates_are_utc_whole_seconds() -> None:
    value = datetime(2024, 5, 6, 23, 30, 15, 999999, tzinfo=timezone(timedelta(hours=-5)))
    assert rfc822_time(value) == "Tue, 07 May 2024 04:30:15 GMT"
    assert atom_time(value) == "2024-05-07T04:30:15Z"
    assert rfc822_time(date(2024, 5, 1)) == "Wed, 01 May 2024 00:00:00 GMT"


@pytest.mark.parametrize("loc, title", [
    ("https://example.com/", "example.com"),
    ("https://example.com/blog/my-first_post.html", "my first post"),
    ("https://example.com/blog/", "blog"),
    ("https://example.com/caf%C3%A9-cr%C3%A8me?x=1", "café crème"),
    ("https://example.com/archive.tar.gz", "archive.tar.gz"),
    ("https://example.com/---.html", "---"),
    ("https://example.com/v1.2", "v1.2"),
])
def test_title_for(loc: str, title: str) -> None:
    assert title_for(loc) == title


def test_feed_values_are_escaped() -> None:
    recs = records(("https://example.com/a%3Cb%3E&c='d'\"", None))
    data = written(recs, to="rss", title="<b>&amp;</b>", description="x\x00y",
                   site_url="https://example.com/?a=1&b=2")
    feed = parsed(data)
    assert feed.feed.title == "<b>&amp;</b>"
    assert feed.feed.description == "x\ufffdy"
    assert feed.feed.link == "https://example.com/?a=1&b=2"
    assert feed.entries[0].title == "a<b>&c='d'\""
    # the quote a URI may not hold is percent-encoded on the way (write() normalises)
    assert [r.loc for r in read(io.BytesIO(data))] == [normalize_url(recs[0].loc)]


def test_channel_link_from_site_url_or_base_url() -> None:
    recs = records(("https://example.com/blog/a", None))
    assert parsed(written(recs, to="rss", base_url="https://example.com/blog/")).feed.link == \
        "https://example.com/blog/"
    assert parsed(written(recs, to="atom", site_url="HTTPS://Example.COM")).feed.id == \
        "https://example.com/"
    with pytest.raises(OptionError, match="`site_url`") as caught:
        written(recs, to="rss", site_url="ftp://example.com/")
    assert caught.value.parameter == "site_url"


@pytest.mark.parametrize("name, kind", [("feed.rss", "rss20"), ("feed.atom", "atom10"),
                                        ("feed.rss.gz", "rss20"), ("feed.atom.gz", "atom10")])
def test_output_name_selects_the_feed_format(tmp_path: Path, name: str, kind: str) -> None:
    src = tmp_path / "in.txt"
    src.write_text("https://example.com/a\n")
    convert([str(src)], str(tmp_path / name))
    data = (tmp_path / name).read_bytes()
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    assert parsed(data).version == kind


@pytest.mark.slow
@pytest.mark.parametrize("to, ext", [("rss", ".rss"), ("atom", ".atom")])
@pytest.mark.parametrize("gz", [False, True])
def test_feeds_are_written_whole_and_refused_rather_than_split(tmp_path: Path, to: str,
                                                                ext: str, gz: bool) -> None:
    # A feed is one file a reader subscribes to: past 50,000 entries it is still one file (no
    # index of feeds, which no feed reader follows); past the byte limit it is refused whole.
    start = datetime(2024, 1, 1, tzinfo=UTC)
    recs = [make_record(f"https://example.com/p{i}", start + timedelta(minutes=i))
            for i in range(50_001)]
    out = tmp_path / ("feed" + ext + (".gz" if gz else ""))
    summary = write(recs, str(out), base_url="https://example.com/", writing=WriteOptions(to=to))
    assert (len(summary.parts), summary.indexes, summary.urls) == (1, [], 50_001)
    data = out.read_bytes()
    assert list(read(io.BytesIO(gzip.decompress(data) if gz else data))) == recs
    assert sorted(os.listdir(tmp_path)) == [out.name]
    prof = PROFILES["sitemaps"].lowered(max_bytes=1400)
    with pytest.raises(LimitError, match="written whole; a feed reader follows no index"):
        write(recs[:7], str(out), base_url="https://example.com/", writing=WriteOptions(to=to),
              limits=Limits(profile=prof))
    assert out.read_bytes() == data  # the earlier feed is untouched
    assert sorted(os.listdir(tmp_path)) == [out.name]


def test_max_urls_bounds_a_feed_only_when_asked(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("".join(f"https://example.com/p{i}\n" for i in range(5)))
    convert([str(src)], str(tmp_path / "all.rss"))
    with pytest.raises(LimitError, match="at most 3 entries"):
        convert([str(src)], str(tmp_path / "three.rss"), limits=Limits(max_urls=3))
    assert sorted(os.listdir(tmp_path)) == ["all.rss", "in.txt"]


def test_cli_feed_options() -> None:
    runner = CliRunner()
    result = runner.invoke(convert_command, ["-t", "atom", "--title", "T", "--description",
                                             "D", "--site-url", "https://example.com/x/"],
                           input="https://example.com/x/a\n")
    assert result.exit_code == 0, result.output
    feed = parsed(result.stdout_bytes)
    assert (feed.feed.title, feed.feed.subtitle, feed.feed.id) == (
        "T", "D", "https://example.com/x/")


# ---- round trips ------------------------------------------------------------------------------

_SEGMENT = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-._~!$&'()*+,;=:@",
                   min_size=1, max_size=12).filter(lambda s: s not in (".", ".."))
_URL = st.builds(
    lambda segs, q: "https://example.com/" + "/".join(segs) + (f"?q={q}&r=1" if q else ""),
    st.lists(_SEGMENT, max_size=4), st.one_of(st.none(), st.from_regex(r"[a-z0-9]{1,6}",
                                                                          fullmatch=True)))
_DAY = st.dates(min_value=date(1971, 1, 1), max_value=date(2100, 12, 31))
_INSTANT = st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2100, 12, 31)).map(
    lambda d: d.replace(microsecond=0, tzinfo=UTC))
_RECORD = st.builds(
    make_record, _URL, st.one_of(st.none(), _DAY, _INSTANT),
    st.one_of(st.none(), st.sampled_from(CHANGEFREQS)),
    st.one_of(st.none(), st.integers(0, 10000).map(lambda i: i / 10000)))


def kept_by(to: str, r: Record) -> Record:
    """What a format keeps of a record: text the URL, feeds the URL and the instant."""
    if to == "xml":
        return r
    if to == "text":
        return make_record(r.loc)
    return make_record(r.loc, None if r.lastmod is None else lastmod_key(r.lastmod))


@pytest.mark.slow
@pytest.mark.parametrize("to", ["xml", "text", "rss", "atom"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recs=st.lists(_RECORD, min_size=1, max_size=8))
def test_every_format_reads_back_as_written(to: str, recs: list[Record]) -> None:
    if to == "rss":
        # Known limit: feedparser unescapes HTML entities in RSS <link> text after the XML
        # parser has, so a URL containing "&name;" (rare: "?a&b;") reads back altered.
        assume(not any(re.search(r"&[A-Za-z0-9#_]*;", r.loc) for r in recs))
    data = written(recs, to=to)
    if to in ("rss", "atom"):
        assert len(parsed(data).entries) == len(recs)
    assert list(read(io.BytesIO(data))) == [kept_by(to, r) for r in recs]


def test_rss_link_with_entity_like_text_is_a_known_feedparser_limit() -> None:
    recs = records(("https://example.com/?a&b;", None))
    data = written(recs, to="rss")
    assert b"<link>https://example.com/?a&amp;b;</link>" in data  # escaped once, as XML wants
    assert parsed(data).entries[0].id == recs[0].loc  # the guid survives; the link text not


def test_environment_has_no_stray_temporaries(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("https://example.com/a\n")
    convert([str(src)], str(tmp_path / "f.atom"))
    assert sorted(os.listdir(tmp_path)) == ["f.atom", "in.txt"]
