"""A built site directory as an input: each HTML page is its URL, with what the page says of
itself (pages.py): left out when it says noindex or names another URL as canonical, dated by
its own dates, else by ``--lastmod-from`` (lastmod.py), never by the file's time (a CI checkout
gives every file the time of the checkout). The site's own robots.txt, at its root, leaves out
what it disallows for Googlebot. Every file that is no page is counted in the report by why
(``Report.exclude``), the first few by name.

The one mapping between a file and its URL, both ways, is here too (``check --site`` shares
it). A static server answers "/a/" with a/index.html, and "/a" with a, a/index.html or a.html
(nginx's try_files, GitHub Pages, Netlify); ``--pretty-urls`` says which of the URLs of
``page.html`` the sitemap names: "keep" (/page.html, answered by every static server: the
default), "strip" (/page) or "slash" (/page/). index.html is its directory's URL in every mode.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from typing import NamedTuple, Optional
from urllib.parse import quote, unquote

from ...model.batch import BATCH, Batch
from ...model.extensions import EMPTY, Extensions
from ...model.limits import MAX_ROBOTS_BYTES, PROFILES
from ...model.options import SiteOptions
from ...model.record import Lastmod, parse_lastmod
from ...model.report import Report
from ..robots import Robots
from .lastmod import LastmodSource, lastmod_source
from .pages import MAX_PAGE_BYTES, Facts, canonical_elsewhere, parse_page

__all__ = ["HTML", "NOT_PAGES", "Entry", "candidates", "own_robots", "read_regular", "read_site",
           "url_of", "walk"]

MAX_LOC = PROFILES["sitemaps"].max_loc  # (2,048, a <loc>'s bound; images' and alternates')
DATES = ("article:modified_time", "JSON-LD dateModified", "itemprop dateModified")


def read_site(root: str, name: str, report: Report, prefix: str,
              options: SiteOptions = SiteOptions(), *,
              wanted: Optional[Callable[[str], bool]] = None,
              opened: Optional[list[LastmodSource]] = None,
              output: Optional[Callable[[str], bool]] = None) -> Iterator[Batch]:
    """The pages of the site in ``root`` served at ``prefix`` (ending in "/"), in batches.
    ``wanted(url)`` brings in a file that is no HTML page (--include); a lastmod source is
    appended to ``opened``: the run writes its state file once it has succeeded.
    ``output(path)`` tells the run's own output files (the sitemap written into the site),
    which are not the site's content: they are passed over, not reported as left out."""
    site = _Site(root, name, report, prefix, options, wanted)
    if options.lastmod_from != "page":
        site.lastmods = lastmod_source(options.lastmod_from, root, source=options.source,
                                       state=options.state)
        if opened is not None:
            opened.append(site.lastmods)
    rows: list[tuple[str, Optional[Lastmod], Extensions]] = []
    for entry in walk(root):
        if output is not None and output(entry.path):
            continue
        row = site.row(entry)
        if row is not None:
            rows.append(row)
        if len(rows) == BATCH:
            yield site.batch(rows)
            rows = []
    if rows:
        yield site.batch(rows)
    for warning in site.lastmods.warnings if site.lastmods is not None else ():
        report.warn("lastmod source", name, None, warning)


