"""Readers: text lists, XML sitemaps and indexes, feeds — records out, problems reported."""

from __future__ import annotations

import gzip
import io
from datetime import date, datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feed2sitemap import InputError, ReadOptions, Record, Report, read
from feed2sitemap.extensions import Alternate, Extensions, Image
from feed2sitemap.model.scope import scope_of
from feed2sitemap.model.urls import normalize_url
from feed2sitemap.pipeline.steps import normalize, within_scope
from feed2sitemap.readers.text import MAX_LINE, SPACE_LEADS, read_text

UTC = timezone.utc


def records(data: bytes, format: str = "auto", max_feed_bytes: int = ReadOptions().max_feed_bytes,
            **kw: object) -> tuple[list[Record], Report]:
    report = Report()
    reading = ReadOptions(from_format=format, max_feed_bytes=max_feed_bytes)
    got = list(read(io.BytesIO(data), reading, report=report, **kw))  # type: ignore[arg-type]
    return got, report


# --- text lists ---------------------------------------------------------------------------

def test_text_list_strips_bom_crlf_blank_lines_and_whitespace() -> None:
    got, _ = records(b"\xef\xbb\xbfhttps://a.example/1\r\n\r\n  https://a.example/2 \n\n")
    assert [r.loc for r in got] == ["https://a.example/1", "https://a.example/2"]
    assert [r.line for r in got] == [1, 3]


def test_text_list_that_is_not_utf8_names_line_and_byte_offset() -> None:
    with pytest.raises(InputError) as err:
        records(b"https://a.example/1\nhttps://a.example/\xe9t\xe9\n", "text")
    assert err.value.line == 2
    assert "byte offset 38" in str(err.value)


def test_utf16_text_list_gets_a_message_that_says_so() -> None:
    with pytest.raises(InputError, match="UTF-16"):
        records("https://a.example/1\r\n".encode("utf-16"))


def test_text_line_longer_than_the_limit_is_refused() -> None:
    with pytest.raises(InputError, match="longer than"):
        records(b"https://a.example/" + b"a" * MAX_LINE + b"\n", "text")


def test_text_line_just_under_the_limit_is_read() -> None:
    url = b"https://a.example/" + b"a" * (MAX_LINE - 19)
    got, _ = records(url + b"\n", "text")
    assert got[0].loc == url.decode()


# --- XML sitemaps ---------------------------------------------------------------------------

URLSET = b"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>  https://www.example.com/a?x=1&amp;y=2
    </loc>
    <lastmod>2024-03-05T10:15:00+01:00</lastmod>
    <changefreq>weekly</changefreq>
    <priority>0.8</priority>
    <image:image><image:loc>https://img.example.com/a.jpg</image:loc></image:image>
    <xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/a"/>
  </url>
  <url><loc><![CDATA[https://www.example.com/b?q=<x>&r=1]]></loc><lastmod>2024-01-02</lastmod></url>
</urlset>
"""


def test_urlset_gives_all_four_fields_and_the_extensions() -> None:
    got, report = records(URLSET)
    assert got == [
        Record("https://www.example.com/a?x=1&y=2",
               datetime(2024, 3, 5, 9, 15, tzinfo=UTC), "weekly", 0.8,
               extensions=Extensions(images=(Image("https://img.example.com/a.jpg"),),
                                     alternates=(Alternate("de", "https://www.example.com/de/a"),))),
        Record("https://www.example.com/b?q=<x>&r=1", date(2024, 1, 2)),
    ]
    assert [r.line for r in got] == [7, 14]  # the line where each entry's </loc> is
    # Google: each version lists itself among its alternates; a warning, nothing dropped
    assert report.warnings == {"bad alternates extension": 1} and not report.skipped


def test_sitemap_index_gives_sitemap_records() -> None:
    doc = b"""<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
    <sitemap><loc>https://e.example/s1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
    <sitemap><loc>https://e.example/s2.xml</loc></sitemap></sitemapindex>"""
    got, _ = records(doc)
    assert got == [Record("https://e.example/s1.xml", date(2024, 1, 1), is_sitemap=True),
                   Record("https://e.example/s2.xml", is_sitemap=True)]


@pytest.mark.parametrize("field,value,kind", [
    ("lastmod", "05/03/2024", "bad lastmod"),
    ("lastmod", "2024-03-05T10:00:00", "bad lastmod"),
    ("changefreq", "sometimes", "bad changefreq"),
    ("priority", "1.5", "bad priority"),
    ("priority", "high", "bad priority"),
])
def test_bad_field_is_dropped_the_record_kept_and_a_warning_given(field: str, value: str,
                                                                  kind: str) -> None:
    doc = (f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n<url>'
           f"<loc>https://e.example/</loc><{field}>{value}</{field}></url></urlset>").encode()
    messages: list[str] = []
    report = Report(on_message=messages.append)
    got = list(read(io.BytesIO(doc), report=report))
    assert got == [Record("https://e.example/")]
    assert report.warnings[kind] == 1
    assert messages[0].startswith("<stream>:2: warning:")


def test_bad_field_under_strict_is_an_error() -> None:
    doc = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>'
           b"<loc>https://e.example/</loc><priority>2</priority></url></urlset>")
    with pytest.raises(InputError, match="strict"):
        list(read(io.BytesIO(doc), report=Report(strict=True)))


def test_url_without_loc_is_skipped_and_counted() -> None:
    doc = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
           b"<url><lastmod>2024-01-01</lastmod></url><url><loc>https://e.example/</loc></url>"
           b"</urlset>")
    got, report = records(doc)
    assert len(got) == 1 and report.skipped["no loc"] == 1


