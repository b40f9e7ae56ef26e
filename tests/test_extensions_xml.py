"""Extensions as XML: written (xmlout), read back (xmlin), valid against the schemas."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from feed2sitemap.extensions import (
    EMPTY,
    Alternate,
    Extensions,
    Foreign,
    Image,
    Mobile,
    News,
    Platform,
    Problem,
    Restriction,
    Video,
)
from feed2sitemap.extensions.model import IMAGE_NS, MOBILE_NS, SITEMAP_NS, VIDEO_NS, XML_NS
from feed2sitemap.extensions.rules import check_extensions
from feed2sitemap.extensions.xmlin import MAX_FOREIGN_NODES, UrlChildren, located
from feed2sitemap.extensions.xmlout import declarations, serialize
from feed2sitemap.xmlutil import MAX_VALUE, safe_expat_parser
from tests.conftest import conformance

Read = tuple[Extensions, list[Problem], dict[tuple[str, int], int]]


def read_urls(data: bytes) -> list[Read]:
    """Each <url>'s extensions, as a reader would feed them to UrlChildren."""
    parser = safe_expat_parser(" ")
    children = UrlChildren()
    depth = 0
    out: list[Read] = []

    def start(name: str, attrs: Any) -> None:
        nonlocal depth
        depth += 1
        if depth >= 3:
            children.start(name, attrs, parser.CurrentLineNumber)

    def end(name: str) -> None:
        nonlocal depth
        if depth >= 3:
            children.end(name)
        elif depth == 2:
            out.append(children.finish())
        depth -= 1

    def text(value: str) -> None:
        if depth >= 3:
            children.data(value)

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.CharacterDataHandler = text
    parser.Parse(data, True)
    return out


def urlset(*fragments: str, ext: Optional[Extensions] = None) -> bytes:
    kinds = ext.kinds() if ext is not None else ("images", "videos", "news", "alternates",
                                                  "mobile")
    decl, _ = declarations(kinds, ext.foreign_namespaces() if ext is not None else ())
    body = "".join(f"<url><loc>https://example.com/{i}</loc>{f}</url>\n"
                   for i, f in enumerate(fragments))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SITEMAP_NS}"{decl}>\n'
            f"{body}</urlset>\n").encode()


def round_trip(ext: Extensions) -> Read:
    _, prefixes = declarations(ext.kinds(), ext.foreign_namespaces())
    (got,) = read_urls(urlset(serialize(ext, prefixes), ext=ext))
    return got


FULL_VIDEO = Video(
    "https://cdn.example.com/t.jpg", "Grilling steaks & more", "How to <grill> \"well\"",
    content_loc="https://cdn.example.com/v.mp4", player_loc="https://example.com/player?v=1&a=2",
    allow_embed="yes", autoplay="ap=1", duration=600,
    expiration_date=datetime(2030, 11, 5, 11, 20, 30, tzinfo=timezone.utc), rating=4.2,
    view_count=12345, publication_date=date(2024, 3, 5), family_friendly=True,
    restriction=Restriction("allow", ("IE", "GB")), platform=Platform("deny", ("tv",)),
    requires_subscription=False, uploader="Grilly", uploader_info="https://example.com/u/g",
    live=False, tags=("steak", "meat"),
    extra=(Foreign(VIDEO_NS, "category", (), ("Cooking",)),
           Foreign(VIDEO_NS, "price", (("currency", "EUR"),), ("1.99",))))
EVERY_KIND = Extensions(
    images=(Image("https://cdn.example.com/a.jpg"),
            Image("https://cdn.example.com/b.jpg", caption="B", geo_location="Lyon",
                  title="Bee", license="https://example.com/l")),
    videos=(FULL_VIDEO,),
    news=(News("The Example Times", "en", datetime(2024, 3, 5, 10, 15, tzinfo=timezone.utc),
               "Companies A, B in merger talks"),),
    alternates=(Alternate("en", "https://example.com/0"), Alternate("x-default",
                                                                     "https://example.com/")),
    mobile=(Mobile("pc,mobile"),),
    foreign=(Foreign("http://www.georss.org/georss", "point", (), ("45.2 4.8",)),
             Foreign("urn:example:meta", "info", (("kind", "x"), (f"{XML_NS} lang", "fr")),
                     ("a ", Foreign("urn:example:other", "b", (("urn:example:meta id", "1"),),
                                    ("bold",)), " c"))))


