"""Extensions from feed entries as feedparser gives them (extensions/feed.py)."""

from __future__ import annotations

import io
from typing import Any

import feedparser
import pytest

from feed2sitemap.extensions import (
    Alternate,
    Extensions,
    Image,
)
from feed2sitemap.extensions.feed import extensions_for_entry, parse_duration, plain_text
from feed2sitemap.extensions.model import Problem
from tests.conftest import conformance

MEDIA = ' xmlns:media="http://search.yahoo.com/mrss/"'
ITUNES = ' xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"'


def first(name: str) -> tuple[Extensions, list[Problem], Any]:
    parsed = feedparser.parse(conformance("media-feeds", name).read_bytes())
    entry = parsed.entries[0]
    ext, problems = extensions_for_entry(entry, parsed.feed, page=entry.get("link"))
    return ext, problems, entry


def rss_item(inner: str, channel: str = "") -> tuple[Extensions, list[Problem]]:
    data = (f'<rss version="2.0"{MEDIA}{ITUNES}><channel><title>c</title>'
            f"<link>https://example.com/</link>{channel}<item><title>An item</title>"
            f"<link>https://example.com/a</link>{inner}</item></channel></rss>").encode()
    parsed = feedparser.parse(data)
    return extensions_for_entry(parsed.entries[0], parsed.feed, page="https://example.com/a",
                                base="https://example.com/feed")


def test_youtube_channel_feed_gives_a_video_and_its_thumbnail() -> None:
    ext, problems, _ = first("feed-rs__atom_mediarss_youtube_1.xml")
    (video,) = ext.videos
    assert problems == []
    assert video.player_loc == "https://www.youtube.com/v/0A1ouV7iD8o?version=3"  # flash
    assert video.content_loc is None
    assert video.thumbnail_loc == "https://i1.ytimg.com/vi/0A1ouV7iD8o/hqdefault.jpg"
    assert video.title == "Navigating with Quantum Entanglement"
    assert video.description.startswith("Check Out Weathered on PBS Terra")
    assert (video.view_count, video.rating) == (304_321, 4.95)
    assert video.publication_date is not None and video.publication_date.year == 2020
    assert ext.images == (Image(video.thumbnail_loc),)


def test_vimeo_feed_gives_player_and_duration() -> None:
    ext, problems, _ = first("feed-rs__rss_2.0_vimeo_media.xml")
    (video,) = ext.videos
    assert problems == []
    assert video.player_loc == "https://player.vimeo.com/video/1013595996?h=b1b80eff69"
    assert video.duration == 610 and video.content_loc is None
    assert video.description.endswith("you'll want to mark on your calendar!")  # unescaped


def test_podcast_feed_gives_its_itunes_image_and_no_video() -> None:
    ext, problems, _ = first("feed-rs__rss_2.0_anchorfm.xml")
    assert not ext.videos and problems == []  # audio is no video
    assert [i.loc for i in ext.images] == [
        "https://d3t3ozftmdmh3i.cloudfront.net/production/podcast_uploaded/23591441/"
        "23591441-1649013735716-25c2d16df92e8.jpg"]


def test_media_content_video_and_image_types() -> None:
    ext, _, _ = first("node-feedparser__mediacontent-dupes.xml")
    (video,) = ext.videos
    assert video.content_loc is not None and video.content_loc.endswith("-697.mp4")
    assert video.thumbnail_loc.endswith("_154x115.jpg")
    # the image given as media:content and as media:thumbnail is listed once
    assert [i.loc for i in ext.images] == [video.thumbnail_loc]


def test_media_content_medium_image() -> None:
    ext, _, _ = first("feed-rs__atom_mediarss_newscred_1.xml")
    assert not ext.videos
    assert len(ext.images) == 2 and ext.images[0].loc.endswith("/.jpeg")


@pytest.mark.parametrize("name", ["feed-io__rss-enclosure.xml", "feed-rs__rss_2.0_bbc.xml"])
def test_audio_enclosures_give_nothing(name: str) -> None:
    ext, problems, _ = first(name)
    assert not ext.videos and not ext.images and problems == []


def test_image_enclosures_relative_and_deduplicated() -> None:
    ext, _ = rss_item('<enclosure url="/img/a.png" type="image/png" length="1"/>'
                      '<media:thumbnail url="https://cdn.example.com/a.png"/>'
                      '<media:content url="https://cdn.example.com/a.png" medium="image"/>'
                      '<itunes:image href="https://cdn.example.com/b.png"/>')
    assert [i.loc for i in ext.images] == ["https://example.com/img/a.png",
                                           "https://cdn.example.com/a.png",
                                           "https://cdn.example.com/b.png"]


