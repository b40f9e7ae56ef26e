"""Extensions on the data path: a Record carries them, write() puts them in the urlset with
exact byte accounting, merging keeps each kind from the newest copy, and outputs that cannot
carry them say how many were left out."""

from __future__ import annotations

import io
import json
import re
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings

from feed2sitemap import Limits, Record, Report, WriteOptions, batched, read, unbatched, write
from feed2sitemap.backends import reference
from feed2sitemap.extensions import Alternate, Extensions, Foreign, Image, Video
from feed2sitemap.extensions.jsonform import from_json
from feed2sitemap.extensions.xmlout import serialize
from feed2sitemap.pipeline.steps import merge

from .conftest import ROOT, conformance, run
from .test_extensions_xml import EVERY_KIND, EXTENSIONS, _lax_sitemap_schema

PAGE = "https://e.example/a"
IMAGES = Extensions(images=(Image("https://cdn.example/1.jpg"), Image("https://cdn.example/2.jpg")))
ALTERNATES = Extensions(alternates=(Alternate("de", "https://e.example/de/a"),
                                    Alternate("en", PAGE)))


def test_a_plain_record_equals_one_with_empty_extensions() -> None:
    assert Record(PAGE) == Record(PAGE, extensions=Extensions())
    assert Record(PAGE) != Record(PAGE, extensions=IMAGES)


def test_every_kind_is_written_in_the_urlset_and_the_file_is_schema_valid() -> None:
    out = io.BytesIO()
    write([Record(PAGE, date(2024, 1, 1), extensions=EVERY_KIND), Record(PAGE + "/b")], out)
    data = out.getvalue()
    assert serialize(EVERY_KIND, _prefixes(data)).encode() in data
    _lax_sitemap_schema().validate(io.BytesIO(data))


def _prefixes(data: bytes) -> dict[str, str]:
    head = data.split(b">", 2)[1].decode()
    return {ns: prefix for prefix, ns in
            (part.split("=", 1) for part in head.replace('"', "").split()[1:]
             if part.startswith("xmlns:")) for prefix in [prefix[len("xmlns:"):]]}