def test_every_kind_reads_back_equal() -> None:
    ext, problems, _ = round_trip(EVERY_KIND)
    assert problems == []
    assert ext == EVERY_KIND


def test_children_follow_googles_order() -> None:
    xml = serialize(Extensions(videos=(FULL_VIDEO,)))
    names = ["thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
             "expiration_date", "rating", "view_count", "publication_date", "tag",
             "category", "family_friendly", "restriction", "price", "requires_subscription",
             "uploader", "platform", "live"]
    positions = [xml.index(f"<video:{n}") for n in names]
    assert positions == sorted(positions)
    news = serialize(EVERY_KIND)
    assert news.index("<news:publication>") < news.index("<news:publication_date>") < \
        news.index("<news:title>")


def test_values_are_escaped() -> None:
    xml = serialize(Extensions(images=(Image("https://e.com/a?b=1&c='2'", caption='<"x">'),)))
    assert "b=1&amp;c=&apos;2&apos;" in xml and "&lt;&quot;x&quot;&gt;" in xml


def test_characters_xml_forbids_are_replaced_as_the_project_does() -> None:
    ext = Extensions(images=(Image("https://e.com/a", caption="bell\x07"),))
    (got,) = read_urls(urlset(serialize(ext)))
    assert got[0].images[0].caption == "bell\ufffd"


def test_empty_is_free() -> None:
    assert not EMPTY and serialize(EMPTY) == "" and EMPTY.kinds() == frozenset()


def test_undeclared_namespaces_are_declared_on_the_element() -> None:
    xml = serialize(EVERY_KIND, declared={})
    (got,) = read_urls(urlset(xml, ext=Extensions()))
    assert got[0] == EVERY_KIND
    assert f'<image:image xmlns:image="{IMAGE_NS}">' in xml


def test_declarations_name_each_namespace_once() -> None:
    text, prefixes = declarations(["images", "mobile"], ["urn:a", "urn:a", IMAGE_NS])
    assert text == (f' xmlns:image="{IMAGE_NS}" xmlns:mobile="{MOBILE_NS}" '
                    'xmlns:ns1="urn:a"')
    assert prefixes == {IMAGE_NS: "image", MOBILE_NS: "mobile", "urn:a": "ns1"}


ALLTAGS = ["videos", "videos", "videos", "news", "images", "images", "images"]


def test_sitemap_js_alltags_keeps_everything() -> None:
    data = conformance("sitemap.js-mocks", "alltags.xml").read_bytes()
    urls = read_urls(data)
    assert [sorted(e.kinds()) for e, _, _ in urls][:4] == [
        ["videos"], ["videos"], ["alternates", "foreign", "videos"], ["news"]]
    assert all(problems == [] for _, problems, _ in urls)
    video = urls[1][0].videos[0]
    assert video.restriction == Restriction("deny", ("IE", "GB", "US", "CA"))
    assert [e.name for e in video.extra] == ["category", "gallery_loc", "price"]
    assert urls[2][2][("alternates", 0)] == 59  # the line of the element
    for ext, _, _ in urls:  # and each one reads back equal
        assert round_trip(ext)[0] == ext


def test_unknown_sitemaps_org_element_is_reported_not_kept() -> None:
    fragment = "<lastmod>2024-03-05</lastmod>\n<foo>not a field</foo><bar xmlns=''/>"
    ((ext, problems, _),) = read_urls(urlset(fragment))
    assert not ext
    assert [(p.field, p.line, p.reason) for p in problems] == [
        ("foo", 4, "unknown element <foo> in the sitemaps.org namespace: left out"),
        ("bar", 4, "unknown element <bar> in no namespace: left out")]


def test_no_namespace_child_of_a_foreign_element_stays_in_no_namespace() -> None:
    ext = Extensions(foreign=(Foreign("urn:a", "a", (), (Foreign("", "b"),)),))
    assert 'xmlns=""' in serialize(ext)
    assert round_trip(ext)[0] == ext


def test_bad_values_are_reported_with_their_field() -> None:
    fragment = (f'<video:video xmlns:video="{VIDEO_NS}"><video:thumbnail_loc>https://e.com/t'
                "</video:thumbnail_loc><video:title>T</video:title><video:title>again"
                "</video:title><video:description>D</video:description><video:duration>ten"
                "</video:duration><video:live>maybe</video:live><video:colour>red"
                "</video:colour><video:player_loc>https://e.com/p</video:player_loc>"
                "</video:video>")
    ((ext, problems, _),) = read_urls(urlset(fragment))
    assert {(p.field, p.reason.rsplit(": ", 1)[0]) for p in problems} == {
        ("title", "given more than once"), ("duration", "'ten' is not a whole number"),
        ("live", "'maybe' is not yes or no"), ("colour", "<colour> is not an element of "
                                                      "<video:video> in Google's schema")}
    assert ext.videos[0].title == "T" and ext.videos[0].duration is None


