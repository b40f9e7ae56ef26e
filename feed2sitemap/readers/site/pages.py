"""What one HTML page says: whether it may be indexed, its canonical URL, its own dates, its
language versions, the images of its main content and a fingerprint of that content.

One set of handlers (``Facts``, in lxml's parser-target form: start, end, data, comment,
close) is fed by the standard library's html.parser, or, when lxml is installed (the
``[html]`` extra), by libxml2's HTML parser: 4,000 pages of 25 KB a second a core against
700 (benchmarks/bench.py, row site). Both see the same events on well-formed pages and the
handlers track only the elements they need, so the two give the same facts
(tests/test_site_input.py holds them to it); the reference mode uses html.parser.

The main content is ``<main>``, else the ``<article>`` elements, else the body without nav,
header and footer; script, style, template, noscript, title and comments are never content.
Its fingerprint is the SHA-256 of its words joined by single spaces: text between the same
two tags is one run (a parser may hand it over in pieces), runs are separated by a space.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
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
    """The handlers, and what they found (see the module's docstring)."""

    def __init__(self) -> None:
        self.lang: Optional[str] = None
        self.noindex = False
        self.canonical: Optional[str] = None
        self.alternates: list[tuple[str, str]] = []  # (hreflang, href) as written
        self.dates: dict[str, str] = {}  # where found → the first text there
        self._json: Optional[list[str]] = None  # the JSON-LD script being read
        self._json_texts: list[str] = []
        self._json_size = 0
        self._open: list[str] = []  # the tracked elements open, innermost last
        self._depth = dict.fromkeys(_TRACKED, 0)
        self._run: list[str] = []
        self.saw = {"main": False, "article": False}
        self._hash = {k: hashlib.sha256() for k in ("main", "article", "body")}
        self._images: dict[str, list[str]] = {"main": [], "article": [], "body": []}

    def _regions(self) -> list[str]:
        if self._hidden():
            return []
        d = self._depth
        out = ["main"] if d["main"] else []
        if d["article"]:
            out.append("article")
        if not (d["nav"] or d["header"] or d["footer"]):
            out.append("body")
        return out

    def _hidden(self) -> bool:
        d = self._depth
        return bool(d["script"] or d["style"] or d["template"] or d["noscript"] or d["title"])

    def _flush(self) -> None:
        if not self._run:
            return
        words = " ".join("".join(self._run).split())
        self._run.clear()
        if words:
            data = (words + " ").encode("utf-8", "surrogatepass")
            for region in self._regions():
                self._hash[region].update(data)

    def start(self, tag: str, attrib: Any) -> None:
        self._flush()
        if tag in _TRACKED:
            self._open.append(tag)
            self._depth[tag] += 1
            if tag in self.saw:
                self.saw[tag] = True
            if tag == "script" and str(attrib.get("type") or "").strip().lower() == \
                    "application/ld+json":
                self._json = []
        elif tag == "meta":
            self._meta(attrib)
        elif tag == "link":
            self._link(attrib)
        elif tag == "img":
            src = (attrib.get("src") or "").strip()
            if src and not src.startswith("data:"):
                for region in self._regions():
                    if len(self._images[region]) < MAX_IMAGES + 1:
                        self._images[region].append(src)
        elif tag == "html" and self.lang is None and attrib.get("lang"):
            self.lang = str(attrib["lang"]).strip()
        if attrib.get("itemprop") == "dateModified":
            self._date("itemprop dateModified", attrib.get("content") or attrib.get("datetime"))

    def _meta(self, attrib: Any) -> None:
        content = str(attrib.get("content") or "")
        if says_noindex(str(attrib.get("name") or ""), content):
            self.noindex = True
        if str(attrib.get("property") or "").strip() == "article:modified_time":
            self._date("article:modified_time", content)

    def _link(self, attrib: Any) -> None:
        rel = str(attrib.get("rel") or "").lower().split()
        href = attrib.get("href")
        if href is None:
            return
        if "canonical" in rel and self.canonical is None:
            self.canonical = str(href).strip()
        elif "alternate" in rel and attrib.get("hreflang"):
            self.alternates.append((str(attrib["hreflang"]).strip(), str(href).strip()))

    def _date(self, where: str, text: Optional[str]) -> None:
        if text and text.strip() and where not in self.dates:
            self.dates[where] = text.strip()

    def end(self, tag: str) -> None:
        self._flush()
        if tag not in _TRACKED or tag not in self._open:
            return  # (an end tag with no start: nothing to close)
        while self._open:
            top = self._open.pop()
            self._depth[top] -= 1
            if top == "script" and self._json is not None:
                self._end_json()
            if top == tag:
                break

    def data(self, text: str) -> None:
        if self._json is not None and self._depth["script"]:
            if self._json_size < MAX_JSON_LD:
                self._json.append(text)
                self._json_size += len(text)
        elif not self._hidden():
            self._run.append(text)

    def comment(self, text: str) -> None:
        self._flush()

    def _end_json(self) -> None:
        assert self._json is not None
        self._json_texts.append("".join(self._json))
        self._json = None

    def close(self) -> Facts:
        self._flush()
        if self._json is not None:
            self._end_json()
        for text in self._json_texts:
            found = _date_modified(text)
            if found is not None:
                self._date("JSON-LD dateModified", found)
                break
        return self

    @property
    def region(self) -> str:
        """Where the main content is: "main", "article" or "body"."""
        return "main" if self.saw["main"] else "article" if self.saw["article"] else "body"

    @property
    def fingerprint(self) -> str:
        return self._hash[self.region].hexdigest()

    @property
    def images(self) -> list[str]:
        return self._images[self.region]


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

    def handle_comment(self, data: str) -> None:
        self.facts.comment(data)


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
    facts = Facts()
    if fast("HTML pages"):
        try:
            from lxml import etree
        except ImportError:
            pass
        else:
            parser = etree.HTMLParser(target=facts, no_network=True, recover=True)
            try:
                parser.feed(text)
                parser.close()  # (which calls facts.close())
                return facts
            except etree.LxmlError:  # (an empty document, after recovery)
                return facts.close()
    plain = _Plain(facts)
    plain.feed(text)
    plain.close()
    return facts.close()
