"""Feeds are read in bounded memory (issue 18): the fast pass streams, every chunk is kept (in
memory, then in a temporary file) and a feed the pass gives up on is read again for feedparser."""

from __future__ import annotations

import gc
import io
import tracemalloc
from pathlib import Path

import pytest

from feed2sitemap import InputError, ReadOptions, Record, Report, read
from feed2sitemap import backends as mode
from feed2sitemap.model.limits import DEFAULT_MAX_FEED_BYTES
from feed2sitemap.readers.feed import policy as feedpolicy
from feed2sitemap.readers.feed.policy import FeedInput, feedparser_entries

from .conftest import run


class OneWay(io.RawIOBase):
    """A stream that cannot be rewound (stdin, a download)."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray) -> int:  # type: ignore[override]
        n = min(len(b), len(self.data) - self.pos)
        b[:n] = self.data[self.pos: self.pos + n]
        self.pos += n
        return n


def feed(n: int, content: int = 0, tail: str = "</channel></rss>") -> bytes:
    body = "x" * content
    items = "".join(f"<item><link>https://e.example/p/{i}</link><description>{body}"
                    f"</description><pubDate>Tue, 05 Mar 2024 10:15:00 +0100</pubDate></item>\n"
                    for i in range(n))
    return (f'<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>t'
            f"</title><link>https://e.example/</link>\n{items}{tail}").encode()


def records(data: bytes) -> tuple[list[Record], Report]:
    report = Report()
    return list(read(io.BufferedReader(OneWay(data)), ReadOptions(from_format="feed"),
                     report=report)), report


@pytest.fixture
def small_spool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feedpolicy, "READ_CHUNK", 4096)
    monkeypatch.setattr(feedpolicy, "SPOOL_MEMORY", 10_000)


def test_every_chunk_is_given_again_from_memory_and_from_the_spool_file(
        small_spool: None) -> None:
    data = bytes(range(256)) * 200  # 51,200 bytes: past the memory part of the spool
    f = FeedInput(io.BufferedReader(OneWay(data)), "x", len(data))
    first = b"".join(c for c, _ in zip(f.chunks(), range(3), strict=False))
    assert first == data[:3 * 4096]
    assert b"".join(f.chunks()) == data
    assert f.file._rolled  # spilled to a temporary file
    assert f.whole() == data


def test_a_feed_over_the_cap_is_refused_while_it_streams() -> None:
    f = FeedInput(io.BufferedReader(OneWay(b"x" * 5000)), "x", 1000)
    with pytest.raises(InputError, match="larger than 1,000 bytes"):
        f.whole()
    f.close()


def test_the_default_cap_takes_a_large_feed() -> None:
    # (issue 35, item 23: lowered from 256 MiB so that a feed's memory stays bounded; still
    # above a 50,000-entry Atom feed with summaries and content, 49 MB)
    assert DEFAULT_MAX_FEED_BYTES >= 64 * 1024 * 1024


def test_a_streamed_feed_reads_as_feedparser_reads_it(small_spool: None) -> None:
    data = feed(300, content=100)
    got, _ = records(data)
    expected, _ = feedparser_entries(data)
    assert [(r.loc, r.lastmod) for r in got] == [(e.link, e.lastmod) for e in expected]


def test_a_feed_the_pass_gives_up_on_late_is_read_again_for_feedparser(small_spool: None) -> None:
    # Well-formed for 60 KB, then an element the pass does not replay (GeoRSS): by then the
    # first chunks are gone from the stream, and feedparser still gets all of it.
    data = feed(300, content=100, tail='<item xmlns:georss="http://www.georss.org/georss">'
                "<link>https://e.example/last</link><georss:point>1 2</georss:point></item>"
                "</channel></rss>")
    got, report = records(data)
    assert len(got) == 301 and got[-1].loc == "https://e.example/last"
    assert not report.warnings


def test_a_malformed_end_is_read_by_feedparser_with_a_warning(small_spool: None) -> None:
    data = feed(300, content=100, tail="<item><link>https://e.example/last</link></item>")
    got, report = records(data)
    assert len(got) == 301
    assert report.warnings["malformed feed"] == 1


def assert_streamed(data: bytes, entries: int) -> None:
    """The feed's ``entries`` are read with a peak (tracemalloc) under a third of its size."""
    gc.collect()
    tracemalloc.start()
    try:
        got, _ = records(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(got) == entries
    assert peak < len(data) / 3, f"peak {peak:,} bytes for a {len(data):,}-byte feed"


@pytest.mark.slow
@pytest.mark.skipif(mode.reference(), reason="the reference mode reads every feed whole")
def test_the_fast_pass_never_holds_the_feed_whole(small_spool: None) -> None:
    data = feed(3000, content=2000)  # 6.5 MB
    assert_streamed(data, 3000)


def test_a_large_feed_on_standard_input_converts(tmp_path: Path) -> None:
    data = feed(20_000, content=1500)  # 33 MB: over the old 32 MiB cap and the memory spool
    res = run("-", "-f", "feed", "-t", "text", "-o", str(tmp_path / "urls.txt"), input=data)
    assert res.returncode == 0, res.stderr
    lines = (tmp_path / "urls.txt").read_text().splitlines()
    assert len(lines) == 20_000 and lines[-1].startswith("https://e.example/p/19999")


def test_a_feed_in_an_encoding_expat_lacks_is_read_whole_once_for_both_readers(
        small_spool: None) -> None:
    # windows-1252: feedparser's converter needs the whole document; the pass then gives up
    # on it (GeoRSS) and feedparser reads the same bytes again.
    data = feed(300, content=100, tail='<item xmlns:georss="http://www.georss.org/georss">'
                "<link>https://e.example/caf\xe9</link><georss:point>1 2</georss:point></item>"
                "</channel></rss>").replace(b'encoding="utf-8"', b'encoding="windows-1252"')
    data = data.decode("utf-8").encode("cp1252")
    got, _ = records(data)
    assert len(got) == 301 and got[-1].loc == "https://e.example/caf\xe9"
    f = FeedInput(io.BufferedReader(OneWay(data)), "x", len(data))
    assert f.whole() == data and f.whole() == data and b"".join(f.chunks()) == data


def _one_line(data: bytes) -> bytes:
    return data.replace(b"\n", b"")


@pytest.mark.slow
@pytest.mark.skipif(mode.reference(), reason="the reference mode reads every feed whole")
def test_a_minified_feed_streams_too(small_spool: None) -> None:
    # one line: feedparser's declaration regex would read the whole line, so the pass reads
    # the declaration alone and checks that the line holds no second "encoding="
    data = _one_line(feed(3000, content=2000))
    assert b"\n" not in data
    assert_streamed(data, 3000)


@pytest.mark.parametrize("where", [10, 250, 299])
def test_a_minified_feed_with_encoding_in_its_text_reads_as_feedparser_reads_it(
        small_spool: None, where: int) -> None:
    # "encoding=" in an item's text, on the document's only line: feedparser's regex takes the
    # last one it finds there, so this feed is feedparser's to read (and reads the same)
    # (and a link that reads differently in the encoding it names)
    items = feed(300, content=100).split(b"\n")
    items[2 + where] = items[2 + where].replace(b"xxxx", b'encoding="iso-8859-1" ?>', 1)
    data = _one_line(b"\n".join(items)).replace(b"/p/1<", "/p/é1<".encode(), 1)
    got, _ = records(data)
    expected, _ = feedparser_entries(data)
    assert [(r.loc, r.lastmod) for r in got] == [(e.link, e.lastmod) for e in expected]
    assert len(got) == 300


def test_a_minified_feed_without_a_declaration_reads_as_feedparser_reads_it(
        small_spool: None) -> None:
    data = _one_line(feed(300, content=100)).split(b"?>", 1)[1]
    got, _ = records(data)
    expected, _ = feedparser_entries(data)
    assert [(r.loc, r.lastmod) for r in got] == [(e.link, e.lastmod) for e in expected]
