"""The scope of a sitemap: the scheme, host and directory whose URLs it may list (sitemaps.org),
and what a base URL names as that directory."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import NamedTuple, Optional

from ..errors import OptionError
from .urls import normalize_url


class Scope(NamedTuple):
    """The site a sitemap may speak for: a scheme, host (with port) and directory prefix."""

    prefix: str  # "https://example.com/blog/" — every URL in scope starts with it
    origin: str  # "https://example.com"

    def contains(self, loc: str) -> bool:
        """Whether a normalised URL lies in scope: under the directory, or the directory itself
        written without its trailing slash."""
        return loc.startswith(self.prefix) or loc + "/" == self.prefix

    def holds_any(self, links: Iterable[Optional[str]]) -> bool:
        """Whether some of ``links`` lies in scope once normalised (one that cannot be does
        not): a feed's own site link, or home_page_url, is its pages' scope only then."""
        for link in links:
            if link:
                with contextlib.suppress(ValueError):
                    if self.contains(normalize_url(link)):
                        return True
        return False


def base_directory(url: str) -> tuple[str, Optional[str]]:
    """The directory a base URL names, and a note when that is not what it says (".../blog"
    is /blog/: a last segment without a dot names a directory). Raises BadURL."""
    norm = normalize_url(url)
    after_host = norm.find("/", norm.find("://") + 3)
    path = norm[after_host:].partition("?")[0]
    last = path[path.rfind("/") + 1:]
    if not last:
        return norm[:after_host] + path, None
    if "." not in last:
        directory = norm[:after_host] + path + "/"
        return directory, f"`base_url` {norm} is read as the directory {directory}"
    directory = norm[:after_host] + path[: path.rfind("/") + 1]
    return directory, f"`base_url` {norm} names a file; its directory {directory} is the base"


def scope_of(url: str, *, directory: bool = True) -> Scope:
    """The scope of a URL: its origin, and with ``directory`` the directory it names
    (sitemaps.org: a sitemap at /blog/sitemap.xml may list only URLs under /blog/)."""
    norm = normalize_url(url)
    origin = norm[: norm.find("/", norm.find("://") + 3)]
    if not directory:
        return Scope(origin + "/", origin)
    return Scope(base_directory(norm)[0], origin)


def base_of(base_url: object) -> tuple[str, Scope, Optional[str]]:
    """`base_url` as the directory it names, that scope, and base_directory's note;
    OptionError when it is no http(s) URL or has a query or fragment (it names a directory)."""
    try:
        if not isinstance(base_url, str):
            raise ValueError(f"must be an http(s) URL (a str), not {type(base_url).__name__}")
        if "?" in base_url or "#" in base_url:
            raise ValueError(f"must name a directory, without a query or fragment: {base_url!r}")
        directory, note = base_directory(base_url)
        return directory, scope_of(directory), note
    except ValueError as exc:
        raise OptionError(str(exc), "base_url") from None
