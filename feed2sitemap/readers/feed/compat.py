"""feedparser's rules for an entry's link and dates, as the fast pass (fastpass.py) replays them.

Read in (and tested against) feedparser 6.0.14. A table or function whose every quirk we must
match is imported from feedparser itself, when first needed; the tables read at every element
are held below as data (derived by ``derive()``; tests/test_feedtables.py holds them equal),
because importing feedparser costs a small job more than the rest of its run.
"""

from __future__ import annotations

import codecs
import importlib.util
import re
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime, timedelta, timezone
from functools import cache, lru_cache
from typing import Any, NamedTuple

from ...model.rules import parsed_utc


class FastPathUnsupported(Exception):
    """The fast pass cannot give feedparser's answer for this document: feedparser is used."""


class FeedEntry(NamedTuple):
    link: str | None  # resolved as feedparser resolves it (may still be relative)
    lastmod: datetime | None  # aware UTC datetime
    line: int  # 1-based line of the entry/item start tag; 0 from feedparser


new_entry = tuple.__new__  # a FeedEntry without NamedTuple's Python-level __new__


class FeedEntries(list[FeedEntry]):
    """The entries; ``site``: the feed's own first alternate link, resolved, or None;
    ``extended``: the feed holds markup that may carry an entry's images, video or alternates,
    which only feedparser reads."""

    site: str | None = None
    extended = False
    undated: tuple[tuple[int, str], ...] = ()  # (index, date as written) of each entry whose
    # date is no date (it has no lastmod), for the reader to report


FEEDPARSER_VERSION = '6.0.14'

# _FeedParserMixin.namespaces, keys lower-cased (URI -> feedparser's prefix)
NAMESPACES = {
    '': '',
    'http://backend.userland.com/rss': '',
    'http://blogs.law.harvard.edu/tech/rss': '',
    'http://purl.org/rss/1.0/': '',
    'http://my.netscape.com/rdf/simple/0.9/': '',
    'http://example.com/newformat#': '',
    'http://example.com/necho': '',
    'http://purl.org/echo/': '',
    'uri/of/echo/namespace#': '',
    'http://purl.org/pie/': '',
    'http://purl.org/atom/ns#': '',
    'http://www.w3.org/2005/atom': '',
    'http://purl.org/rss/1.0/modules/rss091#': '',
    'http://webns.net/mvcb/': 'admin',
    'http://purl.org/rss/1.0/modules/aggregation/': 'ag',
    'http://purl.org/rss/1.0/modules/annotate/': 'annotate',
    'http://media.tangent.org/rss/1.0/': 'audio',
    'http://backend.userland.com/blogchannelmodule': 'blogChannel',
    'http://creativecommons.org/ns#license': 'cc',
    'http://web.resource.org/cc/': 'cc',
    'http://cyber.law.harvard.edu/rss/creativecommonsrssmodule.html': 'creativeCommons',
    'http://backend.userland.com/creativecommonsrssmodule': 'creativeCommons',
    'http://purl.org/rss/1.0/modules/company': 'co',
    'http://purl.org/rss/1.0/modules/content/': 'content',
    'http://my.theinfo.org/changed/1.0/rss/': 'cp',
    'http://purl.org/dc/elements/1.1/': 'dc',
    'http://purl.org/dc/terms/': 'dcterms',
    'http://purl.org/rss/1.0/modules/email/': 'email',
    'http://purl.org/rss/1.0/modules/event/': 'ev',
    'http://rssnamespace.org/feedburner/ext/1.0': 'feedburner',
    'http://freshmeat.net/rss/fm/': 'fm',
    'http://xmlns.com/foaf/0.1/': 'foaf',
    'http://www.w3.org/2003/01/geo/wgs84_pos#': 'geo',
    'http://www.georss.org/georss': 'georss',
    'http://www.opengis.net/gml': 'gml',
    'http://postneo.com/icbm/': 'icbm',
    'http://purl.org/rss/1.0/modules/image/': 'image',
    'http://www.itunes.com/dtds/podcast-1.0.dtd': 'itunes',
    'http://example.com/dtds/podcast-1.0.dtd': 'itunes',
    'http://purl.org/rss/1.0/modules/link/': 'l',
    'http://search.yahoo.com/mrss': 'media',
    'http://search.yahoo.com/mrss/': 'media',
    'http://madskills.com/public/xml/rss/module/pingback/': 'pingback',
    'http://prismstandard.org/namespaces/1.2/basic/': 'prism',
    'http://www.w3.org/1999/02/22-rdf-syntax-ns#': 'rdf',
    'http://www.w3.org/2000/01/rdf-schema#': 'rdfs',
    'http://purl.org/rss/1.0/modules/reference/': 'ref',
    'http://purl.org/rss/1.0/modules/richequiv/': 'reqv',
    'http://purl.org/rss/1.0/modules/search/': 'search',
    'http://purl.org/rss/1.0/modules/slash/': 'slash',
    'http://schemas.xmlsoap.org/soap/envelope/': 'soap',
    'http://purl.org/rss/1.0/modules/servicestatus/': 'ss',
    'http://hacks.benhammersley.com/rss/streaming/': 'str',
    'http://purl.org/rss/1.0/modules/subscription/': 'sub',
    'http://purl.org/rss/1.0/modules/syndication/': 'sy',
    'http://schemas.pocketsoap.com/rss/mydescmodule/': 'szf',
    'http://purl.org/rss/1.0/modules/taxonomy/': 'taxo',
    'http://purl.org/rss/1.0/modules/threading/': 'thr',
    'http://purl.org/rss/1.0/modules/textinput/': 'ti',
    'http://madskills.com/public/xml/rss/module/trackback/': 'trackback',
    'http://wellformedweb.org/commentapi/': 'wfw',
    'http://purl.org/rss/1.0/modules/wiki/': 'wiki',
    'http://www.w3.org/1999/xhtml': 'xhtml',
    'http://www.w3.org/1999/xlink': 'xlink',
    'http://www.w3.org/xml/1998/namespace': 'xml',
    'http://podlove.org/simple-chapters': 'psc',
}

