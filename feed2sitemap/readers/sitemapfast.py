"""The sitemap reader's fast path: runs of plain <url> entries read by one regular expression
(in C) and checked as expat would check them, with no Python handler per element.

Per 64 KiB chunk the reader (sitemap.py) gives expat three regions:

- the head, up to the chunk's first ``</url>``, with its handlers; that end tag must be seen
  as an entry's, ending where the head ends (not in a comment, CDATA or another namespace);
- the middle, up to the chunk's last ``</url>``: if ``scan`` finds it made only of plain
  entries (``<url>``, ``<loc>``, then ``<lastmod>``, ``<changefreq>``, ``<priority>`` in that
  order, nothing else but white space) and free of anything expat would refuse, the values
  come from the scan and expat reads a stand-in of white space with the same line ends;
  otherwise expat reads it with the handlers on;
- the tail, the rest, with the handlers on.

So every bound, error, line, column and batch falls where it falls in the plain reader (the
reference mode), and the values are the ones expat gives (references resolved, ``\\r\\n`` read
as ``\\n``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import accumulate, repeat
from typing import Any, Optional

__all__ = ["END_TAG", "SPACE", "LazyLines", "Scanned", "concatenated", "entry_pattern",
           "resolved", "scan", "scan_region"]

END_TAG = b"</url>"

SPACE = "[ \t\n]"
_OPTIONAL = ("lastmod", "changefreq", "priority")  # after <loc>, in this order (the XSD's)


def entry_pattern(items: str = "") -> re.Pattern[str]:
    """One entry (groups: loc, lastmod, changefreq, priority, then those of ``items``, what
    may follow the core fields), or (the last group) any character that is not white space
    outside one: the region is plain only when that group is empty on every match. Values hold
    no "<" (and scan_region() refuses what expat would); attributes, white space inside a tag, an
    empty optional field, a field out of order or twice all fall to the plain reader."""
    return re.compile(
        f"{SPACE}*<url>{SPACE}*<loc>([^<]*)</loc>"
        + "".join(f"(?:{SPACE}*<{name}>([^<]+)</{name}>)?" for name in _OPTIONAL)
        + f"{items}{SPACE}*</url>|([^ \t\n])")


_ENTRY = entry_pattern()
_REFERENCE = re.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);")
# Characters XML 1.0 forbids even in text, as UTF-8 bytes: C0 controls but tab, LF and CR, and
# U+FFFE, U+FFFF (a surrogate cannot pass a strict UTF-8 decode). expat would stop at one.
_C0 = bytes(set(range(0x20)) - {0x09, 0x0A, 0x0D})
_NOT_CHARACTERS = (b"\xef\xbf\xbe", b"\xef\xbf\xbf")
_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


class Scanned:
    """The raw values of a region's entries, column by column, as the end handler collects
    them (but for the white space before a field's start tag: every field is stripped), the
    line of each entry's </loc> (the region starts on ``line``), and the stand-in expat reads
    instead of the region."""

    __slots__ = ("columns", "lines", "stand_in")

    def __init__(self, columns: list[Sequence[Any]], text: str, line: int) -> None:
        self.columns = columns
        self.lines = LazyLines(partial(_region_lines, text, line), len(columns[0]))
        # white space with the region's line ends and last column
        self.stand_in = b"\n" * text.count("\n") + b" " * (len(text) - text.rfind("\n") - 1)


def _checked_text(region: bytes) -> Optional[str]:
    """The region as text with expat's line ends, if expat would find nothing wrong in its
    characters: UTF-8, no character XML forbids, no "]]>", every "&" one of XML's five
    references or a character reference; else None (a lone "\r" too)."""
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
    if refs and refs != text.count("&amp;") and refs != len(_REFERENCE.findall(text)):
        return None
    return text


def scan_region(region: bytes, pattern: re.Pattern[str]
            ) -> Optional[tuple[str, list[tuple[str, ...]], list[Sequence[Any]]]]:
    """The region's text, the columns of ``pattern``'s groups, and the core fields' values
    (references resolved, an optional field the entry lacks None, as the plain reader has it);
    None when the region is not made of entries alone or expat would find anything wrong in it
    (it is then given to expat to say what)."""
    text = _checked_text(region)
    if text is None:
        return None
    cols = list(zip(*pattern.findall(text), strict=True))
    if not cols or any(cols[-1]):
        return None
    try:
        raw = [resolved(c) for c in cols[:4]] if "&" in text else cols[:4]
    except ValueError:  # a reference to a character XML forbids
        return None
    return text, cols, [raw[0], *([v or None for v in c] if "" in c else c for c in raw[1:])]


def scan(region: bytes, line: int) -> Optional[Scanned]:
    """The plain entries of ``region`` (which starts where an entry may start and ends with an
    entry's end tag, on line ``line``), or None."""
    found = scan_region(region, _ENTRY)
    return None if found is None else Scanned(found[2], found[0], line)


def resolved(column: Sequence[str]) -> Sequence[str]:
    """References replaced by their characters (those to characters XML forbids, NUL among
    them, raise ValueError: so NUL can separate the values)."""
    joined = "\0".join(column)  # one substitution for the column, not one call per value
    if "&" not in joined:
        return column
    return _REFERENCE.sub(_reference_character, joined).split("\0")


def _reference_character(m: re.Match[str]) -> str:
    ref = m.group(1)
    if ref[0] != "#":
        return _NAMED[ref]
    code = int(ref[2:], 16) if ref[1] == "x" else int(ref[1:])
    # XML 1.0's Char production: what a character reference may name
    if not (code in (9, 10, 13) or 0x20 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
            or 0x10000 <= code <= 0x10FFFF):
        raise ValueError(f"&{ref}; names no XML character")
    return chr(code)


class LazyLines(Sequence[int]):
    """A column of ``n`` line numbers made by ``count()`` only when one is asked for: they
    serve messages and records, which most runs never ask of the fast path's rows."""

    __slots__ = ("_count", "_n", "_lines")

    def __init__(self, count: Callable[[], list[int]], n: int) -> None:
        self._count: Optional[Callable[[], list[int]]] = count
        self._n = n
        self._lines: list[int] = []

    def _counted(self) -> list[int]:
        if self._count is not None:
            self._lines, self._count = self._count(), None
        return self._lines

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        return self._counted()[i]

    def __iter__(self) -> Iterator[int]:
        return iter(self._counted())


def _region_lines(text: str, line: int) -> list[int]:
    """The line of each entry's </loc> in a region that starts on line ``line``."""
    parts = text.split("</loc>")
    parts.pop()
    lines = list(accumulate(map(str.count, parts, repeat("\n")), initial=line))
    lines.pop(0)
    return lines


def concatenated(columns: Sequence[Sequence[Any]]) -> list[Any]:
    """The columns one after the other (list += per column: a third of list(chain(...)))."""
    joined: list[Any] = []
    for column in columns:
        joined += column
    return joined
