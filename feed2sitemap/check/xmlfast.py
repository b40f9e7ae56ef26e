"""check's fast path for urlsets: plain <url> entries judged from one regex match each.

Most of a large sitemap is entries like ``<url><loc>…</loc><lastmod>…</lastmod></url>``: the
schema's fields in order, no attributes, no extension, no entity or character reference, ASCII
values. For such an entry the schema (xml.py) has nothing to say but what the value rules say,
so expat's Python handlers (a start, an end and a text call per element) are skipped: a regex
match proves the entry's shape and yields its values and their positions, the values go to the
same judges (``_Schema.fast_entry``), and expat is given the run of entries as a comment of the
same bytes, lines and columns, so that it still checks everything around them, and the byte
offsets and positions of everything after them are unchanged.

Taken only where the schema's state allows it (``_Schema.ready``: directly in a <urlset> of the
sitemaps.org namespace, that namespace the default one), only where the position is known
(line breaks are LF or CRLF; the line so far is ASCII, so a byte is a column), never past the
profile's byte limit. Anything else is fed to expat as it is. FEED2SITEMAP_REFERENCE=1 turns it
off (run.py): tests/test_check_fast.py holds both paths to the same diagnostics.
"""

from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING, Any, Protocol

from ..readers.sitemap import SITEMAP_NS
from ..rules import CHANGEFREQ_SET
from ..xmlutil import MarkupGuard
from .fields import FINE, PLAIN_LASTMOD, judge_changefreq, judge_plain_lastmod, judge_priority
from .locs import check_plain_locs

if TYPE_CHECKING:
    from .diagnostics import FileCheck


class Schema(Protocol):
    """What the fast path asks of xml.py's schema state machine."""

    f: FileCheck
    depth: int
    limit: int

    def ready(self) -> bool: ...
    def fast_entries(self, urls: list[tuple[int, int]]) -> None: ...
    def after_entries(self) -> None: ...

__all__ = ["FastUrlset"]

# A value: printable ASCII but "<" and ">" (no markup, no "]]>"), and "&" only as "&amp;"
# (checked apart: _amp_ok), at most 4,096 characters (far below MAX_VALUE: the run bound cannot
# trip inside one).
# (Matched on the chunk decoded as Latin-1: one character a byte, so the offsets are the
# bytes', and the values come out as str.)
_V = r"([!-;=?-~]{0,4096})"
_S = r"[ \t\r\n]{0,1024}"  # white space between tags, far below the run bound too
_ENTRY = re.compile(  # white space, then the entry (group 1) and its values (2 to 5)
    _S + r"(<url>" + _S + r"<loc>" + _V + r"</loc>" + _S
    + r"(?:<lastmod>" + _V + r"</lastmod>" + _S + r")?"
    + r"(?:<changefreq>" + _V + r"</changefreq>" + _S + r")?"
    + r"(?:<priority>" + _V + r"</priority>" + _S + r")?</url>)")
_SPACE = re.compile(_S)
_NAMES = ("loc", "lastmod", "changefreq", "priority")
# "-" becomes "_" inside the comment: a comment may not hold "--" (XML 1.0, production 15)
_NO_DASH = bytes.maketrans(b"-", b"_")
_PLAIN_LASTMOD = PLAIN_LASTMOD.fullmatch


