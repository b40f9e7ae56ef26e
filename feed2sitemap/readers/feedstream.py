"""Feed entries (page URL, last modification, line) from RSS/Atom bytes, as feedparser gives them.

``feedparser_entries`` is the reference: it runs feedparser and reads the entries the way our spec
says. ``parse_feed_entries`` gets the same answer from raw pyexpat callbacks, about 25 times faster
and in a fraction of the memory. It does so by replaying the parts of feedparser's SAX handler that
decide an entry's ``link``, ``links`` and ``updated_parsed``/``published_parsed``: element names
mapped through its namespace tables, its xml:base stack (quirks included), its text clean-up, and
its own URL and date functions. Whatever could make feedparser's state machine wander off the
simple path raises ``FastPathUnsupported`` so that the caller uses the reference instead: a root
other than rss/rdf:RDF/feed, CDF, XML that is not well-formed (once decoded as feedparser decodes
it), a DOCTYPE with an internal subset, elements inside the text of a link/guid/date or inside
markup that feedparser would still act on, handlers we do not replay (GeoRSS, Podlove chapters),
<image> with children inside an entry, a namespace prefix rebound below the root. A document that
declares entities raises ``EntityDeclared`` instead: it is refused, not parsed by either path.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple
from xml.parsers import expat

import feedparser
from feedparser.api import StrictFeedParser
from feedparser.encodings import RE_XML_DECLARATION, RE_XML_PI_ENCODING, convert_to_utf8
from feedparser.html import _cp1252
from feedparser.mixin import _FeedParserMixin
from feedparser.urls import _urljoin as _fp_urljoin
from feedparser.urls import make_safe_absolute_uri as _fp_make_safe_absolute_uri

from ..xmlutil import MAX_ATTRIBUTES, MarkupGuard, XMLTooComplex
from .feeddates import _known, _to_utc, entry_date

__all__ = ["EntityDeclared", "FastPathUnsupported", "FeedEntry", "TooComplex",
           "feedparser_entries"]
__all__ += ["parse_feed_entries"]


class FastPathUnsupported(Exception):
    """The fast path cannot give feedparser's answer for this document.

    The caller falls back to feedparser.
    """


class EntityDeclared(ValueError):
    """The document declares entities (or refers to external ones); we refuse it outright."""


class TooComplex(EntityDeclared):
    """The document goes past a bound of xmlutil.MarkupGuard: refused, as entities are."""

    def __init__(self, reason: str, line: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class FeedEntry(NamedTuple):
    link: str | None  # resolved as feedparser resolves it (may still be relative)
    lastmod: datetime | None  # aware UTC datetime
    line: int  # 1-based line of the entry/item start tag; 0 from the reference


class FeedEntries(list[FeedEntry]):
    """The entries, and the feed's own site link (RSS <channel><link>, Atom <feed><link
    rel="alternate">: the first one, resolved against xml:base), or None."""

    site: str | None = None




# --------------------------------------------------------------------------- the reference


# feedparser is untyped: its URL functions take and return str.
_urljoin: Callable[[str, str], str] = _fp_urljoin
make_safe_absolute_uri: Callable[[str, str], str] = _fp_make_safe_absolute_uri


def _headers(base_url: str | None) -> dict[str, str] | None:
    # feedparser takes the document URI from a Content-Location response header.
    return {"content-location": base_url} if base_url else None


def _page_url(entry: dict[str, Any]) -> str | None:
    links = dict.get(entry, "links")
    for link in links if isinstance(links, list) else ():
        href = link.get("href") if isinstance(link, dict) else None
        if href and isinstance(href, str) and link.get("rel", "alternate") == "alternate":
            return href
    link = dict.get(entry, "link")  # may be "" (an empty <link>, an unusable guid): kept as is
    return link if isinstance(link, str) else None


def feedparser_entries(data: bytes, base_url: str | None = None) -> tuple[FeedEntries, object]:
    """The entries as feedparser sees them, and feedparser's result. This defines "correct"."""
    # A BytesIO, not the bytes: given bytes, feedparser first tries them as a file name.
    result = feedparser.parse(io.BytesIO(data), response_headers=_headers(base_url))
    entries = FeedEntries(
        # dict.get: FeedParserDict.get("updated_parsed") falls back to published with a warning.
        FeedEntry(
            _page_url(e),
            _to_utc(_known(dict.get(e, "updated_parsed")) or dict.get(e, "published_parsed")),
            0,
        )
        for e in result["entries"]
    )
    site = dict.get(result.get("feed") or {}, "link")
    entries.site = site if isinstance(site, str) else None
    return entries, result


