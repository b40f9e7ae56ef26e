"""The one XML escaping function, the one entity refusal, and the bounds on hostile XML."""

from __future__ import annotations

import codecs
import io
import operator
import re
from collections.abc import Callable
from typing import IO, Any
from xml.parsers import expat

__all__ = ["ENTITIES_REFUSED", "EntitiesForbidden", "MarkupGuard", "XMLRefused", "XMLTooComplex",
           "declared_encoding", "defused_parse", "escape_specials", "expat_input",
           "forbid_entities", "forbid_entities_in", "needs_escaping", "safe_expat_parser",
           "xml_escape"]

# Bounds on what a parser must hold for hostile XML, far above any real sitemap or feed (the
# deepest we have seen is about 12 levels, the most namespaces about 40): see MarkupGuard.
MAX_DEPTH = 1_000  # open elements: expat keeps a stack entry (and the name) for each
MAX_NAMESPACES = 1_000  # distinct (prefix, URI) bindings per document: each is kept and searched
MAX_ATTRIBUTES = 1_000  # attributes on one element (where a handler sees them)
MAX_NAME = 1_024  # characters of an element or attribute name, a prefix or a namespace URI
MAX_VALUE = 64 * 1024  # characters of a value (a <loc>, a link, a date)
# expat buffers a whole tag before it calls a handler, so the raw bytes are watched: a stretch
# this long with no "<" or ">" is refused before expat sees it (twice MAX_VALUE: escaping),
# unless the caller knows it is text nobody keeps, which expat streams (MarkupGuard.scan).
MAX_TOKEN = 2 * MAX_VALUE

NAMESPACES_REFUSED = (f"more than {MAX_NAMESPACES:,} namespace declarations (distinct "
                      "prefix and URI pairs)")

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;"}


