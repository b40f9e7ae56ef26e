"""Extensions as the XML that goes inside <url>, after loc, lastmod, changefreq and priority.

Each kind is written in its namespace with the prefix Google's examples use (image:, video:,
news:, xhtml:; Baidu's mobile:), its children in the order of Google's schemas (the order its
examples follow). The sitemaps.org XSD allows any element of another namespace after the core
fields (``<xsd:any namespace="##other">``), so the fragment keeps a file valid.

Namespaces: ``declarations`` gives the ``xmlns:…`` attributes for <urlset> and the prefix map
they set up; ``serialize`` writes against such a map, and declares on the element itself any
namespace the map lacks, so its output is well-formed whatever the writer declared (and a
writer that declares nothing up front still counts every byte exactly: the fragment is all).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Optional

from ..model.extensions import Extensions
from ..model.record import Lastmod, format_lastmod
from ..xmlutil import xml_escape
from .model import (
    IMAGE_NS,
    KIND_NAMESPACES,
    MOBILE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    XML_NS,
    Foreign,
    Image,
    News,
    Video,
    check_foreign_name,
)

__all__ = ["NEWS_ORDER", "PREFIXES", "VIDEO_ORDER", "declarations", "serialize"]

PREFIXES: Mapping[str, str] = {IMAGE_NS: "image", VIDEO_NS: "video", NEWS_NS: "news",
                               XHTML_NS: "xhtml", MOBILE_NS: "mobile"}
# Children of <image:image>, <video:video> and <news:news> in the order of Google's schemas
# (sitemap-image/1.1, sitemap-video/1.1, sitemap-news/0.9: each an xsd:sequence). Deprecated
# children are placed where the schemas have them, so a video read with a <video:price>
# is written back valid.
IMAGE_ORDER = ("loc", "caption", "geo_location", "title", "license")
VIDEO_ORDER = ("thumbnail_loc", "title", "description", "content_loc", "player_loc",
               "duration", "expiration_date", "rating", "content_segment_loc", "view_count",
               "publication_date", "tag", "category", "family_friendly", "restriction",
               "gallery_loc", "price", "requires_subscription", "uploader", "tvshow",
               "platform", "live", "id")
NEWS_ORDER = ("publication", "access", "genres", "publication_date", "title", "geo_locations",
              "keywords", "stock_tickers")
_VIDEO_RANK = {name: i for i, name in enumerate(VIDEO_ORDER)}
_NEWS_RANK = {name: i for i, name in enumerate(NEWS_ORDER)}


def declarations(kinds: Iterable[str] = KIND_NAMESPACES,
                 foreign: Iterable[str] = ()) -> tuple[str, dict[str, str]]:
    """The ``xmlns:…`` attributes (each with a leading space) a <urlset> needs for ``kinds``
    (Extensions field names) and the ``foreign`` namespaces, and the namespace → prefix map
    to pass to ``serialize``. The kinds are declared in one fixed order whatever order they come
    in (a set's order changes from run to run); foreign namespaces get ``ns1``, ``ns2`` … in
    the order given."""
    prefixes: dict[str, str] = {}
    wanted = set(kinds)
    for kind, ns in KIND_NAMESPACES.items():
        if kind in wanted:
            prefixes[ns] = PREFIXES[ns]
    n = 0
    for ns in foreign:
        if ns in prefixes or ns == XML_NS or not ns:
            continue
        if ns in PREFIXES and PREFIXES[ns] not in prefixes.values():
            prefixes[ns] = PREFIXES[ns]
            continue
        n += 1
        prefixes[ns] = f"ns{n}"
    text = "".join(f' xmlns:{p}="{xml_escape(ns)}"' for ns, p in prefixes.items())
    return text, prefixes


def serialize(ext: Extensions, declared: Optional[Mapping[str, str]] = None) -> str:
    """The XML of ``ext`` (no surrounding white space; "" when it is empty). ``declared`` maps
    the namespaces the <urlset> declares to their prefixes (default: the five kinds'
    namespaces with their usual prefixes, as ``declarations()`` gives them)."""
    if not ext:
        return ""
    scope = dict(PREFIXES if declared is None else declared)
    out: list[str] = []
    for image in ext.images:
        _image(out, image, scope)
    for video in ext.videos:
        _video(out, video, scope)
    for news in ext.news:
        _news(out, news, scope)
    for alt in ext.alternates:
        p, decl = _prefix(XHTML_NS, scope)
        out.append(f'<{p}:link{decl} rel="alternate" hreflang="{_attr(alt.hreflang)}" '
                   f'href="{_attr(alt.href)}"/>')
    for mobile in ext.mobile:
        p, decl = _prefix(MOBILE_NS, scope)
        kind = "" if mobile.type is None else f' type="{_attr(mobile.type)}"'
        out.append(f"<{p}:mobile{decl}{kind}/>")
    for element in ext.foreign:
        _foreign(out, element, scope)
    return "".join(out)


def _prefix(ns: str, scope: dict[str, str]) -> tuple[str, str]:
    """The prefix for ``ns`` and the declaration to put on the element ("" if in scope)."""
    p = scope.get(ns)
    if p is not None:
        return p, ""
    p = PREFIXES.get(ns, "")
    if not p or p in scope.values():
        used = set(scope.values())
        n = 1
        while f"ns{n}" in used:
            n += 1
        p = f"ns{n}"
    return p, f' xmlns:{p}="{xml_escape(ns)}"'


def _text(value: str) -> str:
    # A CR would be read back as LF (XML end-of-line handling): written as a reference
    return xml_escape(value).replace("\r", "&#13;")


def _attr(value: str) -> str:
    # Tab, LF and CR in an attribute are read back as spaces (attribute-value normalisation)
    return _text(value).replace("\t", "&#9;").replace("\n", "&#10;")


def _leaf(p: str, name: str, value: str, attrs: str = "") -> str:
    return f"<{p}:{name}{attrs}>{_text(value)}</{p}:{name}>"


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _date(value: Lastmod) -> str:
    return format_lastmod(value)


def _image(out: list[str], image: Image, scope: dict[str, str]) -> None:
    p, decl = _prefix(IMAGE_NS, scope)
    parts = [f"<{p}:image{decl}>", _leaf(p, "loc", image.loc)]
    for name in IMAGE_ORDER[1:]:
        value = getattr(image, name)
        if value is not None:
            parts.append(_leaf(p, name, value))
    out.append("".join(parts) + f"</{p}:image>")


def _video_children(video: Video, p: str) -> list[tuple[int, str]]:
    """(schema rank, XML) of each child of <video:video> that has a value."""
    v = video
    player_attrs = "".join(f' {name}="{_attr(value)}"' for name, value in
                           (("allow_embed", v.allow_embed), ("autoplay", v.autoplay))
                           if value is not None)
    texts: list[tuple[str, Optional[str], str]] = [
        ("thumbnail_loc", v.thumbnail_loc, ""), ("title", v.title, ""),
        ("description", v.description, ""), ("content_loc", v.content_loc, ""),
        ("player_loc", v.player_loc, player_attrs),
        ("duration", None if v.duration is None else str(v.duration), ""),
        ("expiration_date", None if v.expiration_date is None else _date(v.expiration_date), ""),
        ("rating", None if v.rating is None else repr(float(v.rating)), ""),
        ("view_count", None if v.view_count is None else str(v.view_count), ""),
        ("publication_date", None if v.publication_date is None else
         _date(v.publication_date), ""),
        ("family_friendly", None if v.family_friendly is None else _yes(v.family_friendly), ""),
        ("requires_subscription", None if v.requires_subscription is None else
         _yes(v.requires_subscription), ""),
        ("uploader", v.uploader, "" if v.uploader_info is None else
         f' info="{_attr(v.uploader_info)}"'),
        ("live", None if v.live is None else _yes(v.live), "")]
    if v.restriction is not None:
        texts.append(("restriction", " ".join(v.restriction.countries),
                      f' relationship="{_attr(v.restriction.relationship)}"'))
    if v.platform is not None:
        texts.append(("platform", " ".join(v.platform.platforms),
                      f' relationship="{_attr(v.platform.relationship)}"'))
    children = [(_VIDEO_RANK[name], _leaf(p, name, text, attrs))
                for name, text, attrs in texts if text is not None]
    children += [(_VIDEO_RANK["tag"], _leaf(p, "tag", tag)) for tag in v.tags]
    return children


def _video(out: list[str], video: Video, scope: dict[str, str]) -> None:
    p, decl = _prefix(VIDEO_NS, scope)
    inner = dict(scope, **{VIDEO_NS: p})
    children = _video_children(video, p)
    for element in video.extra:
        parts: list[str] = []
        _foreign(parts, element, inner)
        children.append((_VIDEO_RANK.get(element.name, len(VIDEO_ORDER)), "".join(parts)))
    children.sort(key=lambda c: c[0])  # stable: tags keep their order
    out.append(f"<{p}:video{decl}>" + "".join(c for _, c in children) + f"</{p}:video>")


def _news(out: list[str], news: News, scope: dict[str, str]) -> None:
    p, decl = _prefix(NEWS_NS, scope)
    inner = dict(scope, **{NEWS_NS: p})
    children = [(_NEWS_RANK["publication"],
                 f"<{p}:publication>{_leaf(p, 'name', news.name)}"
                 f"{_leaf(p, 'language', news.language)}</{p}:publication>"),
                (_NEWS_RANK["title"], _leaf(p, "title", news.title))]
    if news.publication_date is not None:
        children.append((_NEWS_RANK["publication_date"],
                         _leaf(p, "publication_date", _date(news.publication_date))))
    for element in news.extra:
        parts: list[str] = []
        _foreign(parts, element, inner)
        children.append((_NEWS_RANK.get(element.name, len(NEWS_ORDER)), "".join(parts)))
    children.sort(key=lambda c: c[0])
    out.append(f"<{p}:news{decl}>" + "".join(c for _, c in children) + f"</{p}:news>")


def _foreign(out: list[str], element: Foreign, scope: dict[str, str],
             nested: bool = False) -> None:
    """An element as read: namespace, name, attributes, text and order kept; prefixes are
    ours. Nesting is bounded where it is read (xmlin.MAX_FOREIGN_DEPTH). Names are checked
    again here, for a Foreign a library caller built: they are written as they are."""
    check_foreign_name(element.namespace, element.name, nested=nested)
    decls = ""
    if element.namespace:
        p, decl = _prefix(element.namespace, scope)
        if decl:
            scope = dict(scope, **{element.namespace: p})
            decls += decl
        tag = f"{p}:{element.name}"
    else:
        tag = element.name
        if "" not in scope:  # <urlset>'s default namespace is sitemaps.org's: undeclare it
            decls += ' xmlns=""'
            scope = dict(scope, **{"": ""})
    attrs = []
    for key, value in element.attributes:
        ns, _, local = key.rpartition(" ")
        if not ns:
            attrs.append(f' {local}="{_attr(value)}"')
            continue
        if ns == XML_NS:
            attrs.append(f' xml:{local}="{_attr(value)}"')
            continue
        p, decl = _prefix(ns, scope)
        if decl:
            scope = dict(scope, **{ns: p})
            decls += decl
        attrs.append(f' {p}:{local}="{_attr(value)}"')
    if not element.children:
        out.append(f"<{tag}{decls}{''.join(attrs)}/>")
        return
    out.append(f"<{tag}{decls}{''.join(attrs)}>")
    for child in element.children:
        if isinstance(child, str):
            out.append(_text(child))
        else:
            _foreign(out, child, scope, nested=True)
    out.append(f"</{tag}>")
