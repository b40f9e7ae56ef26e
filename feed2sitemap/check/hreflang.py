"""check: hreflang alternates that are not reciprocal within the files of one run.

Google's rule for localized versions ([LOC], Search Central "Tell Google about localized
versions of your page"): each version lists itself and every other version; "if two pages don't
both point to each other, the tags will be ignored". A page missing from its own alternates is
said where its <url> is read (extensions.rules: ``ext-alternates``). Whether A's alternate B
lists A back can only be told once every file of the run is read: each <url> with alternates
leaves here the hashes of its alternates, and each link to another page is kept with its place;
after the last file, a link to a page that was checked (a URL of the run: CheckStats.seen) but
does not list A back is a warning, ``hreflang-reciprocal``. A link to a page no file of the run
lists says nothing (the other version may live in another sitemap).

Memory grows with the URLs that carry alternates only (about 150 bytes a link, plus the two
URLs' text), up to LINKS_LIMIT links a run; past it a ``hreflang-limit`` warning says the later
ones are not followed up. A run without alternates keeps nothing here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from ..model.urls import BadURL, normalize_url
from .dupes import SeenURLs

__all__ = ["LINKS_LIMIT", "HreflangLinks", "message"]

LINKS_LIMIT = 2_000_000


class _Link(NamedTuple):
    page: int  # hash of the normalised page (A)
    target: int  # hash of the normalised alternate (B)
    file_no: int  # where A lists B: file (SeenURLs numbering), line, column
    line: int
    col: int
    hreflang: str
    page_url: str
    target_url: str


class HreflangLinks:
    """The alternates of every <url> with some, across the files of one check run."""

    def __init__(self, limit: int = LINKS_LIMIT) -> None:
        self.limit = limit
        self.pages: dict[int, frozenset[int]] = {}  # page hash -> hashes of its alternates
        self.links: list[_Link] = []
        self.full = False

    def add(self, page: str, alternates: list[tuple[str, str, int]], file_no: int,
            col: int) -> bool:
        """The <url> of ``page`` lists ``alternates`` ((hreflang, href, line) each). False when
        the limit was reached with these (the caller warns, once)."""
        try:
            own = normalize_url(page)
        except BadURL:
            return True  # (the loc's own problem, reported where it is read)
        key = hash(own)
        targets: list[tuple[int, str, str, int]] = []
        for hreflang, href, line in alternates:
            try:
                url = normalize_url(href)
            except BadURL:
                continue  # an error of its own (ext-alternates)
            targets.append((hash(url), url, hreflang, line))
        self.pages[key] = self.pages.get(key, frozenset()) | {t[0] for t in targets}
        for target, url, hreflang, line in targets:
            if target == key:
                continue
            if len(self.links) >= self.limit:
                told, self.full = self.full, True
                return told
            self.links.append(_Link(key, target, file_no, line, col, hreflang, own, url))
        return True

    def unreciprocated(self, seen: SeenURLs) -> Iterator[tuple[str, _Link, str]]:
        """(file name of the link, the link, where its target is listed) for each link whose
        target was checked in this run and does not list the page back."""
        for link in self.links:
            back = self.pages.get(link.target)
            if back is not None and link.page in back:
                continue
            place = seen.place(link.target)
            if place is None:
                continue  # a page of no file of this run: nothing to tell
            name, line = place
            yield seen.names[link.file_no], link, f"{name}:{line}"


def message(link: _Link, where: str) -> str:
    return (f"{link.page_url[:200]} lists {link.target_url[:200]} as its {link.hreflang!r} "
            f"version, but that page ({where}) does not list it back; Google ignores "
            "alternates that are not reciprocal")
