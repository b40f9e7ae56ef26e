"""JSON Feed 1.0 and 1.1 input: pages, dates, relative URLs, scope, and hostile JSON."""

from __future__ import annotations

import gzip
import io
import json
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from feed2sitemap import ReadOptions, convert, read
from feed2sitemap.cli.main import convert_command
from feed2sitemap.errors import InputError
from feed2sitemap.model.options import WriteOptions
from feed2sitemap.model.report import Report
from feed2sitemap.readers.detect import sniff

from .conftest import run

UTC = timezone.utc
V11 = "https://jsonfeed.org/version/1.1"

# The shape of jsonfeed.org's own minimal example (version 1.1): two items, url and id.
SPEC_MINIMAL = {
    "version": V11, "title": "My Example Feed", "home_page_url": "https://example.org/",
    "feed_url": "https://example.org/feed.json",
    "items": [
        {"id": "2", "content_text": "This is a second item.",
         "url": "https://example.org/second-item"},
        {"id": "1", "content_html": "<p>Hello, world!</p>",
         "url": "https://example.org/initial-post"},
    ],
}
# Version 1 (2017): author instead of authors, a podcast item with an attachment.
SPEC_PODCAST_V1 = {
    "version": "https://jsonfeed.org/version/1", "title": "The Record",
    "home_page_url": "http://therecord.example/", "feed_url": "http://therecord.example/feed.json",
    "author": {"name": "Brent"},
    "items": [{
        "id": "http://therecord.example/chris-parrish",
        "title": "Special #1 - Chris Parrish", "url": "http://therecord.example/chris-parrish",
        "content_text": "Chris has worked at Adobe and as a founder of Rogue Sheep.",
        "date_published": "2014-05-09T14:04:00-07:00",
        "attachments": [{"url": "http://therecord.example/chris-parrish.m4a",
                         "mime_type": "audio/x-m4a", "size_in_bytes": 89970236,
                         "duration_in_seconds": 6629}],
    }],
}
# A Hugo theme's feed: absolute URLs, date_published and date_modified, summaries, tags.
HUGO = {
    "version": V11, "title": "Notes", "home_page_url": "https://notes.example.net/",
    "feed_url": "https://notes.example.net/index.json", "language": "en",
    "items": [
        {"id": "https://notes.example.net/posts/b/", "url": "https://notes.example.net/posts/b/",
         "title": "B", "summary": "…", "tags": ["go", "web"],
         "date_published": "2024-05-01T09:00:00+02:00",
         "date_modified": "2024-05-03T18:30:00+02:00"},
        {"id": "https://notes.example.net/posts/a/", "url": "https://notes.example.net/posts/a/",
         "title": "A", "date_published": "2024-04-20T00:00:00Z"},
        {"id": "https://notes.example.net/about/", "url": "https://notes.example.net/about/",
         "title": "About"},
    ],
}
# A link blog: every item points elsewhere (external_url) and none has a page of its own.
LINKS_ONLY = {
    "version": V11, "title": "Links", "home_page_url": "https://links.example/",
    "items": [{"id": str(i), "external_url": f"https://elsewhere.example/{i}",
               "content_text": "worth a read"} for i in range(3)],
}


def feed_bytes(feed: Any) -> bytes:
    return json.dumps(feed, indent=2).encode()


def records(data: bytes, **kw: Any) -> tuple[list[Any], Report]:
    report = Report()
    return list(read(io.BytesIO(data), report=report, **kw)), report


def converted(data: bytes, **kw: Any) -> list[tuple[str, Any]]:
    out = io.BytesIO()
    convert([io.BytesIO(data)], out, **kw, writing=WriteOptions(to="jsonl"))
    rows = [json.loads(line) for line in out.getvalue().decode().splitlines()]
    return [(r["loc"], r.get("lastmod")) for r in rows]


def test_spec_examples_give_their_pages() -> None:
    assert converted(feed_bytes(SPEC_MINIMAL)) == [
        ("https://example.org/second-item", None), ("https://example.org/initial-post", None)]
    # the attachment is no page of the site; the time is written in UTC
    assert converted(feed_bytes(SPEC_PODCAST_V1)) == [
        ("http://therecord.example/chris-parrish", "2014-05-09T21:04:00+00:00")]


def test_hugo_feed_prefers_date_modified_in_utc() -> None:
    got, report = records(feed_bytes(HUGO))
    assert [(r.loc, r.lastmod) for r in got] == [
        ("https://notes.example.net/posts/b/", datetime(2024, 5, 3, 16, 30, tzinfo=UTC)),
        ("https://notes.example.net/posts/a/", datetime(2024, 4, 20, tzinfo=UTC)),
        ("https://notes.example.net/about/", None),
    ]
    assert got[0].lastmod.tzinfo is UTC
    assert not report.skipped and not report.warnings


