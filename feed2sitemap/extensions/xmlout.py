"""Extensions as the XML inside <url>: each kind with the prefix Google's examples use, its
children in the order of Google's schemas. ``serialize`` declares on the element itself any
namespace the <urlset>'s ``declarations`` lack, so its output is well-formed whatever they are."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Optional

from ..model.extensions import Extensions
from ..model.record import format_lastmod, parse_lastmod
from ..xmlutil import escape_specials, xml_escape
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

PREFIXES: Mapping[str, str] = {IMAGE_NS: "image", VIDEO_NS: "video", NEWS_NS: "news",
                               XHTML_NS: "xhtml", MOBILE_NS: "mobile"}
# Children of <image:image>, <video:video> and <news:news> in the order of Google's schemas
# (xsd:sequence), deprecated ones too: a video read with a <video:price> is written back valid
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


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def _rating(value: float) -> str:
    return repr(float(value))


def _read_yes_no(text: str) -> bool:
    # [VID] yes or no; Google's schema takes yes/no, YES/NO and Yes/No
    value = text.strip().lower()
    if value not in ("yes", "no"):
        raise ValueError(f"{text.strip()[:40]!r} is not yes or no")
    return value == "yes"


def _read_int(text: str) -> int:
    if re.fullmatch(r"\s*\+?\d{1,15}\s*", text) is None:
        raise ValueError(f"{text.strip()[:40]!r} is not a whole number")
    return int(text)


def _read_float(text: str) -> float:
    if re.fullmatch(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?\s*", text) is None:
        raise ValueError(f"{text.strip()[:40]!r} is not a number")
    return float(text)


_TEXT = (str.strip, str)
_DATE = (parse_lastmod, format_lastmod)
_YES_NO = (_read_yes_no, _yes)
# <video:video>'s children of one value each (a Video field of the same name): how each is read
# (xmlin) and written
VIDEO_VALUES: dict[str, tuple[Callable[[str], Any], Callable[[Any], str]]] = {
    "thumbnail_loc": _TEXT, "title": _TEXT, "description": _TEXT, "content_loc": _TEXT,
    "player_loc": _TEXT, "duration": (_read_int, str), "expiration_date": _DATE,
    "rating": (_read_float, _rating), "view_count": (_read_int, str),
    "publication_date": _DATE, "family_friendly": _YES_NO, "requires_subscription": _YES_NO,
    "uploader": _TEXT, "live": _YES_NO}


def declarations(kinds: Iterable[str] = KIND_NAMESPACES,
                 foreign: Iterable[str] = ()) -> tuple[str, dict[str, str]]:
    """The ``xmlns:…`` attributes a <urlset> needs for ``kinds`` (in one fixed order) and the
    ``foreign`` namespaces (``ns1``, ``ns2`` … in order), and the namespace → prefix map."""
    wanted = set(kinds)
    prefixes = {ns: PREFIXES[ns] for kind, ns in KIND_NAMESPACES.items() if kind in wanted}
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


def serialized(column: Sequence[Extensions], declared: Mapping[str, str]) -> list[str]:
    return [serialize(ext, declared) if ext else "" for ext in column]


def serialize(ext: Extensions, declared: Optional[Mapping[str, str]] = None) -> str:
    """The XML of ``ext``; ``declared``: the <urlset>'s namespace → prefix map."""
    if not ext:
        return ""
    scope = PREFIXES if declared is None else declared
    out: list[str] = []
    if ext.images:
        p, decl = _prefix(IMAGE_NS, scope)
        out += [_image(image, p, decl) for image in ext.images]
    for video in ext.videos:
        _video(out, video, scope)
    for news in ext.news:
        _news(out, news, scope)
    if ext.alternates:
        p, decl = _prefix(XHTML_NS, scope)
        out += [f'<{p}:link{decl} rel="alternate" hreflang="{_attr(alt.hreflang)}" '
                f'href="{_attr(alt.href)}"/>' for alt in ext.alternates]
    for mobile in ext.mobile:
        p, decl = _prefix(MOBILE_NS, scope)
        out.append(f"<{p}:mobile{decl}{_attrs(type=mobile.type)}/>")
    for element in ext.foreign:
        _foreign(out, element, scope)
    return "".join(out)


def _prefix(ns: str, scope: Mapping[str, str]) -> tuple[str, str]:
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


