"""Runs of plain entries (readers/feed/runs.py) give what the handlers give, and both what
feedparser gives: generated feeds mixing plain and other entries, cut into pieces anywhere,
and the conformance corpus. Defects inside a run must reach expat (and feedparser) as they
would without runs: a grammar that swallowed one would pass it silently."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap.readers.feed import fastpass as feedpass
from feed2sitemap.readers.feed import runs as feedruns
from feed2sitemap.readers.feed.fastpass import FastPathUnsupported, parse_feed_entries
from feed2sitemap.readers.feed.policy import feedparser_entries
from feed2sitemap.xmlutil import EntitiesForbidden

from .test_feedstream import FP, corpus, corpus_base_url  # noqa: F401 (a fixture)

Outcome = tuple[Any, ...]


@contextmanager
def runs(chunk: int | None = None) -> Iterator[list[int]]:
    """Runs from the document's start (not only past feedpass.SMALL), expat given pieces
    of ``chunk`` bytes; yields a list that gets the size of every run taken."""
    taken: list[int] = []
    real = feedruns.entries

    def spy(*args: Any) -> Any:
        made = real(*args)
        taken.append(len(made))
        return made

    with patch.object(feedpass, "SMALL", 0), patch.object(feedruns, "entries", spy), \
            patch.object(feedpass, "CHUNK", chunk or feedpass.CHUNK):
        yield taken


def outcome(data: bytes, base: str | None, handlers: bool) -> Outcome:
    """What the fast pass gives, by runs or by the handlers alone (runs never start)."""
    with patch.object(feedpass, "SMALL", sys.maxsize) if handlers else nullcontext():
        try:
            entries = parse_feed_entries(data, base)
            return ("entries", [tuple(e) for e in entries], entries.site)
        except FastPathUnsupported:
            return ("feedparser",)
        except EntitiesForbidden:
            return ("refused",)


def three_ways(data: bytes, base: str | None = None, chunk: int | None = None) -> tuple[
        Outcome, list[int]]:
    """Runs == handlers, and both == feedparser where they answer; the runs taken."""
    with runs(chunk) as taken:
        by_runs = outcome(data, base, handlers=False)
    by_handlers = outcome(data, base, handlers=True)
    assert by_runs == by_handlers
    if by_runs[0] == "entries":
        reference, _ = feedparser_entries(data, base)
        assert [e[:2] for e in by_runs[1]] == [(e.link, e.lastmod) for e in reference]
    return by_runs, taken


# --------------------------------------------------------------------------- generated feeds

WS = st.sampled_from(["", "\n", "\n  ", "\t", " ", "\n\n"])
URLS = st.sampled_from([
    "https://e.example/p/1", "https://e.example/p?a=1&amp;b=2", "https://e.example/crème",
    "http://e.example:8080/x#frag", "p/rel", "/abs/path", " https://e.example/ws ", "",
    "../up/one", "https://e.example/a&amp;amp;b", "https://e.example/&lt;x&gt;",
    "https://e.example/%7Efoo", "HTTPS://E.EXAMPLE/Up", "https://e.example/?",
])
DATES = st.sampled_from([
    "Wed, 10 Oct 2018 20:19:13 +0000", "7 May 2017 19:01:07 GMT", "Sun, 07 May 2017 19:01:07 -0530",
    "Sat, 23 Jul 2016 08:59:07 UT", "Thu, 01 Jan 1970 00:00:00 +0000", "31 Feb 2020 10:00:00 +0000",
    "2018-10-10T20:19:13Z", "2018-10-10T20:19:13+05:30", "1970-01-01T00:00:00Z", "yesterday",
    "", " 2020-01-02T03:04:05Z ", "0001-01-01T00:00:00Z", "Mon, 01 Jan 0001 00:30:00 +0100",
    "2020-01-02T03:04:05+99:99", "Tue, 05 Mar 2024 10:15:00 +2400",
])
TEXTS = st.sampled_from([
    "Plain title", "a &amp; b &lt;c&gt;", "caf&#233; &#x2603;", "<![CDATA[a <b> & c]]>",
    "x <![CDATA[]]]]> y", "<![CDATA[<p>One</p>]]> and <![CDATA[two]]>", "", "Gr\u00fc\u00dfe",
    "quote &quot;q&quot; &apos;a&apos;", "a ] b ]] c",
])
# Children no run takes: the handlers read those entries (between runs)
OTHER = st.sampled_from([
    "<dc:creator>Ann</dc:creator>", "<!-- a comment -->", '<source url="https://s.example/">S</source>',
    "<title/>", "<category/>", "<?pi x?>", '<title xml:lang="en">L</title>',
    "<x:foo xmlns:x='http://x.example/'>f</x:foo>", "<link>https://e.example/two</link>",
])


# WordPress's children, read by runs when their prefix is bound as WordPress binds it; the
# feeds below bind them so, to another namespace, or (for "x:") not as an element's name.
PREFIXED_NAMES = ["dc:creator", "content:encoded", "wfw:commentRss", "slash:comments",
                  "dc:subject", "x:creator"]
BINDINGS = st.sampled_from([
    ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:x="http://x.example/"'
    ' xmlns:content="http://purl.org/rss/1.0/modules/content/"'
    ' xmlns:wfw="http://wellformedweb.org/CommentAPI/"'
    ' xmlns:slash="http://purl.org/rss/1.0/modules/slash/"',
    ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:x="http://x.example/"'
    ' xmlns:content="http://other.example/" xmlns:wfw="http://purl.org/dc/elements/1.1/"'
    ' xmlns:slash="http://purl.org/rss/1.0/modules/content/"',
])


@st.composite
def rss_item(draw: Any) -> str:
    kids = []
    if draw(st.booleans()):
        kids.append(f"<link>{draw(URLS)}</link>")
    guid = draw(st.sampled_from(["", "<guid>{}</guid>", '<guid isPermaLink="false">{}</guid>',
                                 '<guid isPermaLink="true">{}</guid>']))
    if guid:
        kids.append(guid.format(draw(URLS)))
    if draw(st.booleans()):
        kids.append(f"<pubDate>{draw(DATES)}</pubDate>")
    for name in draw(st.lists(st.sampled_from(["title", "description", "comments"]), max_size=3)):
        kids.append(f"<{name}>{draw(TEXTS)}</{name}>")
    if draw(st.booleans()):
        kids.append(f'<category domain="d">{draw(TEXTS)}</category>')
    for name in draw(st.lists(st.sampled_from(PREFIXED_NAMES), max_size=3)):
        kids.append(f"<{name}>{draw(TEXTS)}</{name}>")
    if draw(st.integers(0, 5)) == 0:
        kids.append(draw(OTHER))
    kids = draw(st.permutations(kids))
    opening = draw(st.sampled_from(["<item>"] * 6 + ['<item xml:base="http://b.example/d/">']))
    return opening + "".join(draw(WS) + k for k in kids) + draw(WS) + "</item>"


@st.composite
def atom_entry(draw: Any) -> str:
    kids = []
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
        attrs = draw(st.sampled_from(['rel="alternate" type="text/html" ', "", 'rel="self" ',
                                      'rel="alternate" type="application/pdf" ',
                                      'type="text/html" rel="alternate" ', 'rel="Alternate" ']))
        end = draw(st.sampled_from(["/>", " />", "></link>"]))
        kids.append(f'<link {attrs}href="{draw(URLS)}"{end}')
    if draw(st.booleans()):
        kids.append(f"<id>{draw(URLS)}</id>")
    if draw(st.integers(0, 3)) == 0:  # a guid beside (or instead of) the id: one is read
        kids.append(f"<guid>{draw(URLS)}</guid>")
    for name in draw(st.lists(st.sampled_from(["updated", "published"]), max_size=2)):
        kids.append(f"<{name}>{draw(DATES)}</{name}>")
    if draw(st.booleans()):
        kids.append(f'<title type="html">{draw(TEXTS)}</title>')
    if draw(st.booleans()):
        kids.append(f"<author>{draw(WS)}<name>N</name>{draw(WS)}<email>e@x</email></author>")
    if draw(st.integers(0, 5)) == 0:
        kids.append(draw(OTHER))
    return "<entry>" + "".join(draw(WS) + k for k in draw(st.permutations(kids))) + "</entry>"


@st.composite
def feeds(draw: Any, min_items: int = 2, chunks: tuple[int, ...] = (64, 333, 1000, 4096, 1 << 16)
          ) -> tuple[bytes, str | None, int]:
    atom = draw(st.booleans())
    items = draw(st.lists(atom_entry() if atom else rss_item(), min_size=min_items, max_size=40))
    sep = draw(WS)
    base = draw(st.sampled_from(["", ' xml:base="http://base.example/dir/"']))
    if atom:
        doc = (f'<feed xmlns="http://www.w3.org/2005/Atom"{base}>\n<title>T</title>'
               '<link href="https://site.example/"/>\n' + sep.join(items) + "\n</feed>")
    else:
        doc = (f'<rss version="2.0"{draw(BINDINGS)}><channel{base}>'
               "\n<link>https://site.example/</link>\n" + sep.join(items) + "\n</channel></rss>")
    declaration = draw(st.sampled_from(['<?xml version="1.0" encoding="utf-8"?>\n', "",
                                        '<?xml version="1.0" encoding="iso-8859-1"?>\n']))
    encoding = "latin-1" if "8859" in declaration else "utf-8"
    data = (declaration + doc).encode(encoding, "xmlcharrefreplace")
    chunk = draw(st.sampled_from(chunks))
    return data, draw(st.sampled_from([None, "http://doc.example/feeds/feed.xml"])), chunk


@pytest.mark.slow
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(feeds())
def test_runs_give_the_handlers_answer_and_feedparsers(feed: tuple[bytes, str | None, int]) -> None:
    data, base, chunk = feed
    three_ways(data, base, chunk)


@pytest.mark.slow
def test_generated_feeds_do_take_runs() -> None:
    # (the property test above would pass vacuously if no run were ever taken)
    seen = [0, 0]  # entries read by the fast pass, and of those by runs

    @settings(max_examples=40, deadline=None, database=None)
    @given(feeds(min_items=20, chunks=(1 << 16,)))
    def check(feed: tuple[bytes, str | None, int]) -> None:
        got, taken = three_ways(*feed)
        if got[0] == "entries":
            seen[0] += len(got[1])
            seen[1] += sum(taken)

    check()
    assert seen[1] > 0.1 * seen[0], seen  # (a fifth to a half of them, as drawn)


def plain_rss(n: int, item: str = "") -> str:
    """n plain items (the i-th replaced by ``item`` where it holds "{i}"), one a few lines."""
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n'
            "<link>https://e.example/</link>\n" + "".join(
                (item or "<item>\n<title>T {i} &amp; caf\u00e9</title>\n"
                 "<link>https://e.example/p/{i}?a=1&amp;b=2</link>\n"
                 '<guid isPermaLink="false">g{i}</guid>\n'
                 "<pubDate>Wed, {d} Oct 2018 20:19:13 +0{i3}00</pubDate>\n"
                 "<description><![CDATA[<p>{i}</p>]]></description>\n</item>\n")
                .format(i=i, d=1 + i % 28, i3=i % 10) for i in range(n))
            + "</channel>\n</rss>\n")


def test_a_plain_feed_is_read_by_runs_past_the_first_32_kib() -> None:
    data = plain_rss(2000).encode()
    with patch.object(feedruns, "entries", wraps=feedruns.entries) as spy:
        got = outcome(data, None, handlers=False)
    by_runs = sum(len(call.return_value) if hasattr(call, "return_value") else 0
                  for call in spy.mock_calls)
    assert got == outcome(data, None, handlers=True)
    assert spy.call_count > 5
    assert got[1][1999][2] == 5 + 7 * 1999  # each item's line, counted by the run
    del by_runs


def test_a_small_feed_imports_neither_the_runs_nor_feedparser() -> None:
    # (the usual cron job reads a 20-item feed: no grammar compiled, no feedparser imported)
    code = ("import sys; from feed2sitemap.readers.feed.fastpass import parse_feed_entries; "
            "e = parse_feed_entries(sys.stdin.buffer.read()); assert len(e) == 20, len(e); "
            "print(sorted(m for m in sys.modules if m.endswith('feedruns') or "
            "m.startswith('feedparser')))")
    done = subprocess.run([sys.executable, "-c", code], input=plain_rss(20).encode(),
                          capture_output=True, check=True)
    assert done.stdout.strip() == b"[]"


# --------------------------------------------------------------------------- defects in a run

# Each defect is put in item 1500 of 2000, well inside what would be a run: expat (and so
# feedparser, which reads the feed then) must see it at its line, as without runs.
DEFECTS = {
    "raw ampersand": "<title>T & {i}</title>",
    "control character": "<title>T \x01 {i}</title>",
    "]]> in text": "<title>T ]]> {i}</title>",
    "undeclared entity": "<title>T &nbsp; {i}</title>",
    "reference to NUL": "<title>T &#0; {i}</title>",
    "reference to U+FFFE": "<title>T &#xFFFE; {i}</title>",
    "mismatched tag": "<title>T {i}</titel>",
    "unknown named reference in a link": "<link>https://e.example/&foo;{i}</link>",
    "duplicate attribute": '<guid isPermaLink="false" isPermaLink="true">g{i}</guid>',
    "U+FFFF": "<title>T \uffff {i}</title>",
}


def with_defect(defect: str) -> tuple[bytes, int]:
    """A 2000-item feed, the defect in item 1500; and the defect's line."""
    text = plain_rss(2000)
    item = f"<item>\n{defect.format(i=1500)}\n<link>https://e.example/x</link>\n</item>\n"
    start = text.index("<item>\n<title>T 1500 ")
    end = text.index("</item>\n", start) + len("</item>\n")
    text = text[:start] + item + text[end:]
    return text.encode("utf-8", "surrogatepass"), text.count("\n", 0, start) + 2


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_a_defect_inside_a_run_is_left_to_expat(name: str) -> None:
    data, line = with_defect(DEFECTS[name])
    got, _ = three_ways(data)
    assert got == ("feedparser",)  # the pass gave up at the defect, as without runs
    _, parsed = feedparser_entries(data)
    assert parsed["bozo"] and parsed["bozo_exception"].getLineNumber() == line


