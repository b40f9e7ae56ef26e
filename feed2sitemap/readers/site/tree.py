"""A built site on disk and its URLs: which files are pages, and the one mapping between a
file and its URL, both ways (the site input and ``check --site`` share it).

A static server answers "/a/" with a/index.html, and "/a" with a, a/index.html or a.html
(nginx's try_files, GitHub Pages, Netlify); ``--pretty-urls`` says which of the URLs of
``page.html`` the sitemap names: "keep" (/page.html, answered by every static server: the
default), "strip" (/page) or "slash" (/page/). index.html is its directory's URL in every mode.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import NamedTuple
from urllib.parse import quote, unquote

__all__ = ["HTML", "NOT_PAGES", "Entry", "candidates", "read_regular", "url_of", "walk"]

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