def test_a_value_past_64_kib_is_left_out_not_held() -> None:
    fragment = f'<x:big xmlns:x="urn:x">{"a" * (MAX_VALUE + 1)}</x:big><x:ok xmlns:x="urn:x"/>'
    ((ext, problems, _),) = read_urls(urlset(fragment))
    assert [f.name for f in ext.foreign] == ["ok"]
    assert "longer than 65,536" in problems[0].reason


def test_nesting_past_the_bound_is_left_out() -> None:
    fragment = '<x:a xmlns:x="urn:x">' + "<x:a>" * 70 + "</x:a>" * 71
    ((ext, problems, _),) = read_urls(urlset(fragment))
    assert not ext and problems[0].drops == "item"


def test_xhtml_link_other_than_hreflang_alternate_is_kept_as_it_is() -> None:
    fragment = ('<xhtml:link rel="alternate" media="only screen" '
                'href="https://m.example.com/"/>')
    ((ext, problems, _),) = read_urls(urlset(fragment))
    assert not ext.alternates and ext.foreign[0].attribute("media") == "only screen"
    assert round_trip(ext)[0] == ext


# --------------------------------------------------------------------------- schemas

def _lax_sitemap_schema() -> Any:
    """sitemaps.org's XSD with its ##other wildcards made lax: what it says of where and how
    extension elements may appear, without Google's own schemas (not redistributable)."""
    xmlschema = pytest.importorskip("xmlschema")
    text = conformance("schemas", "sitemap.xsd").read_text()
    return xmlschema.XMLSchema(text.replace('processContents="strict"', 'processContents="lax"'))


def test_urlset_with_every_kind_is_valid_against_sitemaps_org_xsd() -> None:
    data = urlset(serialize(EVERY_KIND), "", serialize(EVERY_KIND, declared={}),
                  ext=EVERY_KIND)
    _lax_sitemap_schema().validate(io.BytesIO(data))


GOOGLE_SCHEMAS = {IMAGE_NS: "sitemap-image.xsd", VIDEO_NS: "sitemap-video.xsd",
                  "http://www.google.com/schemas/sitemap-news/0.9": "sitemap-news.xsd"}


def test_google_kinds_are_valid_against_googles_schemas(tmp_path: Path) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    sitemap = conformance("schemas", "sitemap.xsd")
    imports = "".join(f'<xs:import namespace="{ns}" schemaLocation="'
                      f'{conformance("schemas", name).as_uri()}"/>'
                      for ns, name in GOOGLE_SCHEMAS.items())
    (tmp_path / "all.xsd").write_text(
        '<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">'
        f'<xs:import namespace="{SITEMAP_NS}" schemaLocation="{sitemap.as_uri()}"/>'
        f"{imports}</xs:schema>")
    ext = Extensions(EVERY_KIND.images, EVERY_KIND.videos, EVERY_KIND.news)
    xmlschema.XMLSchema(str(tmp_path / "all.xsd")).validate(io.BytesIO(urlset(serialize(ext),
                                                                               ext=ext)))


# --------------------------------------------------------------------------- properties

_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufffe\uffff",
                       min_codepoint=0x20) | st.sampled_from("\t\n\r")
TEXT = st.text(_CHARS, min_size=1, max_size=30).map(str.strip).filter(bool)
URL = st.from_regex(r"https://[a-z]{1,8}\.example/[A-Za-z0-9/&'_=?-]{0,16}", fullmatch=True)
WHEN = st.one_of(st.dates(date(1000, 1, 2), date(9999, 12, 30)),
                 st.datetimes(datetime(1000, 1, 2), datetime(9999, 12, 30),
                              timezones=st.just(timezone.utc)))
NAME = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,6}", fullmatch=True).filter(
    lambda n: not n.lower().startswith("xml"))
NAMESPACE = st.sampled_from(["urn:example:a", "http://example.com/ns#b", "urn:c"])


