"""The sitemap reader's fast path: runs of plain <url> entries read by one regular expression
(in C) and checked as expat would check them, with no Python handler per element.

Per 64 KiB chunk the reader (sitemap.py) gives expat three regions:

- the head, up to the chunk's first ``</url>``, with its usual handlers; that end tag must be
  seen by the end handler as an entry's, ending exactly where the head ends (so the cut is
  not inside a comment, a CDATA section or an element of another namespace);
- the middle, up to the chunk's last ``</url>``: if ``scan`` finds it made only of plain
  entries (``<url>``, ``<loc>``, then ``<lastmod>``, ``<changefreq>``, ``<priority>`` in that
  order, no attribute, comment, CDATA, PI or other element; white space between) and free of
  anything expat would refuse, the values come from the scan and expat is given a stand-in of
  white space with the same line ends; otherwise expat reads it with the handlers on;
- the tail, the rest, with the handlers on.

At each chunk's end expat has therefore read what the plain reader would have, so every bound
(depth, value and white-space lengths), error, line, column and batch falls where it falls in
the plain reader (backends.py's reference mode, which never takes this path). The values are the
ones expat would give: the white space before a field is kept as the plain reader keeps it,
references (``&amp;``, ``&#38;``) are resolved, ``\\r\\n`` becomes ``\\n``. The line of each
entry's ``</loc>`` is counted from the region's text, and only when a message or a record
asks for it.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from itertools import accumulate, chain, repeat
from typing import Any, Optional, Union, overload

__all__ = ["END_TAG", "REFERENCE", "JoinedLines", "RegionLines", "Scanned", "checked_text",
           "concatenated", "reference_character", "resolved", "scan"]

END_TAG = b"</url>"

_SPACE = "[ \t\n]*"
_OPTIONAL = ("lastmod", "changefreq", "priority")  # after <loc>, in this order (the XSD's)
# One plain entry, or (the last group) any character that is not white space outside one: the
# region is plain only when that group is empty on every match. Values hold no "<" (and the
# checks in scan() refuse what expat would); attributes, white space inside a tag, an empty
# optional field, a field out of order or twice all fall to the plain reader.
_ENTRY = re.compile(
    f"{_SPACE}<url>{_SPACE}<loc>([^<]*)</loc>"
    + "".join(f"(?:{_SPACE}<{name}>([^<]+)</{name}>)?" for name in _OPTIONAL)
    + f"{_SPACE}</url>|([^ \t\n])")
REFERENCE = re.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);")
# Characters XML 1.0 forbids even in text, as UTF-8 bytes: C0 controls but tab, LF and CR, and
# U+FFFE, U+FFFF (a surrogate cannot pass a strict UTF-8 decode). expat would stop at one.
_C0 = bytes(set(range(0x20)) - {0x09, 0x0A, 0x0D})
_NOT_CHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


class Scanned:
    """The raw values of a region's entries, column by column, as the plain reader's end
    handler would have collected them but for the white space before a field's start tag
    (every field's parser strips it: model/record.py), the line of each entry's </loc>, and the
    stand-in expat reads instead of the region."""

    __slots__ = ("columns", "lines", "stand_in")

    def __init__(self, columns: list[Sequence[Any]], lines: RegionLines, text: str) -> None:
        self.columns = columns
        self.lines = lines
        # white space with the region's line ends and last column
        self.stand_in = b"\n" * text.count("\n") + b" " * (len(text) - text.rfind("\n") - 1)


def checked_text(region: bytes) -> Optional[str]:
    """The region as text with expat's line ends, if expat would find nothing wrong in its
    characters: UTF-8, no character XML forbids, no "]]>", every "&" one of XML's five
    references or a character reference (entity declarations are refused, so no other name
    may be defined); else None. A lone "\r" is left to expat too ("\r\n" is read as "\n")."""
    ascii = region.isascii()  # (most sitemaps: then no byte needs a closer look)
    try:
        text = region.decode("ascii" if ascii else "utf-8")
    except UnicodeDecodeError:
        return None
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None
    if (len(region.translate(None, _C0)) != len(region) or "]]>" in text
            or not ascii and any(c in region for c in _NOT_CHARACTERS)):
        return None
    refs = text.count("&")
    if refs and refs != text.count("&amp;") and refs != len(REFERENCE.findall(text)):
        return None
    return text


def scan(region: bytes, line: int) -> Optional[Scanned]:
    """The entries of ``region`` (which starts where an entry may start and ends with an
    entry's end tag, on line ``line``), or None when it is not made of plain entries alone
    or when expat would find anything wrong in it (it is then given to expat to say what)."""
    text = checked_text(region)
    if text is None:
        return None
    found = _ENTRY.findall(text)
    cols = list(zip(*found, strict=True))
    if not found or any(cols[-1]):
        return None
    try:
        raw = [resolved(c) for c in cols[:4]] if "&" in text else cols[:4]
    except ValueError:  # a reference to a character XML forbids
        return None
    # an optional field the entry does not have: the plain reader's None
    columns = [raw[0], *([v or None for v in c] if "" in c else c for c in raw[1:])]
    return Scanned(columns, RegionLines(text, line, len(found)), text)


def resolved(column: Sequence[str]) -> Sequence[str]:
    """References replaced by their characters (checked_text has checked each is one of
    XML's five names or a character reference; reference_character refuses those to
    characters XML forbids, NUL among them, so NUL can separate the values)."""
    joined = "\0".join(column)  # one substitution for the column, not one call per value
    if "&" not in joined:
        return column
    return REFERENCE.sub(reference_character, joined).split("\0")


def reference_character(m: re.Match[str]) -> str:
    ref = m.group(1)
    if ref[0] != "#":
        return _NAMED[ref]
    code = int(ref[2:], 16) if ref[1] == "x" else int(ref[1:])
    # XML 1.0's Char production: what a character reference may name
    if not (code in (9, 10, 13) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise ValueError(f"&{ref}; names no XML character")
    return chr(code)


class _LazyLines(Sequence[int]):
    """A column of ``_n`` line numbers made only when one is asked for (``_counted``)."""

    __slots__ = ()
    _n: int

    @abstractmethod
    def _counted(self) -> list[int]:
        """The whole column, made on the first call."""

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> int: ...
    @overload
    def __getitem__(self, i: slice) -> list[int]: ...
    def __getitem__(self, i: Union[int, slice]) -> Union[int, list[int]]:
        return self._counted()[i]

    def __iter__(self) -> Iterator[int]:
        return iter(self._counted())


class RegionLines(_LazyLines):
    """The line of each entry's </loc> in a region, counted only when a message or a record
    asks for one (most runs never do)."""

    __slots__ = ("_text", "_line", "_n", "_lines")

    def __init__(self, text: str, line: int, n: int) -> None:
        self._text, self._line, self._n = text, line, n
        self._lines: Optional[list[int]] = None

    def _counted(self) -> list[int]:
        if self._lines is None:
            # the region's first line plus the line ends before each </loc>
            parts = self._text.split("</loc>")
            parts.pop()
            lines = list(accumulate(map(str.count, parts, repeat("\n")), initial=self._line))
            lines.pop(0)
            self._lines, self._text = lines, ""
        return self._lines


def concatenated(columns: Sequence[Sequence[Any]]) -> list[Any]:
    """The columns one after the other, in one list (grown by extend once per column: a
    third of the time of list(chain(...)), which grows it value by value)."""
    joined: list[Any] = []
    for column in columns:
        joined += column
    return joined


class JoinedLines(_LazyLines):
    """Line columns one after the other (the handlers' lists and RegionLines), unread until
    a line is asked for; then made one list (a step that asks for every record's line, as
    turning the batch into records does, pays one pass in C, not a search per row)."""

    __slots__ = ("_parts", "_n", "_flat")

    def __init__(self, parts: list[Sequence[int]]) -> None:
        self._parts = parts
        self._n = sum(map(len, parts))
        self._flat: Optional[list[int]] = None

    def _counted(self) -> list[int]:
        if self._flat is None:
            self._flat = concatenated(self._parts)
            self._parts = []
        return self._flat

    def __iter__(self) -> Iterator[int]:
        return iter(self._flat) if self._flat is not None else chain.from_iterable(self._parts)