# --------------------------------------------------------------------------- feedparser's tables

_MATCHNS = {k.lower(): v for k, v in _FeedParserMixin.namespaces.items()}
_STD_PREFIXES = set(_MATCHNS.values())
_HTML_TYPES = _FeedParserMixin.html_types
_map_content_type = _FeedParserMixin.map_content_type
# Element keys ("prefix_local") for which feedparser has a handler; names are lower-cased before
# the lookup, so camel-case aliases such as _start_textInput are never reached.
_METHODS = [
    n for n in dir(StrictFeedParser) if n.startswith(("_start_", "_end_")) and n == n.lower()
]
_HANDLED = {n.split("_", 2)[2] for n in _METHODS}
_END_KEYS = {n[5:] for n in _METHODS if n.startswith("_end_")}

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
# What we do on each element key; handled keys not listed fall back ("X").
_KIND = {k: "X" for k in _HANDLED - _INERT}
for _kind, _keys in {
    # Text constructs (push_content): feedparser swallows their child elements as markup.
    "C": """title dc_title media_title subtitle tagline itunes_subtitle rights copyright dc_rights
        description dc_description media_description abstract info feedburner_browserfriendly
        summary itunes_summary content content_encoded fullitem body xhtml_body""",
    "E": "item entry",
    "L": "link",
    "G": "guid id",
    "P": "published issued pubdate dcterms_issued",
    "U": "updated modified lastbuilddate dc_date dcterms_modified",
    "S": "source",
    "I": "image textinput",
    "F": "channel feed",
    "Z": "width height creativecommons_license",  # inert, but their handlers fail on children
    # Unhandled elements are stored under their key through FeedParserDict's key map, and these
    # would overwrite the entry's links or dates (<date_parsed> lands in updated_parsed).
    "X": "links updated_parsed published_parsed date_parsed modified_parsed issued_parsed",
}.items():
    _KIND.update(dict.fromkeys(_keys.split(), _kind))
_ROOTS = {"rss", "rdf_rdf", "feed"}
# Attributes of an Atom <link> that feedparser stores under their own names, untouched.
_LINK_ATTRS = frozenset({"rel", "type", "href", "hreflang", "title", "length"})
# What is replayed here was read in (and is tested against) feedparser 6.0.14.
_REPLAYED_VERSION = feedparser.__version__.startswith("6.0.")
_AMP_NAME = re.compile("&([A-Za-z0-9_]+);")
# A reference to an entity other than XML's five (a character reference starts "&#").
_UNDEFINED_REF = re.compile(rb"&(?!(?:amp|lt|gt|quot|apos);|#)")

# First bytes for which feedparser sniffs a BOM or a non-ASCII-compatible encoding.
_SNIFFED = (codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE,
            codecs.BOM_UTF8, b"\x4c\x6f\xa7\x94", b"\x00\x3c\x00\x3f", b"\x3c\x00\x3f\x00",
            b"\x00\x00\x00\x3c", b"\x3c\x00\x00\x00")  # fmt: skip
_EXPAT_NATIVE = {"utf-8": "UTF-8", "iso8859-1": "ISO-8859-1"}