def _element(children: st.SearchStrategy[Any], top: bool) -> st.SearchStrategy[Foreign]:
    attr_name = st.one_of(NAME, st.tuples(NAMESPACE, NAME).map(" ".join),
                          st.just(f"{XML_NS} lang"))
    attrs = st.dictionaries(attr_name, st.text(_CHARS, max_size=10), max_size=3)
    ns = NAMESPACE if top else st.one_of(NAMESPACE, st.just(""))
    return st.builds(lambda n, name, a, kids: Foreign(n, name, tuple(a.items()), _merge(kids)),
                     ns, NAME, attrs, st.lists(children, max_size=4))


def _merge(children: list[Any]) -> tuple[Any, ...]:
    """Adjacent texts as one (a parser reports them so), no empty text."""
    out: list[Any] = []
    for child in children:
        if isinstance(child, str) and out and isinstance(out[-1], str):
            out[-1] += child
        elif child != "":
            out.append(child)
    return tuple(out)


INNER = st.recursive(st.text(_CHARS, max_size=12),
                     lambda kids: _element(kids, top=False), max_leaves=8)
VIDEOS = st.builds(
    Video, URL, TEXT, TEXT, content_loc=st.none() | URL, player_loc=st.none() | URL,
    allow_embed=st.none() | st.sampled_from(["yes", "no"]), autoplay=st.none() | TEXT,
    duration=st.none() | st.integers(1, 28_800), expiration_date=st.none() | WHEN,
    rating=st.none() | st.floats(0.0, 5.0), view_count=st.none() | st.integers(0, 10**12),
    publication_date=st.none() | WHEN, family_friendly=st.none() | st.booleans(),
    restriction=st.none() | st.builds(Restriction, st.sampled_from(["allow", "deny"]),
                                      st.lists(st.from_regex(r"[A-Z]{2}", fullmatch=True),
                                               max_size=3).map(tuple)),
    platform=st.none() | st.builds(Platform, st.sampled_from(["allow", "deny"]),
                                   st.lists(st.sampled_from(["web", "mobile", "tv"]),
                                            max_size=3).map(tuple)),
    requires_subscription=st.none() | st.booleans(), uploader=st.none() | TEXT,
    uploader_info=st.none() | URL, live=st.none() | st.booleans(),
    tags=st.lists(TEXT, max_size=4).map(tuple)).map(
        # the player's attributes and the uploader's info exist only with their element
        lambda v: replace(v, allow_embed=v.allow_embed if v.player_loc else None,
                          autoplay=v.autoplay if v.player_loc else None,
                          uploader_info=v.uploader_info if v.uploader else None))
EXTENSIONS = st.builds(
    Extensions,
    images=st.lists(st.builds(Image, URL, caption=st.none() | TEXT, title=st.none() | TEXT,
                              geo_location=st.none() | TEXT, license=st.none() | URL),
                    max_size=3).map(tuple),
    videos=st.lists(VIDEOS, max_size=2).map(tuple),
    news=st.lists(st.builds(News, TEXT, st.sampled_from(["en", "fr", "zh-cn"]), WHEN, TEXT),
                  max_size=1).map(tuple),
    alternates=st.lists(st.builds(Alternate, st.sampled_from(["en", "de-AT", "x-default",
                                                              "zh-Hant-TW"]), URL),
                        max_size=3).map(tuple),
    mobile=st.lists(st.builds(Mobile, st.none() | st.sampled_from(["mobile", "htmladapt"])),
                    max_size=1).map(tuple),
    foreign=st.lists(_element(INNER, top=True), max_size=3).map(tuple))


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(EXTENSIONS)
def test_round_trip_of_any_valid_value(ext: Extensions) -> None:
    got, problems, _ = round_trip(ext)
    assert problems == []
    assert got == ext


def test_one_url_cannot_hold_unbounded_elements() -> None:
    fragment = '<x:a xmlns:x="urn:x"/>' * (MAX_FOREIGN_NODES + 5)
    ((ext, problems, _),) = read_urls(urlset(fragment))
    assert len(ext.foreign) == MAX_FOREIGN_NODES
    assert len(problems) == 1 and "the rest is left out" in problems[0].reason


def test_rule_problems_get_the_line_of_their_item() -> None:
    fragment = "\n<image:image><image:loc>/relative.jpg</image:loc></image:image>"
    ((ext, _, lines),) = read_urls(urlset(fragment))
    (problem,) = located(check_extensions(ext), lines)
    assert (problem.kind, problem.field, problem.line) == ("images", "loc", 4)
