"""check's fast path for urlsets: plain <url> entries judged from one regex match each.

A plain entry (the schema's fields in order, no attribute, extension or reference but "&amp;",
ASCII values) leaves the schema (xml.py) nothing to say but what the value rules say. So its
values are judged a column at a time (``judge_run``), and expat gets the run of entries as a
comment of the same bytes, lines and columns: it still checks everything around them, and every
position after them is unchanged. Taken only directly in a urlset of the sitemaps.org default
namespace (``_Schema.ready``), where the position is known (LF or CRLF line breaks, an ASCII line
so far) and before the profile's byte limit. Its plain twin is the handlers alone
(tests/test_check_fast.py holds the two to the same diagnostics).
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable
from datetime import date, datetime, timedelta
from itertools import repeat
from operator import itemgetter, methodcaller
from typing import TYPE_CHECKING, Any, Protocol, cast

from ..model.rules import CHANGEFREQ_SET, LOC_MIN, XSD_LOC_MAX, xsd_priority
from ..model.scope import scope_of
from ..model.urls import normalize_locs
from ..readers.sitemap import SITEMAP_NS
from ..xmlutil import MarkupGuard
from .locs import (
    PLACEHOLDER_DAYS,
    check_loc,
    judge_changefreq,
    judge_lastmod,
    judge_priority,
)

if TYPE_CHECKING:
    from .diagnostics import FileCheck

__all__ = ["FastUrlset", "lastmods_fine"]


class Schema(Protocol):
    """What the fast path asks of xml.py's schema (xml.py imports this module)."""

    f: FileCheck
    depth: int
    limit: int

    def ready(self) -> bool: ...
    def after_entries(self) -> None: ...


# A value: printable ASCII but "<" and ">", "&" only as "&amp;" (checked apart), far below
# MAX_VALUE. Matched on the chunk as Latin-1: the offsets are the bytes'.
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
    past the handlers: ``feed`` stands for ``parser.Parse``."""

    def __init__(self, schema: Schema, parser: Any, guard: MarkupGuard) -> None:
        self.s = schema
        self.f = schema.f
        self.p = parser
        self.guard = guard
        self.fed = 0  # bytes given to expat so far
        self.line = 1  # the line at offset ``fed``
        self.col = 0  # characters of that line before ``fed``; -1: not known (not ASCII)
        self.on = True  # off for good after a lone CR (expat counts it as a line break)
        self.default_ok = False  # one default namespace, sitemaps.org's, declared on the root
        self.defaults = 0
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
            self.s.after_entries()
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
        """Feed expat ``chunk[a:b]`` as it is, following the position."""
        self.p.Parse(chunk[a:b], False)
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
        where the run ends (``pos`` when there is none). ``amp_ok``: every "&" is "&amp;"."""
        limit = self.s.limit - self.fed + pos  # the profile's byte limit, in chunk offsets
        line, col = self.line, self.col + 1  # the position of ``expect``
        expect, multi = pos, False
        ms: list[re.Match[str]] = []
        urls: list[tuple[int, int]] = []
        # (match, not search: from an entry with extensions, a search would scan the rest of
        # the chunk, at every such entry: 30x check's time on such sitemaps)
        while (m := _ENTRY.match(text, expect)) is not None:
            e, stop = m.span(1)
            if stop > limit:
                break  # past the profile's byte limit
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
        self.f.entries_at(urls)
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


# A column is proven fine as a whole where it can be, else judged entry by entry by the handlers'
# judges at the handlers' positions (so each rule's diagnostics, and its cap, are the same).

_Place = Callable[[int], tuple[int, int]]
_GROUPS = methodcaller("groups")


def at(text: str, e: int, line: int, col: int, offset: int) -> tuple[int, int]:
    """The position of ``offset`` in an entry that begins at ``e``, at ``line``, ``col``."""
    nl = text.count("\n", e, offset)
    if not nl:
        return line, col + offset - e
    return line + nl, offset - text.rfind("\n", e, offset)


def judge_run(f: FileCheck, text: str, ms: list[re.Match[str]], urls: list[tuple[int, int]],
              multi: bool) -> None:
    """Judge the entries ``ms`` (_ENTRY's matches in ``text``) at ``urls``; ``multi``: some
    lie over several lines."""
    groups = list(map(_GROUPS, ms))
    if text.find("&", ms[0].start(1), ms[-1].end(1)) >= 0:  # "&amp;" in some
        groups = [g if "&" not in g[0] else tuple(v and v.replace("&amp;", "&") for v in g)
                  for g in groups]
    _, locs, lastmods, changefreqs, priorities = map(list, zip(*groups, strict=True))

    def place(group: int, tag: str) -> _Place:  # the position of a value's start tag
        return lambda i: at(text, ms[i].start(1), *urls[i], ms[i].start(group) - len(tag))

    _column(f, lastmods, lastmods_fine, judge_lastmod, place(3, "<lastmod>"))
    _notes(f, lastmods, changefreqs, priorities, place)
    if f.stats.facts is not None:
        f.stats.facts.lastmods(lastmods)
    _column(f, changefreqs, _changefreqs_fine, judge_changefreq, place(4, "<changefreq>"))
    _column(f, priorities, _priorities_fine, judge_priority, place(5, "<priority>"))
    loc_at = place(2, "<loc>")
    lines = [loc_at(i)[0] for i in range(len(ms))] if multi else [line for line, _ in urls]
    if not _locs_fine(f, locs, lines):
        for i, loc in enumerate(locs):
            check_loc(f, loc, *loc_at(i), xsd=True)


