"""The sitemap reader's fast path: expat proves a run of plain <url> entries well-formed with no
Python handler at all, while one regular expression (in C) collects their values.

Per 64 KiB chunk the reader (sitemap.py) feeds expat three regions:

- the head, up to the chunk's first ``</url>``, with its usual handlers; that end tag must be
  seen by the end handler as an entry's, ending exactly where the head ends (so the cut is
  not inside a comment, a CDATA section or an element of another namespace);
- the middle, up to the chunk's last ``</url>``: if ``scan`` finds it made only of plain
  entries (``<url>``, ``<loc>``, then ``<lastmod>``, ``<changefreq>``, ``<priority>`` in that
  order, no attribute, comment, CDATA, PI or other element; white space between), expat parses
  it with the handlers off and the values come from the scan; otherwise with the handlers on;
- the tail, the rest, with the handlers on.

At each chunk's end expat has therefore read what the plain reader would have, so every bound
(depth, value and white-space lengths), error and batch falls where it falls in the plain
reader (mode.py's reference mode, which never takes this path). The values are the ones expat
would give: the white space before a field is kept as the plain reader keeps it, references
(``&amp;``, ``&#38;``) are resolved, ``\\r\\n`` becomes ``\\n``. The line of each entry's
``</loc>`` is counted from the region's text, for the messages about it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, repeat
from operator import add
from typing import Optional

__all__ = ["END_TAG", "Scanned", "scan"]

END_TAG = b"</url>"

# One plain entry, or (the last group) any character that is not white space outside one: the
# region is plain only when that group is empty on every match. Values hold no "<" (expat has
# checked there is no "]]>" or bad character); an empty field, a field out of order or twice,
# attributes or white space inside a tag all fall to the plain reader.
_ENTRY = re.compile(
    "[ \t\n]*<url>[ \t\n]*<loc>([^<]*)</loc>"
    "(?:([ \t\n]*)<lastmod>([^<]+)</lastmod>)?"
    "(?:([ \t\n]*)<changefreq>([^<]+)</changefreq>)?"
    "(?:([ \t\n]*)<priority>([^<]+)</priority>)?"
    "[ \t\n]*</url>|([^ \t\n])")
_REFERENCE = re.compile("&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_ABSENT = {"": None}  # an optional field the entry does not have: the plain reader's None


class Scanned:
    """The raw values of a region's entries, column by column, as the plain reader's end
    handler would have collected them, and the line of each entry's </loc>."""

    __slots__ = ("columns", "lines")

    def __init__(self, columns: list[Sequence[Optional[str]]], lines: list[int]) -> None:
        self.columns = columns
        self.lines = lines


def scan(region: bytes, line: int) -> Optional[Scanned]:
    """The entries of ``region`` (which starts where an entry may start and ends with an
    entry's end tag, on line ``line``), or None when it is not made of plain entries alone.

    Only what expat then accepts is used: the caller feeds expat the same bytes first."""
    try:
        text = region.decode("utf-8")
    except UnicodeDecodeError:
        return None  # expat will say where (with the handlers on)
    if "\r" in text:  # expat reads "\r\n" as "\n"; a lone "\r" is left to it
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    found = _ENTRY.findall(text)
    if not found:
        return None
    cols = list(zip(*found, strict=True))
    if any(cols[7]):
        return None
    locs = cols[0]
    columns: list[Sequence[Optional[str]]] = [locs]
    for space, value in ((cols[1], cols[2]), (cols[3], cols[4]), (cols[5], cols[6])):
        # the plain reader's value is all text since the last end tag: the white space too
        raw = list(map(add, space, value)) if any(space) else value
        columns.append(list(map(_ABSENT.get, raw, raw)))
    if "&" in text:
        columns = [_resolved(c) for c in columns]
    # the line of each </loc>: the region's first line plus the line ends before it
    parts = text.split("</loc>")
    parts.pop()
    lines = list(accumulate(map(str.count, parts, repeat("\n")), initial=line))
    lines.pop(0)
    return Scanned(columns, lines)


def _resolved(column: Sequence[Optional[str]]) -> list[Optional[str]]:
    """References replaced by their characters (expat has proved each is one of XML's five
    names or a character reference: entity declarations are refused)."""
    return [_REFERENCE.sub(_character, v) if v is not None and "&" in v else v for v in column]


def _character(m: re.Match[str]) -> str:
    ref = m.group(1)
    if ref[0] != "#":
        return _NAMED[ref]
    return chr(int(ref[2:], 16) if ref[1] == "x" else int(ref[1:]))
