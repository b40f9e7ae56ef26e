"""Google's extension rules (rules.py), News dates and languages (news.py), the merge rule."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone
from typing import Any

import feedparser
import pytest

from feed2sitemap.errors import OptionError
from feed2sitemap.extensions import (
    EMPTY,
    Alternate,
    Extensions,
    Foreign,
    Image,
    Mobile,
    News,
    Platform,
    Restriction,
    Video,
)
from feed2sitemap.extensions.merging import ExtensionMerger
from feed2sitemap.extensions.model import NEWS_NS, VIDEO_NS
from feed2sitemap.extensions.news import feed_language, in_window, news_for_entry, now
from feed2sitemap.extensions.rules import check_extensions, is_hreflang, is_news_language, sanitize
from feed2sitemap.model.rules import news_language

PAGE = "https://example.com/watch"
VIDEO = Video("https://cdn.example.com/t.jpg", "Title", "Description",
              content_loc="https://cdn.example.com/v.mp4")


def video_problems(**changes: Any) -> set[tuple[str, str]]:
    ext = Extensions(videos=(replace(VIDEO, **changes),))
    return {(p.field, p.drops) for p in check_extensions(ext, PAGE)}


def test_a_complete_video_passes() -> None:
    assert video_problems() == set()


@pytest.mark.parametrize("changes, expected", [
    ({"thumbnail_loc": ""}, ("thumbnail_loc", "item")),
    ({"title": " "}, ("title", "item")),
    ({"description": ""}, ("description", "item")),
    ({"content_loc": None}, ("content_loc", "item")),  # neither content nor player
    ({"content_loc": PAGE}, ("content_loc", "item")),  # the page itself
    ({"content_loc": "not a url"}, ("content_loc", "item")),
    ({"description": "x" * 2_049}, ("description", "excess")),
    ({"title": "x" * 101}, ("title", "excess")),
    ({"allow_embed": "true"}, ("allow_embed", "field")),
    ({"tags": tuple(map(str, range(33)))}, ("tags", "excess")),
    ({"duration": 0}, ("duration", "field")),
    ({"duration": 28_801}, ("duration", "field")),
    ({"rating": 5.1}, ("rating", "field")),
    ({"rating": -0.1}, ("rating", "field")),
    ({"view_count": -1}, ("view_count", "field")),
    ({"restriction": Restriction("block", ("US",))}, ("restriction", "field")),
    ({"restriction": Restriction("allow", ("USA",))}, ("restriction", "field")),
    ({"platform": Platform("allow", ("web", "car"))}, ("platform", "field")),
    # the schema takes countries in capitals, platforms in small letters: written so
    ({"restriction": Restriction("deny", ("ie", "GB"))}, ("restriction", "value")),
    ({"platform": Platform("allow", ("WEB", "tv"))}, ("platform", "value")),
    ({"uploader": "u" * 256}, ("uploader", "field")),
])
def test_each_video_rule(changes: dict[str, Any], expected: tuple[str, str]) -> None:
    assert expected in video_problems(**changes)


@pytest.mark.parametrize("changes", [
    {"duration": 1}, {"duration": 28_800}, {"rating": 0.0}, {"rating": 5.0},
    {"description": "x" * 2_048}, {"tags": tuple(map(str, range(32)))}, {"title": "x" * 100},
    {"content_loc": None, "player_loc": "https://example.com/player"},
    {"restriction": Restriction("deny", ("IE", "GB"))}, {"allow_embed": "Yes"},
    {"platform": Platform("allow", ("web", "tv"))}, {"uploader": "u" * 255},
])
def test_values_at_the_limits_pass(changes: dict[str, Any]) -> None:
    assert video_problems(**changes) == set()


def _v(name: str, text: str = "", *attributes: tuple[str, str],
       children: tuple[Any, ...] = ()) -> Foreign:
    return Foreign(VIDEO_NS, name, attributes, (text,) if text else children)


SHOW = (_v("show_title", "S"), _v("video_type", "clip"))


@pytest.mark.parametrize("extra, kept, fields", [
    ((_v("tvshow", children=SHOW + (_v("season_number", "0"),)),), 1, ["tvshow.season_number"]),
    ((_v("tvshow", children=SHOW[1:]),), 0, ["tvshow.show_title"]),
    ((_v("tvshow", children=SHOW[::-1]),), 0, ["tvshow.show_title"]),
    ((_v("price", "1.99", ("currency", "USD")), _v("price", "2", ("currency", "usd"))), 1,
     ["price"]),
    ((_v("price", "1.99"),), 0, ["price"]),
    ((_v("category", "c"), _v("category", "d")), 1, ["category"]),
    ((_v("category", "c" * 257),), 0, ["category"]),
    ((_v("gallery_loc", "https://e.example/", ("lang", "en")),), 0, ["gallery_loc"]),
    ((Foreign(NEWS_NS, "genres", (), ("Blog",)),), 0, ["genres"]),  # not a video's
    ((_v("id", "x", ("type", "url")), _v("content_segment_loc", "u", ("duration", "12"))), 2,
     []),
])
def test_deprecated_video_children_are_held_to_googles_schema(
        extra: tuple[Foreign, ...], kept: int, fields: list[str]) -> None:
    ext = Extensions(videos=(replace(VIDEO, extra=extra),))
    assert [p.field for p in check_extensions(ext, PAGE)] == fields
    assert len(sanitize(ext, PAGE)[0].videos[0].extra) == kept


@pytest.mark.parametrize("element, ok", [
    (Foreign(NEWS_NS, "genres", (), ("PressRelease, Blog",)), True),
    (Foreign(NEWS_NS, "genres", (), ("Advertisement",)), False),
    (Foreign(NEWS_NS, "access", (), ("Subscription",)), True),
    (Foreign(NEWS_NS, "access", (), ("free",)), False),
    (Foreign(NEWS_NS, "stock_tickers", (), ("NASDAQ:A, NYSE:B",)), True),
    (Foreign(NEWS_NS, "stock_tickers", (), ("A",)), False),
])
def test_deprecated_news_children_are_held_to_googles_schema(element: Foreign, ok: bool
                                                             ) -> None:
    news = News("Times", "en", date(2024, 3, 5), "T", (element,))
    assert (check_extensions(Extensions(news=(news,))) == []) is ok


def test_a_bad_content_loc_beside_a_good_player_drops_only_the_field() -> None:
    problems = video_problems(content_loc=PAGE, player_loc="https://example.com/p")
    assert problems == {("content_loc", "field")}


def test_sanitize_drops_cuts_and_keeps() -> None:
    bad = replace(VIDEO, thumbnail_loc="")
    long = replace(VIDEO, description="é" * 3_000, tags=tuple(map(str, range(40))),
                   duration=99_999)
    ext = Extensions(images=tuple(Image(f"https://cdn.example.com/{i}.jpg")
                                  for i in range(1_005)) + (Image(""),),
                     videos=(bad, long))
    clean, problems = sanitize(ext, PAGE)
    assert len(clean.images) == 1_000
    (video,) = clean.videos
    assert video.description == "é" * 2_048 and len(video.tags) == 32
    assert video.duration is None and video.title == "Title"
    assert {p.message() for p in problems} >= {
        "videos[0].thumbnail_loc: missing (required)",
        "images: 1,006 images, at most 1,000 per URL"}


def test_sanitize_of_valid_extensions_is_the_same_object() -> None:
    ext = Extensions(videos=(VIDEO,))
    assert sanitize(ext)[0] is ext and sanitize(EMPTY) == (EMPTY, [])


@pytest.mark.parametrize("news, fields", [
    (News("Times", "en", date(2024, 3, 5), "T"), set()),
    (News("", "en", date(2024, 3, 5), "T"), {"name"}),
    (News("Times", "", date(2024, 3, 5), "T"), {"language"}),
    (News("Times", "en-US", date(2024, 3, 5), "T"), {"language"}),
    (News("Times", "en", None, "T"), {"publication_date"}),
    (News("Times", "en", date(2024, 3, 5), ""), {"title"}),
])
def test_news_rules(news: News, fields: set[str]) -> None:
    assert {p.field for p in check_extensions(Extensions(news=(news,)))} == fields


def test_one_news_and_one_mobile_per_url() -> None:
    n = News("Times", "en", date(2024, 3, 5), "T")
    ext = Extensions(news=(n, n), mobile=(Mobile(), Mobile("mobile")))
    assert [(p.kind, p.index) for p in check_extensions(ext)] == [("news", 1), ("mobile", 1)]


@pytest.mark.parametrize("code, ok", [
    ("en", True), ("haw", True), ("zh-cn", True), ("zh-tw", True), ("EN", False),
    ("en-us", False), ("zh", True), ("english", False), ("e", False)])
def test_news_language_codes(code: str, ok: bool) -> None:
    assert is_news_language(code) is ok


@pytest.mark.parametrize("value, ok", [
    ("en", True), ("en-GB", True), ("de-at", True), ("zh-Hant", True), ("zh-Hant-TW", True),
    ("es-419", True), ("x-default", True), ("GB", True), ("en_GB", False), ("english", False),
    ("en-GBR", False), ("", False), ("x-other", False)])
def test_hreflang_values(value: str, ok: bool) -> None:
    assert is_hreflang(value) is ok


def test_alternates_and_images_need_urls() -> None:
    ext = Extensions(images=(Image("/relative.jpg"),),
                     alternates=(Alternate("en", "https://example.com/en"),
                                 Alternate("english", "https://example.com/"),
                                 Alternate("de", "mailto:x@example.com")),
                     mobile=(Mobile("tablet"),))
    assert [(p.kind, p.index, p.field) for p in check_extensions(ext)] == [
        ("images", 0, "loc"), ("alternates", 1, "hreflang"), ("alternates", 2, "href"),
        ("mobile", 0, "type")]


# --------------------------------------------------------------------------- news

@pytest.mark.parametrize("tag, code", [
    ("en-US", "en"), ("en", "en"), ("fr_FR", "fr"), ("haw", "haw"), ("zh-CN", "zh-cn"),
    ("zh-Hans", "zh-cn"), ("zh-Hans-CN", "zh-cn"), ("zh-TW", "zh-tw"), ("zh-Hant", "zh-tw"),
    ("zh-HK", "zh-tw"), ("zh", None), ("", None), (None, None), ("english", None),
    ("12", None)])
def test_news_language_reduction(tag: str, code: str) -> None:
    assert news_language(tag) == code


def test_now_is_source_date_epoch_when_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1709633700")
    assert now() == datetime(2024, 3, 5, 10, 15, tzinfo=timezone.utc)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(OptionError, match="SOURCE_DATE_EPOCH"):
        now()
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert abs(now() - datetime.now(timezone.utc)) < timedelta(minutes=1)


def _entry(published: datetime | None, title: str = "Merger talks") -> dict[str, Any]:
    entry: dict[str, Any] = {"title": title,
                             "updated_parsed": time.gmtime(1_900_000_000)}  # never used
    if published is not None:
        entry["published_parsed"] = published.utctimetuple()
    return entry


def test_news_window_with_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1709633700")  # 2024-03-05T10:15:00Z
    at = now()
    hours = [1, 24, 47, 48, 49, 72, 120]
    kept = [h for h in hours
            if news_for_entry(_entry(at - timedelta(hours=h)), "Times", "en", at)[0]]
    assert kept == [1, 24, 47, 48]
    news, why = news_for_entry(_entry(at - timedelta(hours=3)), "Times", "en", at)
    assert news == News("Times", "en", at - timedelta(hours=3), "Merger talks") and why == ""
    assert news_for_entry(_entry(at - timedelta(days=3)), "T", "en", at) == (None, "too old")
    assert news_for_entry(_entry(None), "T", "en", at) == (None, "no date")  # not its update
    assert in_window(date(2024, 3, 4), at) and not in_window(date(2024, 3, 3), at)


# --------------------------------------------------------------------------- merge

OLD, NEW = date(2024, 1, 1), datetime(2024, 3, 5, tzinfo=timezone.utc)
SITEMAP = Extensions(images=(Image("https://cdn.example.com/old.jpg"),),
                     alternates=(Alternate("en", "https://example.com/en"),),
                     foreign=(Foreign("urn:a", "x", (), ("sitemap",)),
                              Foreign("urn:b", "y")))
FEED = Extensions(images=(Image("https://cdn.example.com/new.jpg"),),
                  foreign=(Foreign("urn:a", "x", (), ("feed",)),))


def merge_extensions(first: Extensions, first_lastmod: Any, second: Extensions,
                     second_lastmod: Any) -> Extensions:
    merger = ExtensionMerger()
    merger.add(first, first_lastmod)
    merger.add(second, second_lastmod)
    return merger.value()


def test_each_kind_comes_from_the_newest_copy_that_has_it() -> None:
    merged = merge_extensions(SITEMAP, OLD, FEED, NEW)
    assert merged.images == FEED.images  # the newer copy has images: they win
    assert merged.alternates == SITEMAP.alternates  # it has none: the sitemap's stay
    assert merged.foreign == (Foreign("urn:a", "x", (), ("feed",)), Foreign("urn:b", "y"))


def test_a_tie_or_no_dates_goes_to_the_first() -> None:
    assert merge_extensions(SITEMAP, NEW, FEED, NEW).images == SITEMAP.images
    assert merge_extensions(SITEMAP, None, FEED, None).images == SITEMAP.images
    assert merge_extensions(SITEMAP, None, FEED, OLD).images == FEED.images
    assert merge_extensions(SITEMAP, NEW, FEED, None).images == SITEMAP.images
    # a date is its midnight UTC: the same instant as a datetime is a tie
    midnight = datetime(2024, 1, 1, tzinfo=timezone.utc)
    assert merge_extensions(SITEMAP, OLD, FEED, midnight).images == SITEMAP.images


def test_merging_nothing_changes_nothing() -> None:
    assert merge_extensions(SITEMAP, OLD, EMPTY, NEW) == SITEMAP
    assert merge_extensions(EMPTY, NEW, FEED, OLD) == FEED
    assert merge_extensions(EMPTY, None, EMPTY, None) is EMPTY


def test_alternates_that_do_not_list_the_page_are_a_warning_only() -> None:
    ext = Extensions(alternates=(Alternate("de", "https://example.com/de"),))
    clean, problems = sanitize(ext, "https://example.com/en")
    assert clean == ext
    assert [(p.message(), p.drops) for p in problems] == [
        ("alternates: the page is not among its own alternates (each version must list "
         "itself)", "none")]
    assert sanitize(ext, "https://EXAMPLE.com:443/de")[1] == []  # compared normalised


@pytest.mark.parametrize("data, code", [
    (b'<rss version="2.0"><channel><title>t</title><language>en-US</language>'
     b"<item><title>a</title></item></channel></rss>", "en"),
    (b'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="zh-TW"><title>t</title>'
     b"<entry><title>A</title><id>1</id></entry></feed>", "zh-tw"),
    (b'<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
     b'<entry xml:lang="fr-CA"><title>A</title><id>1</id></entry></feed>', "fr"),
    (b'<rss version="2.0"><channel><title>t</title><item><title>a</title></item>'
     b"</channel></rss>", None),
])
def test_news_language_from_the_feed(data: bytes, code: str | None) -> None:
    parsed = feedparser.parse(data)
    assert news_language(feed_language(parsed.feed, parsed.entries[0])) == code