# (A printable text holds no CR, tab or LF, nor any character XML forbids.)
def _text(value: str) -> str:
    if value.isprintable():
        return escape_specials(value)
    # A CR would be read back as LF (XML end-of-line handling): written as a reference
    return xml_escape(value).replace("\r", "&#13;")


def _attr(value: str) -> str:
    if value.isprintable():
        return escape_specials(value)
    # Tab, LF and CR in an attribute are read back as spaces (attribute-value normalisation)
    return xml_escape(value).replace("\r", "&#13;").replace("\t", "&#9;").replace("\n", "&#10;")


def _attrs(**values: Optional[str]) -> str:
    return "".join(f' {name}="{_attr(v)}"' for name, v in values.items() if v is not None)


def _leaf(p: str, name: str, value: str, attrs: str = "") -> str:
    return f"<{p}:{name}{attrs}>{_text(value)}</{p}:{name}>"


def _image(image: Image, p: str, decl: str) -> str:
    children = "".join([_leaf(p, name, value) for name in IMAGE_ORDER
                        if (value := getattr(image, name)) is not None])
    return f"<{p}:image{decl}>{children}</{p}:image>"


def _video(out: list[str], video: Video, scope: Mapping[str, str]) -> None:
    p, decl = _prefix(VIDEO_NS, scope)
    attrs = {"player_loc": _attrs(allow_embed=video.allow_embed, autoplay=video.autoplay),
             "uploader": _attrs(info=video.uploader_info)}
    children = [(_VIDEO_RANK[name], _leaf(p, name, text(value), attrs.get(name, "")))
                for name, (_, text) in VIDEO_VALUES.items()
                if (value := getattr(video, name)) is not None]
    if video.restriction is not None:
        children.append((_VIDEO_RANK["restriction"], _leaf(
            p, "restriction", " ".join(video.restriction.countries),
            _attrs(relationship=video.restriction.relationship))))
    if video.platform is not None:
        children.append((_VIDEO_RANK["platform"], _leaf(
            p, "platform", " ".join(video.platform.platforms),
            _attrs(relationship=video.platform.relationship))))
    children += [(_VIDEO_RANK["tag"], _leaf(p, "tag", tag)) for tag in video.tags]
    _ranked(out, p, decl, "video", children, video.extra, _VIDEO_RANK, dict(scope, **{VIDEO_NS: p}))


def _news(out: list[str], news: News, scope: Mapping[str, str]) -> None:
    p, decl = _prefix(NEWS_NS, scope)
    children = [(_NEWS_RANK["publication"],
                 f"<{p}:publication>{_leaf(p, 'name', news.name)}"
                 f"{_leaf(p, 'language', news.language)}</{p}:publication>"),
                (_NEWS_RANK["title"], _leaf(p, "title", news.title))]
    if news.publication_date is not None:
        children.append((_NEWS_RANK["publication_date"],
                         _leaf(p, "publication_date", format_lastmod(news.publication_date))))
    _ranked(out, p, decl, "news", children, news.extra, _NEWS_RANK, dict(scope, **{NEWS_NS: p}))


def _ranked(out: list[str], p: str, decl: str, name: str, children: list[tuple[int, str]],
            extra: tuple[Foreign, ...], rank: Mapping[str, int], scope: Mapping[str, str]) -> None:
    """An item's element, its children and ``extra`` elements in schema order (a stable sort)."""
    for element in extra:
        parts: list[str] = []
        _foreign(parts, element, scope)
        children.append((rank.get(element.name, len(rank)), "".join(parts)))
    children.sort(key=lambda c: c[0])
    out.append(f"<{p}:{name}{decl}>" + "".join(c for _, c in children) + f"</{p}:{name}>")


def _foreign(out: list[str], element: Foreign, scope: Mapping[str, str],
             nested: bool = False) -> None:
    """An element as read, with our prefixes; its names checked again (a library caller's
    Foreign is written as it is)."""
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
        if ns and ns != XML_NS:
            p, decl = _prefix(ns, scope)
            if decl:
                scope = dict(scope, **{ns: p})
                decls += decl
            local = f"{p}:{local}"
        elif ns:
            local = f"xml:{local}"
        attrs.append(f' {local}="{_attr(value)}"')
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
