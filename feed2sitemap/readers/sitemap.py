"""XML sitemaps (<urlset>) and sitemap indexes (<sitemapindex>), streamed through expat."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import IO, Any, Optional
from xml.parsers import expat

from ..backends import fast
from ..errors import InputError
from ..model.batch import BATCH, Batch
from ..model.record import (
    parse_changefreq,
    parse_common_lastmods,
    parse_lastmod,
    parse_priority,
)
from ..model.report import Report
from ..model.rules import parse_lastmod_column
from ..xmlutil import (
    MAX_NAME,
    MAX_VALUE,
    MarkupGuard,
    XMLRefused,
    defused_parse,
    expat_input,
    safe_expat_parser,
)
from .fields import COMMON_CHANGEFREQS_BULK, COMMON_PRIORITIES_BULK, parse_column
from .sitemapfast import END_TAG, LazyLines, concatenated, scan

__all__ = ["SITEMAP_NS", "read_sitemap"]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
CHUNK = 1 << 16

LOC, LASTMOD, CHANGEFREQ, PRIORITY, ENTRY, ROOT = range(6)
_FIELDS = {"loc": LOC, "lastmod": LASTMOD, "changefreq": CHANGEFREQ, "priority": PRIORITY}


class _Entries:
    """The entries completed since the last batch, as their raw texts (appended by the end
    handler, or whole columns from the fast path), checked and parsed a batch at a time: a bad
    value is dropped with a warning, the entry kept."""

    def __init__(self, source: str, report: Report, is_index: bool) -> None:
        self.source = source
        self.report = report
        self.is_index = is_index
        self.rows: list[list[Optional[str]]] = []  # appended by the parser's end handler
        self.lines: list[int] = []
        self.parts: list[tuple[list[Sequence[Any]], Sequence[int]]] = []  # columns, in order
        self.extended = False  # the extension pass is on: rows carry a fifth column (urlext)

    def pending(self) -> int:
        return len(self.rows) + sum(len(lines) for _, lines in self.parts)

    def add_columns(self, columns: list[Sequence[Any]], lines: Sequence[int]) -> None:
        self._flush_rows()
        self.parts.append((columns, lines))

    def _flush_rows(self) -> None:
        rows, lines = self.rows, self.lines
        if not rows:
            return
        columns: list[Sequence[Any]]
        if self.extended:
            found = [row[4] if len(row) > 4 else None for row in rows]
            columns = [*zip(*[row[:4] for row in rows], strict=True), found]
        else:
            columns = list(zip(*rows, strict=True))
        self.parts.append((columns, lines[:]))
        del rows[:], lines[:]  # (in place: the parser's handler appends)

    def take(self) -> list[Batch]:
        """The batches of the entries completed since the last call, BATCH rows at most each."""
        self._flush_rows()
        parts, self.parts = self.parts, []
        if not parts:
            return []
        width = 5 if self.extended else 4
        for part, part_lines in parts:  # fast columns before the extension pass came on
            if len(part) < width:
                part.extend([[None] * len(part_lines)] * (width - len(part)))
        lines: Sequence[int]
        if len(parts) == 1:
            columns, lines = parts[0]
        else:
            columns = [concatenated([p[0][k] for p in parts]) for k in range(width)]
            line_parts = [p[1] for p in parts]  # (joined only when a line is asked for)
            lines = LazyLines(partial(concatenated, line_parts), sum(map(len, line_parts)))
        cuts = [(columns, lines)] if len(lines) <= BATCH else [  # (a slice counts lazy lines)
            ([c[a:a + BATCH] for c in columns], lines[a:a + BATCH])
            for a in range(0, len(lines), BATCH)]
        return [b for b in (self._batch(*cut) for cut in cuts) if b is not None]

    def _batch(self, columns: list[Sequence[Any]], lines: Sequence[int]) -> Optional[Batch]:
        raw_locs, raw_lastmods, raw_changefreqs, raw_priorities = columns[:4]
        # (all(): a truth test per value, a fraction of the cost of `None in`)
        locs = (list(map(str.strip, raw_locs)) if all(raw_locs)
                else [loc.strip() if loc is not None else "" for loc in raw_locs])
        missing = [] if all(locs) else [i for i, loc in enumerate(locs) if not loc]
        kind = "sitemap" if self.is_index else "url"
        problems = [(i, "", f"<{kind}> without a <loc>") for i in missing]
        lastmods = parse_column(raw_lastmods, parse_lastmod, "lastmod", problems,
                                parse_common_lastmods, parse_lastmod_column)
        changefreqs = priorities = None
        if not self.is_index:
            changefreqs = parse_column(raw_changefreqs, parse_changefreq, "changefreq", problems,
                                       COMMON_CHANGEFREQS_BULK)
            priorities = parse_column(raw_priorities, parse_priority, "priority", problems,
                                      COMMON_PRIORITIES_BULK)
        for i, what, message in sorted(problems):
            if what:
                self.report.warn(f"bad {what}", self.source, lines[i], message)
            else:
                self.report.skip("no loc", self.source, lines[i], message)
        extensions = None
        if self.extended:
            from .urlext import extensions_column  # (only a sitemap with extensions)

            extensions = extensions_column(columns[4], locs, lines, self.source, self.report)
        batch = Batch._trusted(locs, self.source, lines, lastmods, changefreqs, priorities,
                               self.is_index, extensions=extensions).without(missing)
        return batch if batch.locs else None


def read_sitemap(stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None) -> Iterator[Batch]:
    """The <url> (or, for an index, <sitemap>) entries in batches of at most BATCH, yielded as
    soon as the next 64 KiB chunk could take them past it; elements of other namespaces become
    the entry's extensions (urlext.py)."""
    try:
        stream, encoding = expat_input(stream)
    except XMLRefused as exc:
        raise InputError(source, 1, str(exc)) from None
    entries = _Entries(source, report, is_index=False)  # the root says which it is
    parse = _Parse(source, report, entries, encoding)
    parser = parse.parser
    read = stream.read
    held = 0  # entries read before this chunk, not yet yielded
    try:
        while True:
            chunk = read(CHUNK)
            parse.feed(chunk)
            pending = entries.pending()
            # (cutting a batch past BATCH counts the fast path's lines; the extension pass's
            # entries, many objects each, go a chunk at a time: 9% faster)
            if not chunk or entries.extended or pending + (pending - held) > BATCH:
                yield from entries.take()
                pending = 0
            held = pending
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
        raise InputError(source, 1, str(exc)[:200]) from None


