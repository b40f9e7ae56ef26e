"""The site around the sitemaps: its robots.txt (check --robots) and its built pages (--site).

Under --site, every URL under --base-url is mapped to the file a static server would answer
with, by the mapping of a site directory given as an input (readers/site); no file is a
404. A page marked noindex or canonical elsewhere should not be in a sitemap, and HTML pages no
sitemap lists are counted at the end. Only a page's head is read (up to 64 KiB), with two
regular expressions rather than an HTML parser: a site of 100,000 pages takes seconds.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

from ..errors import InputError, OptionError
from ..model.limits import MAX_ROBOTS_BYTES
from ..readers.robots import AGENT, Robots
from ..readers.site import HTML, candidates, own_robots, read_regular, url_of, walk
from ..readers.site.pages import canonical_elsewhere, says_noindex

__all__ = ["AGENT", "HEAD_BYTES", "Page", "Robots", "Site", "load_robots"]

HEAD_BYTES = 64 * 1024
SHOWN = 5  # unlisted pages named in the message; the rest are counted
_TAG = re.compile(rb"<(meta|link)\b([^>]*)>", re.I)
_ATTR = re.compile(rb"""([A-Za-z_:][-\w:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)""")
_HEAD_END = re.compile(rb"</head\b|<body\b", re.I)


def load_robots(robots_txt: str) -> Robots:
    """Read a robots.txt from a file or an http(s) URL; InputError when it cannot be read."""
    from ..files.store import is_store, open_store, shown
    from ..model.urls import request_url
    from ..web.fetch import fetch, is_url

    if is_url(robots_txt):
        try:  # a URL no request can carry is the option's fault: exit 2 (issue 35, item 5)
            request_url(robots_txt)
        except ValueError as exc:
            raise OptionError(f"cannot be fetched: {exc}", parameter="robots_txt") from None
        fetched = fetch(robots_txt)
        try:
            data = fetched.stream.read(MAX_ROBOTS_BYTES)
        finally:
            fetched.stream.close()
    elif is_store(robots_txt):
        with open_store(robots_txt) as f:  # (the URL as given: a query may name a version)
            data = f.read(MAX_ROBOTS_BYTES)
        robots_txt = shown(robots_txt)
    else:
        try:
            with open(robots_txt, "rb") as f:
                data = f.read(MAX_ROBOTS_BYTES)
        except OSError as exc:
            raise InputError(robots_txt, None, f"`robots_txt`: cannot read: {exc.strerror}",
                             parameter="robots_txt") from None
    # RFC 9309: UTF-8; a stray byte must not stop the check of the sitemaps; a byte order mark
    # is no part of the first line (Google skips it too)
    return Robots(data.decode("utf-8-sig", "replace"), robots_txt)


class Page:
    """What the head of one HTML page says about indexing."""

    def __init__(self, path: str) -> None:
        self.noindex = False
        self.canonical: str | None = None
        self.regular = True  # False: a FIFO, socket or device, never read
        try:
            head = read_regular(path, HEAD_BYTES)
        except OSError:
            return
        if head is None:
            self.regular = False
            return
        if b"noindex" not in head and b"canonical" not in head:
            return
        end = _HEAD_END.search(head)
        for m in _TAG.finditer(head, 0, end.start() if end else len(head)):
            attrs = {k.lower(): html.unescape(v.strip(b"\"'").decode("utf-8", "replace"))
                     for k, v in _ATTR.findall(m.group(2))}
            if m.group(1).lower() == b"meta":
                if says_noindex(attrs.get(b"name", ""), attrs.get(b"content", "")):
                    self.noindex = True
            elif "canonical" in attrs.get(b"rel", "").lower().split() and b"href" in attrs:
                self.canonical = attrs[b"href"].strip()


class Site:
    """A built site in ``root`` served at ``prefix`` (--base-url)."""

    def __init__(self, root: str, prefix: str) -> None:
        self.root = root
        self.prefix = prefix
        self.listed: set[str] = set()  # files (relative, "/"-separated) the sitemaps list
        self.not_regular = 0  # *.html entries that are no regular file (a FIFO…): not read
        self.not_regular_names: list[str] = []
        # what the site's own robots.txt disallows is left out by the site input: not unlisted
        self.robots = own_robots(root, prefix)

    def file_of(self, url: str) -> tuple[str | None, list[str]]:
        """The file of ``url`` (relative) or None, and the names looked for, likeliest first."""
        names = candidates(urlsplit(url[len(self.prefix) - 1:]).path)
        for rel in names:
            if os.path.isfile(os.path.join(self.root, *rel.split("/"))):
                self.listed.add(rel)
                return rel, names
        return None, names

    def page(self, rel: str) -> Page | None:
        return Page(os.path.join(self.root, *rel.split("/"))) if rel.endswith(HTML) else None

    def unlisted(self) -> Iterator[str]:
        """HTML pages of the site no sitemap listed, but those the site input leaves out
        (noindex, canonical elsewhere, disallowed, error pages…), in name order."""
        for rel, path, why in walk(self.root):
            if why or rel in self.listed:
                continue
            url = url_of(rel, self.prefix)
            if self.robots is not None and self.robots.disallowed(url):
                continue
            page = Page(path)
            if not page.regular:
                self.not_regular += 1
                if self.not_regular <= SHOWN:
                    self.not_regular_names.append(rel)
            elif not page.noindex and canonical_elsewhere(url, page.canonical) is None:
                yield rel
