"""What the output path held before this run, so that a run replaces and removes only what
feed2sitemap itself wrote.

A run that splits leaves an index at the -o path and parts beside it, named STEM-N.EXT (and
STEM-index-N.EXT when the index itself splits). The files that index lists under those names are
ours: a later run may replace them, and removes those it no longer writes. Anything else beside
the output is the user's, even when its name looks like a part (a hand-made sitemap-2024.xml):
never replaced, never removed. Two records of an interrupted run are also ours: its temporaries
(``.NAME.``, 8 random characters, ``.tmp``) and its journal (``.NAME.pending``), which names the
parts it was creating before its index could list them.

The output's own stylesheet instruction (``<?xml-stylesheet?>``) is kept by the next run: the
file at the path keeps the one it had, parts take the one the earlier parts had (or, when the
set first splits, the one of the single sitemap). Comments and ``xsi:schemaLocation`` are not
kept; ``dropped`` says so, for the run to tell the user.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Optional

from ..errors import Feed2SitemapError
from ..model.record import Lastmod
from ..model.report import Report
from ..readers.detect import open_input, sniff
from .naming import journal_path, ours_pattern, split_name, temp_pattern, temp_prefix
from .safety import leaves

__all__ = ["Previous", "part_relpath", "previous_output"]

_MAX_DEPTH = 3  # the top index, STEM-index-N files, STEM-index2-N files


def part_relpath(loc: str, base_prefix: Optional[str]) -> Optional[str]:
    """The file an index's <loc> names, relative to the index's directory: its path under
    ``base_prefix`` (the public URL of that directory) when it lies there, else its last path
    segment. None when the name would leave the directory or names no file (an index may come
    from anywhere: "..", an encoded "/" or "\\" are refused)."""
    from urllib.parse import unquote, urlsplit  # (2 ms of start-up, with ipaddress)

    try:
        if base_prefix and loc.startswith(base_prefix):
            rel = urlsplit(loc[len(base_prefix) - 1:]).path.lstrip("/")
        else:
            rel = urlsplit(loc).path.rpartition("/")[2]
    except ValueError:  # "http://[x/s.xml": urllib cannot split it, so it names no file
        return None
    segments = [unquote(s) for s in rel.split("/")]
    for s in segments:
        if s in ("", ".", "..") or "/" in s or "\\" in s or "\0" in s:
            return None
    return "/".join(segments)


class Previous:  # (internal: a plain class, as a dataclass's __init__ is compiled at start-up)
    """The earlier run's files beside output ``name`` in ``directory`` (see module docstring)."""

    __slots__ = ("directory", "name", "listed", "others", "pending", "leftovers", "styles",
                 "dropped")

    def __init__(self, directory: str, name: str) -> None:
        self.directory = directory
        self.name = name
        # ours, with the lastmod the earlier index gave each
        self.listed: dict[str, Optional[Lastmod]] = {}
        self.others: list[str] = []  # listed files feed2sitemap did not name
        self.pending: list[str] = []  # parts an interrupted run was creating
        self.leftovers: list[str] = []  # an interrupted run's temporaries
        # "urlset"/"index": the stylesheet instructions of the earlier files of that kind
        self.styles: dict[str, str] = {}
        self.dropped: list[str] = []  # what the earlier output had that is not written again

    def owns(self, name: str) -> bool:
        return name in self.listed or name in self.pending

    def unlisted_pending(self) -> list[str]:
        """Parts an interrupted run put in place before its index could list them: their URLs
        are part of the output's state, and are read with it."""
        stem = split_name(self.name)[0]
        return [n for n in self.pending if n not in self.listed
                and not n[len(stem):].startswith("-index")
                and os.path.isfile(os.path.join(self.directory, n))
                and not leaves(os.path.join(self.directory, n), self.directory)]

    def owned(self) -> list[str]:
        return sorted(set(self.listed) | set(self.pending))