# Well-formed, but no run takes them: the handlers read those items, between runs.
NOT_PLAIN = {
    "CDATA in a link": "<link><![CDATA[https://e.example/{i}]]></link>",
    "a comment": "<!-- {i} --><title>T</title>",
    "xml:base": '<title xml:base="http://other.example/">{i}</title>',
    "a second link": "<link>https://e.example/first-{i}</link>",
    "a namespaced child": '<x:y xmlns:x="http://x.example/">{i}</x:y>',
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NOT_PLAIN))
def test_an_item_no_run_takes_is_read_by_the_handlers(name: str) -> None:
    data, _ = with_defect(NOT_PLAIN[name])
    got, taken = three_ways(data)
    assert got[0] == "entries" and len(got[1]) == 2000 and sum(taken) > 1500


@pytest.mark.slow
def test_wordpress_items_are_read_by_runs() -> None:
    item = ("<item>\n<title>T {i}</title>\n<link>https://e.example/p/{i}</link>\n"
            "<dc:creator><![CDATA[Ann]]></dc:creator>\n<pubDate>Wed, 10 Oct 2018 20:19:13 +0000"
            "</pubDate>\n<category><![CDATA[News]]></category>\n"
            '<guid isPermaLink="false">https://e.example/?p={i}</guid>\n'
            "<description><![CDATA[<p>{i}</p>]]></description>\n"
            "<content:encoded><![CDATA[<p>{i} &amp; more</p>]]></content:encoded>\n"
            "<wfw:commentRss>https://e.example/p/{i}/feed/</wfw:commentRss>\n"
            "<slash:comments>0</slash:comments>\n</item>\n")
    text = plain_rss(1000, item).replace(
        '<rss version="2.0">', '<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
        'xmlns:wfw="http://wellformedweb.org/CommentAPI/" '
        'xmlns:slash="http://purl.org/rss/1.0/modules/slash/">')
    got, taken = three_ways(text.encode(), chunk=1 << 16)
    assert got[0] == "entries" and sum(taken) > 900


