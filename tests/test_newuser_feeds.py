"""Feeds as publishers write them, found by a new user's first day (session 17): each run
through the installed command, in both reading modes (the fast pass and
FEED2SITEMAP_REFERENCE=1), and the written sitemap through our own `check`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import run


@pytest.fixture(params=["fast", "reference"])
def env(request: pytest.FixtureRequest) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("FEED2SITEMAP_REFERENCE", None)
    if request.param == "reference":
        env["FEED2SITEMAP_REFERENCE"] = "1"
    return env


# An emoji written as references to its two UTF-16 surrogates, as some CMSes do: XML has no
# such characters, and feedparser raised on them, so the whole feed was refused.
EMOJI_FEED = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Blog</title><link>https://em.example.com/</link>
<item><title>Party &#55357;&#56832; time</title><link>https://em.example.com/a</link>
<pubDate>Tue, 05 Nov 2024 06:00:00 +0000</pubDate></item>
<item><title>Lone &#xDE00;</title><link>https://em.example.com/%F0%9F%98%80&#xD83D;&#xDE00;</link>
</item>
</channel></rss>
"""


def test_an_emoji_written_as_surrogate_references_is_read_with_a_warning(
        tmp_path: Path, env: dict[str, str]) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(EMOJI_FEED)
    out = tmp_path / "sitemap.xml"
    r = run(str(feed), "-o", str(out), env=env)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    assert f"{feed}:3: warning: malformed feed" in err
    assert "1 malformed feed" in err
    text = out.read_text()
    assert "<loc>https://em.example.com/a</loc>" in text
    assert "<lastmod>2024-11-05T06:00:00+00:00</lastmod>" in text
    # the pair in a link is the character it encodes (the same URL as its UTF-8 escapes)
    assert "<loc>https://em.example.com/%F0%9F%98%80%F0%9F%98%80</loc>" in text
    assert run("check", str(out)).returncode == 0


def test_a_json_feed_field_that_is_an_object_is_named_so(tmp_path: Path) -> None:
    feed = tmp_path / "feed.json"
    feed.write_text(json.dumps({
        "version": "https://jsonfeed.org/version/1.1",
        "items": [{"id": "1", "url": "https://jf.example.com/a", "date_modified": {"x": 1}},
                  {"id": "2", "url": {"href": "https://jf.example.com/b"}}]}))
    r = run(str(feed), "-t", "text")
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert "item 1: date_modified dropped: an object, not a string" in err
    assert "item 2: url is an object, not a string" in err
    assert "a number" not in err


# Dates as real feeds write them that feedparser reads as no date: the entry is kept without a
# lastmod, and the user is told (the JSON Feed reader already said so; RSS and Atom were silent).
UNDATED_RSS = b"""<rss version="2.0"><channel><link>https://d.example.com/</link>
<item><link>https://d.example.com/a</link><pubDate>Tue, 05 Nov 2024 06:00:00</pubDate></item>
<item><link>https://d.example.com/b</link><pubDate>garbage</pubDate></item>
<item><link>https://d.example.com/c</link><pubDate>Tue, 05 Nov 2024 06:00:00 GMT</pubDate></item>
<item><link>https://d.example.com/d</link><pubDate> </pubDate></item>
</channel></rss>
"""
UNDATED_ATOM = b"""<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://d.example.com/"/>
<entry><link href="https://d.example.com/a"/><updated>yesterday</updated></entry>
<entry><link href="https://d.example.com/b"/><updated>soon</updated>
<published>2024-11-05T06:00:00Z</published></entry>
<entry><link href="https://d.example.com/c"/><updated>1970-01-01T00:00:00Z</updated></entry>
<entry><link href="https://d.example.com/d"/><updated>0000-01-01T00:00:00Z</updated>
<published>2020-01-01T00:00:00Z</published></entry>
</feed>
"""


def test_a_date_feedparser_cannot_read_is_reported_not_dropped_silently(
        tmp_path: Path, env: dict[str, str]) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(UNDATED_RSS)
    r = run(str(feed), "-t", "jsonl", env=env)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    rows = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert [row.get("lastmod") for row in rows] == [None, None, "2024-11-05T06:00:00+00:00", None]
    assert ("warning: feed entry 1: 'Tue, 05 Nov 2024 06:00:00' is not a date feedparser "
            "reads; no lastmod") in err
    assert "warning: feed entry 2: 'garbage' is not a date feedparser reads" in err
    assert "feed entry 4" not in err  # (a blank date is no date given)
    assert "warnings: 2 bad lastmod" in err