# The X of StrictFeedParser's lower-case _start_X and _end_X methods (its element handlers),
# and those with a _start_X alone
HANDLED = frozenset("""
    abstract author body category cc_license channel cloud content content_encoded
    contributor copyright created creativecommons_license dc_author dc_contributor
    dc_creator dc_date dc_description dc_language dc_publisher dc_rights dc_subject dc_title
    dcterms_created dcterms_issued dcterms_modified dcterms_valid description email
    enclosure entry expirationdate feed feedburner_browserfriendly fullitem generator geom
    georss_box georss_line georss_point georss_polygon georss_where georssgeom gml_exterior
    gml_linearring gml_linestring gml_point gml_polygon gml_pos gml_poslist guid height
    homepage id image info issued item itunes_author itunes_block itunes_category
    itunes_email itunes_explicit itunes_image itunes_keywords itunes_link itunes_name
    itunes_owner itunes_subtitle itunes_summary keywords language lastbuilddate link
    managingeditor media_category media_content media_credit media_description media_group
    media_keywords media_license media_player media_rating media_restriction media_thumbnail
    media_title modified name newlocation psc_chapter psc_chapters pubdate published rights
    rss source subtitle summary tagline tags textinput title updated uri url webmaster where
    width xhtml_body
""".split())
START_ONLY = frozenset("""cc_license cloud enclosure georssgeom itunes_image itunes_link
    media_content media_group psc_chapter rss""".split())

HTML_TYPE_NAMES = frozenset(['application/xhtml+xml', 'text/html'])

