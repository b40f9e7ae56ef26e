"""Which path reads a feed, what counts as malformed and what is refused: one policy, for the
converter's reader and ``check``.

1. The fast pass is trusted whenever it answers (it gives feedparser's answer or raises
   FastPathUnsupported), unless it met markup that may carry an extension (then feedparser
   reads the feed too, for extensions/feed.py) or the reference mode is on.
2. Refused by either path: an unknown or unusable declared encoding, entity declarations, and
   a document past a bound of xmlutil.MarkupGuard (checked before feedparser by a pass of its
   own, through defusedxml).
3. Otherwise feedparser reads it; a feed it calls malformed (``bozo``) is read as far as it
   goes, with the complaint (``Malformed``); one with neither a version nor an entry is no feed.

The stream is read once (FeedInput): every chunk the pass reads is kept, in memory up to
SPOOL_MEMORY and in a temporary file beyond, for feedparser should the pass give up, so that
the pass reads a feed of any size in bounded memory.
"""

from __future__ import annotations

import io
import re
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any, NamedTuple, Optional
from xml.parsers import expat

from ... import backends as mode
from ...errors import InputError
from ...model.rules import parsed_utc
from ...xmlutil import (
    MAX_NAMESPACES,
    MAX_TOKEN,
    NAMESPACES_REFUSED,
    MarkupGuard,
    XMLTooComplex,
    declared_encoding,
    defused_parse,
    forbid_entities,
    forbid_entities_in,
)
from .compat import (
    FREE_TEXT,
    FastPathUnsupported,
    FeedEntries,
    FeedEntry,
    Namespaces,
    _known,
    guid_is_url,
    headers,
    line_shift,
    prepare,
)
from .fastpass import CHUNK, parse_feed_chunks, parse_feed_entries


class Malformed(NamedTuple):
    """feedparser's complaint (its ``bozo_exception``) about a feed it read anyway."""

    reason: str
    line: int | None
    encoding_only: bool  # only the declared encoding was wrong (CharacterEncodingOverride)


class FeedRead(NamedTuple):
    entries: FeedEntries  # with .site, the feed's own link
    fast: bool  # read by the fast pass (entries have lines); else by feedparser (lines are 0)
    malformed: Malformed | None = None
    is_feed: bool = True  # False: feedparser found no feed version and no entry
    parsed: Any = None  # feedparser's result, when it read the feed (entries in the same order)