def test_broken_urlset_is_an_error_with_line_and_column() -> None:
    doc = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
           b"<url><loc>https://e.example/a</loc></url>\n"
           b"<url><loc>https://e.example/b?x=1&y=2</loc></url>\n</urlset>")
    with pytest.raises(InputError) as err:
        records(doc)
    # expat stops where the entity reference "&y=" turns out not to be one
    assert (err.value.line, err.value.column) == (3, 36)
    assert "not well-formed" in str(err.value)


def test_sitemap_value_longer_than_64k_is_refused() -> None:
    doc = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://e/'
           + b"a" * 70000 + b"</loc></url></urlset>")
    with pytest.raises(InputError, match="longer than 65,536"):
        records(doc)


def test_sitemap_with_entity_declaration_is_refused() -> None:
    doc = (b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>&x;</loc>'
           b"</url></urlset>")
    with pytest.raises(InputError, match="entities"):
        records(doc)


def test_gzip_input_is_detected_by_magic_bytes() -> None:
    got, _ = records(gzip.compress(URLSET))
    assert len(got) == 2


def test_sitemap_is_streamed_in_chunks() -> None:
    # 3,000 URLs over many 64 KiB chunks: every record arrives, in order, with its line
    body = b"".join(b"<url><loc>https://e.example/%d</loc></url>\n" % i for i in range(3000))
    doc = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + body + b"</urlset>"
    got, _ = records(doc)
    assert [r.loc for r in got] == [f"https://e.example/{i}" for i in range(3000)]
    assert got[-1].line == 3001


