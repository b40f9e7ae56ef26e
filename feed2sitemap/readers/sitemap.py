"""XML sitemaps (<urlset>) and sitemap indexes (<sitemapindex>), streamed through expat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Optional
from xml.parsers import expat

from ..batch import BATCH, Batch, unbatched
from ..errors import InputError
from ..record import (
    Record,
    parse_changefreq,
    parse_common_lastmods,
    parse_lastmod,
    parse_priority,
)
from ..report import Report
from ..xmlutil import (
    MAX_NAME,
    MAX_VALUE,
    MarkupGuard,
    XMLRefused,
    expat_input,
    safe_expat_parser,
)
from .fields import parse_column

__all__ = ["SITEMAP_NS", "read_sitemap", "read_sitemap_batches"]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CHUNK = 1 << 16

LOC, LASTMOD, CHANGEFREQ, PRIORITY, ENTRY = range(5)
_FIELDS = {"loc": LOC, "lastmod": LASTMOD, "changefreq": CHANGEFREQ, "priority": PRIORITY}


def read_sitemap(stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None) -> Iterator[Record]:
    """Yield a Record per <url> (or, for an index, per <sitemap> with ``is_sitemap``)."""
    return unbatched(read_sitemap_batches(stream, source, report, base_url))


class _Entries:
    """The entries completed since the last batch, as their raw texts. They are checked and
    parsed a batch at a time (a bad value is dropped with a warning, the entry kept): per URL
    the parser's handler only appends, and repeated values (most lastmods and priorities of a
    real sitemap) are parsed once."""

    def __init__(self, source: str, report: Report, is_index: bool) -> None:
        self.source = source
        self.report = report
        self.is_index = is_index
        self.rows: list[list[Optional[str]]] = []
        self.lines: list[int] = []

    def batch(self) -> Optional[Batch]:
        rows, lines = self.rows[:BATCH], self.lines[:BATCH]
        del self.rows[:BATCH], self.lines[:BATCH]  # (in place: the parser's handler appends)
        raw_locs, raw_lastmods, raw_changefreqs, raw_priorities = zip(*rows, strict=True)
        locs = (list(map(str.strip, raw_locs)) if None not in raw_locs
                else [loc.strip() if loc is not None else "" for loc in raw_locs])
        missing = [i for i, loc in enumerate(locs) if not loc] if "" in locs else []
        kind = "sitemap" if self.is_index else "url"
        # (row, kind, message), reported in row order
        problems = [(i, "", f"<{kind}> without a <loc>") for i in missing]
        lastmods = parse_column(raw_lastmods, parse_lastmod, "lastmod", problems,
                                parse_common_lastmods)
        changefreqs = priorities = None
        if not self.is_index:
            changefreqs = parse_column(raw_changefreqs, parse_changefreq, "changefreq", problems)
            priorities = parse_column(raw_priorities, parse_priority, "priority", problems)
        for i, what, message in sorted(problems):
            if what:
                self.report.warn(f"bad {what}", self.source, lines[i], message)
            else:
                self.report.skip("no loc", self.source, lines[i], message)
        numbers: list[Optional[int]] = list(lines)
        batch = Batch(locs, self.source, numbers, lastmods, changefreqs, priorities,
                      self.is_index).without(missing)
        return batch if batch.locs else None


def read_sitemap_batches(stream: IO[bytes], source: str, report: Report,
                         base_url: Optional[str] = None) -> Iterator[Batch]:
    """Yield the <url> entries (or, for an index, the <sitemap> entries) in batches.

    Memory does not grow with the file: expat is fed 64 KiB at a time and the entries completed
    by each chunk are yielded before the next is read. Elements of other namespaces (image:,
    video:, news:, xhtml:link) are ignored. The handlers do as little as they can: they run a
    dozen times per URL.
    """
    try:
        stream, encoding = expat_input(stream)
    except XMLRefused as exc:
        raise InputError(source, 1, str(exc)) from None
    guard = MarkupGuard()
    parser = safe_expat_parser(" ", guard, encoding)
    entries = _Entries(source, report, is_index=False)  # the root says which it is
    fields: list[Optional[str]] = [None] * 4  # the current entry's loc, lastmod, ...
    line = 0  # the line of the current entry's <loc>
    # Text since the last end tag. Only end tags are handled in Python: the text of a field is
    # what was collected when its end tag comes (values are stripped, so the whitespace before
    # a field's start tag does not matter), and appending is list.append itself, a C call.
    text: list[str] = []
    names: dict[str, int] = {}  # element name → field index or ENTRY (in the root's namespace)
    add_row, add_line = entries.rows.append, entries.lines.append
    # <url> (<sitemap>) elements of another namespace than the root's: ignored, but counted and
    # reported, or "no URLs to write" would be all the user sees (issue 20, item 5)
    foreign: dict[str, int] = {}
    entry = ["", ""]  # the entry's local name and the root's namespace

    def root(name: str, attrs: object) -> None:
        ns, _, local = name.rpartition(" ")
        if local not in ("urlset", "sitemapindex"):
            raise InputError(source, parser.CurrentLineNumber, f"root element <{local}> is "
                             "not urlset or sitemapindex", parser.CurrentColumnNumber + 1)
        if ns != SITEMAP_NS:
            report.warn("namespace", source, parser.CurrentLineNumber,
                        f"<{local}> is not in the sitemaps.org 0.9 namespace "
                        f"({ns or 'no namespace'}); read anyway")
        is_index = local == "sitemapindex"
        prefix = ns + " " if ns else ""
        entry_name = prefix + ("sitemap" if is_index else "url")
        wanted = ("loc", "lastmod") if is_index else tuple(_FIELDS)
        names.update({prefix + n: _FIELDS[n] for n in wanted})
        names[entry_name] = ENTRY
        entries.is_index = is_index
        entry[:] = [entry_name.rpartition(" ")[2], ns]
        parser.StartElementHandler = None  # no other start tag needs Python

    get, clear, join = names.get, text.clear, "".join
    ends = 0  # end tags seen: the guard's count of start tags less these is the depth

    def end(name: str) -> None:
        nonlocal fields, line, ends
        ends += 1
        f = get(name)
        if f is None:  # an element of another namespace
            if len(name) > MAX_NAME:
                raise InputError(source, parser.CurrentLineNumber, "an element name longer "
                                 f"than {MAX_NAME:,} characters")
            ns, _, local = name.rpartition(" ")
            if local == entry[0]:
                foreign[ns] = foreign.get(ns, 0) + 1
        elif f != ENTRY:
            value = fields[f] = join(text)
            if len(value) > MAX_VALUE:
                raise InputError(source, parser.CurrentLineNumber, f"<{name.rpartition(' ')[2]}> "
                                 f"value longer than {MAX_VALUE:,} characters")
            if f == LOC:
                line = parser.CurrentLineNumber
        else:
            add_row(fields)
            add_line(line or parser.CurrentLineNumber)
            fields = [None] * 4
            line = 0
        clear()

    parser.StartElementHandler = root
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text.append

    def cdata_text(data: str) -> None:  # "<" in CDATA opens no element: the guard must know
        guard.uncount(data, 0)
        text.append(data)

    def cdata(inside: bool) -> None:
        if inside:
            guard.uncount("")  # "<![CDATA["
        parser.CharacterDataHandler = cdata_text if inside else text.append

    parser.StartCdataSectionHandler = lambda: cdata(True)
    parser.EndCdataSectionHandler = lambda: cdata(False)

    read = stream.read
    try:
        while True:
            chunk = read(CHUNK)
            guard.scan(chunk)
            parser.Parse(chunk, not chunk)
            guard.depth(guard.opens - ends)
            if len(text) > 1 and sum(map(len, text)) > MAX_VALUE:  # (as `check` stops too)
                raise InputError(source, parser.CurrentLineNumber, "a value or a run of white "
                                 f"space longer than {MAX_VALUE:,} characters")
            # a batch per chunk: a few hundred entries (a larger batch measured slower)
            while entries.rows:
                batch = entries.batch()
                if batch is not None:
                    yield batch
            if not chunk:
                break
        for ns, n in foreign.items():
            report.warn(f"<{entry[0]}> of another namespace", source, None,
                        f"{n:,} <{entry[0]}> element{'s' if n != 1 else ''} in "
                        f"{ns or 'no namespace'} ignored: entries must be in the root's "
                        f"namespace ({entry[1] or 'none'})")
    except expat.ExpatError as exc:
        raise InputError(source, exc.lineno, "not well-formed XML: "
                         f"{expat.ErrorString(exc.code)}; the rest of the file would be lost",
                         exc.offset + 1) from None
    except XMLRefused as exc:
        raise InputError(source, parser.CurrentLineNumber, str(exc)) from None
    except UnicodeDecodeError as exc:
        raise InputError(source, parser.CurrentLineNumber, f"cannot decode as {exc.encoding}: "
                         f"{exc.reason}") from None
    except LookupError as exc:  # expat asks Python for an encoding the declaration names
        raise InputError(source, 1, f"unknown encoding: {exc}") from None

