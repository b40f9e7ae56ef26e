"""XML sitemaps (<urlset>) and sitemap indexes (<sitemapindex>), streamed through expat."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Any, Optional
from xml.parsers import expat

from ..batch import BATCH, Batch
from ..errors import InputError
from ..record import (
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

__all__ = ["SITEMAP_NS", "read_sitemap"]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CHUNK = 1 << 16

LOC, LASTMOD, CHANGEFREQ, PRIORITY, ENTRY = range(5)
_FIELDS = {"loc": LOC, "lastmod": LASTMOD, "changefreq": CHANGEFREQ, "priority": PRIORITY}


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
        self.extended = False  # the extension pass is on (a second namespace was declared)

    def batch(self) -> Optional[Batch]:
        rows, lines = self.rows[:BATCH], self.lines[:BATCH]
        del self.rows[:BATCH], self.lines[:BATCH]  # (in place: the parser's handler appends)
        found: Optional[list[Any]] = None
        if self.extended:  # rows read by the extension pass carry a fifth column (urlext.py)
            found = [row[4] if len(row) > 4 else None for row in rows]
            rows = [row[:4] for row in rows]
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
        extensions = None
        if found is not None:
            from .urlext import extensions_column  # (only a sitemap with extensions)

            extensions = extensions_column(found, locs, numbers, self.source, self.report)
        batch = Batch(locs, self.source, numbers, lastmods, changefreqs, priorities,
                      self.is_index, extensions=extensions).without(missing)
        return batch if batch.locs else None


def read_sitemap(stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None) -> Iterator[Batch]:
    """Yield the <url> entries (or, for an index, the <sitemap> entries) in batches.

    Memory does not grow with the file: expat is fed 64 KiB at a time and the entries completed
    by each chunk are yielded before the next is read. Elements of other namespaces (image:,
    video:, news:, xhtml:link, any other) become the entry's extensions (urlext.py). Values
    are checked a batch at a time (_Entries).
    """
    try:
        stream, encoding = expat_input(stream)
    except XMLRefused as exc:
        raise InputError(source, 1, str(exc)) from None
    entries = _Entries(source, report, is_index=False)  # the root says which it is
    parse = _Parse(source, report, entries, encoding)
    parser = parse.parser
    read = stream.read
    try:
        while True:
            chunk = read(CHUNK)
            parse.feed(chunk)
            # a batch per chunk: a few hundred entries (a larger batch measured slower)
            while entries.rows:
                batch = entries.batch()
                if batch is not None:
                    yield batch
            if not chunk:
                break
        parse.report_foreign()
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


class _Parse:
    """The expat parser of one sitemap and its handlers.

    The handlers do as little as they can: they run a dozen times per URL. Only end tags are
    handled in Python: the text of a field is what was collected when its end tag comes (values
    are stripped, so the whitespace before a field's start tag does not matter), and collecting
    is list.append itself, a C call.
    """

    def __init__(self, source: str, report: Report, entries: _Entries,
                 encoding: Optional[str]) -> None:
        self.source, self.report, self.entries = source, report, entries
        self.guard = MarkupGuard()
        self.parser = parser = safe_expat_parser(" ", self.guard, encoding)
        self.text: list[str] = []  # text since the last end tag
        # element name → field index or ENTRY (in the root's namespace)
        self.names: dict[str, int] = {}
        # <url> (<sitemap>) elements of another namespace than the root's: ignored, but counted
        # and reported, or "no URLs to write" would be all the user sees (issue 20, item 5)
        self.foreign: dict[str, int] = {}
        self.entry = ["", ""]  # the entry's local name and the root's namespace
        self.declared: set[str] = set()  # namespaces declared before the root was read
        self.extensions: Optional[Any] = None  # the extension pass, once on (urlext.py)
        parser.StartNamespaceDeclHandler = self.namespace
        parser.StartElementHandler = self.root
        parser.EndElementHandler, self.ends = self.end_handler()
        parser.CharacterDataHandler = self.text.append
        parser.StartCdataSectionHandler = lambda: self.cdata(True)
        parser.EndCdataSectionHandler = lambda: self.cdata(False)

    def feed(self, chunk: bytes) -> None:
        guard = self.guard
        guard.scan(chunk)
        self.parser.Parse(chunk, not chunk)
        guard.depth(guard.opens - self.ends())  # start tags less end tags: the depth
        text = self.text
        if len(text) > 1 and sum(map(len, text)) > MAX_VALUE:  # (as `check` stops too)
            raise InputError(self.source, self.parser.CurrentLineNumber, "a value or a run of "
                             f"white space longer than {MAX_VALUE:,} characters")

    def root(self, name: str, attrs: object) -> None:
        parser, source = self.parser, self.source
        ns, _, local = name.rpartition(" ")
        if local not in ("urlset", "sitemapindex"):
            raise InputError(source, parser.CurrentLineNumber, f"root element <{local}> is "
                             "not urlset or sitemapindex", parser.CurrentColumnNumber + 1)
        if ns != SITEMAP_NS:
            self.report.warn("namespace", source, parser.CurrentLineNumber,
                             f"<{local}> is not in the sitemaps.org 0.9 namespace "
                             f"({ns or 'no namespace'}); read anyway")
        is_index = local == "sitemapindex"
        prefix = ns + " " if ns else ""
        entry_name = prefix + ("sitemap" if is_index else "url")
        wanted = ("loc", "lastmod") if is_index else tuple(_FIELDS)
        self.names.update({prefix + n: _FIELDS[n] for n in wanted})
        self.names[entry_name] = ENTRY
        self.entries.is_index = is_index
        self.entry[:] = [entry_name.rpartition(" ")[2], ns]
        parser.StartElementHandler = None  # no other start tag needs Python ...
        if not is_index and self.declared - {ns}:  # ... unless extensions may follow
            self.extend()

    def namespace(self, prefix: Optional[str], uri: Optional[str]) -> None:
        """A namespace declaration (counted and bounded by the guard): one besides the root's
        turns the extension pass on."""
        self.guard.namespace(prefix, uri)
        if self.extensions is not None:
            return
        if not self.entry[0]:  # on the root itself: known once the root's name is
            self.declared.add(uri or "")
        elif (uri or "") != self.entry[1] and not self.entries.is_index:
            self.extend()

    def extend(self) -> None:
        from .urlext import UrlExtensions  # (only a sitemap that declares a second namespace)

        parser = self.parser
        entry_name = (self.entry[1] + " " if self.entry[1] else "") + self.entry[0]
        self.extensions = ext = UrlExtensions(parser, self.entry[1], entry_name, self.text,
                                              parser.EndElementHandler, self.entries.rows)
        self.entries.extended = True
        parser.StartElementHandler = ext.start
        parser.EndElementHandler = ext.end

    def end_handler(self) -> tuple[Callable[[str], None], Callable[[], int]]:
        """The end-tag handler, and a function giving the count of end tags seen. A closure,
        not a method: its state lives in cells, the fastest names Python has."""
        source, parser, foreign, entry = self.source, self.parser, self.foreign, self.entry
        text = self.text
        get, clear, join = self.names.get, text.clear, "".join
        add_row, add_line = self.entries.rows.append, self.entries.lines.append
        fields: list[Optional[str]] = [None] * 4  # the current entry's loc, lastmod, ...
        line = 0  # the line of the current entry's <loc>
        ends = 0

        def end(name: str) -> None:
            nonlocal fields, line, ends
            ends += 1
            f = get(name)
            if f is None:  # an element of another namespace
                if len(name) > MAX_NAME:
                    raise InputError(source, parser.CurrentLineNumber, "an element name "
                                     f"longer than {MAX_NAME:,} characters")
                ns, _, local = name.rpartition(" ")
                if local == entry[0]:
                    foreign[ns] = foreign.get(ns, 0) + 1
            elif f != ENTRY:
                value = fields[f] = join(text)
                if len(value) > MAX_VALUE:
                    raise InputError(source, parser.CurrentLineNumber, f"<{name.rpartition(' ')[2]}"
                                     f"> value longer than {MAX_VALUE:,} characters")
                if f == LOC:
                    line = parser.CurrentLineNumber
            else:
                add_row(fields)
                add_line(line or parser.CurrentLineNumber)
                fields = [None] * 4
                line = 0
            clear()

        return end, lambda: ends

    def cdata(self, inside: bool) -> None:
        if inside:
            self.guard.uncount("")  # "<![CDATA["
        self.parser.CharacterDataHandler = self.cdata_text if inside else self.text.append

    def cdata_text(self, data: str) -> None:  # "<" in CDATA opens no element: the guard must know
        self.guard.uncount(data, 0)
        self.text.append(data)

    def report_foreign(self) -> None:
        local, ns_root = self.entry
        for ns, n in self.foreign.items():
            self.report.warn(f"<{local}> of another namespace", self.source, None,
                             f"{n:,} <{local}> element{'s' if n != 1 else ''} in "
                             f"{ns or 'no namespace'} ignored: entries must be in the root's "
                             f"namespace ({ns_root or 'none'})")