_VERSION_LINE = re.compile(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", re.M)


def installed_version() -> str | None:
    """feedparser's version, read from its __init__.py without importing it."""
    try:
        spec = importlib.util.find_spec("feedparser")
        origin = spec.origin if spec is not None else None
        text = ""
        if origin:
            with open(origin, encoding="utf-8") as f:
                text = f.read()
    except (ImportError, OSError, ValueError):
        return None
    m = _VERSION_LINE.search(text)
    return m.group(1) if m else None


Tables = tuple[str, dict[str, str], frozenset[str], frozenset[str], frozenset[str]]


def derive() -> Tables:
    """The tables, from the installed feedparser itself."""
    import feedparser
    from feedparser.api import StrictFeedParser
    from feedparser.mixin import _FeedParserMixin

    ns = {k.lower(): v for k, v in _FeedParserMixin.namespaces.items()}
    methods = [n for n in dir(StrictFeedParser) if n == n.lower()]
    starts = {n[7:] for n in methods if n.startswith("_start_")}
    ends = {n[5:] for n in methods if n.startswith("_end_")}
    return (feedparser.__version__, ns, frozenset(starts | ends), frozenset(starts - ends),
            frozenset(_FeedParserMixin.html_types))


def tables() -> Tables:
    """(version, namespaces, handled, start only, HTML types): the data above for that
    version, else derived from the installed feedparser."""
    version = installed_version()
    if version == FEEDPARSER_VERSION:
        return version, NAMESPACES, HANDLED, START_ONLY, HTML_TYPE_NAMES
    return derive()


# ---------------------------------------------------------------------------------------- encodings

def headers(base_url: str | None) -> dict[str, str] | None:
    """Our only response header: feedparser takes the document URI from Content-Location."""
    return {"content-location": base_url} if base_url else None


# feedparser's RE_XML_PI_ENCODING (a test holds the two equal)
XML_PI_ENCODING = re.compile(rb'^<\?.*encoding=[\'"](.*?)[\'"].*\?>')

# First bytes for which feedparser sniffs a BOM or a non-ASCII-compatible encoding.
_SNIFFED = (codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE,
            codecs.BOM_UTF8, b"\x4c\x6f\xa7\x94", b"\x00\x3c\x00\x3f", b"\x3c\x00\x3f\x00",
            b"\x00\x00\x00\x3c", b"\x3c\x00\x00\x00")  # fmt: skip
_EXPAT_NATIVE = {"utf-8": "UTF-8", "iso8859-1": "ISO-8859-1"}


def one_line_encoding(first: bytes, rest: Iterator[bytes], base_url: str | None
                      ) -> tuple[str | None, Iterator[bytes]]:
    """native() for a document whose first line outlasts its first chunk (a minified feed),
    without holding that line: the declaration decides, and should the line say
    "encoding=" again (feedparser's regex takes the last one), FastPathUnsupported."""
    if not first.startswith(b"<?"):  # no declaration: the regex cannot match, whatever follows
        return native(first, base_url), rest
    end = first.find(b"?>")
    if end < 0:
        return None, rest
    encoding = native(first[: end + 2], base_url)
    if encoding is None or b"encoding=" in first[end + 2:]:
        return None, rest
    return encoding, _line_without_encoding(first[end + 2:], rest)


def _line_without_encoding(seen: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    keep = len(b"encoding=") - 1
    tail = seen[-keep:]
    line_open = True
    for chunk in rest:
        if line_open:
            cut = chunk.find(b"\n")
            piece = tail + (chunk if cut < 0 else chunk[:cut])
            if b"encoding=" in piece:
                raise FastPathUnsupported("\"encoding=\" twice on the first line")
            line_open, tail = cut < 0, piece[-keep:]
        yield chunk


def native(data: bytes, base_url: str | None) -> str | None:
    """prepare()'s encoding when expat reads it natively (the document need not be held
    whole), else None."""
    if data.startswith(_SNIFFED):
        return None
    match = XML_PI_ENCODING.match(data)
    try:
        declared = match.group(1).decode("utf-8").lower() if match else ""
        name = codecs.lookup(declared or ("iso-8859-1" if base_url else "utf-8")).name
    except (UnicodeDecodeError, LookupError, ValueError):  # ValueError: a NUL in the name
        name = ""
    return _EXPAT_NATIVE.get(name)


def prepare(data: bytes, base_url: str | None) -> tuple[bytes, str, int]:
    """(bytes for expat, encoding to force, line shift), decoded as feedparser decodes: the
    original bytes where expat reads the encoding natively, else feedparser's converter's."""
    encoding = native(data, base_url)
    if encoding is not None:
        return data, encoding, 0
    from feedparser.encodings import convert_to_utf8  # (the rare case)

    result: dict[str, Any] = {}
    try:
        converted = convert_to_utf8(headers(base_url) or {}, data, result)
    except Exception as exc:  # feedparser itself would fail the same way
        raise FastPathUnsupported(f"encoding detection failed: {exc!r}") from None
    if not result.get("encoding"):
        raise FastPathUnsupported("feedparser found no encoding (it would use its loose parser)")
    try:
        return converted, "UTF-8", line_shift(data, result["encoding"])
    except (UnicodeError, LookupError):  # "idna" is a codec without the "ignore" handler
        raise FastPathUnsupported(f"cannot decode as {result['encoding']}") from None


def line_shift(data: bytes, encoding: str) -> int:
    """What to add to a line of feedparser's UTF-8 copy of ``data`` (decoded as ``encoding``)
    to make it the document's: its converter replaces the XML declaration by a one-line one, or
    prepends one and a newline."""
    from feedparser.encodings import RE_XML_DECLARATION

    head = data[:2048]
    for bom in _SNIFFED[:5]:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    decl = RE_XML_DECLARATION.search(head.decode(encoding, "ignore"))
    return decl.group(0).count("\n") if decl else -1


# ----------------------------------------------------------------------------------------- elements

_VERSION, MATCHNS, _HANDLED, _START_ONLY, HTML_TYPES = tables()
REPLAYED_VERSION = _VERSION.startswith("6.0.")  # another major version is not trusted

STD_PREFIXES = set(MATCHNS.values())
END_KEYS = _HANDLED - _START_ONLY


def map_content_type(content_type: str) -> str:
    """feedparser's _FeedParserMixin.map_content_type (a test holds the two equal)."""
    content_type = content_type.lower()
    return _SHORT_TYPES.get(content_type, content_type)


_SHORT_TYPES = {"text": "text/plain", "plain": "text/plain", "html": "text/html",
                "xhtml": "application/xhtml+xml"}


@lru_cache(maxsize=1024)
def is_html(typ: str) -> bool:
    """Whether feedparser takes a link of this type as the entry's page."""
    return map_content_type(typ) in HTML_TYPES

# Handlers that never touch an entry's links or dates, nor the parser state we track.
_INERT = set(
    """author name email uri url homepage contributor dc_creator dc_author dc_contributor
    dc_subject dc_language dc_publisher category keywords cloud generator language webmaster
    managingeditor expirationdate created dcterms_created dcterms_valid enclosure cc_license
    itunes_author itunes_block itunes_category itunes_email itunes_explicit itunes_image
    itunes_link itunes_keywords itunes_name itunes_owner media_category media_content
    media_credit media_group media_keywords media_license media_player media_rating
    media_restriction media_thumbnail newlocation tags rss""".split()
)

# What the fast pass does with an element (its on_<kind>), by feedparser's key. No kind (PLAIN):
# only its xml:base counts. "text": a text construct, whose children feedparser keeps as
# markup; "guid": RSS <guid> or Atom <id>; "source": an entry's <source>, "image": <image> or
# <textinput>, whose links and dates are not the entry's; "childless": inert, but their
# handlers fail on child elements; "extension": what feedparser makes an entry's image, video
# or enclosure from, noted for the policy; "unsupported": handlers not replayed.
PLAIN = ""
ENTRY = "entry"
KIND = dict.fromkeys(_HANDLED - _INERT, "unsupported")
for _kind, _keys in {
    "text": """title dc_title media_title subtitle tagline itunes_subtitle rights copyright
        dc_rights description dc_description media_description abstract info
        feedburner_browserfriendly summary itunes_summary content content_encoded fullitem body
        xhtml_body""",
    ENTRY: "item entry",
    "link": "link",
    "guid": "guid id",
    "published": "published issued pubdate dcterms_issued",
    "updated": "updated modified lastbuilddate dc_date dcterms_modified",
    "source": "source",
    "image": "image textinput",
    "container": "channel feed",
    "childless": "width height creativecommons_license",
    # (itunes:link is feedparser's alias of itunes:image)
    "extension": "enclosure media_content media_thumbnail media_player itunes_image itunes_link",
    # stored under their key through FeedParserDict's key map, these would overwrite the
    # entry's links or dates (<date_parsed> lands in updated_parsed)
    "unsupported": "links updated_parsed published_parsed date_parsed modified_parsed "
                   "issued_parsed",
}.items():
    KIND.update(dict.fromkeys(_keys.split(), _kind))
ROOTS = {"rss", "rdf_rdf", "feed"}
# Text constructs no reader keeps (a news sitemap keeps the title): their text streams past
# xmlutil.MAX_TOKEN, where that of the others (and of links and dates) is refused.
FREE_TEXT = frozenset(k for k, kind in KIND.items() if kind == "text") - {
    "title", "dc_title", "media_title"}
# Attributes of an Atom <link> that feedparser stores under their own names, untouched.
LINK_ATTRS = frozenset({"rel", "type", "href", "hreflang", "title", "length"})
_USERLAND = "backend.userland.com/rss"  # any URI containing this is RSS 0.91's namespace


class Namespaces:
    """feedparser's namespace bookkeeping (``track_namespace``) and element naming."""

    __slots__ = ("nsmap", "in_use", "first_prefix")

    def __init__(self) -> None:
        self.nsmap: dict[str | None, str] = {}  # feedparser's namespacemap
        self.in_use: dict[str, str] = {}  # feedparser's namespaces_in_use
        # namespace -> its first prefix in in_use: one search per namespace, not one per
        # element name (quadratic with thousands of declarations)
        self.first_prefix: dict[str, str | None] = {}

    def declare(self, prefix: str | None, uri: str) -> bool:
        """Track a declaration; True when it renames elements already named."""
        nsmap, in_use, first_prefix = self.nsmap, self.in_use, self.first_prefix
        lower = uri.lower()
        if _USERLAND in lower:
            uri = lower = "http://" + _USERLAND
        if lower in MATCHNS:
            std = MATCHNS[lower]
            renames = (
                prefix is not None
                and nsmap.get(prefix, prefix) != std
                and (prefix in STD_PREFIXES or prefix in in_use)
            ) or (std != "" and in_use.get(std, uri) != uri)  # ("" is never searched)
            nsmap[prefix] = std
            first_prefix.pop(in_use.get(std, ""), None)
            in_use[std] = uri
        else:
            renames = bool(prefix) and in_use.get(prefix, uri) != uri  # type: ignore[arg-type]
            first_prefix.pop(in_use.get(prefix or "", ""), None)
            in_use[prefix or ""] = uri
        first_prefix.pop(uri, None)
        return renames

    def key(self, name: str) -> str:
        """feedparser's startElementNS + unknown_starttag naming: the X of its _start_X."""
        parts = name.split(" ")
        ns = parts[0] if len(parts) > 1 else None
        lower = (ns or "").lower()
        if _USERLAND in lower:
            ns = lower = "http://" + _USERLAND
        prefix = MATCHNS.get(lower)
        tag = (parts[1] if ns else name).lower()
        if prefix:
            tag = prefix.lower() + ":" + tag
        elif ns:  # feedparser's "Expat" branch: the first declared prefix bound to this namespace
            if ns not in self.first_prefix:
                self.first_prefix[ns] = next(
                    (d for d, v in self.in_use.items() if d and v == ns), None)
            declared = self.first_prefix[ns]
            if declared:
                tag = (declared + ":" + tag).lower()
        prefix, suffix = tag.split(":", 1) if ":" in tag else ("", tag)
        prefix = self.nsmap.get(prefix, prefix)
        return prefix + "_" + suffix if prefix else suffix


# --------------------------------------------------------------------------------------- attributes

def _attr_keys(name: str) -> tuple[str, str, bool]:
    """feedparser's two dictionary keys for one expat attribute name (it fills its dict once
    with (known prefix:)local, once with the qualified name, so "foo:href" in an unknown
    namespace also sets "href"), and whether it sets the base."""
    parts = name.split(" ")
    if len(parts) == 1:
        first = qname = name
    else:
        prefix = MATCHNS.get(parts[0].lower(), "")
        first = prefix + ":" + parts[1] if prefix else parts[1]
        qname = parts[2] + ":" + parts[1] if len(parts) == 3 else parts[1]
    first, qname = first.lower(), qname.lower()
    return first, qname, bool({first, qname} & {"xml:base", "base"})


class Attributes:
    """feedparser's attribute dict for an element, with the keys of each name cached."""

    __slots__ = ("keys", "plain")

    def __init__(self) -> None:
        self.keys: dict[str, tuple[str, str, bool]] = {}
        self.plain: set[str] = set()  # attribute names known not to set the base

    def key(self, name: str) -> tuple[str, str, bool]:
        return self.keys.get(name) or self.keys.setdefault(name, _attr_keys(name))

    def as_dict(self, attrs: dict[str, str]) -> dict[str, str]:
        """Keys lower-cased, prefixed as feedparser does; rel and type values lower-cased."""
        out = {}
        qualified = False
        for a, v in attrs.items():
            keys = self.key(a)
            out[keys[0]] = v
            qualified = qualified or keys[0] != keys[1]
        if qualified:  # the second pass only changes something when a qualified name differs
            for a, v in attrs.items():
                out[self.keys[a][1]] = v
        for k in ("rel", "type"):
            if k in out:
                out[k] = out[k].lower()
        return out

    def new_base(self, attrs: dict[str, str]) -> str | None:
        """The xml:base (or base) value the element sets, else None."""
        plain = self.plain
        for a in attrs:
            if a not in plain:
                if self.key(a)[2]:
                    d = self.as_dict(attrs)
                    return d.get("xml:base", d.get("base")) or ""
                plain.add(a)
        return None

    def link(self, attrs: dict[str, str]) -> tuple[str, str | None, str | None]:
        """A <link>'s (rel, href, type) as feedparser stores them (rel defaults to alternate)."""
        if LINK_ATTRS.issuperset(attrs):  # RSS's and Atom's: feedparser's keys are these names
            rel = attrs["rel"].lower() if "rel" in attrs else "alternate"
            return rel, attrs.get("href"), attrs.get("type")
        d = self.as_dict(attrs)
        rel = d.setdefault("rel", "alternate")
        href = d.get("url", d.get("uri", d.get("href")))  # feedparser's _enforce_href
        return rel, href or d.get("href"), d.get("type")

    def has(self, attrs: dict[str, str], key: str) -> bool:
        """The element has an attribute feedparser stores as ``key`` (a lower-case name)."""
        return key in attrs or not LINK_ATTRS.issuperset(attrs) and key in self.as_dict(attrs)

    def is_permalink(self, attrs: dict[str, str]) -> bool:
        """A <guid>'s isPermaLink, compared as feedparser does (case-sensitively)."""
        if not attrs:
            return True
        if len(attrs) == 1 and "isPermaLink" in attrs:  # RSS's usual spelling
            return attrs["isPermaLink"] == "true"
        return self.as_dict(attrs).get("ispermalink", "true") == "true"


# ------------------------------------------------------------------------------------ URLs and text

def urljoin(base: str, uri: str) -> str:
    from feedparser.urls import _urljoin

    return str(_urljoin(base, uri))


def join_base(base: str, new: str) -> str:
    """feedparser's push of an element's xml:base ``new`` onto the current ``base`` (``new``
    is ``base`` for an element without xml:base: the base joined with itself)."""
    from feedparser.urls import make_safe_absolute_uri

    if base:
        return str(make_safe_absolute_uri(base, new or base)) or base
    return urljoin(base, new)


# Absolute http(s) URLs that urljoin gives back unchanged whatever the base (nothing urlsplit
# strips, lower-cases or drops; an IRI's characters, which it leaves alone), and relative paths
# whose join is the base's directory plus the path (no ".", "..", "//", ":", "?", "#").
_PLAIN_IRI = re.compile(
    r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[^\x00-\x20\"#;<>?\[\\\]^`{|}\x7f-\x9f]*)?"
    r"(?:\?[^\x00-\x20\"#<>\[\\\]^`{|}\x7f-\x9f]+)?(?:#[^\x00-\x20\"#<>\[\\\]^`{|}\x7f-\x9f]+)?"
)
_PLAIN_REL = re.compile(r"(?:(?!\.\.?/)[A-Za-z0-9\-._~]+/)*(?!\.\.?/?$)[A-Za-z0-9\-._~]+/?")


def resolver() -> Callable[[str, str], str]:
    """feedparser's _urljoin(base, uri), skipping urllib for the two plain shapes above."""
    prefixes: dict[str, str | None] = {}
    plain_abs, plain_rel = _PLAIN_IRI.fullmatch, _PLAIN_REL.fullmatch

    def resolve(base: str, uri: str) -> str:
        if plain_abs(uri):
            return uri
        if plain_rel(uri):
            if base not in prefixes:  # what urljoin puts before a one-segment relative path
                probe = urljoin(base, "x")
                prefixes[base] = probe[:-1] if probe.endswith("x") else None
            prefix = prefixes[base]
            if prefix is not None:
                return prefix + uri
        return urljoin(base, uri)

    return resolve


# feedparser maps C1 controls in text as Windows-1252; Python's cp1252 codec defines exactly
# the 27 bytes of 0x80-0x9F its table holds (tests/test_feedstream.py compares the two).
CP1252 = {}
for _byte in range(0x80, 0xA0):
    try:
        CP1252[_byte] = bytes([_byte]).decode("cp1252")
    except UnicodeDecodeError:
        pass
_C1 = re.compile("[\x80-\x9f]")


def clean(text: str) -> str:
    """The tail of feedparser's pop(): repair UTF-8 read as Latin-1, map C1 controls as cp1252."""
    if text.isascii():
        return text
    try:
        text = text.encode("iso-8859-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    return text.translate(CP1252) if _C1.search(text) else text


_HTTP_URL = re.compile("https?://", re.IGNORECASE)


def guid_is_url(text: str) -> bool:
    """Whether a permalink guid (or Atom id) can be an entry's page, judged on its text as the
    feed wrote it (stripped), before any base: an absolute http(s) URL, or a path from "/". A
    UUID, a slug or a tag: URI is an identifier; resolved, it would be a page nobody made.
    (Both paths judge the raw text, so an xml:base cannot make them disagree.)"""
    return text.startswith("/") or _HTTP_URL.match(text) is not None


_AMP_NAME = re.compile("&([A-Za-z0-9_]+);")


def link_text(text: str, base: str, resolve: Callable[[str, str], str]) -> str:
    """A <link>'s text as feedparser stores it: resolved, cleaned, "&amp;" and "&b;" repaired
    (its fix for links whose query was escaped twice)."""
    text = clean(resolve(base, text) if text else text)
    if "&" in text:
        text = _AMP_NAME.sub(r"&\g<1>", text.replace("&amp;", "&"))
    return text


# -------------------------------------------------------------------------------------------- dates

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _known(parsed: Any) -> Any:
    """A parsed date, or None for the Unix epoch, which means "unknown" (Atom requires an
    <updated> even where the time is unknown, and generators then write the epoch): the
    published time is taken instead."""
    if parsed and tuple(parsed[:6]) == (1970, 1, 1, 0, 0, 0):
        return None
    return parsed


# RSS's "Tue, 05 Mar 2024 10:15:00 +0100" and Atom's "2024-03-05T10:15:00Z", nearly every
# feed's: feedparser's answer computed by fromisoformat (its chain of date handlers costs a
# third of a large feed's reading; a property test holds the two equal). Anything else, or a
# value out of range, goes through feedparser's own _parse_date.
MONTH_DASHED = {m: f"-{i:02d}-" for i, m in enumerate(  # (the runs' columns' too)
    "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}
_RFC822 = re.compile(r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), )?(\d\d?) "
                     r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) "
                     r"(\d\d:\d\d:\d\d) ((?:[+-]\d{4})|GMT|UT)")


@cache  # (a zone is one of at most 40,003 strings the patterns match)
def zone_offset(zone: str) -> timedelta | None:
    """A zone as written as its offset, or None where fromisoformat refuses it ("+99:99")."""
    if zone in ("Z", "GMT", "UT"):
        return timedelta(0)
    iso = zone if ":" in zone else zone[:3] + ":" + zone[3:]
    try:
        return datetime.fromisoformat("2000-01-01T00:00:00" + iso).utcoffset()
    except ValueError:
        return None


@cache  # (compiled when first used)
def _w3cdtf() -> re.Pattern[str]:
    return re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(Z|[+-]\d\d:\d\d)")


def entry_date(text: str, epoch_is_unknown: bool = True) -> datetime | None:
    """feedparser's date for ``text``, as an aware UTC datetime (None: no date)."""
    m = _RFC822.fullmatch(text)
    if m is not None:
        day, month, year, clock, zone = m.groups()
        local: str | None = year + MONTH_DASHED[month] + day.zfill(2) + "T" + clock + "+00:00"
    else:
        m = _w3cdtf().fullmatch(text)
        if m is not None:
            local, zone = m.group(1) + "+00:00", m.group(2)
        else:
            local = None
    if local is not None:
        offset = zone_offset(zone)
        try:
            value = datetime.fromisoformat(local) - offset if offset is not None else None
        except (ValueError, OverflowError):
            value = None  # feedparser's handlers decide what such a date means
        if value is not None and value.year > 1:
            if value == EPOCH and epoch_is_unknown:
                return None
            return value
    from feedparser.datetimes import _parse_date  # (imports feedparser: only for rare shapes)

    parsed = _parse_date(text)
    return parsed_utc(_known(parsed) if epoch_is_unknown else parsed)


def no_date(texts: Iterable[str]) -> str | None:
    """The first of an entry's dates as written (updated, published) that is no date to
    feedparser, not even the epoch; None when each is one or blank."""
    for text in texts:
        if text and entry_date(text, epoch_is_unknown=False) is None:
            return text
    return None
