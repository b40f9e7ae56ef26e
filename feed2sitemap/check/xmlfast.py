"""check's fast path for urlsets: plain <url> entries judged from one regex match each.

Most of a large sitemap is entries like ``<url><loc>…</loc><lastmod>…</lastmod></url>``: the
schema's fields in order, no attributes, no extension, no entity or character reference, ASCII
values. For such an entry the schema (xml.py) has nothing to say but what the value rules say,
so expat's Python handlers (a start, an end and a text call per element) are skipped: a regex
match proves the entry's shape and yields its values and their positions, the values are judged
by the same rules a column at a time (xmlruns.py), and expat is given the run of entries as a
comment of the same bytes, lines and columns, so that it still checks everything around them,
and the byte offsets and positions of everything after them are unchanged.

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
from ..xmlutil import MarkupGuard
from .xmlruns import at, judge_run

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
# (checked apart), at most 4,096 characters (far below MAX_VALUE: the run bound cannot
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
# "-" becomes "_" inside the comment: a comment may not hold "--" (XML 1.0, production 15)
_NO_DASH = bytes.maketrans(b"-", b"_")


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
        amp_ok = text.count("&") == text.count("&amp;")
        while pos < n:
            if self.default_ok and self.col >= 0 and self.s.ready():
                end = self._run(chunk, text, pos, amp_ok)
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

    def _run(self, chunk: bytes, text: str, pos: int, amp_ok: bool) -> int:
        """Judge the plain entries from ``pos`` on and hand expat their comment; the offset
        where the run ends (``pos`` when there is none). ``text``: ``chunk`` as Latin-1;
        ``amp_ok``: every "&" in it begins "&amp;"."""
        limit = self.s.limit - self.fed + pos  # the profile's byte limit, in chunk offsets
        line, col = self.line, self.col + 1  # the position of ``expect``
        expect, multi = pos, False
        ms: list[re.Match[str]] = []
        urls: list[tuple[int, int]] = []
        for m in _ENTRY.finditer(text, pos):
            e, stop = m.span(1)
            if m.start() != expect or stop > limit:
                break  # not a plain entry next
            if not amp_ok and text.count("&", e, stop) != text.count("&amp;", e, stop):
                break  # a bare "&" or another reference: expat's to judge
            if e - expect == 1 and text[expect] == "\n":  # the usual: one entry a line
                line, col = line + 1, 1
            else:
                line, col = at(text, expect, line, col, e)
            ms.append(m)
            urls.append((line, col))
            if text.find("\n", e, stop) < 0:
                col += stop - e
            else:
                multi = True
                line, col = at(text, e, line, col, stop)
            expect = stop
        if not ms:
            return pos
        self.s.fast_entries(urls)
        judge_run(self.f, text, ms, urls, multi)
        self.f.safe = (line, col - 6)  # the last </url>
        start = ms[0].start(1)
        if start > pos:
            self._raw(chunk, pos, start)
        self.runs.append(self.fed)
        self.p.Parse(b"<!--" + chunk[start + 4:expect - 3].translate(_NO_DASH) + b"-->", False)
        self.fed += expect - start
        self.line, self.col = line, col - 1  # (where ``expect`` is; the run is ASCII)
        return expect