def test_atom_dates_that_are_no_dates_agree_in_both_modes(
        tmp_path: Path, env: dict[str, str]) -> None:
    """An <updated> that is no date gives way to <published> (or is reported when there is
    none); the epoch means "unknown", not a bad date; an updated of year 0 counts as none in
    both modes (the reference mode gave no lastmod where the fast pass took published)."""
    feed = tmp_path / "feed.atom"
    feed.write_bytes(UNDATED_ATOM)
    r = run(str(feed), "-t", "jsonl", env=env)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    rows = [json.loads(line) for line in r.stdout.decode().splitlines()]
    assert [row.get("lastmod") for row in rows] == [
        None, "2024-11-05T06:00:00+00:00", None, "2020-01-01T00:00:00+00:00"]
    assert "feed entry 1: 'yesterday' is not a date feedparser reads" in err
    assert "warnings: 1 bad lastmod" in err


@pytest.mark.parametrize("head", [b"", b"\n\n  ", b"\xef\xbb\xbf\n"], ids=["none", "blank", "bom"])
def test_a_malformed_feed_without_a_declaration_at_its_start_names_its_own_line(
        tmp_path: Path, env: dict[str, str], head: bytes) -> None:
    """feedparser prepends an XML declaration and a newline to a document that does not start
    with one (none at all, or one after blank lines, as PHP sites send it): its line numbers
    were one too many."""
    body = (b'<?xml version="1.0"?>\n' if head else b"") + (
        b'<rss version="2.0">\n<channel>\n<item>\n<link>https://x.example.com/a</link>\n'
        b"<title>a &nbsp; b</title>\n</item>\n</channel>\n</rss>\n")
    feed = tmp_path / "feed.xml"
    feed.write_bytes(head + body)
    lines = (head + body).split(b"\n")
    # the first fault: a declaration not at the start, else the undefined entity
    want = next(n for n, text in enumerate(lines, 1)
                if (b"<?xml" in text if head else b"&nbsp;" in text))
    r = run(str(feed), "-t", "text", env=env)
    err = r.stderr.decode()
    assert r.returncode == 0, err
    assert f"{feed}:{want}: warning: malformed feed" in err, err
    assert f"<unknown>:{want}:" in err


def test_a_json_feed_whose_home_page_is_on_another_host_form_is_still_read(
        tmp_path: Path) -> None:
    """home_page_url says example.com while every item is on www.example.com: every item was
    skipped as off scope and the run wrote nothing (exit 1); an RSS feed in the same case
    guesses its scope from the first URL, and so does a JSON Feed now, with a note."""
    feed = tmp_path / "feed.json"
    feed.write_text(json.dumps({
        "version": "https://jsonfeed.org/version/1.1", "title": "t",
        "home_page_url": "https://example.com/",
        "items": [{"id": "1", "url": "https://www.example.com/a"},
                  {"id": "2", "url": "https://www.example.com/b"}]}))
    done = run(str(feed), "-o", str(tmp_path / "sitemap.xml"))
    assert done.returncode == 0, done.stderr
    err = done.stderr.decode()
    assert "home_page_url 'https://example.com/' is not the site of any item" in err
    assert "scope: https://www.example.com/ (guessed from the first URL)" in err
    assert (tmp_path / "sitemap.xml").read_text().count("<loc>https://www.example.com/") == 2
    # an item under it keeps home_page_url the scope: the others are skipped, as before
    feed.write_text(json.dumps({
        "version": "https://jsonfeed.org/version/1.1", "title": "t",
        "home_page_url": "https://example.com/",
        "items": [{"id": "1", "url": "https://example.com/a"},
                  {"id": "2", "url": "https://www.example.com/b"}]}))
    done = run(str(feed), "-t", "text")
    assert done.stdout == b"https://example.com/a\n"
    assert b"https://www.example.com/b is outside https://example.com/" in done.stderr


def test_a_json_feed_url_with_a_lone_surrogate_is_skipped_and_counted(tmp_path: Path) -> None:
    """It was written as %ED%A0%80, bytes that are no UTF-8; a JSON Lines row with the same
    escape is refused, and so is this item now (a pair is one character, read as such)."""
    feed = tmp_path / "feed.json"
    feed.write_text('{"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": ['
                    '{"id": "1", "url": "https://e.example/a\\ud800"}, '
                    '{"id": "2", "url": "https://e.example/b\\ud83d\\ude00"}]}')
    done = run(str(feed), "-t", "text")
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"https://e.example/b%F0%9F%98%80\n"
    assert b"item 1: url has a \\uD800-\\uDFFF escape that is not half of a pair" in done.stderr
    assert b"skipped 1: 1 no link" in done.stderr