class _Site:
    def __init__(self, root: str, name: str, report: Report, prefix: str,
                 options: SiteOptions, wanted: Optional[Callable[[str], bool]]) -> None:
        self.root = root
        self.name = name.rstrip("/" + os.sep) or name
        self.report = report
        self.prefix = prefix
        self.origin = prefix[:prefix.index("/", prefix.index("//") + 2)]  # scheme://host
        self.options = options
        self.wanted = wanted
        self.lastmods: Optional[LastmodSource] = None
        self.robots = own_robots(root, prefix)

    def where(self, rel: str) -> str:
        return f"{self.name}/{rel}"

    def row(self, entry: Entry) -> Optional[tuple[str, Optional[Lastmod], Extensions]]:
        """The page's row, or None when it is left out (and counted)."""
        if entry.why == "not HTML" and self.wanted is not None:
            url = url_of(entry.rel, self.prefix)
            if self.wanted(url):
                return url, self.outside_lastmod(entry.rel, None), EMPTY
        if entry.why.startswith("unreadable"):
            self.report.skip("unreadable directory", self.where(entry.rel), None,
                             f"cannot read the directory: {entry.why.partition(': ')[2]}")
            return None
        if entry.why:
            self.report.exclude(entry.why, self.where(entry.rel))
            return None
        url = url_of(entry.rel, self.prefix, self.options.pretty_urls)
        if self.robots is not None and self.robots.disallowed(url):
            self.report.exclude("disallowed by robots.txt", self.where(entry.rel))
            return None
        facts = self.read(entry)
        if facts is None:
            return None
        if facts.noindex:
            self.report.exclude("noindex", self.where(entry.rel))
            return None
        if canonical_elsewhere(url, facts.canonical) is not None:
            self.report.exclude("canonical elsewhere", self.where(entry.rel))
            return None
        lastmod = self.page_date(entry.rel, facts) or self.outside_lastmod(entry.rel, facts)
        return url, lastmod, self.extensions(url, facts, entry.rel)

    def read(self, entry: Entry) -> Optional[Facts]:
        where = self.where(entry.rel)
        try:
            data = read_regular(entry.path, MAX_PAGE_BYTES)
        except OSError as exc:
            self.report.skip("unreadable page", where, None, f"cannot read: {exc.strerror}")
            return None
        if data is None:
            self.report.skip("not a regular file", where, None, "not a regular file (a FIFO, "
                             "a socket or a device): not read")
            return None
        if len(data) > MAX_PAGE_BYTES:
            self.report.warn("page cut", where, None, f"larger than {MAX_PAGE_BYTES:,} bytes: "
                             "only that much was read")
            data = data[:MAX_PAGE_BYTES]
        return parse_page(data)

    def page_date(self, rel: str, facts: Facts) -> Optional[Lastmod]:
        """The page's own date, the first of DATES that is a W3C Datetime."""
        for kind in DATES:
            text = facts.dates.get(kind)
            if text is None:
                continue
            try:
                return parse_lastmod(text)
            except ValueError as exc:
                self.report.warn("bad page date", self.where(rel), None, f"{kind}: {exc}")
        return None

    def outside_lastmod(self, rel: str, facts: Optional[Facts]) -> Optional[Lastmod]:
        if self.lastmods is None:
            return None
        # (the page's fingerprint, a hash of its text, is made only for a lastmod source)
        text = self.lastmods.lastmod(rel, facts.fingerprint if facts is not None else "")
        return None if text is None else parse_lastmod(text)

    def join(self, url: str, link: str) -> str:
        """``link`` resolved against the page's ``url`` (urljoin, 10 µs, for the rare forms)."""
        if link.startswith(("https://", "http://")):
            return link
        if link.startswith("/") and not link.startswith("//"):
            return self.origin + link
        from urllib.parse import urljoin

        return urljoin(url, link)

    def extensions(self, url: str, facts: Facts, rel: str) -> Extensions:
        from ...extensions.model import Alternate, Image

        alternates = [Alternate(lang, self.join(url, href)) for lang, href in facts.alternates
                      if self.short(rel, "alternate", href)]
        langs = {a.hreflang.lower() for a in alternates}
        if alternates and facts.lang and facts.lang.lower() not in langs and \
                all(a.href != url for a in alternates):
            alternates.append(Alternate(facts.lang, url))  # each version lists itself too
        images: tuple[Image, ...] = ()
        if self.options.images:
            srcs = [src for src in facts.main_images if self.short(rel, "image", src)]
            images = tuple(Image(u) for u in dict.fromkeys(self.join(url, s) for s in srcs))
        return Extensions(images=images, alternates=tuple(alternates))

    def short(self, rel: str, what: str, link: str) -> bool:
        """Whether ``link`` is short enough for a sitemap (a <loc>'s bound); else said."""
        if len(link) < MAX_LOC:
            return True
        self.report.warn(f"bad {what}s extension", self.where(rel), None,
                         f"an {what} URL of {len(link):,} characters (at most {MAX_LOC - 1:,}): "
                         "left out")
        return False

    def batch(self, rows: list[tuple[str, Optional[Lastmod], Extensions]]) -> Batch:
        from ..urlext import held_to_rules

        locs = [r[0] for r in rows]
        lastmods = [r[1] for r in rows]
        lines = [None] * len(rows)
        column = [r[2] for r in rows]
        extensions = held_to_rules(column, locs, lines, self.name, self.report) \
            if any(column) else None
        return Batch._trusted(locs, self.name, None,
                              lastmods if any(m is not None for m in lastmods) else None,
                              extensions=extensions)


