"""Google News sitemaps from a feed: the last two days' articles, 1,000 URLs a file, and an
in-place update that lets articles age out (SOURCE_DATE_EPOCH fixes "now")."""

from __future__ import annotations

import calendar
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from feed2sitemap import NewsSitemap, OptionError, read

from .conftest import run

NOW = datetime(2026, 1, 10, 12, tzinfo=timezone.utc)
EPOCH = str(calendar.timegm(NOW.timetuple()))


def feed(n: int, hours_apart: float, language: str = "en-us") -> bytes:
    items = "".join(
        f"<item><title>Story {i} &amp; more</title><link>https://news.example/s/{i}</link>"
        f"<pubDate>{(NOW - timedelta(hours=i * hours_apart)):%a, %d %b %Y %H:%M:%S} GMT"
        "</pubDate></item>" for i in range(n))
    lang = f"<language>{language}</language>" if language else ""
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
            f"<link>https://news.example/</link><description>d</description>{lang}{items}"
            "</channel></rss>").encode()


def news_run(*args: str, cwd: Path, epoch: str = EPOCH) -> tuple[int, bytes]:
    done = run(*args, cwd=cwd, env={**os.environ, "SOURCE_DATE_EPOCH": epoch})
    return done.returncode, done.stderr


def test_only_the_last_two_days_are_written_with_name_language_date_and_title(
        tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(100, 1.2))  # five days, one item every 72 min
    code, said = news_run("feed.xml", "-o", "news.xml", "--news-name", "The Example Times",
                          cwd=tmp_path)
    assert code == 0, said
    records = list(read(tmp_path / "news.xml"))
    assert [r.loc for r in records] == [f"https://news.example/s/{i}" for i in range(41)]
    first = records[0].extensions.news[0]
    assert (first.name, first.language, first.title) == ("The Example Times", "en",
                                                         "Story 0 & more")
    assert first.publication_date == NOW
    assert b"skipped 59: 59 news too old" in said


@pytest.mark.slow
def test_2500_recent_articles_give_three_parts_and_an_index(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(2500, 0.01))
    code, said = news_run("feed.xml", "-o", "news.xml", "--news-name", "T", "--base-url",
                          "https://news.example/", cwd=tmp_path)
    assert code == 0, said
    parts = [tmp_path / f"news-{n}.xml" for n in (1, 2, 3)]
    assert [len(list(read(p))) for p in parts] == [1000, 1000, 500]
    assert [r.loc for r in read(tmp_path / "news.xml")] == [
        f"https://news.example/news-{n}.xml" for n in (1, 2, 3)]


def test_an_update_in_place_lets_articles_age_out_and_says_how_many(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(10, 1))
    code, _ = news_run("feed.xml", "-o", "news.xml", "--news-name", "T", cwd=tmp_path)
    assert code == 0
    # a day later the feed has moved on; the sitemap's articles of 10 h ago are still news,
    # those now more than two days old are not
    later = str(int(EPOCH) + 41 * 3600)
    (tmp_path / "feed.xml").write_bytes(feed(0, 1))
    code, said = news_run("news.xml", "feed.xml", "-o", "news.xml", "--news-name", "T",
                          cwd=tmp_path, epoch=later)
    assert code == 0, said
    kept = [r.loc for r in read(tmp_path / "news.xml")]
    assert kept == [f"https://news.example/s/{i}" for i in range(8)]  # 41 h + i h <= 48 h
    assert b"2 news aged out" in said


def test_the_language_comes_from_the_option_else_the_feed_else_it_is_a_usage_error(
        tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(3, 1, language="zh-TW"))
    code, _ = news_run("feed.xml", "-o", "news.xml", "--news-name", "T", cwd=tmp_path)
    assert code == 0
    assert {r.extensions.news[0].language for r in read(tmp_path / "news.xml")} == {"zh-tw"}
    (tmp_path / "feed.xml").write_bytes(feed(3, 1, language=""))
    code, said = news_run("feed.xml", "-o", "none.xml", "--news-name", "T", cwd=tmp_path)
    assert code == 2 and b"--news-language" in said and not (tmp_path / "none.xml").exists()
    code, _ = news_run("feed.xml", "-o", "fr.xml", "--news-name", "T", "--news-language",
                       "fr-CA", cwd=tmp_path)
    assert code == 0
    assert {r.extensions.news[0].language for r in read(tmp_path / "fr.xml")} == {"fr"}


@pytest.mark.parametrize("name, language, parameter", [
    ("", None, "news_name"), ("T", "klingon!", "news_language"), ("T", "zh", "news_language")])
def test_bad_news_options_are_option_errors(name: str, language: str | None,
                                            parameter: str) -> None:
    with pytest.raises(OptionError) as caught:
        NewsSitemap(name, language)
    assert caught.value.parameter == parameter


@pytest.mark.slow
@pytest.mark.parametrize("date", ["0000-01-01", "9999-12-31T23:59:59-14:00"])
def test_a_publication_date_no_datetime_holds_is_no_date(tmp_path: Path, date: str) -> None:
    # feedparser reads both (the second is 10000-01-01 in UTC); the video keeps its other
    # fields, and a news sitemap leaves the article out as having no date (it used to end
    # in a traceback from calendar.timegm)
    (tmp_path / "feed.xml").write_text(
        '<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T'
        "</title><link>https://news.example/</link><language>en</language><item><title>Clip"
        "</title><link>https://news.example/a</link><description>A clip</description>"
        '<media:content url="https://news.example/v.mp4" type="video/mp4"/>'
        f'<media:thumbnail url="https://news.example/t.jpg"/><pubDate>{date}</pubDate></item>'
        "<item><title>Now</title><link>https://news.example/b</link><pubDate>"
        f"{NOW:%a, %d %b %Y %H:%M:%S} GMT</pubDate></item></channel></rss>")
    code, said = news_run("feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert code == 0, said
    (page, _) = read(tmp_path / "sitemap.xml")
    (video,) = page.extensions.videos
    assert (video.title, video.publication_date) == ("Clip", None)
    code, said = news_run("feed.xml", "-o", "news.xml", "--news-name", "N", cwd=tmp_path)
    assert code == 0, said
    assert [r.loc for r in read(tmp_path / "news.xml")] == ["https://news.example/b"]
    assert b"no publication date" in said
