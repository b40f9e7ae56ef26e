"""Runs of plain entries through the installed command: the same output, the same messages
with the same lines (but that feedparser gives none), as feedparser (FEED2SITEMAP_REFERENCE=1).
(The handler path, their twin, is held to them in tests/test_feedruns.py.)"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .conftest import run

MODES = {"runs": {}, "reference": {"FEED2SITEMAP_REFERENCE": "1"}}


def feed(n: int, odd: dict[int, str] | None = None) -> str:
    """An RSS feed of n items under an xml:base, with relative, empty and placeholder-dated
    items among plain ones (every message carries a line), ``odd`` items replaced."""
    items = []
    for i in range(n):
        link = {0: "posts/{i}/", 2: "https://e.example/caf\u00e9/{i}"}.get(i % 7, "/p/{i}")
        link = "" if i % 997 == 996 else link
        date = "Wed, 10 Oct 2018 20:19:13 +0200"
        date = "Mon, 01 Jan 0001 00:00:00 GMT" if i % 1499 == 1498 else date
        items.append((odd or {}).get(i) or (
            f"<item>\n<title>T {i} &amp; co</title>\n<link>{link.format(i=i)}</link>\n"
            f"<pubDate>{date}</pubDate>\n<description><![CDATA[<p>{i}</p>]]></description>\n"
            "</item>\n"))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n'
            '<channel xml:base="https://e.example/blog/">\n<link>https://e.example/</link>\n'
            + "".join(items) + "</channel>\n</rss>\n")


def in_every_mode(path: Path, *args: str) -> dict[str, tuple[int, bytes, bytes]]:
    out = {}
    for name, extra in MODES.items():
        env = {k: v for k, v in os.environ.items()
               if k != "FEED2SITEMAP_REFERENCE"}
        done = run(str(path), "-t", "jsonl", *args, env={**env, **extra})
        out[name] = (done.returncode, done.stdout, done.stderr)
    return out


@pytest.mark.slow
def test_a_large_feed_converts_the_same_in_every_mode(tmp_path: Path) -> None:
    path = tmp_path / "feed.xml"
    path.write_text(feed(3000), encoding="utf-8")
    got = in_every_mode(path, "--input-url", "https://e.example/blog/feed.xml")
    code, out, err = got["runs"]
    # feedparser gives no lines: the same messages without them (so not in input order: the
    # messages of a batch are given sorted by line, and without lines by step)
    ref_code, ref_out, ref_err = got["reference"]
    assert (ref_code, ref_out) == (code, out)
    assert sorted(ref_err.splitlines()) == \
        sorted(re.sub(rb"(feed\.xml):\d+:", rb"\1:", err).splitlines())
    assert code == 0 and out.count(b"\n") == 3000 - 3
    assert b'"loc":"https://e.example/blog/posts/2002/"' in out  # (xml:base, in a run)
    # each message names its entry's line, as the run counted it (item i starts at 5 + 6i)
    assert f"feed.xml:{5 + 6 * 2990}: skipped: feed entry 2991 has no link".encode() in err
    assert f"feed.xml:{5 + 6 * 2997}: warning: date".encode() in err  # (a placeholder date)


@pytest.mark.slow
@pytest.mark.parametrize("defect", ["<title>T & 2500</title>", "<title>T \x02</title>",
                                    "<title>x ]]> y</title>", "<title>&eacute;</title>"])
def test_a_defect_deep_in_a_feed_is_reported_at_its_line_in_every_mode(
        tmp_path: Path, defect: str) -> None:
    item = f"<item>\n{defect}\n<link>https://e.example/bad</link>\n</item>\n"
    text = feed(3000, {2500: item})
    line = text.count("\n", 0, text.index(defect)) + 1
    path = tmp_path / "feed.xml"
    path.write_text(text, encoding="utf-8")
    got = in_every_mode(path)
    assert got["runs"] == got["reference"]
    assert f"feed.xml:{line}: warning: malformed feed".encode() in got["runs"][2]