def _prepare(data: bytes, base_url: str | None) -> tuple[bytes, str, int]:
    """(bytes for expat, encoding to force, line shift), decoded the way feedparser decodes.

    feedparser picks the encoding from (our only header) Content-Location and the XML declaration:
    declared, else ISO-8859-1 when a Content-Location is given, else UTF-8. When that is one expat
    decodes natively and there is no BOM, expat reads the original bytes with that encoding forced
    (and a decoding error falls back, as feedparser would have tried other encodings). Otherwise
    feedparser's own converter produces the UTF-8 it would parse.
    """
    if not data.startswith(_SNIFFED):
        match = RE_XML_PI_ENCODING.match(data)
        try:
            declared = match.group(1).decode("utf-8").lower() if match else ""
            name = codecs.lookup(declared or ("iso-8859-1" if base_url else "utf-8")).name
        except (UnicodeDecodeError, LookupError, ValueError):  # ValueError: a NUL in the name
            name = ""
        if name in _EXPAT_NATIVE:
            return data, _EXPAT_NATIVE[name], 0
    result: dict[str, Any] = {}
    try:
        converted = convert_to_utf8(_headers(base_url) or {}, data, result)
    except Exception as exc:  # feedparser itself would fail the same way
        raise FastPathUnsupported(f"encoding detection failed: {exc!r}") from None
    if not result.get("encoding"):
        raise FastPathUnsupported("feedparser found no encoding (it would use its loose parser)")
    # The converter replaces the XML declaration by a one-line one, or prepends one and a newline.
    head = data[:2048]
    for bom in _SNIFFED[:5]:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    try:
        decl = RE_XML_DECLARATION.search(head.decode(result["encoding"], "ignore"))
    except (UnicodeError, LookupError):  # "idna" is a codec without the "ignore" handler
        raise FastPathUnsupported(f"cannot decode as {result['encoding']}") from None
    return converted, "UTF-8", decl.group(0).count("\n") if decl else -1


# --------------------------------------------------------------------------- the fast path


# Absolute http(s) URLs that urljoin gives back unchanged whatever the base (nothing that urlsplit
# strips, lower-cases or drops: no whitespace, no empty "?" or "#", no ";params"), and relative
# paths whose join is the base's directory plus the path (no ".", "..", "//", ":", "?", "#").
_PLAIN_ABS = re.compile(
    r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9\-._~!$&'()*+,=:@/%]*)?"
    r"(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+)?(?:#[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+)?"
)
_PLAIN_REL = re.compile(r"(?:(?!\.\.?/)[A-Za-z0-9\-._~]+/)*(?!\.\.?/?$)[A-Za-z0-9\-._~]+/?")


def _resolver() -> Callable[[str, str], str]:
    """feedparser's _urljoin(base, uri), skipping urllib for the two plain shapes above."""
    prefixes: dict[str, str | None] = {}

    def resolve(base: str, uri: str) -> str:
        if _PLAIN_ABS.fullmatch(uri):
            return uri
        if _PLAIN_REL.fullmatch(uri):
            if base not in prefixes:  # what urljoin puts before a one-segment relative path
                probe = _urljoin(base, "x")
                prefixes[base] = probe[:-1] if probe.endswith("x") else None
            prefix = prefixes[base]
            if prefix is not None:
                return prefix + uri
        return _urljoin(base, uri)

    return resolve


def _attr_keys(name: str) -> tuple[str, str, bool]:
    """feedparser's two dictionary keys for one expat attribute name, and whether it sets the base.

    feedparser fills its attribute dict twice: once with (known prefix:)local, once with the
    qualified name. So "foo:href" in an unknown namespace also sets "href".
    """
    parts = name.split(" ")
    if len(parts) == 1:
        first = qname = name
    else:
        prefix = _MATCHNS.get(parts[0].lower(), "")
        first = prefix + ":" + parts[1] if prefix else parts[1]
        qname = parts[2] + ":" + parts[1] if len(parts) == 3 else parts[1]
    first, qname = first.lower(), qname.lower()
    return first, qname, bool({first, qname} & {"xml:base", "base"})


def _attrs_dict(attrs: dict[str, str], cache: dict[str, tuple[str, str, bool]]) -> dict[str, str]:
    """feedparser's attribute dict for an element (keys lower-cased, rel and type values too)."""
    out = {}
    qualified = False
    for a, v in attrs.items():
        keys = cache.get(a) or cache.setdefault(a, _attr_keys(a))
        out[keys[0]] = v
        qualified = qualified or keys[0] != keys[1]
    if qualified:  # the second pass only changes something when a qualified name differs
        for a, v in attrs.items():
            out[cache[a][1]] = v
    for k in ("rel", "type"):
        if k in out:
            out[k] = out[k].lower()
    return out


