"""`check` on the extensions inside <url>: the rules the converter holds them to, per file."""

from __future__ import annotations

import io
from datetime import date, datetime, timezone

import pytest

from feed2sitemap import Record, write
from feed2sitemap.check import check
from feed2sitemap.extensions import Extensions, News

from .test_extensions_xml import EVERY_KIND

NOW = datetime(2026, 1, 10, tzinfo=timezone.utc)
HEAD = (b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        b'schemas/sitemap/0.9" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">\n')


def rules(data: bytes) -> list[tuple[str, str, int]]:
    return [(d.severity, d.rule, d.line) for d in check(io.BytesIO(data), now=NOW)]


def test_what_we_write_with_every_kind_checks_clean() -> None:
    out = io.BytesIO()
    write([Record("https://example.com/", extensions=EVERY_KIND)], out)
    found = [d for d in check(io.BytesIO(out.getvalue()), now=NOW) if d.rule != "news-old"]
    assert [d for d in found if d.severity != "info"] == []
    # the deprecated tags it carries (kept as read) are noted, one note each
    assert sorted(d.message.split(">")[0][1:] for d in found) == [
        "image:caption", "image:geo_location", "image:license", "image:title",
        "video:category", "video:player_loc@allow_embed", "video:player_loc@autoplay",
        "video:price"]


def test_a_video_without_its_thumbnail_is_an_error_at_its_line() -> None:
    data = HEAD + (b"<url><loc>https://e.example/a</loc>\n<video:video>"
                   b"<video:title>T</video:title><video:description>D</video:description>"
                   b"<video:content_loc>https://e.example/v.mp4</video:content_loc>"
                   b"</video:video></url>\n</urlset>\n")
    assert rules(data) == [("error", "ext-videos", 4)]  # the line of <video:video>


def test_news_older_than_two_days_is_a_warning_and_recent_news_passes() -> None:
    def news_sitemap(published: date) -> bytes:
        out = io.BytesIO()
        write([Record("https://e.example/a", extensions=Extensions(news=(
            News("The Times", "en", published, "Title"),)))], out)
        return out.getvalue()

    assert rules(news_sitemap(date(2026, 1, 9))) == []
    assert [r[:2] for r in rules(news_sitemap(date(2026, 1, 1)))] == [("warning", "news-old")]


@pytest.mark.slow
def test_more_than_1000_news_urls_in_a_file_is_an_error() -> None:
    recent = Extensions(news=(News("The Times", "en", date(2026, 1, 9), "T"),))
    out = io.BytesIO()
    write([Record(f"https://e.example/{i}", extensions=recent) for i in range(1001)], out)
    found = [r[:2] for r in rules(out.getvalue())]
    assert found == [("error", "news-limit")]


def test_an_unknown_namespace_passes() -> None:
    data = (b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
            b'schemas/sitemap/0.9" xmlns:x="urn:example:x">\n<url><loc>https://e.example/a'
            b'</loc><x:rating stars="4"><x:by>me</x:by></x:rating></url>\n</urlset>\n')
    assert rules(data) == []
