"""XML sitemaps (<urlset>) and sitemap indexes (<sitemapindex>), streamed through expat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Optional
from xml.parsers import expat

from ..errors import InputError
from ..record import Record, make_record, parse_changefreq, parse_lastmod, parse_priority
from ..report import Report
from ..xmlutil import EntitiesForbidden, safe_expat_parser

__all__ = ["SITEMAP_NS", "read_sitemap"]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MAX_VALUE = 64 * 1024  # a longer <loc> or other value is refused, not held
# expat must buffer a whole tag (name and attributes) before it calls a handler: a 300 MB
# attribute would be held whole. So the raw bytes are watched too: a stretch this long with no
# "<" or ">" at all is refused before expat sees it.
MAX_TOKEN = 2 * MAX_VALUE
CHUNK = 1 << 16

_FIELDS = ("loc", "lastmod", "changefreq", "priority")


def read_sitemap(stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None) -> Iterator[Record]:
    """Yield a Record per <url> (or, for an index, per <sitemap> with ``is_sitemap``).

    Memory does not grow with the file: expat is fed 64 KiB at a time and the records completed
    by each chunk are yielded before the next is read. Elements of other namespaces (image:,
    video:, news:, xhtml:link) are ignored.
    """
    parser = safe_expat_parser(" ")
    done: list[Record] = []
    # Parser state, reset per entry: the current entry's fields and the text being collected.
    state: dict[str, object] = {}
    entry_line = 0
    in_entry = False
    field_name: Optional[str] = None
    text_parts: list[str] = []
    text_len = 0
    ns = ""
    entry_tag = ""
    is_index = False
    depth = 0

    def where() -> tuple[int, int]:
        return parser.CurrentLineNumber, parser.CurrentColumnNumber + 1

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal in_entry, entry_line, field_name, text_len, ns, entry_tag, is_index, depth
        depth += 1
        e_ns, _, local = name.rpartition(" ")
        if depth == 1:
            if local not in ("urlset", "sitemapindex"):
                raise InputError(source, where()[0], f"root element <{local}> is not urlset "
                                 "or sitemapindex", where()[1])
            ns = e_ns
            is_index = local == "sitemapindex"
            entry_tag = "sitemap" if is_index else "url"
            if e_ns != SITEMAP_NS:
                report.warn("namespace", source, where()[0],
                            f"<{local}> is not in the sitemaps.org 0.9 namespace "
                            f"({e_ns or 'no namespace'}); read anyway")
            return
        if e_ns != ns:
            return
        if depth == 2 and local == entry_tag:
            in_entry = True
            entry_line = parser.CurrentLineNumber
            state.clear()
        elif depth == 3 and in_entry and local in _FIELDS:
            field_name = local
            text_parts.clear()
            text_len = 0

    def chars(data: str) -> None:
        nonlocal text_len
        if field_name is not None and depth == 3:  # the field's own text, not a child's
            text_len += len(data)
            if text_len > MAX_VALUE:
                line, col = where()
                raise InputError(source, line, f"<{field_name}> value longer than "
                                 f"{MAX_VALUE:,} characters", col)
            text_parts.append(data)

    def end(name: str) -> None:
        nonlocal in_entry, field_name, depth
        depth -= 1
        if field_name is not None and depth == 2:
            state[field_name] = "".join(text_parts)
            field_name = None
        elif in_entry and depth == 1:
            in_entry = False
            record = _make(state, entry_line, is_index, source, report)
            if record is not None:
                done.append(record)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars

    read = stream.read
    run = 0  # bytes since the last "<" or ">"
    try:
        while True:
            chunk = read(CHUNK)
            run = _markup_gap(chunk, run, source, parser.CurrentLineNumber)
            parser.Parse(chunk, not chunk)
            if done:
                yield from done
                done.clear()
            if not chunk:
                break
    except expat.ExpatError as exc:
        raise InputError(source, exc.lineno, "not well-formed XML: "
                         f"{expat.ErrorString(exc.code)}; the rest of the file would be lost",
                         exc.offset + 1) from None
    except EntitiesForbidden as exc:
        raise InputError(source, parser.CurrentLineNumber, str(exc)) from None
    except UnicodeDecodeError as exc:
        raise InputError(source, None, f"cannot decode: {exc.reason}") from None
    except LookupError as exc:  # expat asks Python for an encoding the declaration names
        raise InputError(source, 1, f"unknown encoding: {exc}") from None


def _markup_gap(chunk: bytes, run: int, source: str, line: int) -> int:
    """The run of bytes without "<" or ">" at the end of ``chunk``, given the run before it."""
    first = min((i for i in (chunk.find(b"<"), chunk.find(b">")) if i != -1), default=-1)
    if first == -1:
        run += len(chunk)
    else:
        run += first
        if run <= MAX_TOKEN:
            run = len(chunk) - 1 - max(chunk.rfind(b"<"), chunk.rfind(b">"))
    if run > MAX_TOKEN:
        raise InputError(source, line, f"more than {MAX_TOKEN:,} bytes without markup (a "
                         "value, tag or attribute that long is refused, not held)")
    return run


def _make(state: dict[str, object], line: int, is_index: bool, source: str,
          report: Report) -> Optional[Record]:
    kind = "sitemap" if is_index else "url"
    loc = state.get("loc")
    if not isinstance(loc, str) or not loc.strip():
        report.skip("no loc", source, line, f"<{kind}> without a <loc>")
        return None
    lastmod = changefreq = priority = None
    raw = state.get("lastmod")
    if isinstance(raw, str):
        try:
            lastmod = parse_lastmod(raw)
        except ValueError as exc:
            report.warn("bad lastmod", source, line, f"lastmod dropped: {exc}")
    if not is_index:
        raw = state.get("changefreq")
        if isinstance(raw, str):
            try:
                changefreq = parse_changefreq(raw)
            except ValueError as exc:
                report.warn("bad changefreq", source, line, f"changefreq dropped: {exc}")
        raw = state.get("priority")
        if isinstance(raw, str):
            try:
                priority = parse_priority(raw)
            except ValueError as exc:
                report.warn("bad priority", source, line, f"priority dropped: {exc}")
    return make_record(loc.strip(), lastmod, changefreq, priority, is_index, source, line)
