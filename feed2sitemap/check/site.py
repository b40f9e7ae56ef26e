"""The site around the sitemaps: its robots.txt (check --robots) and its built pages (--site).

A URL robots.txt disallows for Googlebot is never crawled; a sitemap robots.txt does not name
is found only if someone submits it by hand. Under --site, every URL under --base-url is mapped
to the file a static server would answer with ("/a/" -> a/index.html, "/a" -> a, a/index.html
or a.html); no file is a 404. A page marked noindex or canonical elsewhere should not be in a
sitemap, and HTML pages no sitemap lists are counted at the end. Only the head of a page is
read (up to 64 KiB), with two regular expressions rather than an HTML parser: a site of 100,000
pages takes seconds.
"""

from __future__ import annotations

import html
import os
import re
import stat
from collections.abc import Iterator
from urllib.parse import unquote, urljoin, urlsplit

from ..errors import InputError, OptionError
from ..model.limits import MAX_ROBOTS_BYTES
from ..model.urls import normalize_url

__all__ = ["HEAD_BYTES", "Page", "Robots", "Site", "load_robots"]

HEAD_BYTES = 64 * 1024
SHOWN = 5  # unlisted pages named in the message; the rest are counted
_HTML = (".html", ".htm")
_TAG = re.compile(rb"<(meta|link)\b([^>]*)>", re.I)
_ATTR = re.compile(rb"""([A-Za-z_:][-\w:.]*)\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+)""")
_HEAD_END = re.compile(rb"</head\b|<body\b", re.I)
# pages a sitemap has no business listing: error pages every static generator writes
_NOT_PAGES = {"404.html", "50x.html", "500.html"}
AGENT = "Googlebot"


class Robots:
    """The rules of one robots.txt, and the sitemaps its Sitemap: lines name."""

    def __init__(self, text: str, where: str) -> None:
        import urllib.robotparser  # (urllib.request with it: 50 ms no other check needs)

        self.where = where
        self._parser = urllib.robotparser.RobotFileParser()
        self._parser.parse(text.splitlines())
        self.sitemaps = [s.strip() for s in self._parser.site_maps() or []]

    def disallowed(self, url: str) -> bool:
        return not self._parser.can_fetch(AGENT, url)

    def lists(self, file_name: str, url: str | None) -> bool:
        """Whether a Sitemap: line names this sitemap: its public URL when known (from
        --base-url), else any URL whose last segment is the file's name."""
        # robotparser decodes the Sitemap: lines' escapes, and names are percent-encoded in
        # them (naming.url_segment): a name with a space is listed as "%20"
        if url is not None:
            return unquote(url) in self.sitemaps
        name = os.path.basename(file_name)
        return any(s.rstrip("/").rpartition("/")[2] == name for s in self.sitemaps)


def load_robots(robots_txt: str) -> Robots:
    """Read a robots.txt from a file or an http(s) URL; InputError when it cannot be read."""
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
        self.not_regular = 0  # *.html entries that are no regular file (a FIFO…): not read
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
                page = Page(os.path.join(top, name))
                if not page.regular:
                    self.not_regular += 1
                    if self.not_regular <= SHOWN:
                        self.not_regular_names.append(rel)
                elif not page.noindex:
                    yield rel