def test_a_plain_run_writes_the_bytes_it_always_wrote() -> None:
    out = io.BytesIO()
    write([Record(PAGE)], out)
    assert out.getvalue() == (b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
                              b'"http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                              b"<url><loc>https://e.example/a</loc></url>\n</urlset>\n")


def test_split_by_bytes_counts_every_extension_byte(tmp_path: Path) -> None:
    records = [Record(f"{PAGE}/{i:02d}", extensions=IMAGES) for i in range(40)]
    one = io.BytesIO()
    write(records[:1], one)
    entry = len(one.getvalue().split(b"\n")[2]) + 1
    header = len(one.getvalue()) - entry
    limit = header + 10 * entry  # exactly ten entries a file
    summary = write(records, tmp_path / "s.xml", base_url="https://e.example/",
                    limits=Limits(max_bytes=limit))
    assert [f.count for f in summary.parts] == [10, 10, 10, 10]
    assert all(f.size == limit for f in summary.parts)
    assert all((tmp_path / f"s-{n}.xml").stat().st_size == limit for n in range(1, 5))


def test_a_namespace_first_seen_later_is_declared_where_it_is_used() -> None:
    later = Extensions(foreign=(Foreign("urn:x:later", "thing", (), ("t",)),))
    records = [Record(PAGE, extensions=IMAGES)] + [Record(f"{PAGE}/{i}") for i in range(2100)]
    records.append(Record(PAGE + "/last", extensions=later))
    out = io.BytesIO()
    write(records, out)
    data = out.getvalue()
    assert b"urn:x:later" not in data.split(b"\n")[1]  # not known when <urlset> was written
    _lax_sitemap_schema().validate(io.BytesIO(data))


def copies(*records: Record) -> list[Record]:
    return list(unbatched(merge(batched(list(records)))))


def test_merging_takes_each_kind_from_the_newest_copy_that_has_it() -> None:
    sitemap = Record(PAGE, date(2024, 1, 1), extensions=Extensions(
        images=IMAGES.images, alternates=ALTERNATES.alternates))
    feed = Record(PAGE, date(2024, 6, 1), extensions=Extensions(
        images=(Image("https://cdn.example/new.jpg"),)))
    (merged,) = copies(sitemap, feed)
    assert merged.lastmod == date(2024, 6, 1)
    # the feed is newer: its images win; it has no alternates, so the sitemap's stay
    assert merged.extensions == Extensions(images=feed.extensions.images,
                                           alternates=ALTERNATES.alternates)


def test_merging_a_chain_of_copies_decides_each_kind_by_its_own_newest_copy() -> None:
    video = Video("https://e.example/t.jpg", "T", "D", "https://e.example/v.mp4")
    a = Record(PAGE, date(2024, 1, 1), extensions=Extensions(images=IMAGES.images,
                                                             videos=(video,)))
    b = Record(PAGE, date(2024, 9, 1), extensions=ALTERNATES)
    c = Record(PAGE, date(2024, 5, 1), extensions=Extensions(images=(Image("https://c/x.jpg"),)))
    (merged,) = copies(a, b, c)
    assert merged.extensions.images == (Image("https://c/x.jpg"),)  # c is newer than a
    assert merged.extensions.videos == (video,) and merged.extensions.alternates


def test_a_tie_keeps_the_first_copys_extensions() -> None:
    first = Record(PAGE, date(2024, 1, 1), extensions=IMAGES)
    second = Record(PAGE, date(2024, 1, 1), extensions=Extensions(
        images=(Image("https://c/other.jpg"),)))
    assert copies(first, second)[0].extensions == IMAGES


@pytest.mark.parametrize("to", ["text", "rss", "atom"])
def test_outputs_without_a_place_for_extensions_count_what_they_leave_out(to: str) -> None:
    out = io.BytesIO()
    # (dated: an Atom entry without a date is a warning of its own, test_check_info.py)
    day = date(2024, 1, 1)
    summary = write([Record(PAGE, day, extensions=IMAGES), Record(PAGE + "/b", day)], out,
                    writing=WriteOptions(to=to))
    assert summary.urls == 2
    assert summary.report.warnings == {"extensions left out": 1}
    (problem,) = summary.report.problems
    assert problem.url == PAGE and "images" in problem.reason


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(EXTENSIONS)
def test_json_lines_carry_any_extensions_losslessly(ext: Extensions) -> None:
    out = io.BytesIO()
    summary = write([Record(PAGE, extensions=ext)], out, writing=WriteOptions(to="jsonl"))
    assert not summary.report.warnings
    assert from_json(json.loads(out.getvalue())) == (ext, [])


def test_json_lines_read_the_npm_sitemap_names() -> None:
    ext, problems = from_json({"url": PAGE, "img": ["https://cdn.example/1.jpg"],
                               "links": [{"lang": "de", "url": "https://e.example/de/a"}]})
    assert problems == []
    assert ext == Extensions(images=(Image("https://cdn.example/1.jpg"),),
                             alternates=(Alternate("de", "https://e.example/de/a"),))


# What sitemap.js's ``sitemap --parse`` writes for its alltags.xml mock: the first five URLs,
# written by hand from its parser's shapes (lib/sitemap-parser.ts, lib/types.ts; no node module
# here to run it). Its parser keeps no <video:id type="…">; the rest is all there.
SITEMAP_JS_LINES = ROOT / "tests" / "data" / "sitemap-js-parse.jsonl"


def test_sitemap_js_parse_output_keeps_every_extension(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    done = run(str(SITEMAP_JS_LINES), "-o", str(out), "--no-scope-check")
    assert done.returncode == 0, done.stderr
    assert b"dropped" not in done.stderr and b"unknown" not in done.stderr, done.stderr
    text = out.read_text()
    for written in ("<image:loc>http://test.com/img2.jpg", "<image:geo_location>London",
                    "<video:tag>flies&amp;", "<video:family_friendly>no<",
                    "<video:requires_subscription>yes<", 'allow_embed="yes" autoplay="ap=1',
                    '<video:restriction relationship="deny">IE GB US CA<',
                    '<video:platform relationship="allow">tv<', "<video:category>Baking",
                    '<video:price resolution="HD" currency="USD" type="rent">1.99<',
                    '<video:uploader info="http://www.example.com/users/grillymcgrillerson">',
                    "<news:name>The Example Times", "<news:language>en<",
                    "<news:stock_tickers>NASDAQ:A, NASDAQ:B<", 'hreflang="ja"',
                    '<xhtml:link rel="amphtml" href="http://ampproject.org/article.amp.html'):
        assert written in text, written
    assert run("check", str(out)).returncode == 0
    lines = run(str(SITEMAP_JS_LINES), "-t", "jsonl", "--no-scope-check").stdout.splitlines()
    video = json.loads(lines[1])["videos"][0]
    assert video["family_friendly"] is False and video["tags"] == ["steak&><'\""]
    # the same <url> elements as the XML they were parsed from, but for <video:id>: sitemap.js's
    # parser drops its type, which Google's schema requires, so the line's id is left out
    assert b"videos[0].id: no type attribute: left out" in done.stderr
    xml = tmp_path / "xml.xml"
    assert run(conformance("sitemap.js-mocks", "alltags.xml").as_posix(), "-o", str(xml),
               "--no-scope-check").returncode == 0
    urls = re.findall(r"<url>.*?</url>",
                      re.sub(r"<video:id [^>]*>[^<]*</video:id>", "", xml.read_text()))
    assert re.findall(r"<url>.*?</url>", text) == urls[:5]


def test_sitemap_js_members_we_do_not_read_are_named_once(tmp_path: Path) -> None:
    video = {"thumbnail_loc": PAGE + ".jpg", "title": "T", "description": "D",
             "content_loc": PAGE + ".mp4"}
    lines = [{"url": f"{PAGE}/{i}", "img": [{"url": PAGE + ".jpg", "alt": "A"}],
              "video": [{**video, "restriction": "IE"}, {**video, "live": "maybe"}]}
             for i in range(2)]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = run(str(src), "-o", str(tmp_path / "out.xml"))
    assert done.returncode == 0 and b"Traceback" not in done.stderr
    err = done.stderr.decode()
    assert err.count("in.jsonl:1: warning: img: member 'alt' ignored") == 1
    assert err.count("video[0].restriction: no restriction:relationship") == 2
    assert err.count('video[1]: live must be true or false, not "maybe"') == 2
    assert "warnings: 4 bad extension, 1 unknown field" in err
    assert (tmp_path / "out.xml").read_text().count("<video:video>") == 2


# --- read from sitemaps, through the command, and kept when a feed grows the sitemap ------------

def _sitemap(*entries: tuple[str, Extensions]) -> bytes:
    out = io.BytesIO()
    write([Record(loc, date(2024, 1, 1), extensions=ext) for loc, ext in entries], out)
    return out.getvalue()


def test_every_kind_survives_a_round_trip_through_the_command(tmp_path: Path) -> None:
    unknown = Foreign("urn:example:rating", "stars", (("scale", "5"),), ("4",))
    ext = Extensions(EVERY_KIND.images, EVERY_KIND.videos, EVERY_KIND.news,
                     EVERY_KIND.alternates, EVERY_KIND.mobile, (*EVERY_KIND.foreign, unknown))
    page = "https://example.com/"  # among its own alternates, as Google asks
    (tmp_path / "in.xml").write_bytes(_sitemap((page, ext), (page + "plain", Extensions())))
    done = run(str(tmp_path / "in.xml"), "-o", str(tmp_path / "out.xml"))
    assert done.returncode == 0, done.stderr
    assert b"warning" not in done.stderr
    got = {r.loc: r.extensions for r in read(tmp_path / "out.xml")}
    assert got == {page: ext, page + "plain": Extensions()}


FEED = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<link>https://e.example/</link><description>d</description>
<item><title>A</title><link>https://e.example/a</link>
<pubDate>Sat, 01 Jun 2024 00:00:00 GMT</pubDate></item>
<item><title>N</title><link>https://e.example/new</link>
<pubDate>Sat, 01 Jun 2024 00:00:00 GMT</pubDate></item></channel></rss>"""


def test_growing_a_sitemap_from_a_feed_keeps_its_images_and_alternates(tmp_path: Path) -> None:
    ext = Extensions(images=IMAGES.images, alternates=ALTERNATES.alternates)
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_bytes(_sitemap((PAGE, ext), (PAGE + "/other", IMAGES)))
    (tmp_path / "feed.xml").write_bytes(FEED)
    done = run(str(sitemap), str(tmp_path / "feed.xml"), "-o", str(sitemap))
    assert done.returncode == 0, done.stderr
    got = {r.loc: r for r in read(sitemap)}
    assert got[PAGE].lastmod == datetime(2024, 6, 1, tzinfo=timezone.utc)
    assert got[PAGE].extensions == ext  # the feed's copy is newer but carries none
    assert got[PAGE + "/other"].extensions == IMAGES
    assert "https://e.example/new" in got


def test_a_plain_sitemap_never_turns_the_extension_pass_on(tmp_path: Path) -> None:
    data = _sitemap((PAGE, Extensions()), (PAGE + "/b", Extensions()))
    assert b"xmlns:" not in data
    records = list(read(io.BytesIO(data)))
    assert [r.extensions for r in records] == [Extensions(), Extensions()]


def test_an_unknown_sitemaps_org_element_is_skipped_with_a_warning(tmp_path: Path) -> None:
    data = (b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
            b' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n<url>'
            b"<loc>https://e.example/a</loc>\n<rating>5</rating>"
            b"<image:image><image:loc>https://c.example/1.jpg</image:loc></image:image>"
            b"</url></urlset>")
    report = Report()
    (record,) = read(io.BytesIO(data), report=report)
    assert record.extensions == Extensions(images=(Image("https://c.example/1.jpg"),))
    assert report.warnings == {"unknown element": 1}
    assert report.problems[0].line == 3


@pytest.mark.parametrize("mode", ["", "1"], ids=["fast", "reference"])
@pytest.mark.parametrize("root", [
    'urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"', "urlset"])
def test_an_unknown_element_of_a_plain_sitemap_is_reported_too(
        monkeypatch: pytest.MonkeyPatch, mode: str, root: str) -> None:
    # With no second namespace the sitemap is read without the extension pass; an element of
    # its own namespace that the schema lacks used to go unsaid there. Each is told, with its
    # line, in either mode and with or without the namespace (the root's end is no such
    # element); the pages are kept, and a sitemap with none is read without a warning.
    monkeypatch.setenv("FEED2SITEMAP_REFERENCE", mode)
    entries = "".join(f"<url><loc>https://e.example/{i}</loc></url>\n" for i in range(3000))
    data = (f"<?xml version='1.0'?><{root}>\n{entries}<url><loc>https://e.example/a</loc>\n"
            f"<rating>5</rating></url>\n<url><loc>https://e.example/b</loc></url>{entries}"
            f"</{root.split()[0]}>").encode()
    report = Report()
    records = list(read(io.BytesIO(data), report=report))
    assert len(records) == 6002
    assert report.warnings == {"unknown element": 1} if root != "urlset" else {
        "unknown element": 1, "namespace": 1}
    (problem,) = [p for p in report.problems if p.kind == "unknown element"]
    assert (problem.line, problem.url) == (3003, "https://e.example/a")
    assert "unknown element <rating>" in problem.reason
    report = Report()
    assert len(list(read(io.BytesIO(data.replace(b"<rating>5</rating>", b"")),
                         report=report))) == 6002
    assert report.warnings == ({} if root != "urlset" else {"namespace": 1})


def test_a_changefreq_in_a_sitemap_index_is_reported() -> None:
    data = (b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap>'
            b"<loc>https://e.example/s1.xml</loc><changefreq>daily</changefreq></sitemap>"
            b"</sitemapindex>")
    report = Report()
    (record,) = read(io.BytesIO(data), report=report)
    assert (record.loc, record.changefreq) == ("https://e.example/s1.xml", None)
    assert report.warnings == {"unknown element": 1}


# --- feeds: enclosures, Media RSS, iTunes, multilingual Atom -----------------------------------

MEDIA = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "media-feeds"


def _media(name: str) -> Path:
    path = MEDIA / name
    if not path.exists():
        pytest.skip(f"{path} is not there (../shared is optional)")
    return path


def test_a_youtube_channel_feed_gives_each_video_with_its_thumbnail() -> None:
    (record,) = read(_media("feed-io__sample-youtube.xml"))
    (video,) = record.extensions.videos
    assert video.thumbnail_loc == "https://i2.ytimg.com/vi/YT_VIDEO_ID/hqdefault.jpg"
    assert video.title == "YT_VIDEO_TITLE"
    assert video.player_loc == "https://www.youtube.com/v/YT_VIDEO_ID?version=3"
    assert record.extensions.images[0].loc == video.thumbnail_loc


def test_a_podcast_episode_gets_its_itunes_image() -> None:
    (record,) = read(_media("feed-rs__rss_2.0_anchorfm.xml"))
    assert [i.loc for i in record.extensions.images] == [
        "https://d3t3ozftmdmh3i.cloudfront.net/production/podcast_uploaded/23591441/"
        "23591441-1649013735716-25c2d16df92e8.jpg"]


ATOM_I18N = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>urn:x</id>
<updated>2024-05-01T00:00:00Z</updated><link href="https://e.example/"/>
<entry><title>Hello</title><id>urn:x:1</id><updated>2024-05-01T00:00:00Z</updated>
<link rel="alternate" hreflang="en" href="https://e.example/en/hello"/>
<link rel="alternate" hreflang="de" href="https://e.example/de/hallo"/>
<link rel="alternate" hreflang="x-default" href="https://e.example/en/hello"/>
</entry></feed>"""


def test_a_multilingual_atom_entry_gives_its_alternates() -> None:
    (record,) = read(io.BytesIO(ATOM_I18N))
    assert record.loc == "https://e.example/en/hello"
    assert [(a.hreflang, a.href) for a in record.extensions.alternates] == [
        ("en", "https://e.example/en/hello"), ("de", "https://e.example/de/hallo"),
        ("x-default", "https://e.example/en/hello")]


@pytest.mark.skipif(reference(), reason="the reference mode reads every feed with feedparser")
def test_a_feed_without_such_markup_keeps_the_fast_path() -> None:
    (record,) = read(io.BytesIO(FEED.replace(b"<item><title>N</title><link>https://e.example/new"
                                             b"</link>\n<pubDate>Sat, 01 Jun 2024 00:00:00 GMT"
                                             b"</pubDate></item>", b"")))
    assert record.line is not None  # the fast pass gives lines; feedparser gives none
    assert not record.extensions


def test_a_feed_grows_a_sitemap_with_its_images(tmp_path: Path) -> None:
    feed = FEED.replace(b"<item><title>A</title>", b'<item><title>A</title><enclosure url="'
                        b'https://cdn.example/a.jpg" type="image/jpeg" length="1"/>')
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_bytes(_sitemap((PAGE, ALTERNATES)))
    (tmp_path / "feed.xml").write_bytes(feed)
    done = run(str(sitemap), str(tmp_path / "feed.xml"), "-o", str(sitemap))
    assert done.returncode == 0, done.stderr
    (page,) = [r for r in read(sitemap) if r.loc == PAGE]
    assert page.extensions == Extensions(images=(Image("https://cdn.example/a.jpg"),),
                                         alternates=ALTERNATES.alternates)


def test_ultimate_sitemap_parser_reads_our_images_news_and_alternates_back() -> None:
    """A real client (ultimate-sitemap-parser, which does not read videos) sees what we wrote."""
    from usp.tree import sitemap_from_str

    out = io.BytesIO()
    write([Record("https://example.com/", extensions=EVERY_KIND)], out)
    (page,) = sitemap_from_str(out.getvalue().decode()).all_pages()
    assert [i.loc for i in page.images] == [i.loc for i in EVERY_KIND.images]
    assert page.images[1].caption == EVERY_KIND.images[1].caption
    (news,) = EVERY_KIND.news
    assert (page.news_story.title, page.news_story.publication_name,
            page.news_story.publication_language) == (news.title, news.name, news.language)
    assert page.alternates == [(a.hreflang, a.href) for a in EVERY_KIND.alternates]


def test_merging_keeps_the_order_of_one_copys_foreign_elements() -> None:
    # elements of two namespaces, interleaved: written back in their order (issue 17: order
    # may not change), whether the URL has one copy or a second one without foreign elements
    a1, b1, a2 = (Foreign("urn:a", "x", (), ("1",)), Foreign("urn:b", "y", (), ("2",)),
                  Foreign("urn:a", "x", (), ("3",)))
    ext = Extensions(foreign=(a1, b1, a2))
    assert copies(Record(PAGE, extensions=ext))[0].extensions == ext
    assert copies(Record(PAGE, date(2024, 1, 1), extensions=ext),
                  Record(PAGE, date(2024, 6, 1), extensions=IMAGES))[0].extensions == Extensions(
        images=IMAGES.images, foreign=(a1, b1, a2))
