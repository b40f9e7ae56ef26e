"""check --robots: what a site's robots.txt says about the URLs and sitemaps checked.

A URL a sitemap lists but robots.txt disallows for Googlebot is never crawled: Search Console
reports it as "Submitted URL blocked by robots.txt". A sitemap robots.txt does not name is found
only if someone submits it by hand. The rules are the standard library's (urllib.robotparser).
"""

from __future__ import annotations

import os

from ..errors import InputError, OptionError
from ..limits import MAX_ROBOTS_BYTES

__all__ = ["MAX_ROBOTS_BYTES", "Robots", "load_robots"]

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
        from urllib.parse import unquote

        # robotparser decodes the Sitemap: lines' escapes, and names are percent-encoded in
        # them (naming.url_segment): a name with a space is listed as "%20"
        if url is not None:
            return unquote(url) in self.sitemaps
        name = os.path.basename(file_name)
        return any(s.rstrip("/").rpartition("/")[2] == name for s in self.sitemaps)


def load_robots(robots_txt: str) -> Robots:
    """Read a robots.txt from a file or an http(s) URL; InputError when it cannot be read."""
    from ..fetch import fetch, is_url
    from ..urls import request_url

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