class FastUrlset:
    """Feeds a urlset to ``parser`` (whose handlers are ``schema``'s), taking plain entries
    past the handlers. ``feed`` stands for ``parser.Parse``."""

    def __init__(self, schema: Schema, parser: Any, guard: MarkupGuard) -> None:
        self.s = schema
        self.f = schema.f
        self.p = parser
        self.guard = guard
        self.fed = 0  # bytes given to expat so far
        self.line = 1  # the line at offset ``fed``
        self.col = 0  # characters of that line before ``fed``; -1: not known (not ASCII)
        self.on = True  # off for good after a lone CR (expat counts it as a line break)
        self.default_ok = False  # the default namespace is sitemaps.org's, declared on the root
        self.defaults = 0  # default namespace declarations seen (a second one: no fast path)
        self.runs: deque[int] = deque()  # offsets of the comments standing for entry runs
        parser.CommentHandler = self.comment
        parser.StartNamespaceDeclHandler = self.namespace

    def namespace(self, prefix: str | None, uri: str | None) -> None:
        self.guard.namespace(prefix, uri)
        if prefix is None:  # only <url>'s own namespace matters: the default one
            self.defaults += 1
            self.default_ok = self.defaults == 1 and self.s.depth == 0 and uri == SITEMAP_NS

    def comment(self, data: str) -> None:
        if self.runs and self.p.CurrentByteIndex == self.runs[0]:
            self.runs.popleft()
            self.s.after_entries()  # what the last </url> of the run would have reset
        else:
            self.guard.uncount(data)

    def feed(self, chunk: bytes, final: bool) -> None:
        if self.on and b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n"):
            self.on = False
        if not self.on:
            self.p.Parse(chunk, final)
            return
        pos, n = 0, len(chunk)
        text = chunk.decode("latin-1")
        while pos < n:
            if self.default_ok and self.col >= 0 and self.s.ready():
                end = self._run(chunk, text, pos)
                if end != pos:
                    pos = end
                    continue
            # up to the end of the next </url>: the schema is then between entries again
            k = chunk.find(b"</url>", pos)
            stop = n if k < 0 else k + 6
            self._raw(chunk, pos, stop)
            pos = stop
        if final:
            self.p.Parse(b"", True)

    def _raw(self, chunk: bytes, a: int, b: int) -> None:
        self.p.Parse(chunk[a:b], False)
        self._advance(chunk, a, b)

    def _advance(self, chunk: bytes, a: int, b: int) -> None:
        self.fed += b - a
        nl = chunk.count(b"\n", a, b)
        if nl:
            self.line += nl
            a = chunk.rfind(b"\n", a, b) + 1
            self.col = 0
        if self.col >= 0:
            self.col = self.col + b - a if chunk[a:b].isascii() else -1

    def _run(self, chunk: bytes, text: str, pos: int) -> int:
        """Judge the plain entries from ``pos`` on and hand expat their comment; the offset
        where the run ends (``pos`` when there is none). ``text``: ``chunk`` as Latin-1."""
        limit = self.s.limit - self.fed + pos  # the profile's byte limit, in chunk offsets
        line, col = self.line, self.col + 1  # the position of ``expect``
        start = expect = pos
        urls: list[tuple[int, int]] = []
        locs: list[str] = []  # judged together at the end of the run (locs.check_plain_locs)
        places: list[tuple[int, int]] = []
        for m in _ENTRY.finditer(text, pos):
            e, stop = m.span(1)
            if m.start() != expect or stop > limit:
                break  # not a plain entry next
            values = m.groups()[1:]
            if text.find("&", e, stop) >= 0:
                if text.count("&", e, stop) != text.count("&amp;", e, stop):
                    break  # a bare "&" or another reference: expat's to judge
                values = tuple(v and v.replace("&amp;", "&") for v in values)
            nl = text.count("\n", expect, e)
            if nl:
                line, col = line + nl, e - text.rfind("\n", expect, e)
            else:
                col += e - expect
            if not urls:
                start = e
            urls.append((line, col))
            if text.find("\n", e, stop) < 0:  # the usual: an entry on one line
                places.append(self._entry(m, values, line, col))
                col += stop - e
            else:
                places.append(self._entry_lines(text, m, values, line, col))
                line, col = line + text.count("\n", e, stop), stop - text.rfind("\n", e, stop)
            locs.append(values[0] or "")
            expect = stop
        if not urls:
            return pos
        self.s.fast_entries(urls)
        check_plain_locs(self.f, locs, places)
        if start > pos:
            self._raw(chunk, pos, start)
        self.runs.append(self.fed)
        self.p.Parse(b"<!--" + chunk[start + 4:expect - 3].translate(_NO_DASH) + b"-->", False)
        self._advance(chunk, start, expect)
        return expect

    def _entry(self, m: re.Match[str], values: tuple[str | None, ...], line: int,
               col: int) -> tuple[int, int]:
        """An entry on one line, at ``line``, ``col``: the handlers' work, in their order but
        for the loc's and the entry count, left to the run's end; the loc's position."""
        f = self.f
        at = col - m.start(1) - 2  # the column of a value's start tag, less its name's length
        _, lastmod, changefreq, priority = values
        if lastmod is not None and (_PLAIN_LASTMOD(lastmod) is None
                                    or f.lastmod_days.get(lastmod[:10]) is not True):
            judge_plain_lastmod(f, lastmod, line, at + m.start(3) - 7)
        if changefreq is not None and changefreq not in CHANGEFREQ_SET:
            judge_changefreq(f, changefreq, line, at + m.start(4) - 10, stripped=False)
        if priority is not None and f.priority_verdicts.get(priority) is not FINE:
            judge_priority(f, priority, line, at + m.start(5) - 8)
        f.safe = (line, col + m.end(1) - 6 - m.start(1))
        return line, at + m.start(2) - 3

    def _entry_lines(self, text: str, m: re.Match[str], values: tuple[str | None, ...],
                     line: int, col: int) -> tuple[int, int]:
        """An entry over several lines: each position from the line breaks before it."""
        e = m.start(1)

        def at(offset: int) -> tuple[int, int]:
            nl = text.count("\n", e, offset)
            if not nl:
                return line, col + offset - e
            return line + nl, offset - text.rfind("\n", e, offset)

        f = self.f
        judges = (judge_plain_lastmod, _changefreq, judge_priority)
        for i, (name, judge, v) in enumerate(zip(_NAMES[1:], judges, values[1:], strict=True),
                                             3):
            if v is not None:
                judge(f, v, *at(m.start(i) - len(name) - 2))
        f.safe = at(m.end(1) - 6)
        return at(m.start(2) - 5)


def _changefreq(f: FileCheck, text: str, line: int, col: int) -> None:
    judge_changefreq(f, text, line, col, stripped=False)