def test_at_most_1000_images_the_rest_counted() -> None:
    thumbs = "".join(f'<media:thumbnail url="https://cdn.example.com/{i}.jpg"/>'
                     for i in range(1_003))
    ext, problems = rss_item(thumbs)
    assert len(ext.images) == 1_000
    assert [p.message() for p in problems] == ["images: 1,003 images, at most 1,000 per URL"]


VIDEO_ITEM = ('<media:content url="https://cdn.example.com/v.mp4" type="video/mp4" '
              'duration="{duration}"/><media:thumbnail url="https://cdn.example.com/t.jpg"/>'
              "<description>{description}</description>{extra}")


def video_item(duration: str = "61", description: str = "Plain", extra: str = ""
               ) -> tuple[Extensions, list[Problem]]:
    return rss_item(VIDEO_ITEM.format(duration=duration, description=description,
                                      extra=extra))


def test_description_loses_its_markup_and_is_cut_at_2048_with_a_warning() -> None:
    ext, problems = video_item(description="&lt;p&gt;Caf&amp;eacute; &lt;b&gt;" + "é" * 3_000
                               + "&lt;/b&gt;&lt;/p&gt;")
    (video,) = ext.videos
    assert video.description == "Café " + "é" * 2_043 and len(video.description) == 2_048
    assert [p.message() for p in problems] == [
        "videos[0].description: longer than 2,048 characters"]


def test_tags_from_keywords_and_categories_at_most_32() -> None:
    keywords = ", ".join(f"k{i}" for i in range(30))
    ext, problems = video_item(extra=f"<media:keywords>{keywords}</media:keywords>"
                               "<category>c1</category><category>c2</category>"
                               "<category>c3</category>")
    (video,) = ext.videos
    # in document order, as feedparser lists them; the 33rd is cut
    assert video.tags == tuple(f"k{i}" for i in range(30)) + ("c1", "c2")
    assert [p.field for p in problems] == ["tags"]


@pytest.mark.parametrize("text, seconds", [
    ("3156", 3156), ("610.4", 610), ("26:53", 1613), ("00:37:07", 2227), ("1:00:00", 3600)])