class FeedUnreadable(ValueError):
    """feedparser itself raised on the document (hostile bytes reach errors inside it)."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.cause = cause


READ_CHUNK = 1 << 20  # bytes read from the stream at a time
SPOOL_MEMORY = 24 << 20  # kept in memory up to this (a 50,000-item feed is 16-18 MB)


class FeedInput:
    """The feed read from ``stream``, refused past ``max_bytes`` (named by ``source``)."""

    def __init__(self, stream: IO[bytes], source: str, max_bytes: int) -> None:
        self.stream = stream
        self.source = source
        self.max_bytes = max_bytes
        self.size = 0  # bytes read from the stream so far
        self.file = tempfile.SpooledTemporaryFile(SPOOL_MEMORY)  # every chunk read so far
        self.done = False  # the stream is read to its end
        self.data: Optional[bytes] = None  # the whole document, once whole() was asked

    def chunks(self) -> Iterator[bytes]:
        """The document from its start, a chunk at a time."""
        yield from self._kept()
        while not self.done:
            chunk = self._read()
            if chunk:
                yield chunk

    def whole(self) -> bytes:
        """The whole document (for feedparser), held from now on."""
        if self.data is None:
            for _ in self.chunks():
                pass
            data = b"".join(self._kept())
            self.close()
            self.data = data
        return self.data

    def close(self) -> None:
        self.data = None
        self.file.close()

    def _kept(self) -> Iterator[bytes]:
        if self.data is not None:
            yield self.data
            return
        self.file.seek(0)
        while piece := self.file.read(READ_CHUNK):
            yield piece

    def _read(self) -> bytes:
        chunk = self.stream.read(min(READ_CHUNK, self.max_bytes + 1 - self.size))
        if not chunk:
            self.done = True
            return b""
        self.size += len(chunk)
        if self.size > self.max_bytes:
            raise InputError(self.source, None, f"feed larger than {self.max_bytes:,} bytes; "
                             "raise `max_feed_bytes` if this one is genuine",
                             parameter="max_feed_bytes")
        self.file.seek(0, 2)
        self.file.write(chunk)
        return chunk


def read_feed_input(feed: FeedInput, base_url: str | None = None, *,
                    want_parsed: bool = False) -> FeedRead:
    """read_feed_entries over a stream, which the fast pass reads a chunk at a time."""
    declared_encoding(next(feed.chunks(), b""))  # (the first chunk is kept, and read again)
    if not want_parsed and mode.fast("feed pass"):
        try:
            entries = parse_feed_chunks(feed.chunks(), base_url, feed.whole)
            if not entries.extended:
                feed.close()  # (the copy kept for feedparser is not needed)
                return FeedRead(entries, fast=True)
        except FastPathUnsupported:
            pass
    return read_feed_entries(feed.whole(), base_url, want_parsed=want_parsed, fast=False)


def read_feed_entries(data: bytes, base_url: str | None = None, *,
                      want_parsed: bool = False, fast: bool = True) -> FeedRead:
    """Read a whole feed document by the policy above; raises xmlutil.EntitiesForbidden or
    XMLTooComplex (refused) and FeedUnreadable. ``base_url``: the document's URI;
    ``want_parsed``: feedparser's result is wanted; ``fast``: False once the pass gave up."""
    declared_encoding(data[:1024])  # (feedparser would guess silently)
    if fast and not want_parsed and mode.fast("feed pass"):
        try:
            entries = parse_feed_entries(data, base_url)
            if not entries.extended:
                return FeedRead(entries, fast=True)
        except FastPathUnsupported:
            pass
    data, repaired = _surrogate_references(data)
    if not _guard_elements(data, base_url):  # not well-formed: declarations cannot be told
        _guard_whole(data)  # from text, so the bounds hold on the bytes, and "<!ENTITY"
        forbid_entities_in(data)  # anywhere is refused (in C)
    try:
        entries, parsed = feedparser_entries(data, base_url)
    except Exception as exc:  # noqa: BLE001 - whatever it is, it is this input's fault
        raise FeedUnreadable(exc) from None
    return FeedRead(entries, fast=False, malformed=_malformed(parsed, data, base_url) or repaired,
                    is_feed=bool(parsed.get("version")) or bool(entries), parsed=parsed)


# a reference to a UTF-16 surrogate, hexadecimal D800-DFFF (decimal: a superset, 55000-57999)
_SURROGATE_REFS = re.compile(
    rb"(?:&#(?:[xX]0*[dD][89a-fA-F][0-9a-fA-F]{2}|0*5[5-7][0-9]{3});)+")


def _surrogate_references(data: bytes) -> tuple[bytes, Malformed | None]:
    """The document with each run of references to UTF-16 surrogates made references to the
    characters they pair into (a lone one is U+FFFD), and the complaint about the first. Some
    publishers write an emoji so (&#55357;&#56832;); XML has no such character, and feedparser
    raises on it, losing the whole feed for one title."""
    first: list[int] = []

    def joined(m: re.Match[bytes]) -> bytes:
        units = [int(r[1:], 16) if r[:1] in b"xX" else int(r)
                 for r in re.findall(rb"&#([^;]+);", m[0])]
        pairs = b"".join(u.to_bytes(2, "big") for u in units).decode("utf-16-be", "replace")
        out = "".join(f"&#{ord(c)};" for c in pairs).encode("ascii")
        if not first and out != m[0]:
            first.append(m.start())
        return out

    if b"&#" not in data:
        return data, None
    data = _SURROGATE_REFS.sub(joined, data)
    if not first:
        return data, None
    line = data.count(b"\n", 0, first[0]) + 1
    return data, Malformed("character references to UTF-16 surrogates (an emoji written as "
                           "&#55357;&#56832;), read as the characters they pair into", line,
                           False)


def _malformed(parsed: Any, data: bytes, base_url: str | None) -> Malformed | None:
    import feedparser

    bozo = parsed.get("bozo_exception")
    # (given a URI but no Content-Type, which we never pass, feedparser says "non-XML content")
    if bozo is None or (base_url and isinstance(bozo, feedparser.NonXMLContentType)):
        return None
    get = getattr(bozo, "getLineNumber", None)
    line = get() if callable(get) else None
    reason = str(bozo)
    if isinstance(line, int) and parsed.get("encoding"):
        try:  # (feedparser counts the lines of its own copy: one more without a declaration)
            mine = max(1, line + line_shift(data, parsed["encoding"]))
        except (UnicodeError, LookupError):
            mine = line
        reason = reason.replace(f"<unknown>:{line}:", f"<unknown>:{mine}:", 1)
        line = mine
    return Malformed(reason, line, isinstance(bozo, feedparser.CharacterEncodingOverride))


