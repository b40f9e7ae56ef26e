"""The extension values a URL may carry besides loc, lastmod, changefreq and priority."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from typing import Any, Optional, Union

# record.Lastmod, spelt out: model/record.py imports model/extensions.py, which names these types
Lastmod = Union[date, datetime]


SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# The namespaces Google documents for its extensions (Search Central), and Baidu's for its
# mobile page type (Baidu search resource platform, "移动 Sitemap 协议").
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
MOBILE_NS = "http://www.baidu.com/schemas/sitemap-mobile/1/"
XML_NS = "http://www.w3.org/XML/1998/namespace"  # xml:lang and friends: never declared

# kind (the Extensions field) → its namespace
KIND_NAMESPACES = {"images": IMAGE_NS, "videos": VIDEO_NS, "news": NEWS_NS,
                   "alternates": XHTML_NS, "mobile": MOBILE_NS}


@dataclass(frozen=True, slots=True)
class Foreign:
    """An element kept as read (but for its prefix): attributes named as expat names them
    (``"URI local"``, or ``"local"`` without a namespace), in order; children, text or elements."""

    namespace: str
    name: str
    attributes: tuple[tuple[str, str], ...] = ()
    children: tuple[Union[str, Foreign], ...] = ()

    def text(self) -> str:
        """The text directly inside the element (its child elements' text left out)."""
        return "".join(c for c in self.children if isinstance(c, str))

    def attribute(self, name: str) -> Optional[str]:
        return next((value for key, value in self.attributes if key == name), None)


# XML 1.0 (fifth edition) names without a colon: what a foreign element's or attribute's
# local name must be, since it is written into the markup as it is
_NAME_START = ("A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d"
               "\u037f-\u1fff\u200c\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff"
               "\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
_NAME_MORE = "\\-.0-9\u00b7\u0300-\u036f\u203f\u2040"
# namespaces a foreign element may not be in: sitemaps.org's own (the schema allows only
# other namespaces there) and the two that XML reserves
_RESERVED_NS = frozenset({SITEMAP_NS, XML_NS, "http://www.w3.org/2000/xmlns/"})


@cache
def _ncname() -> re.Pattern[str]:
    return re.compile(f"[{_NAME_START}][{_NAME_START}{_NAME_MORE}]*")


def check_foreign_name(namespace: str, name: str, attribute: bool = False,
                       nested: bool = False) -> None:
    """ValueError unless ``name`` is an XML name without a colon, in a namespace a foreign
    element (or attribute) may be in. Only one ``nested`` in a foreign element may have none:
    the schemas' ``##other`` allows only other namespaces' elements in <url> and its items."""
    what = "attribute" if attribute else "element"
    if len(name) > 256 or not _ncname().fullmatch(name):
        raise ValueError(f"{name[:80]!r} is not an XML name for a foreign {what}")
    if not namespace and not attribute and not nested:
        raise ValueError(f"the foreign element {name[:80]!r} has no namespace: only elements "
                         "of another namespace may stand there")
    if attribute and not namespace and name == "xmlns":
        raise ValueError("xmlns is a namespace declaration, not a foreign attribute")
    if namespace in _RESERVED_NS and not (attribute and namespace == XML_NS):
        raise ValueError(f"a foreign {what} may not be in the namespace {namespace[:80]}")


@dataclass(frozen=True, slots=True)
class Image:
    """<image:image>; caption, title, geo_location and license are deprecated (kept as read)."""

    loc: str
    caption: Optional[str] = None
    geo_location: Optional[str] = None
    title: Optional[str] = None
    license: Optional[str] = None


@dataclass(frozen=True, slots=True)
class Restriction:
    """<video:restriction relationship="allow|deny">: ISO 3166 country codes."""

    relationship: str
    countries: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Platform:
    """<video:platform relationship="allow|deny">: web, mobile, tv."""

    relationship: str
    platforms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Video:
    """<video:video>. ``allow_embed`` and ``autoplay`` are <video:player_loc>'s deprecated
    attributes; ``extra`` holds the deprecated children with no field here, as read."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: Optional[str] = None
    player_loc: Optional[str] = None
    allow_embed: Optional[str] = None
    autoplay: Optional[str] = None
    duration: Optional[int] = None
    expiration_date: Optional[Lastmod] = None
    rating: Optional[float] = None
    view_count: Optional[int] = None
    publication_date: Optional[Lastmod] = None
    family_friendly: Optional[bool] = None
    restriction: Optional[Restriction] = None
    platform: Optional[Platform] = None
    requires_subscription: Optional[bool] = None
    uploader: Optional[str] = None
    uploader_info: Optional[str] = None
    live: Optional[bool] = None
    tags: tuple[str, ...] = ()
    extra: tuple[Foreign, ...] = ()


@dataclass(frozen=True, slots=True)
class News:
    """<news:news>; ``extra`` holds the children Google dropped from its documentation."""

    name: str
    language: str
    publication_date: Optional[Lastmod]
    title: str
    extra: tuple[Foreign, ...] = ()


@dataclass(frozen=True, slots=True)
class Alternate:
    """<xhtml:link rel="alternate" hreflang="…" href="…"/> (another xhtml:link is Foreign)."""

    hreflang: str
    href: str


@dataclass(frozen=True, slots=True)
class Mobile:
    """Baidu's <mobile:mobile type="…"/> (no type: Baidu reads "mobile")."""

    type: Optional[str] = None


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an extension: its ``kind`` ("images", …), the ``index`` of the item
    (None: the URL as a whole), its ``field`` ("": the whole item). ``drops`` says what the
    converter leaves out: "field", "item", "excess" (what is past a limit), "value" (written
    as ``value``, the form the schema takes) or "none"."""

    kind: str
    field: str
    reason: str
    index: Optional[int] = None
    line: Optional[int] = None
    drops: str = "field"
    value: Any = None

    def message(self) -> str:
        what = self.kind if self.index is None else f"{self.kind}[{self.index}]"
        return f"{what}{'.' + self.field if self.field else ''}: {self.reason}"