def test_micro_blog_relative_urls_resolve_against_home_page() -> None:
    feed = {"version": V11, "home_page_url": "https://m.example/manton/",
            "items": [{"id": "1", "url": "/2024/01/02/hello.html"},
                      {"id": "2", "url": "2024/01/03/photo.html"},
                      {"id": "3", "url": "  https://m.example/manton/abs.html "}]}
    assert [r.loc for r in records(feed_bytes(feed))[0]] == [
        "https://m.example/2024/01/02/hello.html",
        "https://m.example/manton/2024/01/03/photo.html",
        "https://m.example/manton/abs.html"]


def test_without_home_page_relative_urls_resolve_against_base_url() -> None:
    feed = {"version": V11, "items": [{"id": "1", "url": "/a"}]}
    assert converted(feed_bytes(feed), base_url="https://b.example/") == [
        ("https://b.example/a", None)]
    with pytest.raises(InputError, match="no URLs to write"):  # relative, and nothing to resolve
        converted(feed_bytes(feed))


def test_external_url_is_not_the_page_and_is_reported() -> None:
    got, report = records(feed_bytes(LINKS_ONLY))
    assert got == [] and report.skipped["link post"] == 3
    result = run("-", input=feed_bytes(LINKS_ONLY))
    assert result.returncode == 1
    assert b"item 1 has only an external_url" in result.stderr
    assert b"no URLs to write (3 skipped)" in result.stderr


def test_item_with_url_and_external_url_keeps_its_own_page() -> None:
    feed = {"version": V11, "items": [{"id": "1", "url": "https://a.example/post",
                                       "external_url": "https://b.example/article"}]}
    assert [r.loc for r in records(feed_bytes(feed))[0]] == ["https://a.example/post"]


@pytest.mark.parametrize("item,why", [
    ({"id": "1", "url": "https://a.example/x", "date_modified": "soon"}, "date_modified dropped"),
    ({"id": "1", "url": "https://a.example/x", "date_published": 20240101}, "not a string"),
    ({"id": "1", "url": "https://a.example/x", "date_published": "2024-01-01T10:00:00"},
     "is not an RFC 3339"),
])
def test_a_bad_date_is_dropped_with_a_warning(item: dict[str, Any], why: str) -> None:
    got, report = records(feed_bytes({"version": V11, "items": [item]}))
    assert [(r.loc, r.lastmod) for r in got] == [("https://a.example/x", None)]
    assert report.warnings["bad lastmod"] == 1
    with pytest.raises(InputError, match=why):
        list(read(io.BytesIO(feed_bytes({"version": V11, "items": [item]})),
                  report=Report(strict=True)))


def test_a_bad_modified_date_falls_back_to_published_and_rfc3339_variants_are_read() -> None:
    feed = {"version": V11, "items": [
        {"id": "1", "url": "https://a.example/1", "date_modified": "x",
         "date_published": "2024-01-01t10:00:00z"},
        {"id": "2", "url": "https://a.example/2", "date_published": "2024-01-02 10:00:00+01:00"},
        {"id": "3", "url": "https://a.example/3", "date_published": "2024-01-03"}]}
    got, _ = records(feed_bytes(feed))
    assert [r.lastmod for r in got] == [datetime(2024, 1, 1, 10, tzinfo=UTC),
                                        datetime(2024, 1, 2, 9, tzinfo=UTC), date(2024, 1, 3)]


def test_scope_defaults_to_home_page_url() -> None:
    feed = {"version": V11, "home_page_url": "https://a.example/blog/", "items": [
        {"id": "1", "url": "https://a.example/blog/one"},
        {"id": "2", "url": "https://a.example/shop/two"},
        {"id": "3", "url": "https://cdn.a.example/blog/three"}]}
    report = Report()
    out = io.BytesIO()
    convert([io.BytesIO(feed_bytes(feed))], out, report=report, writing=WriteOptions(to="text"))
    assert out.getvalue() == b"https://a.example/blog/one\n"
    assert report.skipped["off scope"] == 2
    # --base-url wins over the feed's own claim; --no-scope-check keeps everything
    out = io.BytesIO()
    convert([io.BytesIO(feed_bytes(feed))], out, base_url="https://a.example/",
            writing=WriteOptions(to="text"))
    assert out.getvalue().split() == [b"https://a.example/blog/one", b"https://a.example/shop/two"]
    out = io.BytesIO()
    convert([io.BytesIO(feed_bytes(feed))], out, scope_check=False, writing=WriteOptions(to="text"))
    assert len(out.getvalue().split()) == 3


def test_a_home_page_that_is_no_url_is_reported_and_the_first_url_decides() -> None:
    feed = {"version": V11, "home_page_url": "ftp://a.example/",
            "items": [{"id": "1", "url": "https://a.example/x"}]}
    report = Report()
    out = io.BytesIO()
    convert([io.BytesIO(feed_bytes(feed))], out, report=report, writing=WriteOptions(to="text"))
    assert out.getvalue() == b"https://a.example/x\n" and report.warnings["bad site URL"] == 1