# The specials, and characters XML 1.0 forbids even escaped (C0 controls but tab, LF and CR,
# lone surrogates, U+FFFE and U+FFFF), which become U+FFFD.
_NEEDS_WORK = re.compile("[&<>'\"\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _replace(m: re.Match[str]) -> str:
    return _ESCAPES.get(m.group(), "\ufffd")


def needs_escaping(text: str) -> bool:
    """Whether xml_escape might change ``text`` (isprintable() is False for every character
    XML forbids, and for some harmless ones)."""
    return not (text.isprintable() and "&" not in text and "<" not in text and ">" not in text
                and "'" not in text and '"' not in text)


def xml_escape(text: str) -> str:
    """Escape ``& ' " < >`` (sitemaps.org requires all five) and replace forbidden characters."""
    if not text.isprintable():  # perhaps a character XML forbids: the careful way
        return _NEEDS_WORK.sub(_replace, text)
    return escape_specials(text)


def escape_specials(text: str) -> str:
    """Escape ``& ' " < >`` in text known to hold no character XML forbids (five passes in C
    beat a regex calling back into Python per character)."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&apos;").replace('"', "&quot;"))


def escape_uris(text: str) -> str:
    """``escape_specials`` for normalised URIs (urls.CleanLocs proves them) and the separators
    between them: a URI holds no "<", ">" or '"' (RFC 3986), so only "&" and "'" may need it."""
    return text.replace("&", "&amp;").replace("'", "&apos;")


class XMLRefused(ValueError):
    """The document is refused for safety (the caller adds the file, and the line if unknown)."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.line = line


class EntitiesForbidden(XMLRefused):
    """The document declares entities (internal or external): refused, never expanded."""


class XMLTooComplex(XMLRefused):
    """The document goes past one of the bounds above (depth, namespaces, names, tag size)."""


class MarkupGuard:
    """The bounds above, checked on the raw bytes a chunk at a time and from a few rare events,
    the same for every expat pass (sitemap reader, feed fast path, check).

    ``scan`` sees each chunk before expat: it refuses over MAX_TOKEN bytes without "<" or ">",
    unless ``free()`` says they are text the reader does not keep (expat streams text; it holds
    only a tag, comment or PI whole, and ``free`` must say False while it holds one).
    A parser without a Python start handler (the sitemap reader's) calls ``scan_counting``,
    which also counts the "<" that may open an element: its depth is that count less the end
    tags seen, made exact by ``uncount`` for the "<" of comments, CDATA and PIs.
    """

    __slots__ = ("opens", "bindings", "_run", "_tail")

    def __init__(self) -> None:
        self.opens = 0
        # every (prefix, URI) declared: a feed may declare the same ones on each of its items
        self.bindings: set[tuple[str | None, str | None]] = set()
        self._run = 0  # bytes since the last "<" or ">"
        self._tail = b""  # the chunk's last byte when it is "<": the next one says what it opens

    def scan(self, chunk: bytes, free: Callable[[], bool] | None = None) -> None:
        first = min((i for i in (chunk.find(b"<"), chunk.find(b">")) if i != -1), default=-1)
        self._run += len(chunk) if first == -1 else first
        self._bounded(free)
        if first != -1:  # the run ended at that markup: the chunk's tail begins the next one
            self._run = len(chunk) - 1 - max(chunk.rfind(b"<"), chunk.rfind(b">"))
            self._bounded(free)

    def _bounded(self, free: Callable[[], bool] | None) -> None:
        if self._run > MAX_TOKEN and (free is None or not free()):
            raise XMLTooComplex(f"more than {MAX_TOKEN:,} bytes without markup (a value, tag "
                                "or attribute that long is refused, not held)")

    def scan_counting(self, chunk: bytes) -> None:
        """``scan``, and the "<" that may open an element counted in ``opens``."""
        self.scan(chunk)
        if self._tail and chunk[:1] == b"/":
            self.opens -= 1  # a "<" at the end of the last chunk that began an end tag
        # ("<!" and "<?" are taken back by the handlers of the rare events they begin)
        self.opens += chunk.count(b"<") - chunk.count(b"</")
        self._tail = chunk[-1:] if chunk[-1:] == b"<" else b""

    def uncount(self, text: str, markup: int = 1) -> None:
        """A comment, CDATA section, PI or declaration: its own "<" and those in its text
        opened no element."""
        self.opens -= markup + text.count("<")

    def depth(self, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise XMLTooComplex(f"elements nested more than {MAX_DEPTH:,} deep")

    def namespace(self, prefix: str | None, uri: str | None) -> None:
        """A StartNamespaceDeclHandler: called only where a namespace is declared."""
        if len(prefix or "") > MAX_NAME or len(uri or "") > MAX_NAME:
            raise XMLTooComplex(f"a namespace prefix or URI longer than {MAX_NAME:,} "
                                "characters")
        self.bindings.add((prefix, uri))
        if len(self.bindings) > MAX_NAMESPACES:
            raise XMLTooComplex(NAMESPACES_REFUSED)

    def element(self, name: str, attrs: Any) -> None:
        """Where a start handler runs anyway: the name's length and the number of attributes."""
        if len(name) > MAX_NAME:
            raise XMLTooComplex(f"an element name longer than {MAX_NAME:,} characters")
        if attrs and len(attrs) > MAX_ATTRIBUTES:
            raise XMLTooComplex(f"more than {MAX_ATTRIBUTES:,} attributes on one element")
        if attrs and max(map(len, attrs)) > MAX_NAME:
            raise XMLTooComplex(f"an attribute name longer than {MAX_NAME:,} characters")


# --------------------------------------------------------------------------- entities

ENTITIES_REFUSED = ("the document declares entities (DOCTYPE with <!ENTITY>); refused for "
                    "safety: entity expansion and external entities are not allowed")
# "<!ENTITY" in ASCII-compatible and in UTF-16 bytes, for a parser we do not drive ourselves.
_ENTITY_MARKERS = (b"<!ENTITY", "<!ENTITY".encode("utf-16-le"), "<!ENTITY".encode("utf-16-be"))


def _refuse_entity(*_: Any) -> None:
    raise EntitiesForbidden(ENTITIES_REFUSED)


def _refuse_skipped(name: str, _is_parameter: int) -> None:
    # expat skips a reference undefined in an external DTD without a word: text would be lost
    raise EntitiesForbidden(f"the document refers to entity &{name}; which is not defined "
                            "(external DTDs are never loaded)")


def forbid_entities(parser: Any) -> None:
    """Make an expat parser raise EntitiesForbidden on any entity declaration and on a
    reference to an undefined entity; never read a DTD. The one entity rule of every pass."""
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _refuse_entity
    parser.UnparsedEntityDeclHandler = _refuse_entity
    parser.ExternalEntityRefHandler = _refuse_entity
    parser.SkippedEntityHandler = _refuse_skipped


def forbid_entities_in(data: bytes) -> None:
    """Raise EntitiesForbidden if ``data`` may declare entities: the same rule for bytes that
    feedparser (which expands internal entities) is about to read; "<!ENTITY" anywhere, even
    in a comment, counts, as it must for a document expat could not parse."""
    if any(marker in data for marker in _ENTITY_MARKERS):
        raise EntitiesForbidden(ENTITIES_REFUSED)


# --------------------------------------------------------------------------- encodings


# the whole name, however long (the head read is bounded instead)
_DECLARED = re.compile(rb"<\?xml[^>]*?\sencoding\s*=\s*[\"']([^\"']*)[\"']")


# Encodings expat decodes itself, by its name for them (forced: "utf8" needs no lookup)
_EXPAT_NATIVE = {"utf-8": "UTF-8", "ascii": "US-ASCII", "iso8859-1": "ISO-8859-1"}
# Text codecs that would turn ASCII-looking bytes into markup ("+ADw-" is "<" in UTF-7) or
# are no character set
_NOT_CHARSETS = {"utf-7", "idna", "punycode", "unicode-escape", "raw-unicode-escape"}
_ASCII_PROBE = "<?xml version='1.0' encoding=\"x\"?><a:b c='&#38;'>/\n</a:b>"
_HEAD = 1 << 10  # bytes in which the XML declaration must end
_MAX_ENCODING_NAME = 64  # characters: the longest name Python knows is 23 ("iso2022_jp_2004"...)
# A byte-order mark, and the encoding it forces on expat (a declaration cannot override it).
_BOMS = ((codecs.BOM_UTF8, "UTF-8", "utf-8-sig"), (codecs.BOM_UTF16_LE, "UTF-16", "utf-16"),
         (codecs.BOM_UTF16_BE, "UTF-16", "utf-16"))


def declared_encoding(head: bytes) -> tuple[str | None, str | None]:
    """The one rule on a declared encoding (sitemaps, feeds, ``check``), from the document's
    first bytes: (Python's codec to transcode from, or None; the encoding to force on expat,
    or None: expat reads the document as it is).

    A byte-order mark decides the bytes, but the declaration must still name a known
    encoding. Without one, the declared name must be a known ASCII-compatible character
    encoding; anything else (unknown, rot13, UTF-7, EBCDIC) raises XMLRefused naming it, for
    read as UTF-8 the document would say something else than its author meant.
    """
    head = head[:_HEAD]
    for bom, forced, codec in _BOMS:
        if head.startswith(bom):
            text = head.decode(codec, "replace").encode("utf-8", "replace")
            name = _declared_name(text)
            if name is not None:
                _usable(name, ascii_bytes=False)
            return None, forced
    name = _declared_name(head)
    if name is None:
        return None, None
    codec = _usable(name, ascii_bytes=True)
    if codec in _EXPAT_NATIVE:
        return None, _EXPAT_NATIVE[codec]
    return codec, "UTF-8"


def _declared_name(head: bytes) -> str | None:
    body = head.lstrip(b" \t\r\n")
    m = _DECLARED.match(body)
    if m is None:
        if len(head) >= _HEAD and body.startswith(b"<?xml") and b"?>" not in body:
            raise XMLRefused(f"an XML declaration longer than {_HEAD:,} bytes", 1)
        return None
    return m.group(1).decode("ascii", "replace")


def _usable(name: str, *, ascii_bytes: bool) -> str:
    """Python's name of the codec ``name`` declares, or XMLRefused."""
    shown = repr(name if len(name) <= _MAX_ENCODING_NAME else name[:_MAX_ENCODING_NAME] + "...")
    try:
        if len(name) > _MAX_ENCODING_NAME:
            raise LookupError(name)
        info = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        raise XMLRefused(f"unknown encoding {shown} in the XML declaration", 1) from None
    codec = info.name
    try:
        usable = getattr(info, "_is_text_encoding", True) and codec not in _NOT_CHARSETS and (
            not ascii_bytes or _ASCII_PROBE.encode(codec) == _ASCII_PROBE.encode("ascii"))
    except (UnicodeError, LookupError):
        usable = False
    if not usable:
        raise XMLRefused(f"encoding {shown} in the XML declaration cannot be read: not an "
                         "ASCII-compatible character encoding", 1)
    return codec


def expat_input(stream: IO[bytes]) -> tuple[IO[bytes], str | None]:
    """The stream to give expat, and the encoding to create the parser with (None: expat
    reads the BOM or the declaration itself). Encodings expat cannot decode (Shift_JIS, GBK)
    are decoded here and handed over as UTF-8; what declared_encoding refuses raises."""
    head = stream.peek(_HEAD)[:_HEAD] if hasattr(stream, "peek") else b""
    codec, forced = declared_encoding(head)
    if codec is None:
        return stream, forced
    return io.BufferedReader(_Transcoder(stream, codec), 1 << 16), forced


class _Transcoder(io.RawIOBase):
    """Bytes in ``codec`` read as UTF-8, a chunk at a time (a decoding error raises
    UnicodeDecodeError, which the readers report)."""

    def __init__(self, raw: IO[bytes], codec: str) -> None:
        self._raw = raw
        self._decoder = codecs.getincrementaldecoder(codec)("strict")
        self._out = b""
        self._eof = False

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        while not self._out and not self._eof:
            chunk = self._raw.read(1 << 16)
            self._eof = not chunk
            self._out = self._decoder.decode(chunk, self._eof).encode("utf-8", "replace")
        n = min(len(buf), len(self._out))
        buf[:n] = self._out[:n]
        self._out = self._out[n:]
        return n


def safe_expat_parser(namespace_separator: str = " ", guard: MarkupGuard | None = None,
                      encoding: str | None = None) -> Any:
    """A namespace-aware expat parser that refuses entities as defusedxml does (its own
    parsers are 1.8x slower), and with a ``guard`` the bounds. The plain paths also feed the
    bytes to defusedxml (``defused_parse``); tests/test_defusedxml.py holds the two equal."""
    parser = expat.ParserCreate(encoding, namespace_separator)
    forbid_entities(parser)
    if guard is not None:
        parser.StartNamespaceDeclHandler = guard.namespace
        parser.CommentHandler = guard.uncount
        parser.ProcessingInstructionHandler = lambda target, data: guard.uncount(data)
        # the DOCTYPE and the declarations of its internal subset each begin with "<!" (not
        # <!ATTLIST, whose handler runs once per attribute: those stay counted, erring high)
        parser.StartDoctypeDeclHandler = lambda *_: guard.uncount("")
        parser.ElementDeclHandler = lambda *_: guard.uncount("")
        parser.NotationDeclHandler = lambda *_: guard.uncount("")
    parser.buffer_text = True
    parser.buffer_size = 1 << 16
    return parser


# --------------------------------------------------------------------------- defusedxml


class _NoTree:
    """A target that builds nothing; ``data`` a C builtin (else expat hands every run of text
    to the parser's Python default handler)."""

    data = staticmethod(len)


def defused_parse(parser: Any, encoding: str | None) -> Callable[[bytes, bool], Any]:
    """``parser.Parse`` (created with ``encoding``), with defusedxml's hardened parser reading
    the same bytes after it: the XML boundary of the plain paths. Only defusedxml's security
    refusals count (EntitiesForbidden); once it stops on anything else (not well-formed), the
    message is our parser's and defusedxml is fed no more."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import DefusedXMLParser

    defused: Any = DefusedXMLParser(target=_NoTree(), encoding=encoding)
    # C no-ops: without element handlers expat calls a Python default handler for every tag
    defused.parser.StartElementHandler = operator.is_
    defused.parser.EndElementHandler = len
    parse = parser.Parse

    def both(data: bytes, final: bool = False) -> Any:
        nonlocal defused
        result = parse(data, final)
        try:
            if defused is not None and data:
                defused.feed(data)
            if defused is not None and final:
                defused.close()
        except DefusedXmlException:
            raise EntitiesForbidden(ENTITIES_REFUSED) from None
        except Exception:  # noqa: BLE001 - not well-formed, undefined entity: ours to report
            defused = None
        return result

    return both