_XMLNS = rb"xmlns(?::([^\s=>]*))?\s*=\s*(?:\"([^\"]*)|'([^']*))?"


def _guard_whole(data: bytes) -> None:
    """The pass's bounds on tag size and namespace declarations (counted on the bytes), for a
    feed feedparser is about to read that expat cannot (not well-formed, or an encoding only
    feedparser reads): no text is told from a tag, so none streams past MAX_TOKEN."""
    guard = MarkupGuard()
    start = 0
    try:
        for start in range(0, len(data), 1 << 16):
            guard.scan(data[start : start + (1 << 16)])
    except XMLTooComplex as exc:
        raise XMLTooComplex(str(exc), data.count(b"\n", 0, start) + 1) from None
    bindings = set()
    for m in re.finditer(_XMLNS, data):
        bindings.add(m.groups())
        if len(bindings) > MAX_NAMESPACES:
            raise XMLTooComplex(NAMESPACES_REFUSED, data.count(b"\n", 0, m.start()) + 1)


def _guard_elements(data: bytes, base_url: str | None) -> bool:
    """The fast pass's bounds on elements and its entity rule, for a feed feedparser is about
    to read, so that both paths refuse the same documents at the same lines; where the document
    stops being well-formed, feedparser judges. True when the whole document was read."""
    try:
        body, encoding, shift = prepare(data, base_url)
    except FastPathUnsupported:
        return False  # an encoding only feedparser reads: the bounds on the bytes stand alone
    guard = MarkupGuard()
    p = expat.ParserCreate(encoding, " ")
    p.namespace_prefixes = True
    forbid_entities(p)
    p.SkippedEntityHandler = lambda *_: None  # an undefined entity is feedparser's call
    namespaces = Namespaces()
    free_names: dict[str, bool] = {}  # expat name -> a text construct in FREE_TEXT
    depth = free = i = 0  # free: the depth of the open text construct in FREE_TEXT, or 0

    def declare(prefix: str | None, uri: str | None) -> None:
        guard.namespace(prefix, uri)
        if uri and namespaces.declare(prefix, uri):
            free_names.clear()

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal depth, free
        depth += 1
        guard.element(name, attrs)
        if not free:
            known = free_names.get(name)
            if known is None:
                key = namespaces.key(name)
                known = free_names[name] = key in FREE_TEXT
            if known:
                free = depth

    def end(name: str) -> None:
        nonlocal depth, free
        if depth == free:
            free = 0
        depth -= 1

    def streams() -> bool:  # the fast pass's rule (_Pass.run)
        return free != 0 and i - p.CurrentByteIndex <= MAX_TOKEN

    p.StartNamespaceDeclHandler = declare
    p.StartElementHandler, p.EndElementHandler = start, end
    parse = defused_parse(p, encoding)  # (every byte feedparser is about to read)
    try:
        for i in range(0, len(body), CHUNK):
            guard.scan(body[i : i + CHUNK], streams)
            parse(body[i : i + CHUNK], False)
            guard.depth(depth)
        parse(b"", True)
    except (expat.ExpatError, UnicodeError, LookupError):
        return False
    except XMLTooComplex as exc:
        raise XMLTooComplex(str(exc), p.CurrentLineNumber + shift) from None
    return True


def _page_url(entry: dict[str, Any]) -> str | None:
    """Our rule: the first rel="alternate" link (no rel counts), else feedparser's ``link``."""
    links = dict.get(entry, "links")
    for link in links if isinstance(links, list) else ():
        href = link.get("href") if isinstance(link, dict) else None
        if href and isinstance(href, str) and link.get("rel", "alternate") == "alternate":
            return href
    link = dict.get(entry, "link")  # may be "" (an empty <link>, an unusable guid)
    return link if isinstance(link, str) else None


def _from_guid(entry: dict[str, Any], page: str | None) -> bool:
    """Whether feedparser took the entry's page from its permalink guid (or Atom id): the page
    is the id, or no <link> gave it (its href or text is recorded among the links; the id alone
    cannot tell: a later <id> or <guid> replaces it, never the link the first one gave)."""
    if not page or not dict.get(entry, "guidislink"):
        return False
    links = dict.get(entry, "links")
    if page != dict.get(entry, "id") and any(
            isinstance(link, dict) and link.get("href") == page
            for link in (links if isinstance(links, list) else ())):
        return False
    return _page_url({"links": dict.get(entry, "links")}) is None


