"""What one HTML page says: whether it may be indexed, its canonical URL, its own dates, its
language versions, the images of its main content and a fingerprint of that content.

html.parser feeds its events to ``Facts``, which tracks only the elements it needs; with lxml
(the ``[html]`` extra) the same facts are taken from libxml2's tree in C (the "HTML pages"
fast path of backends.TABLE; tests/test_site_input.py holds the two equal).

The main content is ``<main>``, else the ``<article>`` elements, else the body without nav,
header and footer; script, style, template, noscript, title and comments are never content.
Its fingerprint is the SHA-256 of its text content (as the DOM's textContent) with white
space collapsed: a new footer, a build stamp or a rehashed asset name changes nothing in it.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
from functools import cache
from html.parser import HTMLParser
from typing import Any, Optional
from urllib.parse import urljoin

from ...backends import fast
from ...model.urls import normalize_url

__all__ = ["MAX_PAGE_BYTES", "Facts", "canonical_elsewhere", "parse_page", "says_noindex"]

MAX_PAGE_BYTES = 8 * 1024 * 1024  # read up to this much of a page; the rest is counted
MAX_JSON_LD = 1024 * 1024  # of JSON-LD per page, all scripts together
MAX_IMAGES = 1000  # per region: a URL may carry at most 1,000 images
_HIDDEN = frozenset({"script", "style", "template", "noscript", "title"})
_CHROME = frozenset({"nav", "header", "footer"})
_TRACKED = _HIDDEN | _CHROME | {"main", "article"}
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)


def says_noindex(name: str, content: str) -> bool:
    """Whether ``<meta name=NAME content=CONTENT>`` keeps the page out of Google's index."""
    return name.strip().lower() in ("robots", "googlebot") and "noindex" in content.lower()


def canonical_elsewhere(url: str, canonical: Optional[str]) -> Optional[str]:
    """The canonical URL a page at ``url`` (normalised) names when it is another URL."""
    if canonical is None or canonical == url:  # the usual case, at no cost
        return None
    try:
        other = normalize_url(urljoin(url, canonical))
    except ValueError:
        return canonical
    return None if other == url else other