class _Parse:
    """The expat parser of one sitemap and its handlers. Only end tags are handled in Python:
    a field's text is what was collected (by list.append, in C) when its end tag comes (values
    are stripped: the white space before a field's start tag does not matter).
    """

    def __init__(self, source: str, report: Report, entries: _Entries,
                 encoding: Optional[str]) -> None:
        self.source, self.report, self.entries = source, report, entries
        self.guard = MarkupGuard()
        self.parser = parser = safe_expat_parser(" ", self.guard, encoding)
        # the reference mode (backends.py) reads every byte with expat, defusedxml after it
        self.read: Callable[[bytes], None] = self.read_fast
        if not fast("sitemap runs"):
            self.read, self.defused = self.read_plain, defused_parse(parser, encoding)
        # the fast path (sitemapfast.py): for UTF-8 input, taken once the root is known to be a
        # urlset of unprefixed <url> (root()), left for good when a namespace is declared later
        self.utf8 = encoding in (None, "UTF-8")
        self.fast = False
        self.default_ns: Optional[str] = None  # the default namespace the root declares
        self.fed = 0  # bytes given to expat before this chunk
        self.last_end = [-1]  # the byte offset of the last entry end tag the handler saw
        self.entry_ends = [0]  # the count of end tags when the last entry ended
        self.text: list[str] = []  # text since the last end tag
        # element name → field index, ENTRY or ROOT (in the root's namespace)
        self.names: dict[str, int] = {}
        # entries in another namespace than the root's: ignored, but counted and reported
        self.foreign: dict[str, int] = {}
        # elements of another namespace no extension pass reads (in an index, or a child of
        # the root): left out, namespace → [count, first line]
        self.aside: dict[str, list[int]] = {}
        self.entry = ["", ""]  # the entry's local name and the root's namespace
        self.declared: set[str] = set()  # namespaces declared before the root was read
        self.bindings: dict[str, str] = {}  # the root's prefixes ("" the default) → namespace
        # the fast path's scanner (urlextfast.py's for the common extensions)
        self.scan: Callable[[bytes, int], Any] = scan
        self.extensions: Optional[Any] = None  # the extension pass, once on (urlext.py)
        parser.StartNamespaceDeclHandler = self.namespace
        parser.StartElementHandler = self.root
        parser.EndElementHandler, self.ends = self.end_handler()
        parser.CharacterDataHandler = self.text.append
        parser.StartCdataSectionHandler = lambda: self.cdata(True)
        parser.EndCdataSectionHandler = lambda: self.cdata(False)

    def feed(self, chunk: bytes) -> None:
        """The next chunk (b"" at the end), read and bounded."""
        self.read(chunk)
        self.fed += len(chunk)
        self.guard.depth(self.guard.opens - self.ends())
        text = self.text
        if len(text) > 1 and sum(map(len, text)) > MAX_VALUE:  # (as `check` stops too)
            raise InputError(self.source, self.parser.CurrentLineNumber, "a value or a run of "
                             f"white space longer than {MAX_VALUE:,} characters")

    def read_plain(self, chunk: bytes) -> None:
        """The reference mode's reader: every byte seen by the guard, expat and defusedxml."""
        self.guard.scan_counting(chunk)
        self.defused(chunk, not chunk)

    def parse(self, data: bytes) -> None:
        if data:
            self.guard.scan_counting(data)
            self.parser.Parse(data, False)

    def read_fast(self, chunk: bytes) -> None:
        """The chunk in three regions (sitemapfast.py). A plain middle is seen by neither expat
        nor the guard: it holds as many start tags as end tags, and no run without markup
        longer than the chunk (the guard's MAX_TOKEN is twice that)."""
        parser, parse = self.parser, self.parse
        # (before the root is read, the head of the chunk holds it: root() says if fast)
        if not chunk or not (self.fast or self.utf8 and not self.entry[0]):
            self.guard.scan_counting(chunk)
            parser.Parse(chunk, not chunk)
            return
        first = chunk.find(END_TAG) + len(END_TAG)
        last = chunk.rfind(END_TAG) + len(END_TAG)
        if first == last:  # not two </url> in the chunk: no middle
            parse(chunk)
            return
        parse(chunk[:first])
        # the head's </url> must be an entry's, and expat must have read the head to its end
        end = self.fed + first
        if not self.fast or parser.CurrentByteIndex != end or \
                self.last_end[0] + len(END_TAG) != end:
            parse(chunk[first:])
            return
        middle = chunk[first:last]
        found = self.scan(middle, parser.CurrentLineNumber) if len(middle) <= MAX_VALUE else None
        if found is None:
            parse(middle)
        else:
            handlers = parser.EndElementHandler, parser.CharacterDataHandler
            parser.EndElementHandler = parser.CharacterDataHandler = None
            try:
                parser.Parse(found.stand_in, False)  # (its lines, for what expat says after it)
            finally:
                parser.EndElementHandler, parser.CharacterDataHandler = handlers
            self.fed -= len(middle) - len(found.stand_in)  # (expat's byte offsets)
            self.entries.add_columns(found.columns, found.lines)
        parse(chunk[last:])

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
        self.names[name] = ROOT
        self.entries.is_index = is_index
        self.entry[:] = [entry_name.rpartition(" ")[2], ns]
        parser.StartElementHandler = None  # no other start tag needs Python, unless extensions
        if not is_index and self.declared - {ns}:
            self.extend()
        self.fast = (self.utf8 and not is_index and ns == SITEMAP_NS
                     and self.default_ns == SITEMAP_NS and self.extensions is None)
        if self.utf8 and self.extensions is not None and ns == SITEMAP_NS:
            from .urlextfast import scanner

            ext_scan = scanner(self.bindings)
            if ext_scan is not None:
                self.scan, self.fast = ext_scan.scan, True

    def namespace(self, prefix: Optional[str], uri: Optional[str]) -> None:
        """A namespace declaration: one besides the root's turns the extension pass on."""
        self.guard.namespace(prefix, uri)
        self.fast = False  # (on the root, root() decides)
        if not self.entry[0] and not prefix:
            self.default_ns = uri
        if self.extensions is not None:
            return
        if not self.entry[0]:  # on the root itself: known once the root's name is
            self.declared.add(uri or "")
            self.bindings[prefix or ""] = uri or ""
        elif (uri or "") != self.entry[1] and not self.entries.is_index:
            self.extend()

    def extend(self) -> None:
        from .urlext import UrlExtensions  # (only a sitemap that declares a second namespace)

        parser = self.parser
        entry_name = (self.entry[1] + " " if self.entry[1] else "") + self.entry[0]
        self.extensions = ext = UrlExtensions(parser, self.entry[1], entry_name, self.text,
                                              parser.EndElementHandler, self.entries.rows)
        # A namespace first declared inside an entry (as our writer declares one met after the
        # first batch): inside when an element has ended since the last entry did (<loc>).
        ext.inside = self.ends() != self.entry_ends[0]
        self.entries.extended = True
        parser.StartElementHandler = ext.start
        parser.EndElementHandler = ext.end

    def end_handler(self) -> tuple[Callable[[str], None], Callable[[], int]]:
        """The end-tag handler (a closure: its state in cells, the fastest names), and a
        function giving the count of end tags seen."""
        source, parser, foreign, entry = self.source, self.parser, self.foreign, self.entry
        text, unknown, twice = self.text, self.report_unknown, self.report_twice
        aside = self.count_aside
        get, clear, join = self.names.get, text.clear, "".join
        add_row, add_line = self.entries.rows.append, self.entries.lines.append
        fields: list[Optional[str]] = [None] * 4  # the current entry's loc, lastmod, ...
        last_end, entry_ends = self.last_end, self.entry_ends
        line = 0  # the line of the current entry's <loc>
        ends = 0

        def end(name: str) -> None:
            nonlocal fields, line, ends
            ends += 1
            f = get(name)
            if f is None:  # an element of another namespace, or one the schema has not
                if len(name) > MAX_NAME:
                    raise InputError(source, parser.CurrentLineNumber, "an element name "
                                     f"longer than {MAX_NAME:,} characters")
                ns, _, local = name.rpartition(" ")
                if local == entry[0]:
                    foreign[ns] = foreign.get(ns, 0) + 1
                elif ns == entry[1]:
                    unknown(local, fields[LOC])
                else:
                    aside(ns)
            elif f < ENTRY:
                value = join(text)
                if len(value) > MAX_VALUE:
                    raise InputError(source, parser.CurrentLineNumber, f"<{name.rpartition(' ')[2]}"
                                     f"> value longer than {MAX_VALUE:,} characters")
                if fields[f] is not None:
                    twice(name, value, fields[LOC])
                else:
                    fields[f] = value
                    if f == LOC:
                        line = parser.CurrentLineNumber
            elif f == ENTRY:
                add_row(fields)
                add_line(line or parser.CurrentLineNumber)
                last_end[0] = parser.CurrentByteIndex
                entry_ends[0] = ends
                fields = [None] * 4
                line = 0
            clear()

        return end, lambda: ends

    def cdata(self, inside: bool) -> None:
        if inside:
            self.guard.uncount("")  # "<![CDATA["
        self.parser.CharacterDataHandler = self.cdata_text if inside else self.text.append

    def cdata_text(self, data: str) -> None:  # "<" in CDATA opens no element
        self.guard.uncount(data, 0)
        self.text.append(data)

    def report_unknown(self, local: str, loc: Optional[str]) -> None:
        """An element of the root's namespace the schema does not have there (the extension
        pass says so of one inside an entry)."""
        if self.extensions is not None and self.extensions.inside:
            return
        from ..extensions.xmlin import unknown_element  # (only a sitemap with such an element)

        self.report.warn("unknown element", self.source, self.parser.CurrentLineNumber,
                         unknown_element(local, self.entry[1]),
                         url=loc.strip() if loc else None)  # (the raw text: not yet stripped)

    def report_twice(self, name: str, value: str, loc: Optional[str]) -> None:
        """A field given twice in one entry: the first is kept (as the first copy of a URL
        is), the second counted, a URL as a record left out, another field as a warning."""
        local = name.rpartition(" ")[2]
        text = f"a second <{local}> in this <{self.entry[0]}>: {value.strip()[:200]!r} left out"
        line = self.parser.CurrentLineNumber
        if local == "loc":
            self.report.skip("second loc", self.source, line, text)
        else:
            self.report.warn(f"second {local}", self.source, line, text,
                             url=loc.strip() if loc else None)

    def count_aside(self, ns: str) -> None:
        if self.extensions is not None and self.extensions.inside:
            return  # (inside <url>: the extension pass keeps it)
        counted = self.aside.setdefault(ns, [0, self.parser.CurrentLineNumber])
        counted[0] += 1

    def report_foreign(self) -> None:
        for ns, (n, line) in self.aside.items():
            self.report.warn("element of another namespace", self.source, line,
                             f"{n:,} element{'s' if n != 1 else ''} of {ns or 'no namespace'} "
                             "left out: other namespaces are kept inside <url> only")
        local, ns_root = self.entry
        for ns, n in self.foreign.items():
            self.report.warn(f"<{local}> of another namespace", self.source, None,
                             f"{n:,} <{local}> element{'s' if n != 1 else ''} in "
                             f"{ns or 'no namespace'} ignored: entries must be in the root's "
                             f"namespace ({ns_root or 'none'})")