def previous_output(path: str, base_prefix: Optional[str]) -> Previous:
    """Read what ``path`` (a regular file, or a link to one) and its directory hold from
    earlier runs. An unreadable or foreign file there simply owns nothing."""
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    prev = Previous(directory, name)
    _read_index(prev, path, base_prefix, _MAX_DEPTH)
    if prev.listed:  # an index: the parts' stylesheet, from the first of them
        with contextlib.suppress(OSError):
            first = os.path.join(directory, next(iter(prev.listed)))
            if not leaves(first, directory):
                with open(first, "rb") as raw:
                    _read_prolog(prev, open_input(raw, first)[1], top=False)
    prev.pending = _read_journal(journal_path(directory, name), name)
    # (the patterns are compiled only for names that may match: a first run has none)
    prefix = temp_prefix(name)
    with contextlib.suppress(OSError):
        prev.leftovers = sorted(os.path.join(directory, e) for e in os.listdir(directory)
                                if e.startswith(prefix) and temp_pattern(name).fullmatch(e))
    return prev


def _read_index(prev: Previous, path: str, base_prefix: Optional[str], depth: int) -> None:
    """Note the files the index at ``path`` lists (and, for our index files, what they list)."""
    try:
        with open(path, "rb") as raw:
            stream, head = open_input(raw, path)
            if not head or sniff(head, path) != "sitemap":
                return
            from ..readers.sitemap import read_sitemap  # (only when the output is one already)

            entries = [(loc, batch.lastmods[i] if batch.lastmods else None)
                       for batch in read_sitemap(stream, path, Report())
                       if batch.is_sitemap for i, loc in enumerate(batch.locs)]
    except (OSError, Feed2SitemapError):
        return
    if depth == _MAX_DEPTH:
        _read_prolog(prev, head, top=True)
    ours = ours_pattern(prev.name)
    for loc, lastmod in entries:
        rel = part_relpath(loc.strip(), base_prefix)
        if rel is None:  # names no file here: nothing to keep or remove
            continue
        if "/" in rel or not ours.fullmatch(rel):
            prev.others.append(rel)
            continue
        prev.listed[rel] = lastmod
        nested = os.path.join(prev.directory, rel)
        if ("-index" in rel[len(split_name(prev.name)[0]):] and depth > 1
                and not leaves(nested, prev.directory)):
            _read_index(prev, nested, base_prefix, depth - 1)


# what may come before the root element (the XML declaration, instructions, comments)
_PROLOG_ITEM = re.compile(r"\s*(<\?.*?\?>|<!--.*?-->)", re.S)
_ROOT = re.compile(r"\s*<(?:[\w.-]+:)?(urlset|sitemapindex)\b([^>]*)")


def _read_prolog(prev: Previous, head: bytes, top: bool) -> None:
    """Note the stylesheet instructions before the root of a file of the earlier output (from
    its first bytes, ``head``) and, for the file at the path, what a rewrite does not keep."""
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    pos, styles = 0, ""
    while m := _PROLOG_ITEM.match(text, pos):
        item, pos = m.group(1), m.end()
        if item.startswith("<?xml-stylesheet") and _printable(item):
            styles += item + "\n"
    root = _ROOT.match(text, pos)
    if root is None:
        return
    kind = "urlset" if root.group(1) == "urlset" else "index"
    prev.styles.setdefault(kind, styles)
    if top:
        if "<!--" in text:  # (in the first bytes: a comment further on goes unnamed)
            prev.dropped.append("comments")
        if "schemaLocation" in root.group(2):
            prev.dropped.append("xsi:schemaLocation")


def _printable(text: str) -> bool:
    return "".join(text.split()).isprintable() and "\ufffd" not in text


def _read_journal(path: str, name: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(1 << 20)
    except (OSError, UnicodeDecodeError):
        return []
    # only names of our own pattern: a journal is never a way to delete other files
    ours = ours_pattern(name)
    return [n for n in text.split("\n") if n and ours.fullmatch(n)]
