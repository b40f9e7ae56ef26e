"""A run's entries read by their layout (readers/feedlayout.py) are the grammar's: the same run,
value for value and line for line, and the same answer as the handlers and feedparser."""

from __future__ import annotations

import re
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap.readers import feedfeeder, feedlayout
from feed2sitemap.readers.feedruns import scan

from .test_feedruns import DATES, OTHER, TEXTS, URLS, WS, outcome, runs, three_ways

# Children as feeds write them ({u} a URL, {d} a date, {t} a text), some of them twice over
RSS_KIDS = ["<title>{t}</title>", "<link>{u}</link>", '<guid isPermaLink="false">{u}</guid>',
            "<guid>{u}</guid>", "<pubDate>{d}</pubDate>", "<description>{t}</description>",
            '<category domain="d">{t}</category>', "<category>{t}</category>",
            "<comments>{u}</comments>", "<dc:creator>{t}</dc:creator>",
            "<content:encoded>{t}</content:encoded>", "<author>{t}</author>"]
ATOM_KIDS = ['<link rel="alternate" type="text/html" href="{u}"/>', '<link href="{u}"></link>',
             '<link rel="self" href="{u}" />', "<id>{u}</id>", "<updated>{d}</updated>",
             "<published>{d}</published>", '<summary type="html">{t}</summary>',
             "<title>{t}</title>", "<content>{t}</content>",
             "<author>\n  <name>N</name>\n  <email>e@x</email>\n</author>",
             "<contributor><uri>{u}</uri></contributor>", "<author>{t}</author>"]
BINDINGS = (' xmlns:dc="http://purl.org/dc/elements/1.1/"'
            ' xmlns:content="http://purl.org/rss/1.0/modules/content/"')
PREFIXED = ("dc:creator", "content:encoded")
_NAME = re.compile("<([a-z:]+)")
TEXT = TEXTS | st.sampled_from(["two\nlines", "<![CDATA[<item>\n]]>"])  # (lines: not the layout's)


@st.composite
def laid_out_feeds(draw: Any) -> tuple[bytes, bool]:
    """A feed whose entries are laid out as one (children, order, white space), but for a
    few that differ: a child left out, another one added, other white space, a wrong end
    tag, a child twice."""
    atom = draw(st.booleans())
    kids = ATOM_KIDS if atom else RSS_KIDS
    layout = draw(st.lists(st.tuples(WS, st.sampled_from(kids)), min_size=1, max_size=7,
                           unique_by=lambda kid: _NAME.match(kid[1]).group(1)))  # type: ignore
    last, lead = draw(WS), draw(WS)
    tag = "entry" if atom else "item"
    entries = []
    for _ in range(draw(st.integers(3, 40))):
        children = list(layout)
        odd = draw(st.integers(0, 29))
        if odd == 0:
            children.pop(draw(st.integers(0, len(children) - 1)))
        elif odd == 1:
            children.insert(draw(st.integers(0, len(children))),
                            (draw(WS), draw(st.sampled_from(kids) | OTHER)))
        elif odd == 2:
            children = [(draw(WS), kid) for _, kid in children]
        elif odd == 3:  # malformed: an end tag that is not its start tag's (expat says so)
            k = draw(st.integers(0, len(children) - 1))
            space, kid = children[k]
            children[k] = (space, re.sub(r"</([a-z:]+)>$", r"</\1x>", kid))
        elif odd == 4:  # a child twice: the grammar takes a link, guid, id or date once
            children.append(children[draw(st.integers(0, len(children) - 1))])
        body = "".join(space + kid.format(u=draw(URLS), d=draw(DATES), t=draw(TEXT))
                       for space, kid in children)
        entries.append(f"{lead}<{tag}>{body}{last}</{tag}>")
    if atom:
        doc = ('<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>'
               + "".join(entries) + "\n</feed>")
    else:
        doc = (f'<rss version="2.0"{BINDINGS}><channel><link>https://site.example/</link>'
               + "".join(entries) + "\n</channel></rss>")
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + doc).encode(), atom


def region_of(data: bytes, tag: str) -> bytes:
    """What the feeder gives a run: from the first entry's end to the last's."""
    end = f"</{tag}>".encode()
    return data[data.index(end) + len(end): data.rindex(end) + len(end)]


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(laid_out_feeds())
def test_a_layout_gives_the_grammars_run(feed: tuple[bytes, bool]) -> None:
    data, atom = feed
    tag = "entry" if atom else "item"
    region = region_of(data, tag)
    prefixed = () if atom else PREFIXED
    by_layout = scan(region, tag, "UTF-8", prefixed, layouts=True)
    by_grammar = scan(region, tag, "UTF-8", prefixed, layouts=False)
    if by_grammar is None:
        assert by_layout is None
        return
    assert by_layout is not None
    assert by_layout._replace(by_layout=0) == by_grammar


