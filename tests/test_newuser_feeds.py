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
