"""The names of a run's files: parts and index files beside the output, temporaries, journal.

One place, since three parties must agree on them: the writer that gives the names, the output
set that replaces and removes files by them, and the reader of an earlier run's files, which
owns a file only when its name is one feed2sitemap gives.
"""

from __future__ import annotations

import os
import re

__all__ = ["journal_path", "ours_pattern", "partition_part_name",
           "part_names", "split_name", "temp_pattern", "temp_prefix", "url_segment"]

_GZ = ".gz"
# RFC 3986 section 3.3: what a path segment holds unencoded (unreserved, sub-delims, ":", "@")
_SEGMENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
                     "!$&'()*+,;=:@")


def split_name(name: str) -> tuple[str, str]:
    """'sitemap.xml.gz' → ('sitemap', '.xml.gz'); 'urls.txt' → ('urls', '.txt'); the case of
    the name is kept ('SITEMAP.XML.GZ' → ('SITEMAP', '.XML.GZ')), and ".gz" found in any."""
    gz = ""
    if name[-len(_GZ):].lower() == _GZ:
        name, gz = name[: -len(_GZ)], name[-len(_GZ):]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return name, gz
    return stem, "." + ext + gz


def url_segment(name: str) -> str:
    """A file name as one segment of its public URL: every other character percent-encoded as
    UTF-8 (a name that is not UTF-8 by its own bytes), so that no name can end its URL early
    ("#", "?"), add a segment ("/") or break the line it is written on (a newline in robots.txt
    or an index's <loc>). previous.part_relpath and follow.part_path decode it back."""
    return "".join(c if c in _SEGMENT else
                   "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogateescape"))
                   for c in name)


def part_names(name: str, n: int, kind: str = "") -> list[str]:
    """The file names of n parts beside ``name``: STEM-1.EXT … (STEM-index-1.EXT for indexes)."""
    stem, ext = split_name(name)
    infix = f"-{kind}" if kind else ""
    return [f"{stem}{infix}-{i}{ext}" for i in range(1, n + 1)]


def partition_part_name(name: str, partition: int, k: int) -> str:
    """Part k (1-based) of partition ``partition`` (0-based, as engines number them) beside
    output ``name``: STEM-PARTITION-K.EXT (see scale/partition.py)."""
    stem, ext = split_name(name)
    return f"{stem}-{partition}-{k}{ext}"


def ours_pattern(name: str) -> re.Pattern[str]:
    """Every name ``part_names`` or ``partition_part_name`` gives beside output ``name``, index
    files included."""
    stem, ext = split_name(name)
    return re.compile(re.escape(stem) + r"-(?:index[0-9]*-|(?:0|[1-9][0-9]*)-)?[1-9][0-9]*"
                      + re.escape(ext))


def temp_prefix(name: str) -> str:
    """The prefix of the temporaries written for output ``name``: hidden, and named for it."""
    return f".{name}."


def temp_pattern(name: str) -> re.Pattern[str]:
    """The temporaries ``tempfile.mkstemp`` makes with ``temp_prefix`` and suffix ".tmp"."""
    return re.compile(re.escape(temp_prefix(name)) + r"[a-z0-9_]{8}\.tmp")


def journal_path(directory: str, name: str) -> str:
    """The journal of a run that creates parts its index does not list yet."""
    return os.path.join(directory, f".{name}.pending")