def own_robots(root: str, prefix: str) -> Optional[Robots]:
    """The rules of the site's robots.txt, at its root, if there is one and the site is its
    host's (a robots.txt served below the host's root is no robots.txt: RFC 9309)."""
    if prefix.count("/") > 3:
        return None
    path = os.path.join(root, "robots.txt")
    try:
        data = read_regular(path, MAX_ROBOTS_BYTES)
    except OSError:
        return None
    return None if data is None else Robots(data.decode("utf-8-sig", "replace"), path)


HTML = (".html", ".htm")
# pages a sitemap has no business listing: the error pages static generators and servers write
NOT_PAGES = frozenset({"404.html", "403.html", "410.html", "50x.html", "500.html", "502.html",
                       "503.html", "404.htm", "500.htm"})
# RFC 3986's pchar less "%": what a path segment may hold as it is
_SAFE = "!$&'()*+,;=:@-._~"


def url_of(rel: str, prefix: str, pretty: str = "keep") -> str:
    """The URL of the file ``rel`` of a site served at ``prefix`` (ending in "/"), each
    segment percent-encoded from the name's bytes: "a b/100%.html" is "a%20b/100%25.html"."""
    head, _, name = rel.rpartition("/")
    if name == "index.html":
        name = ""
    elif pretty != "keep" and name.endswith(".html"):
        name = name[:-5] + ("/" if pretty == "slash" else "")
    path = f"{head}/{name}" if head else name
    return prefix + "/".join(quote(os.fsencode(s), safe=_SAFE) for s in path.split("/"))


def candidates(path: str) -> list[str]:
    """The files (relative, "/"-separated) a static server might answer the URL path ``path``
    (after the site's prefix) with, most likely first: the inverse of url_of in every mode.
    [] for a path that could leave the site ("..", a backslash, an empty segment)."""
    segments = [unquote(s) for s in path.lstrip("/").split("/")]
    if any(s in (".", "..") or "\\" in s or "\0" in s for s in segments) or \
            any(not s for s in segments[:-1]):
        return []
    rel = "/".join(segments)
    if not rel:
        return ["index.html"]
    if rel.endswith("/"):
        return [rel + "index.html", rel[:-1] + ".html"]  # (the second: --pretty-urls slash)
    return [rel, rel + "/index.html", rel + ".html"]


class Entry(NamedTuple):
    """One name met in the walk: ``rel`` (relative, "/"-separated, "/"-ended for a directory)
    and ``why`` it is no page, or "" for an HTML file to read."""

    rel: str
    path: str
    why: str


def walk(root: str) -> Iterator[Entry]:
    """Every file of the site in name order, directory by directory. Dot-directories (.git,
    .well-known) are not walked: each is one entry; symbolic links to directories are not
    followed (a loop, or a way out of the site); one that cannot be read is an entry whose
    ``why`` starts with "unreadable"."""
    skip = len(os.path.join(root, ""))
    failed: list[OSError] = []
    for top, dirs, files in os.walk(root, onerror=failed.append):
        yield from _failures(failed, root, skip)
        rel_top = top[skip:].replace(os.sep, "/")
        rel_top = rel_top + "/" if rel_top else ""
        hidden = sorted(d for d in dirs if d.startswith("."))
        linked = sorted(d for d in dirs if not d.startswith(".")
                        and os.path.islink(os.path.join(top, d)))
        dirs[:] = sorted(set(dirs) - set(hidden) - set(linked))
        for d in hidden:
            yield Entry(f"{rel_top}{d}/", os.path.join(top, d), "hidden")
        for d in linked:
            yield Entry(f"{rel_top}{d}/", os.path.join(top, d), "directory symlink, not followed")
        for name in sorted(files):
            rel = rel_top + name
            if name.startswith("."):
                why = "hidden"
            elif not name.endswith(HTML):
                why = "not HTML"
            elif name in NOT_PAGES:
                why = "error page"
            else:
                why = ""
            yield Entry(rel, os.path.join(top, name), why)
    yield from _failures(failed, root, skip)


def _failures(failed: list[OSError], root: str, skip: int) -> Iterator[Entry]:
    """The directories os.walk could not read (told as they come), as entries."""
    for exc in failed:
        where = str(exc.filename or root)
        rel = where[skip:].replace(os.sep, "/")
        yield Entry(rel + "/" if rel else "", where, f"unreadable: {exc.strerror}")
    failed.clear()


def read_regular(path: str, limit: int) -> bytes | None:
    """Up to ``limit`` + 1 bytes of the file at ``path`` (one more than the bound, so that a
    caller sees it is larger), or None when it is no regular file: it is opened without
    blocking and judged by what was opened, since a FIFO named *.html would wait for a writer
    for ever. OSError when it cannot be read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return f.read(limit + 1)
