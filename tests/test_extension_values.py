"""Every extension value written passes Google's schemas (issue 36, items 16, 17 and 19): what
an input gives beyond them is cut, spelt as the schema takes it, or left out, with a counted
warning naming it; through the installed command."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from .conftest import conformance, run
from .test_extensions_xml import GOOGLE_SCHEMAS
from .test_news import EPOCH

VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
TITLE = "A long title " * 12  # 156 characters

SITEMAP = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:video="{VIDEO_NS}"
        xmlns:news="{NEWS_NS}">
<url><loc>https://example.com/v</loc>
<video:video>
<video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>
<video:title>{TITLE}</video:title>
<video:description>A video</video:description>
<video:content_loc>https://example.com/v.mp4</video:content_loc>
<video:restriction relationship="allow">ie gb</video:restriction>
<video:tvshow><video:show_title>Show</video:show_title><video:video_type>full</video:video_type>
<video:premier_date>2024-01-02T10:00+01:00</video:premier_date></video:tvshow>
</video:video>
</url>
<url><loc>https://example.com/n</loc>
<news:news><news:publication><news:name>The Times</news:name>
<news:language>en-US</news:language></news:publication>
<news:genres>Advertisement, Sponsored</news:genres>
<news:publication_date>2026-01-10</news:publication_date><news:title>News</news:title>
</news:news>
</url>
</urlset>
"""

FEED = f"""<?xml version="1.0"?>
<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>c</title>
<link>https://example.com/</link><description>d</description><language>en-US</language>
<item><title>{TITLE}</title><link>https://example.com/a</link>
<pubDate>Sat, 10 Jan 2026 11:00:00 GMT</pubDate>
<media:content url="https://example.com/a.mp4" type="video/mp4"/>
<media:thumbnail url="https://example.com/a.jpg"/><description>A video</description></item>
</channel></rss>
"""


ENV = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}


def convert(tmp_path: Path, name: str, data: str, *args: str) -> tuple[bytes, str]:
    (tmp_path / name).write_text(data)
    done = run(name, "-o", "out.xml", *args, cwd=tmp_path, env=ENV)
    assert done.returncode == 0, done.stderr
    return (tmp_path / "out.xml").read_bytes(), done.stderr.decode()


@pytest.fixture
def sitemap(tmp_path: Path) -> tuple[bytes, str]:
    return convert(tmp_path, "in.xml", SITEMAP, "-f", "sitemap")


def test_item16_a_video_title_is_cut_at_100_characters(sitemap: tuple[bytes, str]) -> None:
    data, said = sitemap
    assert f"<video:title>{TITLE[:100]}</video:title>".encode() in data
    assert "in.xml:5: warning: videos[0].title: longer than 100 characters" in said


def test_item17_values_the_schemas_refuse_are_left_out_or_spelt_as_they_take_them(
        sitemap: tuple[bytes, str], tmp_path: Path) -> None:
    data, said = sitemap
    assert b'<video:restriction relationship="allow">IE GB</video:restriction>' in data
    assert b"<video:video_type>full</video:video_type>" in data  # the tvshow is kept
    assert b"premier_date" not in data and b"genres" not in data
    for warning in ("videos[0].restriction: 'ie gb' is written 'IE GB'",
                    "videos[0].tvshow.premier_date: '2024-01-02T10:00+01:00' is neither",
                    "news[0].genres: 'Advertisement, Sponsored' is not a list"):
        assert warning in said
    assert "warnings: 3 bad videos extension, 2 bad news extension" in said
    (tmp_path / "out.xml").rename(tmp_path / "checked.xml")
    done = run("check", "checked.xml", cwd=tmp_path)
    assert done.returncode == 0 and b" 0 errors" in done.stderr, done.stdout


def test_item19_a_sitemaps_news_language_en_us_is_written_en(sitemap: tuple[bytes, str]
                                                              ) -> None:
    data, said = sitemap
    assert b"<news:language>en</news:language>" in data
    assert "in.xml:16: warning: news[0].language: 'en-US' is not an ISO 639 code" in said
    assert "written 'en'" in said


def test_a_feeds_news_language_and_video_title_follow_the_same_rules(tmp_path: Path) -> None:
    data, said = convert(tmp_path, "feed.xml", FEED, "--news-name", "The Times")
    assert b"<news:language>en</news:language>" in data  # the sitemap's rule: en-US is en
    assert f"<video:title>{TITLE[:100]}</video:title>".encode() in data
    assert "videos[0].title: longer than 100 characters" in said
    assert "warnings: 1 bad videos extension" in said


@pytest.mark.parametrize("name, data, args", [("in.xml", SITEMAP, ("-f", "sitemap")),
                                              ("feed.xml", FEED, ("--news-name", "T"))])
def test_the_output_is_valid_against_googles_schemas(tmp_path: Path, name: str, data: str,
                                                     args: tuple[str, ...]) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    imports = "".join(f'<xs:import namespace="{ns}" schemaLocation="'
                      f'{conformance("schemas", file).as_uri()}"/>'
                      for ns, file in GOOGLE_SCHEMAS.items())
    sitemap = conformance("schemas", "sitemap.xsd").as_uri()
    (tmp_path / "all.xsd").write_text(
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        f'<xs:import namespace="http://www.sitemaps.org/schemas/sitemap/0.9" '
        f'schemaLocation="{sitemap}"/>{imports}</xs:schema>')
    output, _ = convert(tmp_path, name, data, *args)
    xmlschema.XMLSchema(str(tmp_path / "all.xsd")).validate(io.BytesIO(output))
