"""check --site DIR: the sitemaps against the built site they describe (Hugo's public/,
Jekyll's _site/, MkDocs' site/, Sphinx's html/).

Every URL under --base-url is mapped to the file a static server would answer with ("/a/" ->
a/index.html, "/a.html" -> a.html, "/a" -> a, a/index.html or a.html); no file is a 404. A
page that asks not to be indexed (<meta name="robots" content="noindex">) or names another URL
as canonical should not be in a sitemap (Google: "Submitted URL marked noindex", "Duplicate,
Google chose different canonical"). HTML pages no sitemap lists are counted at the end.

Only the head of a page is read (up to 64 KiB, to </head> or <body>), with two regular
expressions rather than an HTML parser: a site of 100,000 pages takes seconds. The names of
the pages found are kept (about 100 bytes a page) to find the unlisted ones.
"""

from __future__ import annotations

import html
import os
import re
import stat
from collections.abc import Iterator
from urllib.parse import unquote, urljoin, urlsplit

from ..urls import normalize_url

__all__ = ["HEAD_BYTES", "Page", "Site"]

HEAD_BYTES = 64 * 1024
SHOWN = 5  # unlisted pages named in the message; the rest are counted
_HTML = (".html", ".htm")
_TAG = re.compile(rb"<(meta|link)\b([^>]*)>", re.I)
_ATTR = re.compile(rb"""([A-Za-z_:][-\w:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)""")
_HEAD_END = re.compile(rb"</head\b|<body\b", re.I)
# pages a sitemap has no business listing: error pages every static generator writes
_NOT_PAGES = {"404.html", "50x.html", "500.html"}


class Page:
    """What the head of one HTML page says about indexing."""

    def __init__(self, path: str) -> None:
        self.noindex = False
        self.canonical: str | None = None
        self.regular = True  # False: a FIFO, socket or device, never read
        try:
            # without blocking, and judged by what was opened: a FIFO named *.html would wait
            # for a writer for ever (issue 35, item 26)
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError:
            return
        with os.fdopen(fd, "rb") as f:
            self.regular = stat.S_ISREG(os.fstat(fd).st_mode)
            if not self.regular:
                return
            try:
                head = f.read(HEAD_BYTES)
            except OSError:
                return
        if b"noindex" not in head and b"canonical" not in head:
            return
        end = _HEAD_END.search(head)
        for m in _TAG.finditer(head, 0, end.start() if end else len(head)):
            attrs = {k.lower(): html.unescape(v.strip(b"\"'").decode("utf-8", "replace"))
                     for k, v in _ATTR.findall(m.group(2))}
            if m.group(1).lower() == b"meta":
                if attrs.get(b"name", "").lower() in ("robots", "googlebot") and \
                        "noindex" in attrs.get(b"content", "").lower():
                    self.noindex = True
            elif "canonical" in attrs.get(b"rel", "").lower().split() and b"href" in attrs:
                self.canonical = attrs[b"href"].strip()


class Site:
    """A built site in ``root`` served at ``prefix`` (--base-url)."""

    def __init__(self, root: str, prefix: str) -> None:
        self.root = root
        self.prefix = prefix
        self.listed: set[str] = set()  # files (relative, "/"-separated) the sitemaps list
        # *.html entries that are no regular file (a FIFO…): not read, counted, the first named
        self.not_regular = 0
        self.not_regular_names: list[str] = []

    def candidates(self, url: str) -> list[str]:
        """The files a static server might answer ``url`` with, most likely first."""
        rel = urlsplit(url[len(self.prefix) - 1:]).path.lstrip("/")
        segments = [unquote(s) for s in rel.split("/")]
        if any(s in (".", "..") or "\\" in s or "\0" in s for s in segments) or \
                any(not s for s in segments[:-1]):
            return []
        rel = "/".join(segments)
        if not rel or rel.endswith("/"):
            return [rel + "index.html"]
        return [rel, rel + "/index.html", rel + ".html"]

    def file_of(self, url: str) -> tuple[str | None, list[str]]:
        """The file of ``url`` (relative) or None, and the names looked for."""
        names = self.candidates(url)
        for rel in names:
            if os.path.isfile(os.path.join(self.root, *rel.split("/"))):
                self.listed.add(rel)
                return rel, names
        return None, names

    def page(self, rel: str) -> Page | None:
        return Page(os.path.join(self.root, *rel.split("/"))) if rel.endswith(_HTML) else None

    def canonical_elsewhere(self, url: str, page: Page) -> str | None:
        """The page's canonical URL when it is another than ``url``."""
        if page.canonical is None or page.canonical == url:  # the usual case, at no cost
            return None
        try:
            canonical = normalize_url(urljoin(url, page.canonical))
        except ValueError:
            return page.canonical
        return None if canonical == url else canonical

    def unlisted(self) -> Iterator[str]:
        """HTML pages of the site no sitemap listed (noindex pages and error pages left
        out), in name order, streamed directory by directory."""
        skip = len(os.path.join(self.root, ""))
        for top, dirs, files in os.walk(self.root):
            dirs.sort()
            rel_top = top[skip:].replace(os.sep, "/")
            rel_top = rel_top + "/" if rel_top else ""
            for name in sorted(files):
                rel = rel_top + name
                if not name.endswith(_HTML) or rel in self.listed or rel in _NOT_PAGES:
                    continue
                page = self.page(rel)
                if page is not None and not page.regular:
                    self.not_regular += 1
                    if self.not_regular <= SHOWN:
                        self.not_regular_names.append(rel)
                elif page is None or not page.noindex:
                    yield rel