@pytest.mark.slow
def test_generated_layouts_are_taken() -> None:
    # (the property test above would pass vacuously if no layout were ever taken)
    seen = [0, 0]  # entries of runs, and of those read by a layout

    @settings(max_examples=100, deadline=None, database=None, derandomize=True)
    @given(laid_out_feeds())
    def check(feed: tuple[bytes, bool]) -> None:
        data, atom = feed
        tag = "entry" if atom else "item"
        run = scan(region_of(data, tag), tag, "UTF-8", () if atom else PREFIXED)
        if run is not None:
            seen[0] += run.n
            seen[1] += run.by_layout

    check()
    assert seen[1] > 0.15 * seen[0], seen  # (a third to a half of them, as drawn)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(laid_out_feeds(), st.sampled_from([333, 4096, 1 << 16]))
def test_laid_out_feeds_give_the_handlers_answer(feed: tuple[bytes, bool], chunk: int) -> None:
    three_ways(feed[0], None, chunk)


def rss(items: str) -> bytes:
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>\n'
            f"<link>https://e.example/</link>\n{items}</channel>\n</rss>\n").encode()


def uniform_rss(n: int, item: str) -> bytes:
    return rss("".join(item.format(i=i) for i in range(n)))


@pytest.mark.slow
def test_a_uniform_feed_is_read_by_its_layout() -> None:
    item = ("<item>\n  <title>T {i} &amp; caf\u00e9</title>\n  <link>https://e.example/p/{i}"
            "</link>\n  <pubDate>Wed, 10 Oct 2018 20:19:13 +0000</pubDate>\n"
            "  <description><![CDATA[<p>{i}</p>]]></description>\n</item>\n")
    data = uniform_rss(3000, item)
    region = region_of(data, "item")
    run = scan(region, "item", "UTF-8")
    assert run is not None and run.n == 2999 and run.by_layout == 2999
    got, taken = three_ways(data)
    assert got[0] == "entries" and len(got[1]) == 3000 and sum(taken) > 2500


def test_entries_laid_out_differently_stop_the_layouts() -> None:
    # every other item has a category more: no run's layout is made, the grammar reads all;
    # after UNLAID such runs no layout is even looked for
    item = ("<item><title>T {i}</title><link>https://e.example/p/{i}</link>"
            "<category>c</category></item>\n")
    data = re.sub(rb"(<item><title>T \d*[13579]</title>)", rb"\1<category>x</category>",
                  uniform_rss(4000, item))
    with runs(4096) as taken, patch.object(feedlayout, "layout_of",
                                            wraps=feedlayout.layout_of) as layout_of, \
            patch.dict(feedlayout._LAYOUTS, clear=True), \
            patch.dict(feedlayout._RECENT, clear=True):
        got = outcome(data, None, handlers=False)
        compiled = len(feedlayout._LAYOUTS)
    assert got[0] == "entries" and len(got[1]) == 4000 and sum(taken) > 3500
    assert len(taken) > 3 * feedfeeder.UNLAID
    assert layout_of.call_count == feedfeeder.UNLAID
    assert compiled == 0  # (no second item is laid out as the first: none is worth making)
    assert got == outcome(data, None, handlers=True)


def test_an_entry_of_very_many_children_is_read_without_a_layout() -> None:
    # a layout is one regex of all the children: 5,000 categories an item make none (the
    # grammar reads such entries as it reads any)
    item = ("<item><title>T {i}</title><link>https://e.example/p/{i}</link>"
            + "<category>c</category>" * 5000 + "</item>\n")
    data = uniform_rss(12, item)
    region = region_of(data, "item")
    with patch.dict(feedlayout._LAYOUTS, clear=True), \
            patch.dict(feedlayout._RECENT, clear=True):
        run = scan(region, "item", "UTF-8")
        compiled = len(feedlayout._LAYOUTS)
    assert run is not None and run.n == 11 and run.by_layout == 0 and compiled == 0
    assert run == scan(region, "item", "UTF-8", layouts=False)


def test_a_feed_of_ever_new_layouts_stops_making_them() -> None:
    # 60 blocks of 50 items, each block with white space of its own: every block is a new
    # layout that reads its run; past COMPILED of them the grammar reads the rest
    data = rss("".join(
        f"{' ' * (k + 1)}<item><title>T {k}.{i}</title><link>https://e.example/p/{k}/{i}</link>"
        "</item>\n" for k in range(60) for i in range(50)))
    before = feedlayout.compiled
    with runs(4096) as taken, patch.dict(feedlayout._LAYOUTS, clear=True), \
            patch.dict(feedlayout._RECENT, clear=True):
        got = outcome(data, None, handlers=False)
    assert got[0] == "entries" and len(got[1]) == 3000 and sum(taken) > 2500
    assert feedlayout.compiled - before == feedfeeder.COMPILED
    assert got == outcome(data, None, handlers=True)
