"""A permalink <guid> is the entry's link as feedparser gives it, but only an absolute URL or a
path (with a "/") is a page: a UUID or a slug is an identifier, and its entry is counted and
reported as having no link, never turned into a URL under the channel link or the run's base
(issue 36, item 18). The pass (its runs of plain entries too, in the long feed) and feedparser
(FEED2SITEMAP_REFERENCE=1) are run through the installed command."""

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
    ("<guid>/blog/posts/3/{k}</guid>", "https://example.com/blog/posts/3/{k}"),
    ("<guid>posts/4/{k}.html</guid>", "https://example.com/blog/posts/4/{k}.html"),
    ("<guid>https://example.com/blog/posts/5/{k}</guid>", "https://example.com/blog/posts/5/{k}"),
    ('<guid isPermaLink="true">https://example.com/blog/posts/6/{k}</guid>',
     "https://example.com/blog/posts/6/{k}"),
    ('<guid isPermaLink="false">https://example.com/blog/posts/7/{k}</guid>', None),
    ('<guid isPermaLink="false">8f2c{k}</guid>', None),
]


@pytest.mark.parametrize("reference", ["", "1"])
@pytest.mark.parametrize("base_url", [None, "https://example.com/blog/"])
@pytest.mark.parametrize("copies", [1, 300])
def test_guid_that_is_not_a_url_is_no_page(tmp_path: Path, reference: str,
                                           base_url: str | None, copies: int) -> None:
    items = "".join(f"<item><title>{k}</title>{g.format(k=k)}</item>\n"
                    for k in range(copies) for g, _ in GUIDS)
    feed = tmp_path / "feed.xml"
    feed.write_text('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title>\n'
                    "<link>https://example.com/blog/</link><description>d</description>\n"
                    + items + "</channel></rss>\n")
    env = {k: v for k, v in os.environ.items() if k != "FEED2SITEMAP_REFERENCE"}
    if reference:
        env["FEED2SITEMAP_REFERENCE"] = reference
    args = ["--base-url", base_url] if base_url else []
    r = run(str(feed), "-o", str(tmp_path / "out.xml"), *args, env=env)
    assert r.returncode == 0, r.stderr
    out = (tmp_path / "out.xml").read_text()
    locs = [p.format(k=k) for k in range(copies) for _, p in GUIDS if p]
    assert re.findall("<loc>([^<]*)</loc>", out) == locs
    assert "550e8400" not in out and "slug" not in out
    err = r.stderr.decode()
    missing = copies * len(GUIDS) - len(locs)
    assert "feed entry 1 has no link (nor a permalink guid that is a URL or a path)" in err
    assert f"skipped {missing:,}: {missing:,} no link" in err, err


def test_guid_under_xml_base_is_judged_alike_in_both_modes(tmp_path: Path) -> None:
    """Under an xml:base the pass leaves a guid that is no URL to feedparser: one answer."""
    feed = tmp_path / "feed.xml"
    feed.write_text('<?xml version="1.0"?>\n<rss version="2.0">'
                    '<channel xml:base="https://example.com/blog/"><title>t</title>\n'
                    "<link>https://example.com/blog/</link><description>d</description>\n"
                    "<item><title>a</title><guid>slug-a</guid></item>\n"
                    "<item><title>b</title><guid>/blog/b</guid></item>\n</channel></rss>\n")
    outs = []
    for reference in ("0", "1"):
        out = tmp_path / f"out{reference}.xml"
        r = run(str(feed), "-o", str(out), env=dict(os.environ, FEED2SITEMAP_REFERENCE=reference))
        assert r.returncode == 0, r.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1] and b"https://example.com/blog/b" in outs[0]
