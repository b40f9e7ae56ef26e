"""How feedparser decodes a feed, replayed for the fast pass (split from feedcompat.py)."""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import Any

from .feedentries import FastPathUnsupported

__all__ = ["XML_PI_ENCODING", "headers", "native_encoding", "one_line_encoding", "prepare"]


def headers(base_url: str | None) -> dict[str, str] | None:
    """Our only response header: feedparser takes the document URI from Content-Location."""
    return {"content-location": base_url} if base_url else None


# feedparser's RE_XML_PI_ENCODING (encodings.py), the declared encoding; a test holds the two
# patterns equal (importing it would import all of feedparser).
XML_PI_ENCODING = re.compile(rb'^<\?.*encoding=[\'"](.*?)[\'"].*\?>')

# First bytes for which feedparser sniffs a BOM or a non-ASCII-compatible encoding.
_SNIFFED = (codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE,
            codecs.BOM_UTF8, b"\x4c\x6f\xa7\x94", b"\x00\x3c\x00\x3f", b"\x3c\x00\x3f\x00",
            b"\x00\x00\x00\x3c", b"\x3c\x00\x00\x00")  # fmt: skip
_EXPAT_NATIVE = {"utf-8": "UTF-8", "iso8859-1": "ISO-8859-1"}


def native_encoding(head: bytes, base_url: str | None) -> str | None:
    """prepare()'s encoding for a document that starts with ``head``, when expat reads it
    natively (the document need not be held whole), else None. feedparser's declaration regex
    reads the whole first line: it must end inside ``head``."""
    return _native(head, base_url) if b"\n" in head else None


def one_line_encoding(first: bytes, rest: Iterator[bytes], base_url: str | None
                      ) -> tuple[str | None, Iterator[bytes]]:
    """native_encoding for a document whose first line does not end in its first chunk (a
    minified feed: one line), without holding that line: the XML declaration alone decides,
    and the chunks that follow are given on, checked until the line ends. Should the line hold
    "encoding=" again (feedparser's regex would take the last one), FastPathUnsupported is
    raised there, and feedparser reads the document whole."""
    if not first.startswith(b"<?"):  # no declaration: the regex cannot match, whatever follows
        return _native(first, base_url), rest
    end = first.find(b"?>")
    if end < 0:
        return None, rest
    encoding = _native(first[: end + 2], base_url)
    if encoding is None or b"encoding=" in first[end + 2:]:
        return None, rest
    return encoding, _line_without_encoding(first[end + 2:], rest)


def _line_without_encoding(seen: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    keep = len(b"encoding=") - 1
    tail = seen[-keep:]
    line_open = True
    for chunk in rest:
        if line_open:
            cut = chunk.find(b"\n")
            piece = tail + (chunk if cut < 0 else chunk[:cut])
            if b"encoding=" in piece:
                raise FastPathUnsupported("\"encoding=\" twice on the first line")
            line_open, tail = cut < 0, piece[-keep:]
        yield chunk


def _native(data: bytes, base_url: str | None) -> str | None:
    if data.startswith(_SNIFFED):
        return None
    match = XML_PI_ENCODING.match(data)
    try:
        declared = match.group(1).decode("utf-8").lower() if match else ""
        name = codecs.lookup(declared or ("iso-8859-1" if base_url else "utf-8")).name
    except (UnicodeDecodeError, LookupError, ValueError):  # ValueError: a NUL in the name
        name = ""
    return _EXPAT_NATIVE.get(name)


def prepare(data: bytes, base_url: str | None) -> tuple[bytes, str, int]:
    """(bytes for expat, encoding to force, line shift), decoded the way feedparser decodes.

    feedparser picks the encoding from (our only header) Content-Location and the XML declaration:
    declared, else ISO-8859-1 when a Content-Location is given, else UTF-8. When that is one expat
    decodes natively and there is no BOM, expat reads the original bytes with that encoding forced
    (and a decoding error falls back, as feedparser would have tried other encodings). Otherwise
    feedparser's own converter produces the UTF-8 it would parse.
    """
    native = _native(data, base_url)
    if native is not None:
        return data, native, 0
    from feedparser.encodings import RE_XML_DECLARATION, convert_to_utf8  # (the rare case)

    result: dict[str, Any] = {}
    try:
        converted = convert_to_utf8(headers(base_url) or {}, data, result)
    except Exception as exc:  # feedparser itself would fail the same way
        raise FastPathUnsupported(f"encoding detection failed: {exc!r}") from None
    if not result.get("encoding"):
        raise FastPathUnsupported("feedparser found no encoding (it would use its loose parser)")
    # The converter replaces the XML declaration by a one-line one, or prepends one and a newline.
    head = data[:2048]
    for bom in _SNIFFED[:5]:
        if head.startswith(bom):
            head = head[len(bom) :]
            break
    try:
        decl = RE_XML_DECLARATION.search(head.decode(result["encoding"], "ignore"))
    except (UnicodeError, LookupError):  # "idna" is a codec without the "ignore" handler
        raise FastPathUnsupported(f"cannot decode as {result['encoding']}") from None
    return converted, "UTF-8", decl.group(0).count("\n") if decl else -1