_XML_BASE_CODECS = ("utf-8", "utf-16-le", "utf-16-be")  # (ASCII's kin, and UTF-16's)


def _guid_pages(result: Any, data: bytes, base_url: str | None) -> list[str | None]:
    """Each entry's page, "" where feedparser took it from a permalink guid whose text, as the
    feed wrote it, is no URL (guid_is_url). feedparser gives the guid resolved against the
    document's URL and xml:base; for its text it reads the feed again without either (each
    xml:base renamed, the same length: the entries are the same)."""
    entries = result["entries"]
    pages = [_page_url(e) for e in entries]
    guided = [i for i, (e, page) in enumerate(zip(entries, pages, strict=True))
              if _from_guid(e, page)]
    renamed = [("xml:base".encode(c), "xml:xbse".encode(c)) for c in _XML_BASE_CODECS]
    if guided and (base_url or any(name in data for name, _ in renamed)):
        import feedparser

        for name, other in renamed:
            data = data.replace(name, other)
        entries = feedparser.parse(io.BytesIO(data))["entries"]
        if len(entries) != len(pages):  # (never seen: then resolved is all there is)
            entries = result["entries"]
    for i in guided:
        text = dict.get(entries[i], "link")  # (the guid's text: read again without a base)
        if not guid_is_url(text if isinstance(text, str) else ""):
            pages[i] = ""
    return pages


_NAME_REF = rb"&([A-Za-z0-9_]+);"  # (what feedparser's rewrite of an RSS <link> matches)


def _kept_references(data: bytes) -> Callable[[str | None], str | None] | None:
    """For a malformed feed: a function that gives a reference to an undefined entity back its
    ";" in a page link (feedparser's loose parser keeps "&secret;" as text, then rewrites
    "&name;" to "&name" in an RSS <link>), or None when no <link> text holds one. Only names
    no entity feedparser knows (XML's, HTML's) are given it back."""
    from html.entities import name2codepoint

    texts = b"".join(m[1] for m in re.finditer(rb"<link\b[^>]*>([^<]*)<", data))
    names = {m.decode("ascii") for m in set(re.findall(_NAME_REF, texts))}
    undefined = names - name2codepoint.keys() - {"apos"}
    if not undefined:
        return None
    cut = re.compile(r"&([A-Za-z0-9_]+)(?![A-Za-z0-9_;])")

    def kept(link: str | None) -> str | None:
        if not link or "&" not in link:
            return link
        return cut.sub(lambda m: m[0] + ";" if m[1] in undefined else m[0], link)

    return kept


def feedparser_entries(data: bytes, base_url: str | None = None) -> tuple[FeedEntries, Any]:
    """The entries as feedparser sees them, and its result: this defines "correct" (no
    refusal here: read_feed_entries applies the policy)."""
    import feedparser  # (a tenth of a second: only a run it reads a feed for imports it)

    # (a BytesIO: given bytes, feedparser first tries them as a file name)
    result = feedparser.parse(io.BytesIO(data), response_headers=headers(base_url))
    kept = _kept_references(data) if result.get("bozo") else None
    entries = FeedEntries(
        # (dict.get: FeedParserDict's get of updated_parsed falls back to published_parsed)
        FeedEntry(
            page if kept is None else kept(page),
            # (an updated no datetime holds, year 0, counts as none: the fast pass's reading)
            parsed_utc(_known(dict.get(e, "updated_parsed")))
            or parsed_utc(dict.get(e, "published_parsed")),
            0,
        )
        for e, page in zip(result["entries"], _guid_pages(result, data, base_url), strict=True)
    )
    site = dict.get(result.get("feed") or {}, "link")
    entries.site = site if isinstance(site, str) else None
    entries.undated = tuple(_undated(result["entries"], entries))
    return entries, result


def _undated(raws: list[Any], entries: FeedEntries) -> Iterator[tuple[int, str]]:
    """The fast pass's FeedEntries.undated, from feedparser's answer."""
    for i, (raw, entry) in enumerate(zip(raws, entries, strict=True)):
        if entry.lastmod is None:
            for key in ("updated", "published"):
                text = dict.get(raw, key)
                if not isinstance(text, str) or not text:
                    continue
                if parsed_utc(dict.get(raw, f"{key}_parsed")) is None:
                    yield i, text
                    break