@pytest.mark.parametrize("data,message", [
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": [}', r"in:1:59: not valid JSON"),
    (b'{"version": "https://jsonfeed.org/version/1.1",\n "items": [{"id": NaN}]}', "NaN is not"),
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": [Infinity]}', "Infinity is not"),
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": [], "items": []}',
     "'items' appears twice"),
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": [{"url": "https://a.example/",'
     b' "url": "https://b.example/"}]}', "'url' appears twice"),
    (b'[{"version": "https://jsonfeed.org/version/1.1"}]', "the document is an array"),
    (b'{"title": "no version", "items": []}', 'no "version"'),
    (b'{"version": "https://jsonfeed.org/version/1.1"}', '"items" is missing'),
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": {}}', '"items" is missing'),
    ('{"version": "https://jsonfeed.org/version/1.1", "items": []}'.encode("utf-16"), "UTF-16"),
    ('{"version": "https://jsonfeed.org/version/1.1", "items": []}'.encode("utf-16-le"),
     "UTF-16"),
    (b'{"version": "https://jsonfeed.org/version/1.1", "title": "\xff", "items": []}',
     "in:1:59: not UTF-8"),
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": ' + b"[" * 100_000
     + b"]" * 100_000 + b"}", "nested too deeply"),
    (b'{"version": "https://jsonfeed.org/version/1.1", "items": [], "x": ' + b"1" * 4301
     + b"}", r"^in: a number with more digits than Python reads \(4,300\); refused$"),
])
def test_hostile_json_is_refused_with_a_clear_message(data: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        list(read(io.BytesIO(data), ReadOptions(from_format="jsonfeed"), name="in"))


def test_hostile_json_through_the_command_exits_1_without_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "sitemap.xml"
    out.write_bytes(b"old")
    deep = b'{"version": "https://jsonfeed.org/version/1.1", "items": ' + b"[" * 200_000
    huge = b'{"version": "https://jsonfeed.org/version/1", "items": [], "x": ' + b"9" * 5000 + b"}"
    for data in (deep, b'{"version": "https://jsonfeed.org/version/1", "items": [NaN]}', huge):
        src = tmp_path / "feed.json"
        src.write_bytes(data)
        result = run(str(src), "-o", str(out))
        assert result.returncode == 1, result.stderr
        assert b"Traceback" not in result.stderr
        assert result.stderr.startswith(f"feed2sitemap: {src}".encode())
        assert out.read_bytes() == b"old"


def test_a_bom_is_ignored_and_gzip_is_read() -> None:
    data = b"\xef\xbb\xbf" + feed_bytes(SPEC_MINIMAL)
    assert len(records(data)[0]) == 2
    assert len(records(gzip.compress(data))[0]) == 2


def test_over_max_feed_bytes_is_refused_before_parsing(tmp_path: Path) -> None:
    # a huge string is bounded by the size limit, never held past it
    data = b'{"version": "https://jsonfeed.org/version/1.1", "title": "' + b"x" * 5000 + b'"}'
    with pytest.raises(InputError, match="feed larger than 4,096 bytes"):
        list(read(io.BytesIO(data), reading=ReadOptions(max_feed_bytes=4096)))
    src = tmp_path / "big.json"
    src.write_bytes(data)
    result = run(str(src), "--max-feed-bytes", "4096")
    assert result.returncode == 1 and b"--max-feed-bytes" in result.stderr


def test_a_huge_url_string_is_a_skipped_url_not_a_crash() -> None:
    feed = {"version": V11, "items": [{"id": "1", "url": "https://a.example/" + "x" * 100_000},
                                      {"id": "2", "url": "https://a.example/ok"}]}
    report = Report()
    out = io.BytesIO()
    convert([io.BytesIO(feed_bytes(feed))], out, report=report, writing=WriteOptions(to="text"))
    assert out.getvalue() == b"https://a.example/ok\n" and report.skipped["URL too long"] == 1


def test_unknown_later_version_is_read_with_a_warning() -> None:
    feed = dict(SPEC_MINIMAL, version="https://jsonfeed.org/version/2")
    got, report = records(feed_bytes(feed))
    assert len(got) == 2 and report.warnings["feed version"] == 1


@pytest.mark.parametrize("item,kind", [
    ("just a string", "no link"), ({"id": "1"}, "no link"), ({"id": "1", "url": 5}, "no link"),
])
def test_items_without_a_page_are_skipped_and_counted(item: Any, kind: str) -> None:
    got, report = records(feed_bytes({"version": V11, "items": [item]}))
    assert got == [] and report.skipped[kind] == 1


def test_detected_from_content_and_forced_with_from() -> None:
    minified = json.dumps(SPEC_MINIMAL, separators=(",", ":")).encode()
    escaped = minified.replace(b"https://jsonfeed.org/version/", b"https:\\/\\/jsonfeed.org\\/"
                                                               b"version\\/")
    for data in (feed_bytes(SPEC_MINIMAL), minified, escaped):
        assert sniff(data, "in") == "jsonfeed"
        assert len(records(data)[0]) == 2
    result = CliRunner().invoke(convert_command, ["-", "-f", "jsonfeed", "-t", "text", "-q"],
                                input=feed_bytes(SPEC_MINIMAL))
    assert result.exit_code == 0, result.output
    assert result.output.split() == ["https://example.org/second-item",
                                     "https://example.org/initial-post"]