class Facts:
    """What a page says; filled by html.parser's events (start, end, data) or from lxml's tree
    (_tree_facts). The text of each region is kept whole: a page is at most MAX_PAGE_BYTES."""

    def __init__(self) -> None:
        self.lang: Optional[str] = None
        self.noindex = False
        self.canonical: Optional[str] = None
        self.alternates: list[tuple[str, str]] = []  # (hreflang, href) as written
        self.dates: dict[str, str] = {}  # where found → the first text there
        self.saw = {"main": False, "article": False}
        self.text: dict[str, list[str]] = {"main": [], "article": [], "body": []}
        self.images: dict[str, list[str]] = {"main": [], "article": [], "body": []}
        self._json: Optional[list[str]] = None  # the JSON-LD script being read
        self._json_texts: list[str] = []
        self._json_size = 0
        self._open: list[str] = []  # the tracked elements open, innermost last
        self._depth = dict.fromkeys(_TRACKED, 0)
        self._regions = ["body"]  # where text read now belongs

    def _track(self) -> None:
        d = self._depth
        hidden = any(d[tag] for tag in _HIDDEN)
        self._regions = [] if hidden else [r for r, inside in (
            ("main", d["main"]), ("article", d["article"]),
            ("body", not (d["nav"] or d["header"] or d["footer"]))) if inside]

    def start(self, tag: str, attrib: Any) -> None:
        if tag in _TRACKED:
            self._open.append(tag)
            self._depth[tag] += 1
            self._track()
            if tag in self.saw:
                self.saw[tag] = True
            if tag == "script" and _is_json_ld(attrib):
                self._json = []
        elif tag == "meta":
            self.meta(attrib)
        elif tag == "link":
            self.link(attrib)
        elif tag == "img":
            self.image(attrib, self._regions)
        elif tag == "html" and self.lang is None and attrib.get("lang"):
            self.lang = str(attrib["lang"]).strip()
        if attrib.get("itemprop") == "dateModified":
            self.date("itemprop dateModified", attrib.get("content") or attrib.get("datetime"))

    def end(self, tag: str) -> None:
        if tag not in _TRACKED or tag not in self._open:
            return  # (an end tag with no start: nothing to close)
        while self._open:
            top = self._open.pop()
            self._depth[top] -= 1
            if top == "script" and self._json is not None:
                self.json_ld("".join(self._json))
                self._json = None
            if top == tag:
                break
        self._track()

    def data(self, text: str) -> None:
        if self._json is not None:
            self._json.append(text)
        for region in self._regions:
            self.text[region].append(text)

    def meta(self, attrib: Any) -> None:
        content = str(attrib.get("content") or "")
        if says_noindex(str(attrib.get("name") or ""), content):
            self.noindex = True
        if str(attrib.get("property") or "").strip() == "article:modified_time":
            self.date("article:modified_time", content)

    def link(self, attrib: Any) -> None:
        rel = str(attrib.get("rel") or "").lower().split()
        href = attrib.get("href")
        if href is None:
            return
        if "canonical" in rel and self.canonical is None:
            self.canonical = str(href).strip()
        elif "alternate" in rel and attrib.get("hreflang"):
            self.alternates.append((str(attrib["hreflang"]).strip(), str(href).strip()))

    def image(self, attrib: Any, regions: list[str]) -> None:
        src = str(attrib.get("src") or "").strip()
        if not src or src.startswith("data:"):  # (an image inlined as a data: URI has none)
            return
        for region in regions:
            if len(self.images[region]) <= MAX_IMAGES:
                self.images[region].append(src)

    def date(self, where: str, text: Optional[str]) -> None:
        if text and text.strip() and where not in self.dates:
            self.dates[where] = text.strip()

    def json_ld(self, text: str) -> None:
        text = text[:MAX_JSON_LD - self._json_size]
        self._json_size += len(text)
        self._json_texts.append(text)

    def close(self) -> Facts:
        if self._json is not None:
            self.json_ld("".join(self._json))
            self._json = None
        for text in self._json_texts:
            found = _date_modified(text)
            if found is not None:
                self.date("JSON-LD dateModified", found)
                break
        return self

    @property
    def region(self) -> str:
        return "main" if self.saw["main"] else "article" if self.saw["article"] else "body"

    @property
    def fingerprint(self) -> str:
        words = " ".join("".join(self.text[self.region]).split())
        return hashlib.sha256(words.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def main_images(self) -> list[str]:
        return self.images[self.region]


def _is_json_ld(attrib: Any) -> bool:
    return str(attrib.get("type") or "").strip().lower() == "application/ld+json"


def _date_modified(text: str) -> Optional[str]:
    """The first dateModified of a JSON-LD script, in objects, arrays and @graph."""
    try:
        stack: list[Any] = [json.loads(text)]
    except (ValueError, RecursionError):  # (RecursionError: "[[[[…" nested too deep)
        return None
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            value = node.get("dateModified")
            if isinstance(value, str) and value.strip():
                return value
            stack.extend(reversed([v for v in node.values() if isinstance(v, (dict, list))]))
        elif isinstance(node, list):
            stack.extend(reversed([v for v in node if isinstance(v, (dict, list))]))
    return None


class _Plain(HTMLParser):
    """html.parser's events handed to a Facts, as lxml hands them."""

    def __init__(self, facts: Facts) -> None:
        super().__init__(convert_charrefs=True)
        self.facts = facts

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        self.facts.start(tag, dict(reversed(attrs)))  # (the first of a repeated name wins)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _TRACKED:
            self.facts.end(tag)

    def handle_endtag(self, tag: str) -> None:
        self.facts.end(tag)

    def handle_data(self, data: str) -> None:
        self.facts.data(data)


def decode(data: bytes) -> str:
    """A page's text: UTF-8 (with or without a byte order mark) unless its first 1,024 bytes
    name another known charset; undecodable bytes become U+FFFD."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", "replace")
    m = _CHARSET.search(data, 0, 1024)
    encoding = "utf-8"
    if m is not None:
        try:
            encoding = codecs.lookup(m.group(1).decode("ascii")).name
        except (LookupError, UnicodeDecodeError):
            pass
    if encoding in ("utf-16-le", "utf-16-be", "utf-16", "utf-32"):
        encoding = "utf-8"  # (a page that says so in ASCII is not UTF-16)
    return data.decode(encoding, "replace")


def parse_page(data: bytes) -> Facts:
    """The facts of one page (bytes, at most MAX_PAGE_BYTES); never raises for bad HTML."""
    text = decode(data)
    parser = _lxml_parser() if fast("HTML pages") else None
    if parser is not None:
        from lxml import etree

        try:
            root = etree.fromstring(text.encode("utf-8", "surrogatepass"), parser)
        except (etree.LxmlError, ValueError):
            root = None
        return _tree_facts(root, text)
    facts = Facts()
    plain = _Plain(facts)
    plain.feed(text)
    plain.close()
    return facts.close()


@cache
def _lxml_parser() -> Any:
    """lxml's HTML parser (made once: 40 µs, a tenth of a page's time), None without lxml."""
    try:
        from lxml import etree
    except ImportError:
        return None
    return etree.HTMLParser(encoding="utf-8", no_network=True, recover=True)


def _tree_facts(root: Any, text: str) -> Facts:
    """The facts of a page parsed into lxml's tree (``text``, its source), found in one pass
    over the elements that matter: the handlers' events cost a microsecond each in Python,
    and a page has thousands. Hidden elements are emptied (their tails stay) and, for the
    body, so are nav, header and footer; a region's text is then its text content."""
    facts = Facts()
    if root is None:  # (an empty page, or only a comment)
        return facts.close()
    if root.get("lang"):
        facts.lang = str(root.get("lang")).strip()
    from lxml import etree

    found: dict[str, list[Any]] = {"main": [], "article": [], "empty": [], "chrome": []}
    for el in root.iter("meta", "link", "main", "article", *_HIDDEN, *_CHROME):
        tag = el.tag
        if tag == "meta":
            facts.meta(el.attrib)
        elif tag == "link":
            facts.link(el.attrib)
        elif tag in _HIDDEN:
            if tag == "script" and _is_json_ld(el.attrib):
                facts.json_ld(el.text or "")
            found["empty"].append(el)
        else:
            found["chrome" if tag in _CHROME else tag].append(el)
    if "dateModified" in text:
        for el in root.iterfind('.//*[@itemprop="dateModified"]'):
            facts.date("itemprop dateModified", el.get("content") or el.get("datetime"))
    facts.saw.update(main=bool(found["main"]), article=bool(found["article"]))
    region = facts.region
    if region == "body":
        found["empty"] += found["chrome"]
    for el in found["empty"]:
        el.clear(keep_tail=True)
    tops = [root] if region == "body" else [
        el for el in found[region] if next(el.iterancestors(region), None) is None]
    for top in tops:
        facts.text[region].append(etree.tostring(top, method="text", encoding=str,
                                                 with_tail=False))
        for img in top.iter("img"):
            facts.image(img.attrib, [region])
    return facts.close()
