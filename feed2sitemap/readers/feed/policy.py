"""Which path reads a feed, what counts as malformed and what is refused: one policy, used by
the converter's reader (readers/feed.py) and by ``check``.

1. The fast pass (fastpass.py) is trusted whenever it answers: it gives feedparser's answer or
   raises FastPathUnsupported. A feed where it met markup that may carry a page's images,
   video or alternates (an enclosure, Media RSS, itunes:image, an entry's hreflang link) is
   read by feedparser too, and extensions/feed.py maps its entries. In the reference mode
   (backends.py) the pass is not tried.
2. Refused, by either path: a declared encoding that is unknown or no ASCII-compatible
   character encoding (xmlutil.declared_encoding, the sitemaps' rule), a document that
   declares entities (xmlutil's one rule; feedparser would expand internal ones) and one
   past a bound of xmlutil.MarkupGuard (checked by the fast pass as it goes, before
   feedparser by a pass of its own, which defusedxml reads through too: xmlutil.defused_parse).
3. Otherwise feedparser reads it. A feed it calls malformed (``bozo``) is read as far as it
   goes, and the complaint returned as ``Malformed`` for the caller to warn about or report;
   one where it finds neither a feed version nor an entry is no feed (``is_feed``).

A feed's bytes are read once, in chunks, and kept so that they can be read again (FeedInput):
the fast pass streams, a chunk at a time; only when it gives up does feedparser need the whole
document, and by then the stream (stdin, a download, a gunzipped file) cannot be rewound. So
every chunk the pass reads is kept: in memory up to SPOOL_MEMORY, in an anonymous temporary
file beyond it, so that a feed of any size up to ``max_bytes`` is read in bounded memory by the
fast pass (the issue 18 rule: a 49 MB feed within 80 MB), and only a feed feedparser must read
is held whole.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from typing import IO, Any, NamedTuple, Optional
from xml.parsers import expat

from ... import backends as mode
from ...errors import InputError
from ...model.rules import parsed_utc
from ...xmlutil import (
    MAX_NAMESPACES,
    MarkupGuard,
    XMLTooComplex,
    declared_encoding,
    defused_parse,
    forbid_entities,
    forbid_entities_in,
)
from .compat import _known, headers, prepare
from .fastpass import (
    CHUNK,
    FastPathUnsupported,
    FeedEntries,
    FeedEntry,
    parse_feed_chunks,
    parse_feed_entries,
)

__all__ = ["SPOOL_MEMORY", "FeedInput", "FeedRead", "FeedUnreadable", "Malformed",
           "feedparser_entries", "read_feed_entries", "read_feed_input"]


class Malformed(NamedTuple):  # (a NamedTuple, not a dataclass: made faster at start-up)
    """feedparser's complaint (its ``bozo_exception``) about a feed it read anyway."""

    reason: str
    line: int | None
    encoding_only: bool  # only the declared encoding was wrong (CharacterEncodingOverride)


class FeedRead(NamedTuple):
    """What a feed holds, by the policy above."""

    entries: FeedEntries  # with .site, the feed's own link
    fast: bool  # read by the fast pass (entries have lines); else by feedparser (lines are 0)
    malformed: Malformed | None = None
    is_feed: bool = True  # False: feedparser found no feed version and no entry
    parsed: Any = None  # feedparser's result, when it read the feed (entries in the same order)


class FeedUnreadable(ValueError):
    """feedparser itself raised on the document (it promises not to, but hostile bytes reach
    errors inside it); ``cause`` is its exception."""

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
        self.memory: list[bytes] = []
        self.file: Optional[IO[bytes]] = None  # the spool, once past SPOOL_MEMORY
        self.done = False  # the stream is read to its end
        self.data: Optional[bytes] = None  # the whole document, once whole() was asked

    def chunks(self) -> Iterator[bytes]:
        """The document from its start, a chunk at a time (what was read before, again)."""
        yield from self._kept()
        while not self.done:
            chunk = self._read()
            if chunk:
                yield chunk

    def whole(self) -> bytes:
        """The whole document (for feedparser, which cannot stream), held from now on."""
        if self.data is None:
            for _ in self.chunks():
                pass
            data = b"".join(self._kept())
            self.close()
            self.data = data
        return self.data

    def close(self) -> None:
        self.data = None
        self.memory = []
        if self.file is not None:
            self.file.close()
            self.file = None

    def _kept(self) -> Iterator[bytes]:
        if self.data is not None:
            yield self.data
            return
        if self.file is not None:
            self.file.flush()
            self.file.seek(0)
            while True:
                piece = self.file.read(READ_CHUNK)
                if not piece:
                    break
                yield piece
        yield from list(self.memory)

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
        self._keep(chunk)
        return chunk

    def _keep(self, chunk: bytes) -> None:
        if self.file is None and self.size > SPOOL_MEMORY:
            import tempfile  # (only a feed this large pays for the import)

            self.file = tempfile.TemporaryFile()
            for piece in self.memory:
                self.file.write(piece)
            self.memory = []
        if self.file is not None:
            self.file.seek(0, 2)
            self.file.write(chunk)
        else:
            self.memory.append(chunk)


