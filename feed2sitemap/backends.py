"""Every fast path of the package, in one table, and the one switch that turns them all off.

A fast path exists only to be fast: beside it stands a plain, obviously correct twin, and a
differential test holds the two to the same output. ``TABLE`` lists each with its twin, test,
benchmark row (benchmarks/bench.py), lines and measured gain; the code asks ``fast(NAME)`` at
the one place the choice is made.

``FEED2SITEMAP_REFERENCE=1`` turns every fast path off (the twins alone, byte-identical output),
for the differential tests and for a user who doubts a result. It is read at each call, so one
process (a test) can run both ways.
"""

from __future__ import annotations

import os
from typing import NamedTuple

ENV = "FEED2SITEMAP_REFERENCE"


class FastPath(NamedTuple):
    """One fast path: its code and its twin (``module[:name]``), the test that holds them equal,
    its benchmark row, its lines (tests/test_backends.py checks them) and its gain on that row
    (CPU seconds without it / with it)."""

    fast: tuple[str, ...]
    plain: str
    test: str
    row: str
    lines: int
    gain: str


TABLE: dict[str, FastPath] = {
    "feed pass": FastPath(
        ("readers.feed.fastpass", "readers.feed.compat"), "feedparser (readers.feed.policy)",
        "tests/test_feed_reference.py", "rss, atom", 1184,
        "about 30x (feedparser 13.5 s, the pass 0.42 s at 50,000 items)"),
    "feed runs": FastPath(
        ("readers.feed.runs",), "the pass's handlers (readers.feed.fastpass:_Pass)",
        "tests/test_feedruns.py", "rss, atom", 439,
        "1.9x rss, 1.8x atom (1.82 / 0.95 s); without it both fall behind fastfeedparser"),
    "sitemap runs": FastPath(
        ("readers.sitemapfast",), "expat's handlers (readers.sitemap, read_plain)",
        "tests/test_sitemapfast.py", "sitemap-set", 182,
        "2.3x (11.3 / 4.87 s): 1.2x the iterparse floor without it, 0.69x with it"),
    "extension runs": FastPath(
        ("readers.urlextfast",), "the extension pass (readers.urlext)",
        "tests/test_urlextfast.py", "sitemap-ext", 240,
        "5x on the extension reader; the row exceeds 1.5x its floor without it"),
    "extension rules": FastPath(
        ("extensions.rulesfast", "model.urls:all_normalized"),
        "extensions.rules:check_extensions", "tests/test_urlextfast.py", "sitemap-ext", 64,
        "1.55x (12.7 / 8.2 s on 200,000 of the row's URLs, 2026-12-05); the row exceeds 1.5x "
        "its floor without it"),
    "URL list blocks": FastPath(
        ("model.urls:prove_lines", "model.urls:proven_clean", "model.urls:CleanLocs"),
        "readers.text:_line_batches", "tests/test_url_rules.py", "text-ascii", 43,
        "1.34x (2.02 / 1.51 s); the row is 1.3x its floor without it"),
    "URL blocks": FastPath(
        ("model.urls:_normalize_block", "model.urls:_one_site"),
        "model.urls:_normalize_each", "tests/test_url_rules.py", "jsonl-loc, text-nonascii", 22,
        "1.33x jsonl-loc (3.19 / 2.40 s), 1.30x text-nonascii (2.52 / 1.94 s): without it "
        "text-nonascii is 1.6x its floor; check's fast path proves its locations with it"),
    "escaped URIs": FastPath(
        ("writers.xml:_escaped_uris",), "writers.xml:_escaped", "tests/test_batch.py",
        "text-ascii", 8, "1.22x (1.69 / 1.38 s); kept: without it text-ascii is 1.42x its floor"),
    "JSON Lines blocks": FastPath(
        ("readers.jsonl:_load_block",), "readers.jsonl:_load_lines",
        "tests/test_jsonl_block.py", "jsonl", 16, "2.48x (12.44 / 5.02 s)"),
    "columns parsed at once": FastPath(
        ("model.lastmods", "readers.fields:parse_column"),
        "readers.fields:_parse_each (each value parsed alone)", "tests/test_lastmodcols.py",
        "jsonl", 173, "1.49x (8.26 / 5.54 s)"),
    "lastmod texts": FastPath(
        ("readers.fields:canonical_texts",), "the writer formats each lastmod",
        "tests/test_reference_readers.py", "jsonl", 25, "1.52x (7.65 / 5.02 s)"),
    "check entries": FastPath(
        ("check.xmlfast",), "the schema's handlers (check.xml, _Schema)",
        "tests/test_check_fast.py", "check-50k, check-set", 307,
        "6.1x (2.43 / 0.40 s): 10.6x xmllint without it, 1.85x with it"),
    "merge store": FastPath(
        ("pipeline.merging:Store", "pipeline.merging:Spill"), "pipeline.merging:ReferenceStore",
        "tests/test_merge_store.py",
        "merge-lastmods", 291,
        "2.6x on the merge step (18.3 / 7.0 s at 1.5M URLs), 362 against 588 bytes a URL, "
        "and the spill that holds 10M rows under 1 GiB"),
    "HTML pages": FastPath(
        ("readers.site.pages:parse_page", "readers.site.pages:_tree_facts",
         "readers.site.pages:_lxml_parser"), "html.parser and Facts' handlers "
        "(readers.site.pages:_Plain)", "tests/test_site_input.py", "site-dir", 67,
        "6.7x on a page's facts (2,653 / 397 pages of 29 KB a second, best of 3); only with "
        "lxml installed (the html extra): without it the row is far from 2,000 pages/s"),
}


def fast(name: str) -> bool:
    """Whether the fast path ``name`` of TABLE runs: yes, unless the reference mode is on."""
    if name not in TABLE:
        raise KeyError(f"{name!r} is no fast path of backends.TABLE")
    return not reference()


def reference() -> bool:
    """True when the plain paths are asked for (``FEED2SITEMAP_REFERENCE`` set, not "0")."""
    return os.environ.get(ENV, "") not in ("", "0")
