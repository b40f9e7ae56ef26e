"""feed2sitemap check on RSS/Atom feeds: entries at their lines, by the converter's own policy
(the streaming fast path, else feedparser: check/lists.py's check_feed)."""

from __future__ import annotations

import os
from pathlib import Path

from feed2sitemap.readers.feed.compat import FastPathUnsupported
from feed2sitemap.readers.feed.fastpass import parse_feed_entries

from .conftest import run as run_command
from .test_check import found, run

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>t</title><link>http://example.com/</link>
<item><title>a</title><link>http://example.com/a</link></item>
<item><title>b</title><link>/relative</link></item>
<item><title>c</title></item>
<item><title>d</title><link>http://example.com/a</link>
<pubDate>Fri, 01 Jan 2100 00:00:00 GMT</pubDate></item>
</channel></rss>
"""
ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:x</id>
<updated>2005-01-01T00:00:00Z</updated>
<entry><title>a</title><id>urn:a</id><updated>2005-01-01T00:00:00Z</updated>
<link href="http://example.com/a"/></entry>
</feed>
"""


def test_feed_entries_are_checked_at_their_lines() -> None:
    assert found(run(RSS.encode())) == [("loc-not-http", 4), ("missing-loc", 5),
                                        ("duplicate-loc", 6), ("lastmod-future", 6)]


def test_feed_links_resolve_against_base_url() -> None:
    rules = found(run(RSS.encode(), base_url="http://example.com/"))
    assert ("loc-not-http", 4) not in rules


def test_valid_atom_feed() -> None:
    assert run(ATOM.encode()) == []


def test_malformed_feed() -> None:
    assert found(run(RSS.replace("<title>b</title>", "<title>b & c</title>").encode())) == [
        ("not-well-formed", 4)]


# An item with a CDF attribute: the fast path leaves the feed to feedparser, which gives no
# lines; the expat pass's positions of <item> stand in.
FEEDPARSER_RSS = RSS.replace("<item><title>c</title></item>", "").replace(
    "<item><title>d</title>", '<item href="x"><title>d</title>')


def test_a_feed_the_fast_path_leaves_to_feedparser_is_checked_entry_by_entry() -> None:
    try:
        parse_feed_entries(FEEDPARSER_RSS.encode())
        raise AssertionError("the fast path read it: the case no longer tests feedparser's")
    except FastPathUnsupported:
        pass
    assert found(run(FEEDPARSER_RSS.encode())) == [
        ("loc-not-http", 4), ("loc-not-http", 6), ("lastmod-future", 6)]
    # base_url resolves relative links on that path too, as the converter's reader does
    assert found(run(FEEDPARSER_RSS.encode(), base_url="http://example.com/")) == [
        ("lastmod-future", 6)]


def test_check_reads_a_feed_as_the_converter_does(tmp_path: Path) -> None:
    src = tmp_path / "feed.xml"
    src.write_bytes(FEEDPARSER_RSS.encode())
    out = tmp_path / "urls.txt"
    result = run_command(str(src), "-t", "text", "-o", str(out), "--base-url",
                         "http://example.com/")
    assert result.returncode == 0, result.stderr
    assert out.read_text().split() == ["http://example.com/a", "http://example.com/relative",
                                       "http://example.com/x"]


def test_an_entry_is_placed_at_its_line_and_column_in_both_modes(tmp_path: Path) -> None:
    # the fast path gave the entry's line with column 1, the reference (feedparser) the expat
    # pass's line and column: the same file gave two answers
    (tmp_path / "feed.xml").write_text(
        '<rss version="2.0"><channel><link>https://example.com/</link>\n'
        "  <item><link>https://example.com/a#frag</link></item>\n</channel></rss>\n")
    said = {mode: run_command("check", "feed.xml", cwd=tmp_path,
                              env={**os.environ, "FEED2SITEMAP_REFERENCE": mode}).stdout
            for mode in ("", "1")}
    assert said[""] == said["1"]
    assert said[""].startswith(b"feed.xml:2:3: warning: loc-fragment:")