def _pass_first(want_parsed: bool) -> bool:
    """Whether the fast pass is tried first: the one choice of the reference mode for feeds
    (feedparser reads every feed in it) and of a caller that wants feedparser's result."""
    return not want_parsed and mode.fast("feed pass")


def read_feed_input(feed: FeedInput, base_url: str | None = None, *,
                    want_parsed: bool = False) -> FeedRead:
    """read_feed_entries over a stream: the fast pass reads it a chunk at a time, and only a
    feed it gives up on is read again, whole, for feedparser (FeedInput)."""
    declared_encoding(next(feed.chunks(), b""))  # (the first chunk is kept, and read again)
    if _pass_first(want_parsed):
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
    """Read a whole feed document by the policy above.

    Raises xmlutil.EntitiesForbidden or XMLTooComplex (refused; ``line`` where known) and
    FeedUnreadable. ``base_url`` is the document's URI (relative links resolve against it).
    ``want_parsed``: feedparser's result is wanted (a news sitemap needs each entry's title).
    ``fast``: False when the fast pass has given up on the document already.
    """
    # Refused, by either path: an unknown or unusable declared encoding (xmlutil's one rule);
    # feedparser would read such a feed as UTF-8 or Windows-1252, silently (issue 35, item 19)
    declared_encoding(data[:1024])
    if fast and _pass_first(want_parsed):
        try:
            entries = parse_feed_entries(data, base_url)
            if not entries.extended:
                return FeedRead(entries, fast=True)
        except FastPathUnsupported:
            pass
    _guard_whole(data)
    if not _guard_elements(data, base_url):  # not well-formed: declarations cannot be told
        forbid_entities_in(data)  # from text, so "<!ENTITY" anywhere is refused (in C)
    try:
        entries, parsed = feedparser_entries(data, base_url)
    except Exception as exc:  # noqa: BLE001 - whatever it is, it is this input's fault
        raise FeedUnreadable(exc) from None
    return FeedRead(entries, fast=False, malformed=_malformed(parsed, base_url),
                    is_feed=bool(parsed.get("version")) or bool(entries), parsed=parsed)


def _malformed(parsed: Any, base_url: str | None) -> Malformed | None:
    import feedparser

    bozo = parsed.get("bozo_exception")
    # A document given a URI but no Content-Type is "non-XML content" to feedparser: not a fault
    # of the feed (we pass no Content-Type at all).
    if bozo is None or (base_url and isinstance(bozo, feedparser.NonXMLContentType)):
        return None
    get = getattr(bozo, "getLineNumber", None)
    return Malformed(str(bozo), get() if callable(get) else None,
                     isinstance(bozo, feedparser.CharacterEncodingOverride))


_XMLNS = rb"xmlns(?::[^\s=>]*)?\s*="  # (compiled by re when feedparser is to read a feed)


def _guard_whole(data: bytes) -> None:
    """Before feedparser parses a feed the fast pass gave up on (often one that is not
    well-formed, where the pass stopped early): the same bound on tag size, so that one tag
    with millions of attributes is not held whole (by expat, then by feedparser's dicts), and
    the same cap on namespace declarations, counted on the bytes (an upper bound)."""
    guard = MarkupGuard()
    start = 0
    try:
        for start in range(0, len(data), 1 << 16):
            guard.scan(data[start : start + (1 << 16)])
    except XMLTooComplex as exc:
        raise XMLTooComplex(str(exc), data.count(b"\n", 0, start) + 1) from None
    for n, m in enumerate(re.finditer(_XMLNS, data), 1):
        if n > MAX_NAMESPACES:
            raise XMLTooComplex(f"more than {MAX_NAMESPACES:,} namespace declarations",
                                data.count(b"\n", 0, m.start()) + 1)


