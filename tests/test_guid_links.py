"""A permalink <guid> (or Atom <id>) is the entry's link as feedparser gives it, but only one
whose text, as the feed wrote it, is an http(s) URL or a path from "/" is a page: a UUID, a slug
or a tag: URI is an identifier, and its entry is counted and reported as having no link, never
turned into a URL under the channel link, an xml:base or the run's base (issue 36, item 18).
The pass (its runs of plain entries too, in the long feed) and feedparser
(FEED2SITEMAP_REFERENCE=1) are run through the installed command, and must agree."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from .conftest import run

GUIDS = [  # (the guid element, the page it gives or None), {k} the copy
    ("<guid>550e8400-e29b-41d4-a716-{k:012d}</guid>", None),
    ("<guid>my-post-slug-{k}</guid>", None),
    ('<guid isPermaLink="true">other-slug-{k}</guid>', None),
    ("<guid>posts/4/{k}.html</guid>", None),
    ("<guid>urn:uuid:{k}</guid>", None),
    ("<guid>/blog/posts/3/{k}</guid>", "https://example.com/blog/posts/3/{k}"),
    ("<guid>https://example.com/blog/posts/5/{k}</guid>", "https://example.com/blog/posts/5/{k}"),
    ('<guid isPermaLink="true">HTTPS://example.com/blog/posts/6/{k}</guid>',
     "https://example.com/blog/posts/6/{k}"),
    ('<guid isPermaLink="false">https://example.com/blog/posts/7/{k}</guid>', None),
    ("<link>https://example.com/blog/posts/8/{k}</link><guid>slug-{k}</guid>",
     "https://example.com/blog/posts/8/{k}"),
]


def _env(reference: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "FEED2SITEMAP_REFERENCE"}
    if reference:
        env["FEED2SITEMAP_REFERENCE"] = reference
    return env


BLOG = "https://example.com/blog/"


# (300 copies: the pass reads them as runs of plain entries; feedparser reads one as 300)
@pytest.mark.parametrize(("reference", "base_url", "copies"), [
    ("", None, 1), ("1", None, 1), ("", BLOG, 1), ("1", BLOG, 1), ("", BLOG, 300)])
def test_guid_that_is_not_a_url_is_no_page(tmp_path: Path, reference: str,
                                           base_url: str | None, copies: int) -> None:
    items = "".join(f"<item><title>{k}</title>{g.format(k=k)}</item>\n"
                    for k in range(copies) for g, _ in GUIDS)
    feed = tmp_path / "feed.xml"
    feed.write_text('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title>\n'
                    "<link>https://example.com/blog/</link><description>d</description>\n"
                    + items + "</channel></rss>\n")
    args = ["--base-url", base_url] if base_url else []
    r = run(str(feed), "-o", str(tmp_path / "out.xml"), *args, env=_env(reference))
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "out.xml").read_text()
    locs = [p.format(k=k) for k in range(copies) for _, p in GUIDS if p]
    assert re.findall("<loc>([^<]*)</loc>", out) == locs
    assert "550e8400" not in out and "slug" not in out and "posts/4/" not in out
    err = r.stderr.decode()
    missing = copies * len(GUIDS) - len(locs)
    assert "feed entry 1 has no link (nor a guid that is an http(s) URL or a path from /)" in err
    assert f"skipped {missing:,}: {missing:,} no link" in err, err


@pytest.mark.slow  # (seconds of CPU: the default run's budget)
def test_guid_under_xml_base_is_judged_alike_in_both_modes(tmp_path: Path) -> None:
    """The guid's own text decides, whatever xml:base (nested too) or base it would resolve
    against: the pass and feedparser give the same bytes."""
    feed = tmp_path / "feed.xml"
    feed.write_text(
        '<?xml version="1.0"?>\n<rss version="2.0">'
        '<channel xml:base="https://example.com/blog/"><title>t</title>\n'
        "<link>https://example.com/blog/</link><description>d</description>\n"
        "<item><title>a</title><guid>slug-a</guid></item>\n"
        "<item><title>b</title><guid>/blog/b</guid></item>\n"
        '<item xml:base="https://example.com/blog/sub/"><title>c</title><guid>../up</guid></item>\n'
        '<item xml:base="sub/"><title>d</title><guid>/blog/d</guid></item>\n'
        "<item><title>e</title><guid> https://example.com/blog/e </guid></item>\n"
        "</channel></rss>\n")
    atom = tmp_path / "atom.xml"
    atom.write_text(
        '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        'xml:base="https://example.com/news/"><title>t</title><id>urn:x</id>\n'
        "<updated>2024-01-01T00:00:00Z</updated>\n"
        "<entry><title>a</title><id>tag:example.com,2024:a</id>"
        "<updated>2024-01-01T00:00:00Z</updated></entry>\n"
        "<entry><title>b</title><id>post-b</id><updated>2024-01-01T00:00:00Z</updated></entry>\n"
        "<entry><title>c</title><id>https://example.com/news/c</id>"
        "<updated>2024-01-01T00:00:00Z</updated></entry>\n</feed>\n")
    for source, want in ((feed, [b"https://example.com/blog/b", b"https://example.com/blog/d",
                                 b"https://example.com/blog/e"]),
                         (atom, [b"https://example.com/news/c"])):
        outs = []
        for reference in ("0", "1"):
            for base in ([], ["--base-url", "https://example.com/"])[:2 if source == feed else 1]:
                out = tmp_path / "out.xml"
                r = run(str(source), "-o", str(out), *base, env=_env(reference))
                assert r.returncode == 0, r.stderr
                outs.append(out.read_bytes())
                assert re.findall(rb"<loc>([^<]*)</loc>", outs[-1]) == want, (reference, base)
                skipped = 5 - len(want) if source == feed else 3 - len(want)
                assert f"skipped {skipped}: {skipped} no link".encode() in r.stderr, r.stderr
        assert len(set(outs)) == 1