def _notes(f: FileCheck, lastmods: list[str | None], changefreqs: list[str | None],
           priorities: list[str | None], place: Callable[[int, str], _Place]) -> None:
    """What the run's entries add to the file's notes, as the handlers add it."""
    notes = f.notes
    n = len(lastmods)
    dated = lastmods if None not in lastmods else [v for v in lastmods if v is not None]
    if dated:
        if notes.first_lastmod is None:
            notes.lastmod_at(*place(3, "<lastmod>")(lastmods.index(dated[0])))
        notes.lastmod_values(cast("list[str]", dated))
    changefreq, priority = n - changefreqs.count(None), n - priorities.count(None)
    if not changefreq and not priority:
        return
    notes.fields(changefreq, priority)
    if notes.first_field is None:
        i = next(i for i in range(n) if changefreqs[i] is not None or priorities[i] is not None)
        if changefreqs[i] is not None:
            notes.field_at(*place(4, "<changefreq>")(i))
        else:
            notes.field_at(*place(5, "<priority>")(i))


def _locs_fine(f: FileCheck, locs: list[str], lines: list[int]) -> bool:
    """Whether check_loc would say nothing of any of ``locs`` (on ``lines``): clean URIs of
    legal length, new to the run, in scope. They are then remembered as seen."""
    stats = f.stats
    if stats.robots is not None or stats.site is not None:
        return False
    lengths = list(map(len, locs))
    if min(lengths) < LOC_MIN or max(lengths) > min(XSD_LOC_MAX, f.profile.max_loc - 1):
        return False
    proof = normalize_locs(locs)  # model/urls.py's proof: each is normalize_url's already
    if proof.bad or proof.fragments or proof.clean.locs != tuple(locs):  # (none changed)
        return False
    scope = f.scope or scope_of(locs[0], directory=False)
    if not proof.clean.prefix.startswith(scope.prefix) and not all(map(scope.contains, locs)):
        return False
    if not stats.seen.add_new(list(map(hash, locs)), f.file_no, lines):
        return False  # a duplicate (or the run's limit): each one by itself
    f.scope = scope
    return True


def _column(f: FileCheck, values: list[str | None],
            fine: Callable[[FileCheck, list[str]], bool],
            judge: Callable[[FileCheck, str, int, int], None], place: _Place) -> None:
    """Judge a column's values (None: no such field) one by one, unless ``fine`` proves them
    all fine."""
    present = [v for v in values if v is not None] if None in values else \
        cast("list[str]", values)
    if not present or fine(f, present):
        return
    for i, v in enumerate(values):
        if v is not None:
            judge(f, v, *place(i))


def _changefreqs_fine(f: FileCheck, values: list[str]) -> bool:
    return set(values) <= CHANGEFREQ_SET


def _priorities_fine(f: FileCheck, values: list[str]) -> bool:
    return not any(map(xsd_priority, set(values)))


# The two forms nearly every sitemap writes, every field in range but the day of the month: what
# both the XSD and the converter accept. Such a value is fine when its day is real, of a year past
# 1000, at least two days ago (in any zone it is then no year 0 and not in the future), judged
# once a day (days repeat where times do not).
_PLAIN_LASTMODS = re.compile(
    r"(?:(?:[1-9]\d{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))"
    r"(?:T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:Z|[+-](?:0\d|1[0-3]):[0-5]\d))?\n)*")
_DAY = itemgetter(slice(0, 10))


def lastmods_fine(f: FileCheck, texts: list[str]) -> bool:
    """Whether judge_lastmod would say nothing of any of ``texts``: all in the common forms,
    every distinct day long past."""
    if _PLAIN_LASTMODS.fullmatch("\n".join(texts) + "\n") is None:
        return False
    return all(map(_long_past, set(map(_DAY, texts)), repeat(f.now)))


@functools.lru_cache(maxsize=1 << 16)
def _long_past(day: str, now: datetime) -> bool:
    try:
        d = date.fromisoformat(day)
    except ValueError:  # February 30th: judge_lastmod says so
        return False
    return d.year > 1000 and d < now.date() - timedelta(days=2) and day not in PLACEHOLDER_DAYS