def _guard_elements(data: bytes, base_url: str | None) -> bool:
    """The fast pass's bounds on elements (names, attributes, namespace declarations, depth at
    each chunk's end) and its entity rule, for a feed feedparser is about to read: an expat
    pass with nothing but xmlutil.MarkupGuard, decoded as the fast pass decodes, so that both
    paths refuse the same documents at the same lines. Where the document stops being
    well-formed (or readable) the pass stops quietly: that is feedparser's to judge.

    True when the pass read the whole document: it is well-formed and declares no entity (the
    pass would have refused it), so "<!ENTITY" in a comment or CDATA section is only text."""
    try:
        body, encoding, shift = prepare(data, base_url)
    except FastPathUnsupported:
        return False  # an encoding only feedparser reads: the bounds on the bytes stand alone
    guard = MarkupGuard()
    p = expat.ParserCreate(encoding, " ")
    p.namespace_prefixes = True
    forbid_entities(p)
    p.SkippedEntityHandler = lambda *_: None  # an undefined entity is feedparser's call
    p.StartNamespaceDeclHandler = guard.namespace
    depth = 0

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        guard.element(name, attrs)

    def end(name: str) -> None:
        nonlocal depth
        depth -= 1

    p.StartElementHandler, p.EndElementHandler = start, end
    # defusedxml reads every byte feedparser is about to read (by either mode: feedparser's
    # own parse costs ten times this pass)
    parse = defused_parse(p, encoding)
    try:
        for i in range(0, len(body), CHUNK):
            parse(body[i : i + CHUNK], False)
            guard.depth(depth)
        parse(b"", True)
    except (expat.ExpatError, UnicodeError, LookupError):
        return False
    except XMLTooComplex as exc:
        raise XMLTooComplex(str(exc), p.CurrentLineNumber + shift) from None
    return True


# --------------------------------------------------------------------------- the reference


def _page_url(entry: dict[str, Any]) -> str | None:
    """Our rule: the first rel="alternate" link (no rel counts), else feedparser's ``link``."""
    links = dict.get(entry, "links")
    for link in links if isinstance(links, list) else ():
        href = link.get("href") if isinstance(link, dict) else None
        if href and isinstance(href, str) and link.get("rel", "alternate") == "alternate":
            return href
    link = dict.get(entry, "link")  # may be "" (an empty <link>, an unusable guid): kept as is
    return link if isinstance(link, str) else None


_NAME_REF = rb"&([A-Za-z0-9_]+);"  # (what feedparser's rewrite of an RSS <link> matches)


def _kept_references(data: bytes) -> Callable[[str | None], str | None] | None:
    """For a malformed feed (read by feedparser's loose parser, which keeps a reference to an
    undefined entity as text): a function that gives such a reference back its ";" in a page
    link, or None when the document holds none.

    feedparser rewrites "&name;" to "&name" in the text of an RSS <link> (its fix for the
    "?a=1&b;=2" its loose parser makes of "?a=1&b=2"), so "/a/&secret;/b" became "/a/&secret/b"
    where an Atom href keeps "&secret;": the README promises the reference kept as text, with
    the "malformed feed" warning (issue 35, item 20). Only names the document itself writes as
    "&name;" and that are no entity feedparser knows (XML's five, HTML's) are given it back.
    """
    from html.entities import name2codepoint

    # (in the text of <link> elements only: a comment such as "not a=1&b;=2" names no
    # reference of a link; feedparser's own corpus has one)
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
    """The entries as feedparser sees them, and feedparser's result. This defines "correct".

    No refusal here: the caller (read_feed_entries) has applied the policy.
    """
    import feedparser  # (a tenth of a second: only a run it reads a feed for imports it)

    # A BytesIO, not the bytes: given bytes, feedparser first tries them as a file name.
    result = feedparser.parse(io.BytesIO(data), response_headers=headers(base_url))
    kept = _kept_references(data) if result.get("bozo") else None
    entries = FeedEntries(
        # dict.get: FeedParserDict.get("updated_parsed") falls back to published with a warning.
        FeedEntry(
            _page_url(e) if kept is None else kept(_page_url(e)),
            parsed_utc(_known(dict.get(e, "updated_parsed")) or dict.get(e, "published_parsed")),
            0,
        )
        for e in result["entries"]
    )
    site = dict.get(result.get("feed") or {}, "link")
    entries.site = site if isinstance(site, str) else None
    return entries, result