def _element_key(name: str, nsmap: dict[str | None, str], niu: dict[str, str],
                 first_prefix: dict[str, str | None]) -> str:
    """feedparser's startElementNS + unknown_starttag naming: the X in its _start_X handler.

    ``first_prefix`` caches, per namespace, the search of ``niu`` for its first declared prefix
    (``ns_decl`` forgets the namespaces a declaration changes): one search per namespace, not one
    per element name, or a feed with thousands of declarations takes hours (quadratic).
    """
    parts = name.split(" ")
    ns = parts[0] if len(parts) > 1 else None
    lower = (ns or "").lower()
    if "backend.userland.com/rss" in lower:
        ns = lower = "http://backend.userland.com/rss"
    prefix = _MATCHNS.get(lower)
    tag = (parts[1] if ns else name).lower()
    if prefix:
        tag = prefix.lower() + ":" + tag
    elif ns:  # feedparser's "Expat" branch: the first declared prefix bound to this namespace
        if ns not in first_prefix:
            first_prefix[ns] = next((d for d, v in niu.items() if d and v == ns), None)
        declared = first_prefix[ns]
        if declared:
            tag = (declared + ":" + tag).lower()
    prefix, suffix = tag.split(":", 1) if ":" in tag else ("", tag)
    prefix = nsmap.get(prefix, prefix)
    return prefix + "_" + suffix if prefix else suffix