def test_duration_forms(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


def test_duration_from_itunes_and_out_of_range_is_dropped() -> None:
    ext, _ = rss_item('<media:content url="https://cdn.example.com/v.mp4" medium="video"/>'
                      '<itunes:image href="https://cdn.example.com/t.jpg"/>'
                      "<itunes:duration>01:02:03</itunes:duration><description>d</description>")
    assert ext.videos[0].duration == 3723
    assert ext.videos[0].thumbnail_loc == "https://cdn.example.com/t.jpg"
    ext, problems = video_item(duration="9:00:01")
    assert ext.videos[0].duration is None
    assert [p.message() for p in problems] == [
        "videos[0].duration: 32401 is outside 1-28,800 seconds"]
    ext, problems = video_item(duration="soon")
    assert ext.videos[0].duration is None and problems[0].field == "duration"


@pytest.mark.parametrize("inner, field", [
    ('<media:content url="https://cdn.example.com/v.mp4" type="video/mp4"/>'
     "<description>d</description>", "thumbnail_loc"),
    ('<media:content url="https://cdn.example.com/v.mp4" type="video/mp4"/>'
     '<media:thumbnail url="https://cdn.example.com/t.jpg"/>', "description"),
    ('<media:content medium="video"/><media:thumbnail url="https://cdn.example.com/t.jpg"/>'
     "<description>d</description>", "content_loc"),
    ('<enclosure url="https://example.com/a" type="video/mp4" length="1"/>'
     '<media:thumbnail url="https://cdn.example.com/t.jpg"/><description>d</description>',
     "content_loc"),  # the page itself
])
def test_video_missing_a_required_field_is_left_out_naming_it(inner: str, field: str) -> None:
    ext, problems = rss_item(inner)
    assert not ext.videos
    assert [(p.kind, p.field, p.drops) for p in problems] == [("videos", field, "item")]


def test_multilingual_atom_entry_gives_alternates() -> None:
    data = b"""<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><title>A</title>
<id>urn:1</id><updated>2024-03-05T10:15:00Z</updated>
<link rel="alternate" hreflang="en" href="https://example.com/en/a"/>
<link rel="alternate" hreflang="de-AT" href="/de/a"/>
<link rel="alternate" hreflang="x-default" href="https://example.com/a"/>
<link rel="related" hreflang="fr" href="https://example.com/fr/a"/></entry></feed>"""
    parsed = feedparser.parse(data, response_headers={"content-location":
                                                      "https://example.com/feed"})
    ext, problems = extensions_for_entry(parsed.entries[0], parsed.feed)
    assert problems == []
    assert ext.alternates == (Alternate("en", "https://example.com/en/a"),
                              Alternate("de-AT", "https://example.com/de/a"),
                              Alternate("x-default", "https://example.com/a"))


@pytest.mark.parametrize("inner", [
    '<enclosure type="image/jpeg" length="1"/>', '<media:content medium="image"/>',
    "<media:thumbnail/>", '<media:thumbnail url=" "/>'])
def test_an_image_without_its_url_is_left_out_with_a_warning(inner: str) -> None:
    ext, problems = rss_item(inner)
    assert not ext.images
    assert [p.message() for p in problems] == ["images[0].loc: missing (required): left out"]


def test_a_single_hreflang_link_is_no_alternate_set() -> None:
    data = b"""<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><entry><title>A</title>
<id>urn:1</id><link rel="alternate" hreflang="en" href="https://example.com/en/a"/></entry>
</feed>"""
    parsed = feedparser.parse(data)
    assert not extensions_for_entry(parsed.entries[0], parsed.feed)[0]


@pytest.mark.parametrize("html, text", [
    ("<p>a</p><p>b &amp; c</p>", "a b & c"), ("x<script>evil()</script>y", "xy"),
    ("plain  text\n here", "plain text here"), ("&lt;not a tag&gt;", "<not a tag>")])
def test_plain_text(html: str, text: str) -> None:
    assert plain_text(html) == text


def test_every_real_media_feed_maps_without_error() -> None:
    for path in sorted(conformance("media-feeds").glob("*.xml")):
        parsed = feedparser.parse(path.read_bytes())
        for entry in parsed.entries:
            ext, problems = extensions_for_entry(entry, parsed.feed, page=entry.get("link"))
            assert all(p.kind in ("images", "videos", "alternates") for p in problems)
            assert all(v.thumbnail_loc and v.title and v.description for v in ext.videos)


_IMG = 'https://example.com/i.jpg'
# Markup that may carry an entry's image, video or alternates, in an RSS item or an Atom entry
_MARKS = {
    "enclosure": ("rss", f'<enclosure url="{_IMG}" type="image/jpeg" length="1"/>'),
    "media:content": ("rss", f'<media:content url="{_IMG}" medium="image"/>'),
    "media:thumbnail": ("rss", f'<media:thumbnail url="{_IMG}"/>'),
    "media:player": ("rss", '<media:player url="https://example.com/player"/>'),
    "itunes:image": ("rss", f'<itunes:image href="{_IMG}"/>'),
    "itunes:link (feedparser's alias)": ("rss", f'<itunes:link href="{_IMG}"/>'),
    # feedparser keys an element by its prefix when it does not know the namespace's URI
    "media: bound to another URI": ("rss-other-media", f'<media:thumbnail url="{_IMG}"/>'),
    "Atom enclosure link": ("atom", f'<link rel="enclosure" type="image/jpeg" href="{_IMG}"/>'),
    # (an entry's one link: it would be in a run of plain entries, readers/feed/runs.py)
    "the entry's only link an enclosure": (
        "atom-one-link", f'<link rel="enclosure" type="image/jpeg" href="{_IMG}"/>'),
    "rel in capitals": ("atom", f'<link rel="Enclosure" type="image/jpeg" href="{_IMG}"/>'),
    "enclosure link without href": ("atom", '<link rel="enclosure" type="image/jpeg"/>'),
    "hreflang": ("atom", '<link rel="alternate" hreflang="de" href="https://example.com/de"/>'
                         '<link rel="alternate" hreflang="fr" href="https://example.com/fr"/>'),
    "hrefLang": ("atom", '<link rel="alternate" hrefLang="de" href="https://example.com/de"/>'
                         '<link rel="alternate" hrefLang="fr" href="https://example.com/fr"/>'),
}


def _feed(kind: str, inner: str, entries: int = 1, marked: int = 0) -> bytes:
    """A feed of ``entries`` plain entries, ``inner`` added to the one at index ``marked``;
    an RSS one declares Media RSS and iTunes (an Atom one nothing)."""
    root_ns = MEDIA + ITUNES if kind == "rss" else ""
    if kind == "rss-other-media":
        kind, root_ns = "rss", ' xmlns:media="https://example.com/not-media-rss"'
    parts = []
    for n in range(entries):
        extra = inner if n == marked else ""
        if kind == "rss":
            parts.append(f"<item><title>Item {n}</title><link>https://example.com/{n}</link>"
                         f"<pubDate>Mon, 02 Nov 2026 10:00:00 GMT</pubDate>{extra}</item>\n")
        else:  # (the id is the page where the entry has no alternate link)
            link = "" if extra and kind == "atom-one-link" else \
                f'<link href="https://example.com/{n}"/>'
            parts.append(f"<entry><title>Entry {n}</title><id>https://example.com/{n}</id>"
                         f"{link}<updated>2026-11-02T10:00:00Z</updated>{extra}</entry>\n")
    if kind == "rss":
        return (f'<rss version="2.0"{root_ns}><channel><title>c</title>'
                f"<link>https://example.com/</link>\n{''.join(parts)}</channel></rss>").encode()
    return (f'<feed xmlns="http://www.w3.org/2005/Atom"{root_ns}><title>c</title>'
            f'<id>urn:f</id><link href="https://example.com/"/>\n{"".join(parts)}</feed>'
            ).encode()


@pytest.mark.slow
@pytest.mark.parametrize("mark", _MARKS, ids=list(_MARKS))
@pytest.mark.parametrize("entries, marked", [(1, 0), (2000, 1500)], ids=["small", "in-a-run"])
def test_markup_that_may_carry_an_extension_sends_a_feed_to_feedparser(
        monkeypatch: pytest.MonkeyPatch, mark: str, entries: int, marked: int) -> None:
    """The fast pass gives way where an entry may carry images, a video or alternates (also
    deep in a large feed, where its runs read the entries), and feedparser's entries give the
    extensions: the same records and extensions as the reference mode."""
    from feed2sitemap import Report, read
    from feed2sitemap.backends import ENV
    from feed2sitemap.readers.feed.policy import read_feed_entries

    kind, inner = _MARKS[mark]
    data = _feed(kind, inner, entries, marked)
    assert read_feed_entries(data).fast is False
    outcomes = []
    for value in ("", "1"):
        monkeypatch.setenv(ENV, value)
        report = Report()
        records = [(r.loc, r.lastmod, r.extensions) for r in read(io.BytesIO(data),
                                                                    report=report)]
        outcomes.append((records, dict(report.warnings)))
    assert outcomes[0] == outcomes[1]
    records, warnings = outcomes[0]
    # the extension, or a warning that names what of it was left out (a player without the
    # video's thumbnail and title, an image enclosure without its URL)
    assert records[marked][2] or any("extension" in kind for kind in warnings), warnings
    assert not any(ext for _, _, ext in records[:marked] + records[marked + 1:])


@pytest.mark.parametrize("kind", ["rss", "atom"])
def test_words_of_extensions_in_text_keep_a_feed_on_the_fast_pass(
        monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    """Namespaces declared but not used, and the words in titles and summaries, carry no
    extension: the feed stays on the fast pass (before, a substring search sent it to
    feedparser)."""
    from feed2sitemap.backends import ENV
    from feed2sitemap.readers.feed.policy import read_feed_entries

    monkeypatch.setenv(ENV, "")  # (the fast pass, also in CI's run of the reference mode)

    words = ("<title>the enclosures of Oxford; hreflang=&quot;de&quot;, "
             "http://search.yahoo.com/mrss/ and itunes.com/dtds/podcast</title>")
    data = _feed(kind, words, entries=50, marked=7)
    assert read_feed_entries(data).fast is True
    # a feed-level hreflang or enclosure link is no entry's
    feed_links = ('<link rel="alternate" hreflang="de" href="https://example.com/de/"/>'
                  '<link rel="enclosure" href="https://example.com/logo.png"/>')
    atom = _feed("atom", "", entries=3).replace(b"<id>urn:f</id>", b"<id>urn:f</id>"
                                                 + feed_links.encode())
    assert read_feed_entries(atom).fast is True