# --- feeds -------------------------------------------------------------------------------------

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>t</title><link>https://blog.example/</link>
<item><link>https://blog.example/a</link><pubDate>Tue, 05 Mar 2024 10:15:00 +0100</pubDate></item>
<item><guid>https://blog.example/b</guid></item>
<item><guid isPermaLink="false">x-1</guid><title>no link</title></item>
</channel></rss>"""


def test_rss_items_give_link_and_pubdate_in_utc() -> None:
    got, report = records(RSS)
    assert got == [Record("https://blog.example/a", datetime(2024, 3, 5, 9, 15, tzinfo=UTC)),
                   Record("https://blog.example/b")]
    assert report.skipped["no link"] == 1


def test_atom_entry_prefers_alternate_link_and_updated_time() -> None:
    doc = b"""<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://a.example/x/">
    <title>t</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>
    <entry><id>urn:1</id><title>1</title>
      <link rel="enclosure" href="https://cdn.example/1.mp3"/><link rel="alternate" href="p1"/>
      <published>2023-01-01T00:00:00Z</published><updated>2024-02-02T02:02:02+02:00</updated>
    </entry></feed>"""
    got, _ = records(doc)
    assert got == [Record("https://a.example/x/p1", datetime(2024, 2, 2, 0, 2, 2, tzinfo=UTC))]


def test_malformed_feed_is_read_with_a_warning() -> None:
    broken = RSS.replace(b"</channel></rss>", b"")
    got, report = records(broken)
    assert len(got) == 2
    assert report.warnings["malformed feed"] == 1


def test_malformed_feed_under_strict_is_an_error() -> None:
    with pytest.raises(InputError, match="malformed"):
        list(read(io.BytesIO(RSS.replace(b"</channel></rss>", b"")),
                  report=Report(strict=True)))


def test_feed_with_entity_declaration_is_refused_before_feedparser_sees_it() -> None:
    doc = (b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           b'<rss version="2.0"><channel><item><link>https://e.example/&x;</link></item>'
           b"</channel></rss>")
    with pytest.raises(InputError, match="entities"):
        records(doc)


def test_feed_with_entities_is_refused_when_only_feedparser_could_read_it() -> None:
    # Text before the XML declaration: expat stops there, before the DOCTYPE, so the fast
    # path's own refusal never runs and the feed would go to feedparser.
    doc = (b'\n<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x "expanded">]>'
           b'<rss version="2.0"><channel><item><link>https://e.example/&x;</link></item>'
           b"</channel></rss>")
    with pytest.raises(InputError, match="entities"):
        records(doc, "feed")


def test_feed_over_the_size_limit_is_refused() -> None:
    with pytest.raises(InputError, match="larger than 100 bytes"):
        records(RSS, max_feed_bytes=100)


def test_relative_feed_link_is_resolved_against_base_url() -> None:
    doc = b'<rss version="2.0"><channel><item><link>/post/1</link></item></channel></rss>'
    got, _ = records(doc, base_url="https://e.example/blog/")
    assert got[0].loc == "https://e.example/post/1"


def test_problems_of_several_entries_are_reported_in_line_order() -> None:
    doc = (b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
           b"<url><loc>https://e.example/1</loc><priority>9</priority></url>\n"
           b"<url><lastmod>2024-01-01</lastmod></url>\n"
           b"<url><loc>https://e.example/3</loc><lastmod>soon</lastmod></url>\n"
           b"<url><loc>https://e.example/4</loc><lastmod>2024-01-01</lastmod>"
           b"<changefreq>Weekly</changefreq></url>\n</urlset>")
    messages: list[str] = []
    got = list(read(io.BytesIO(doc), report=Report(on_message=messages.append)))
    assert [m.split(": ")[0] for m in messages] == ["<stream>:2", "<stream>:3", "<stream>:4",
                                                    "<stream>:5"]
    assert [r.loc for r in got] == ["https://e.example/1", "https://e.example/3",
                                    "https://e.example/4"]
    assert got[2].lastmod == date(2024, 1, 1) and got[2].changefreq == "weekly"


# Lines of URL lists as sites write them: mostly clean, on one host or a few, with the odd
# space, blank line, CRLF, non-ASCII character, escape or other host among them.
_TEXT_LINES = st.one_of(
    st.builds("https://a.example/{}".format, st.text("abz09-_/?=&;%.~", max_size=12)),
    st.sampled_from(["https://b.example/x", "http://a.example/y", "https://a.example.org/z",
                     " https://a.example/sp", "https://a.example/tab\t", "", "https://a.example/é",
                     "https://A.example/Up", "https://a.example/%zz", "https://a.example",
                     "ftp://a.example/f", "https://a.example/cr\r", "https://a.example/<x>"]),
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(_TEXT_LINES, max_size=40), st.booleans(),
       st.sampled_from([None, "https://a.example/", "https://a.example/ab/"]))
def test_text_blocks_read_like_lines_one_by_one(lines: list[str], final_newline: bool,
                                                base_url: str | None) -> None:
    """However a block is read (proof by prefix, regex, or line by line), what comes out of the
    reader, normalize and the scope check is what normalizing each stripped line would give."""
    data = ("\n".join(lines) + ("\n" if final_newline else "")).encode()
    report = Report()
    scope = scope_of(base_url) if base_url else None
    got = [loc for batch in within_scope(normalize(
        read_text(io.BytesIO(data), "t.txt", report), report), report, scope)
        for loc in batch.locs]
    want = []
    first_scope = scope
    for raw in "\n".join(lines).split("\n"):
        try:
            url = normalize_url(raw.strip()) if raw.strip() else None
        except ValueError:
            url = None
        if url is None:
            continue
        if first_scope is None:
            first_scope = scope_of(url, directory=False)
        if first_scope.contains(url):
            want.append(url)
    assert got == want


def test_space_leads_cover_every_character_strip_removes() -> None:
    """A block with none of these bytes has nothing to strip: the reader then skips strip()."""
    leads = {chr(c).encode("utf-8")[0] for c in range(0x110000)
             if not 0xD800 <= c < 0xE000 and c != 10 and chr(c).isspace()}
    assert leads <= set(SPACE_LEADS)
