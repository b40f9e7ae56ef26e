"""What feedparser does with a feed, as tables and rules the fast pass (feedpass.py) replays.

feedparser decides an entry's ``link``, ``links`` and dates in its SAX handler: element names
mapped through its namespace tables, attribute dictionaries built twice, an xml:base stack
joined with itself at every element, element text cleaned up, its own URL and date functions.
This module holds those rules, read in (and tested against) feedparser 6.0.14, and every import
of feedparser's private parts, each saying why it is imported rather than rewritten: a table or
function whose every quirk we must match is taken from feedparser itself, so it cannot drift.
Where our own equivalent is short and a test proves it equal, it is ours (``CP1252``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .feedencoding import headers, prepare
from .feedentries import FastPathUnsupported
from .feedtables import tables

__all__ = ["CP1252", "FastPathUnsupported", "Attributes", "Namespaces", "clean", "headers",
           "link_text", "prepare", "resolver"]


# feedparser's namespace table (URI -> its prefix), its HTML content types and the names of its
# element handlers: read at every element, so taken from feedparser itself (feedtables.py holds
# them as data for the installed version, so that a run the fast pass serves never imports it).
_VERSION, MATCHNS, _METHODS, HTML_TYPES = tables()
# What is replayed here was read in feedparser 6.0.14; another major version is not trusted.
REPLAYED_VERSION = _VERSION.startswith("6.0.")

# --------------------------------------------------------------------------- elements

STD_PREFIXES = set(MATCHNS.values())
# Element keys ("prefix_local") for which feedparser has a handler; names are lower-cased before
# the lookup, so camel-case aliases such as _start_textInput are never reached.
_HANDLED = {n.split("_", 1)[1] for n in _METHODS}  # ("start_link", "end_link": "link")
END_KEYS = {n[4:] for n in _METHODS if n.startswith("end_")}


def map_content_type(content_type: str) -> str:
    """feedparser's _FeedParserMixin.map_content_type (a test holds the two equal)."""
    content_type = content_type.lower()
    return _SHORT_TYPES.get(content_type, content_type)


_SHORT_TYPES = {"text": "text/plain", "plain": "text/plain", "html": "text/html",
                "xhtml": "application/xhtml+xml"}

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

# What the fast pass does with an element, by the kind of feedparser's handler for its key.
PLAIN = ""  # no handler, or one that changes nothing we read: only its xml:base counts
TEXT = "text"  # a text construct (push_content): feedparser swallows its children as markup
ENTRY = "entry"
LINK = "link"
GUID = "guid"  # RSS <guid>, Atom <id>: a permalink one is the link when no other is given
PUBLISHED = "published"
UPDATED = "updated"
SOURCE = "source"  # an entry's <source>: its links and dates are not the entry's
IMAGE = "image"  # <image>, <textinput>: their links are not the feed's nor the entry's
CONTAINER = "container"  # <channel>, <feed>
CHILDLESS = "childless"  # inert, but their handlers fail on child elements
# What feedparser makes an entry's image, video or enclosure from (extensions/feed.py maps
# them): noted by the pass (FeedEntries.extended), for the policy to have feedparser read the
# feed. (An entry's <link> with rel="enclosure" or hreflang: feedpass.on_link notes it, and
# feedruns._atom_link leaves such an entry to the handlers.)
EXTENSION = "extension"
UNSUPPORTED = "unsupported"  # handlers we do not replay: feedparser must read the document

KIND = dict.fromkeys(_HANDLED - _INERT, UNSUPPORTED)
for _kind, _keys in {
    TEXT: """title dc_title media_title subtitle tagline itunes_subtitle rights copyright dc_rights
        description dc_description media_description abstract info feedburner_browserfriendly
        summary itunes_summary content content_encoded fullitem body xhtml_body""",
    ENTRY: "item entry",
    LINK: "link",
    GUID: "guid id",
    PUBLISHED: "published issued pubdate dcterms_issued",
    UPDATED: "updated modified lastbuilddate dc_date dcterms_modified",
    SOURCE: "source",
    IMAGE: "image textinput",
    CONTAINER: "channel feed",
    CHILDLESS: "width height creativecommons_license",
    # (itunes:link is feedparser's alias of itunes:image)
    EXTENSION: "enclosure media_content media_thumbnail media_player itunes_image itunes_link",
    # Unhandled elements are stored under their key through FeedParserDict's key map, and these
    # would overwrite the entry's links or dates (<date_parsed> lands in updated_parsed).
    UNSUPPORTED: "links updated_parsed published_parsed date_parsed modified_parsed issued_parsed",
}.items():
    KIND.update(dict.fromkeys(_keys.split(), _kind))