def _clean(text: str) -> str:
    """The tail of feedparser's pop(): repair UTF-8 read as Latin-1, map C1 controls as cp1252."""
    if text.isascii():
        return text
    try:
        text = text.encode("iso-8859-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    return text.translate(_cp1252)


_new_entry = tuple.__new__  # a FeedEntry without NamedTuple's Python-level __new__


def _finish(
    alt: str | None, link: Any, upd: str | None, pub: str | None, line: int, resolve: Any
) -> FeedEntry:
    """The entry's record: the values feedparser computes on the way, done once and only if used."""
    if alt is None and isinstance(link, tuple):  # a permalink guid: pop() resolves and cleans it
        base, text = link
        link = _clean(resolve(base or "", text) if text else text)
    when = entry_date(_clean(upd)) if upd is not None else None
    if when is None and pub is not None:
        when = entry_date(_clean(pub), epoch_is_unknown=False)
    return _new_entry(FeedEntry, (link if alt is None else alt, when, line))


def parse_feed_entries(data: bytes, base_url: str | None = None) -> FeedEntries:
    """Parse a whole feed document; raise FastPathUnsupported for anything not handled."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("data must be bytes")
    if not data:
        return FeedEntries()  # feedparser returns no entries without parsing anything
    if not _REPLAYED_VERSION:
        raise FastPathUnsupported(f"replays feedparser 6.0, not {feedparser.__version__}")
    body, encoding, shift = _prepare(bytes(data), base_url)
    return _extract(body, encoding, base_url or "", shift)


def _extract(body: bytes, encoding: str, base: str, shift: int) -> FeedEntries:
    """One pass of pyexpat. Closures over local state: the handlers run once per element.

    The parser's handlers are swapped by state rather than testing the state on every element:
    ``start_root`` for the root, ``start`` for an element in plain context, ``start_text`` inside
    a text construct, ``start_leaf`` inside an element read as text (``end_leaf`` ends that).
    """
    p = expat.ParserCreate(encoding, " ")
    p.namespace_prefixes = True  # qualified attribute names, as feedparser's SAX reader has them
    p.buffer_text = True
    p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    resolve = _resolver()
    names: dict[str, tuple[str, str]] = {}  # expat name -> (our kind, feedparser key)
    attr_cache: dict[str, tuple[str, str, bool]] = {}
    plain_attrs: set[str] = set()  # attribute names that do not set the base
    html_types: dict[str, bool] = {}  # a link's type -> whether feedparser takes it as HTML
    selfjoin: dict[str, str] = {}
    stable = ""  # a base that joined with itself stays the same
    nsmap: dict[str | None, str] = {}  # feedparser's namespacemap
    niu: dict[str, str] = {}  # feedparser's namespaces_in_use
    first_prefix: dict[str, str | None] = {}  # namespace -> its first prefix in niu (a cache)
    guard = MarkupGuard()
    # feedparser's basestack, one base per open element, above a falsy bottom (which stands for
    # its "if self.basestack" test): depths below are len(stack), the root's being 2.
    stack: list[str] = [""]
    entries = FeedEntries()
    # Depth of the open entry, source, feed-level image/textinput and text construct; or 0.
    entry = source = image = content = deepest = 0
    permalink = internal_subset = False
    content_attrs: dict[str, str] | None = None
    cap = ""  # kind of the open leaf element read as text ("X": no children allowed)
    buf: list[str] = []
    rel = ""
    alt: str | None = None  # first rel=alternate href of the entry
    link: Any = None  # the entry's "link" key: None while absent, (base, text) for a guid's
    upd: str | None = None  # text of the last updated-like element: parsed only at the end
    pub: str | None = None
    line = 0

    def info_of(name: str) -> tuple[str, str]:
        info = names.get(name)
        if info is None:
            guard.element(name, None)  # (a new name: its length)
            key = _element_key(name, nsmap, niu, first_prefix)
            info = names[name] = (_KIND.get(key, ""), key)
        return info

    def push(attrs: dict[str, str]) -> None:
        """feedparser's push of the element's base: xml:base, else the base joined with itself."""
        nonlocal base, stable
        if len(attrs) > MAX_ATTRIBUTES:
            guard.element("", attrs)
        if attrs and not plain_attrs.issuperset(attrs):
            guard.element("", attrs)  # new attribute names: their lengths
            for a in attrs:
                if (attr_cache.get(a) or attr_cache.setdefault(a, _attr_keys(a)))[2]:
                    d = _attrs_dict(attrs, attr_cache)
                    new = d.get("xml:base", d.get("base")) or base
                    if base:
                        base = make_safe_absolute_uri(base, new) or base
                    else:
                        base = _urljoin(base, new)
                    stack.append(base)
                    return
                plain_attrs.add(a)
        if base is not stable and base:  # feedparser joins the base with itself every time
            joined = selfjoin.get(base)
            if joined is None:
                joined = selfjoin[base] = make_safe_absolute_uri(base, base) or base
            if joined == base:
                stable = base
            base = joined
        stack.append(base)

    def start_root(name: str, attrs: dict[str, str]) -> None:
        key = info_of(name)[1]
        if key not in _ROOTS:
            raise FastPathUnsupported(f"root element <{key}> is not rss, rdf:RDF or feed")
        p.StartElementHandler = start
        start(name, attrs)

    def start_leaf(name: str, attrs: dict[str, str]) -> None:
        raise FastPathUnsupported(f"element <{info_of(name)[1]}> inside an element read as text")

    def start_text(name: str, attrs: dict[str, str]) -> None:
        # feedparser keeps the children of a text construct as markup but still calls their
        # end handlers; with an XML (non-XHTML) type it even dispatches them as elements.
        key = info_of(name)[1]
        push(attrs)
        given = _attrs_dict(content_attrs, attr_cache).get("type") if content_attrs else None
        mapped = _map_content_type(given) if given is not None else ""
        if key in _END_KEYS or (mapped.endswith("xml") and mapped != "application/xhtml+xml"):
            raise FastPathUnsupported(f"element <{key}> inside a text construct")

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal cap, buf, rel, permalink, entry, source, image, content, deepest
        nonlocal content_attrs, alt, link, upd, pub, line
        info = names.get(name) or info_of(name)
        if attrs or base:
            push(attrs)
        else:
            stack.append(base)
        kind = info[0]
        if not kind:
            return
        if kind == "C":
            content = deepest = len(stack)
            content_attrs = attrs
            p.StartElementHandler = start_text
            return
        if kind in "LGPU":  # a link, guid/id or date: of the entry itself, else ignored
            if source or not entry and (kind != "L" or image or entries.site is not None):
                return  # not the entry's, nor the feed's own first link
            if kind == "L":
                if not attrs:  # RSS's <link>: no href, no rel
                    rel, href, typ = "alternate", None, None
                elif _LINK_ATTRS.issuperset(attrs):  # Atom's: feedparser's keys are these names
                    rel = attrs["rel"].lower() if "rel" in attrs else "alternate"
                    href, typ = attrs.get("href"), attrs.get("type")
                else:
                    d = _attrs_dict(attrs, attr_cache)
                    rel = d.setdefault("rel", "alternate")
                    href = d.get("url", d.get("uri", d.get("href")))  # feedparser's _enforce_href
                    if href:
                        d["href"] = href
                    href, typ = d.get("href"), d.get("type")
                if href is not None:
                    href = resolve(base or "", href)
                    if not entry:  # the feed's own link: its site
                        if rel == "alternate" and href:
                            entries.site = href
                        return
                    if rel == "alternate":
                        if alt is None and href:
                            alt = href
                        typ = "text/html" if typ is None else typ  # feedparser's default
                        html = html_types.get(typ)
                        if html is None:
                            html = html_types[typ] = _map_content_type(typ) in _HTML_TYPES
                        if html:
                            link = href
                    return
            elif kind == "G":
                if not attrs:
                    permalink = True
                elif len(attrs) == 1 and "isPermaLink" in attrs:  # RSS's usual spelling
                    permalink = attrs["isPermaLink"] == "true"
                else:
                    permalink = _attrs_dict(attrs, attr_cache).get("ispermalink", "true") == "true"
                if not permalink:  # its text is never used: only read as text, for children
                    kind = "X"
            cap = kind
            if kind != "X":
                buf = []
                p.CharacterDataHandler = buf.append
            p.StartElementHandler = start_leaf
            p.EndElementHandler = end_leaf
            return
        if kind == "E":
            d = _attrs_dict(attrs, attr_cache) if attrs else {}
            if entry or source or image or "href" in d or "lastmod" in d:  # CDF attributes
                raise FastPathUnsupported(f"<{info[1]}> nested or with CDF attributes")
            entry = deepest = len(stack)
            alt = link = upd = pub = None
            line = p.CurrentLineNumber + shift
            return
        if kind == "X":
            raise FastPathUnsupported(f"element <{info[1]}> is not handled by the fast path")
        if kind == "Z":  # inert handlers that break on child elements
            cap = "X"
        elif kind == "F":
            if entry:
                raise FastPathUnsupported(f"<{info[1]}> inside an entry")
            return
        elif kind == "S":
            if source:
                raise FastPathUnsupported("nested <source>")
            source = deepest = len(stack)
            return
        elif kind == "I":
            if image:
                raise FastPathUnsupported(f"nested <{info[1]}>")
            if not entry:
                image = deepest = len(stack)
                return
            cap = "X"  # there feedparser's image context captures links and dates: allow it empty
        p.StartElementHandler = start_leaf
        p.EndElementHandler = end_leaf

    def end_leaf(name: str) -> None:
        """The end of an element read as text: feedparser's pop() and its _end_ handler."""
        nonlocal base, link, alt, upd, pub
        p.StartElementHandler = start
        p.EndElementHandler = end
        if cap != "X":
            p.CharacterDataHandler = None
            text = "".join(buf).strip()
            if cap == "L":
                text = _clean(resolve(base or "", text) if text else text)
                if "&" in text:  # feedparser's repair of "&amp;" and "&b;" in link queries
                    text = _AMP_NAME.sub(r"&\g<1>", text.replace("&amp;", "&"))
                if not entry:  # the feed's own link: its site
                    if text and rel == "alternate":
                        entries.site = text
                else:
                    link = text
                    if text and rel == "alternate" and alt is None:
                        alt = text
            elif cap == "G":
                if permalink and link is None:  # resolved at the end if still needed
                    link = (base, text)
            elif cap == "P":
                pub = text
            else:
                upd = text
        stack.pop()
        if stack[-1]:  # feedparser keeps the inner base when the outer one is empty
            base = stack[-1]

    def end(name: str) -> None:
        nonlocal base, entry, source, image, content, deepest
        depth = len(stack)
        if depth <= deepest:
            if depth == content:
                content = 0
                p.StartElementHandler = start
                deepest = max(entry, source, image) if source or image else entry
            else:
                if depth == entry:
                    entry = 0
                    entries.append(_finish(alt, link, upd, pub, line, resolve))
                elif depth == source:
                    source = 0
                elif depth == image:
                    image = 0
                deepest = max(content, entry, source, image)
        stack.pop()
        if stack[-1]:  # feedparser keeps the inner base when the outer one is empty
            base = stack[-1]

    def ns_decl(prefix: str | None, uri: str | None) -> None:
        """feedparser's track_namespace. Changes that rename elements: only on the root."""
        guard.namespace(prefix, uri)
        if not uri:
            return
        lower = uri.lower()
        if "backend.userland.com/rss" in lower:
            uri = lower = "http://backend.userland.com/rss"
        if lower in _MATCHNS:
            std = _MATCHNS[lower]
            relevant = (
                prefix is not None
                and nsmap.get(prefix, prefix) != std
                and (prefix in _STD_PREFIXES or prefix in niu)
            ) or (std != "" and niu.get(std, uri) != uri)  # ("" is never searched)
            nsmap[prefix] = std
            first_prefix.pop(niu.get(std, ""), None)
            niu[std] = uri
        else:
            relevant = bool(prefix) and niu.get(prefix, uri) != uri  # type: ignore[arg-type]
            first_prefix.pop(niu.get(prefix or "", ""), None)
            niu[prefix or ""] = uri
        first_prefix.pop(uri, None)
        if relevant:
            if stack[1:]:  # an open element could end under another name than it started with
                raise FastPathUnsupported("a namespace prefix is rebound inside the document")
            names.clear()

    def doctype(name: str, sysid: Any, pubid: Any, has_internal_subset: int) -> None:
        nonlocal internal_subset
        internal_subset = bool(has_internal_subset)
        # Under an external DTD (never loaded) expat drops a reference to an undefined entity
        # from an attribute value without a word ("/a/&secret;/b" became "/a//b"), where
        # feedparser keeps it and calls the feed malformed: any such reference, feedparser.
        if (sysid or pubid) and _UNDEFINED_REF.search(body):
            raise FastPathUnsupported("an entity reference under an external DTD")

    def end_doctype() -> None:
        # feedparser cuts the DOCTYPE out with a regex that stops at the first ">", so an internal
        # subset (ATTLIST defaults, element declarations) means something else to it.
        if internal_subset:
            raise FastPathUnsupported("DOCTYPE with an internal subset")

    def refuse_entity(name: str, *args: Any) -> None:
        raise EntityDeclared(f"the document declares an entity: {name!r}")

    def refuse_external(context: str, base: Any, system_id: Any, public_id: Any) -> int:
        raise EntityDeclared(f"the document refers to an external entity: {system_id!r}")

    def skipped_entity(name: str, is_parameter: int) -> None:
        # Only with a DOCTYPE naming an external DTD, which expat does not read. feedparser strips
        # that DOCTYPE, so for it the undefined entity is fatal.
        raise FastPathUnsupported(f"undefined entity {name!r}")

    p.StartElementHandler = start_root
    p.EndElementHandler = end
    p.StartNamespaceDeclHandler = ns_decl
    p.StartDoctypeDeclHandler = doctype
    p.EndDoctypeDeclHandler = end_doctype
    p.EntityDeclHandler = refuse_entity
    p.ExternalEntityRefHandler = refuse_external
    p.SkippedEntityHandler = skipped_entity
    try:
        for i in range(0, len(body), _CHUNK):  # slices, not the whole document in expat's buffer
            piece = body[i : i + _CHUNK]
            guard.scan(piece)
            p.Parse(piece, False)
            guard.depth(len(stack) - 1)
        p.Parse(b"", True)
    except expat.ExpatError as exc:
        raise FastPathUnsupported(f"not well-formed: {exc}") from None
    except XMLTooComplex as exc:
        raise TooComplex(str(exc), p.CurrentLineNumber + shift) from None
    return entries


_CHUNK = 1 << 16