def test_an_unbound_prefix_inside_a_run_is_left_to_expat() -> None:
    # dc: is not declared: expat must say so ("unbound prefix"), and feedparser read the feed
    data, line = with_defect("<dc:creator>Ann {i}</dc:creator>")
    got, _ = three_ways(data)
    assert got == ("feedparser",)


def test_entries_no_run_takes_cost_a_few_tries_not_one_each() -> None:
    data, _ = with_defect("<title>T {i}</title>")
    data = data.replace(b"</title>\n<link>", b"</title>\n<foo/><link>")  # (in every item)
    with patch.object(feedruns, "scan", wraps=feedruns.scan) as scan:
        got = outcome(data, None, handlers=False)
    assert got[0] == "entries" and len(got[1]) == 2000
    assert scan.call_count < 80  # (2000 entries, 20 pieces)


def test_invalid_utf8_inside_a_run_is_left_to_expat() -> None:
    data, line = with_defect("<title>T {i}</title>")
    data = data.replace(b"<title>T 1500</title>", b"<title>T \xff 1500</title>")
    got, _ = three_ways(data)
    assert got == ("feedparser",)


def test_windows_line_ends_keep_every_line_right() -> None:
    data = plain_rss(600).replace("\n", "\r\n").encode()
    got, _ = three_ways(data)
    assert got[0] == "entries" and got[1][599][2] == 5 + 7 * 599


# --------------------------------------------------------------------------- the corpus


def repeated_entries(data: bytes) -> bytes:
    """The document with its first entry written three times over (most files of the corpus
    hold one entry, and a run needs an entry after an entry)."""
    for tag in (b"item", b"entry"):
        start = data.find(b"<" + tag)
        end = data.find(b"</" + tag + b">", start)
        if start >= 0 and end > 0 and data[start + len(tag) + 1:][:1] in b"> \t\n\r":
            end += len(tag) + 3
            return data[:end] + data[start:end] * 3 + data[end:]
    return data


@pytest.mark.slow
def test_corpus_runs_give_the_handlers_answer(corpus: dict) -> None:  # noqa: F811
    taken_total = 0
    for path in sorted((FP / "tests").rglob("*.xml")):
        rel = path.relative_to(FP / "tests").as_posix()
        data = path.read_bytes()
        base = corpus_base_url(rel, data, corpus)
        for doc in (data, repeated_entries(data)):
            for chunk in (None, 333):
                try:
                    _, taken = three_ways(doc, base, chunk)
                except AssertionError as exc:
                    raise AssertionError(f"{rel} (chunk {chunk}): {exc}") from None
                taken_total += sum(taken)
    assert taken_total > 50