ROOTS = {"rss", "rdf_rdf", "feed"}
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
        # element name, or a feed with thousands of declarations takes hours (quadratic)
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


# --------------------------------------------------------------------------- attributes


def _attr_keys(name: str) -> tuple[str, str, bool]:
    """feedparser's two dictionary keys for one expat attribute name, and whether it sets the
    base. feedparser fills its attribute dict twice: once with (known prefix:)local, once with
    the qualified name. So "foo:href" in an unknown namespace also sets "href"."""
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
        if not attrs:  # RSS's <link>: no href, no rel
            return "alternate", None, None
        if LINK_ATTRS.issuperset(attrs):  # Atom's: feedparser's keys are these names
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


# --------------------------------------------------------------------------- URLs and text

# feedparser's URL joins (urllib's urljoin after its own clean-up regex, and a scheme filter):
# ours must give the same string for the same (quirky) base and reference, so they are its own,
# imported when first needed (a feed of plain absolute links without a base never needs them).
def urljoin(base: str, uri: str) -> str:
    from feedparser.urls import _urljoin

    return str(_urljoin(base, uri))


def make_safe_absolute_uri(base: str, rel: str) -> str:
    from feedparser.urls import make_safe_absolute_uri as safe

    return str(safe(base, rel))


def join_base(base: str, new: str) -> str:
    """feedparser's push of an element's xml:base ``new`` onto the current ``base``."""
    if base:
        return make_safe_absolute_uri(base, new or base) or base
    return urljoin(base, new)


def self_join(base: str) -> str:
    """The base feedparser pushes for an element without xml:base: its own join with itself."""
    return make_safe_absolute_uri(base, base) or base


# Absolute http(s) URLs that urljoin gives back unchanged whatever the base (nothing that urlsplit
# strips, lower-cases or drops: no whitespace, no empty "?" or "#", no ";params"), and relative
# paths whose join is the base's directory plus the path (no ".", "..", "//", ":", "?", "#").
# (The first is a pattern's text: feedcolumns builds its column regexes from it.)
PLAIN_ABS = (
    r"https?://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9\-._~!$&'()*+,=:@/%]*)?"
    r"(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+)?(?:#[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]+)?"
)
# The same with an IRI's characters (from U+00A0 on) in path, query and fragment: urlsplit only
# strips or checks ASCII ones there. (Classes by what they exclude: they compile in no time.)
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


# feedparser maps C1 control characters in element text as Windows-1252 (a feed declared
# Latin-1 but written in cp1252). Python's cp1252 codec defines exactly the 27 bytes of
# 0x80-0x9F that feedparser's table holds (tests/test_feedstream.py compares the two).
CP1252 = {}
for _byte in range(0x80, 0xA0):
    try:
        CP1252[_byte] = bytes([_byte]).decode("cp1252")
    except UnicodeDecodeError:
        pass


def clean(text: str) -> str:
    """The tail of feedparser's pop(): repair UTF-8 read as Latin-1, map C1 controls as cp1252."""
    if text.isascii():
        return text
    try:
        text = text.encode("iso-8859-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        pass
    # (translate looks each character up in the table: searched in C first, as one is rare)
    return text.translate(CP1252) if _C1.search(text) else text


_C1 = re.compile("[\x80-\x9f]")


_AMP_NAME = re.compile("&([A-Za-z0-9_]+);")


def link_text(text: str, base: str, resolve: Callable[[str, str], str]) -> str:
    """A <link>'s text as feedparser stores it: resolved, cleaned, "&amp;" and "&b;" repaired
    (its fix for links whose query was escaped twice)."""
    text = clean(resolve(base, text) if text else text)
    if "&" in text:
        text = _AMP_NAME.sub(r"&\g<1>", text.replace("&amp;", "&"))
    return text
