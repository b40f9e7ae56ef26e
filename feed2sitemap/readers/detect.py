"""Opening inputs (paths, stdin, gzip) and telling feeds, sitemaps and URL lists apart."""

from __future__ import annotations

import io
import re
import zlib
from typing import IO, Any

from ..errors import InputError

__all__ = ["open_input", "sniff"]

GZIP_MAGIC = b"\x1f\x8b"
PEEK = 1 << 16  # enough to see past an XML declaration, comments and a DOCTYPE to the root

_FEED_ROOTS = {"rss", "feed", "RDF", "channel"}
_SITEMAP_ROOTS = {"urlset", "sitemapindex"}
# The root element: the first "<" that opens neither a declaration, a processing instruction nor
# a comment. Comments and the DOCTYPE's internal subset are skipped first.
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_DOCTYPE = re.compile(r"<!DOCTYPE[^\[>]*(\[.*?\]\s*)?>", re.S)
_PI = re.compile(r"<\?.*?\?>", re.S)
_ROOT = re.compile(r"<([A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)")


# A gzip input may expand at most this many times its compressed size (once past MAX_RATIO_FROM
# bytes): real sitemaps and URL lists compress 5 to 20 times, while a bomb of blank lines or
# spaces expands about 1,000 times and would keep a run (and `check`) busy for many minutes.
MAX_RATIO = 100
MAX_RATIO_FROM = 1024 * 1024


class _GzipReader(io.RawIOBase):
    """A streaming gunzip that never holds the whole output (concatenated members included)."""

    def __init__(self, raw: Any, source: str) -> None:
        self._raw = raw
        self._source = source
        self._z = zlib.decompressobj(wbits=31)
        self._pending = b""
        self._carry = b""  # what followed the end of a member: the start of the next one
        self._eof = False
        self._in = self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: memoryview | bytearray) -> int:  # type: ignore[override]
        size = len(buf)
        while not self._pending and not self._eof:
            chunk = self._z.unconsumed_tail or self._carry or self._raw.read(1 << 16)
            self._carry = b""
            if not chunk:
                if not self._z.eof:  # (a later member's, too: "\x1f\x8b" and garbage)
                    raise InputError(self._source, None, "bad gzip data (truncated)")
                self._eof = True
                break
            try:
                # max_length bounds what one call may produce: a 1 KB bomb cannot expand to
                # gigabytes in memory here, only stream through at the reader's pace.
                self._pending = self._z.decompress(chunk, size)
            except zlib.error as exc:  # in any member, the first or a later one
                raise InputError(self._source, None, f"bad gzip data ({exc})") from None
            # the compressed bytes used up (the rest comes back as the tail or the carry)
            self._in += len(chunk) - len(self._z.unconsumed_tail) - len(self._z.unused_data)
            if self._z.eof:
                self._next_member()
        n = min(size, len(self._pending))
        buf[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self._out += n
        if self._out > MAX_RATIO_FROM and self._out > MAX_RATIO * self._in:
            raise InputError(self._source, None, f"gzip data expands more than {MAX_RATIO} "
                             "times (a decompression bomb?); refused")
        return n

    def _next_member(self) -> None:
        rest = self._z.unused_data
        if rest.startswith(GZIP_MAGIC):  # another member follows (gzip's concatenation)
            self._z = zlib.decompressobj(wbits=31)
            self._carry = rest
        elif rest.strip(b"\0"):
            raise InputError(self._source, None, "trailing garbage after gzip data")


class _Replay(io.RawIOBase):
    """A raw stream that gives back ``head`` (already read to sniff it), then the rest."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = memoryview(head)
        self._rest = rest
        # (a buffered stream's readinto is its read, into our buffer: BufferedIOBase derives
        # one from the other; any other object is only asked to read)
        self._readinto = rest.readinto if isinstance(rest, io.BufferedIOBase) else None

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        if self._head:
            n = min(len(buf), len(self._head))
            buf[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        if self._readinto is not None:  # (the bytes go to the buffer once, not via a copy)
            return self._readinto(buf)
        data = self._rest.read(len(buf))
        n = len(data)
        buf[:n] = data
        return n


def _read_head(stream: IO[bytes]) -> bytes:
    """Up to PEEK bytes: a pipe hands over a few KiB per read, so read until full or EOF."""
    parts = []
    size = 0
    while size < PEEK:
        chunk = stream.read(PEEK - size)
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def open_input(stream: IO[bytes], source: str) -> tuple[IO[bytes], bytes]:
    """A buffered stream over the input (un-gzipped when it starts with gzip's magic), and its
    first 64 KiB, which sniff() looks at. The stream still yields those first bytes."""
    head = _read_head(stream)
    if head[:2] == GZIP_MAGIC:
        gz = io.BufferedReader(_GzipReader(_Replay(head, stream), source), PEEK)
        head = _read_head(gz)
        return io.BufferedReader(_Replay(head, gz), PEEK), head
    return io.BufferedReader(_Replay(head, stream), PEEK), head


def _decode_head(head: bytes) -> str:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head[:PEEK - PEEK % 2].decode("utf-16", "replace")
    if head[:4] in (b"\x00<\x00?", b"<\x00?\x00"):
        enc = "utf-16-be" if head[0] == 0 else "utf-16-le"
        return head[:PEEK - PEEK % 2].decode(enc, "replace")
    return head.decode("utf-8", "replace").lstrip("\ufeff")


def sniff(head: bytes, source: str) -> str:
    """Say which reader fits (one of FORMATS), from the first bytes."""
    if not head:
        raise InputError(source, None, "the input is empty")
    text = _decode_head(head)
    stripped = text.lstrip()
    if not stripped.startswith("<"):
        if stripped.startswith(("{", "[")):
            return _json_kind(stripped)
        if "\0" in text:
            raise InputError(source, None, "binary data (NUL bytes), not a feed, sitemap or "
                                           "URL list")
        return _list_kind(stripped)
    body = _PI.sub("", _COMMENT.sub("", stripped))
    body = _DOCTYPE.sub("", body, count=1)
    m = _ROOT.search(body)
    if m is None:
        raise InputError(source, 1, "XML without a root element in its first 64 KiB")
    name = m.group(2)
    if name in _SITEMAP_ROOTS:
        return "sitemap"
    if name in _FEED_ROOTS:
        return "feed"
    raise InputError(
        source, None, f"XML root element <{(m.group(1) or '') + name}> is neither a sitemap "
        "(urlset, sitemapindex) nor a feed (rss, feed, rdf:RDF)")


# jsonfeed.org: "version (required, string) is the URL of the version of the format the feed
# uses", https://jsonfeed.org/version/1 or /1.1.
JSONFEED_VERSION = "https://jsonfeed.org/version/"
_JSONFEED = r'"version"\s*:\s*"' + re.escape(JSONFEED_VERSION).replace("/", r"\\?/")


def _json_kind(text: str) -> str:
    """'jsonfeed' or 'jsonl' for input starting with "{" or "[".

    A JSON Feed names its version; else a first line that is one whole object is JSON Lines
    (one object per line), and so is a first line that at least ends like one (its reader then
    names the error by line and column). Anything else (a pretty-printed document, an array) is
    given to the JSON Feed reader, which says what it lacks.
    """
    import json  # (csv and json: imported by the runs that read such inputs, start-up time)

    if re.search(_JSONFEED, text) is not None:  # (compiled by re when a JSON input comes)
        return "jsonfeed"
    first = text.split("\n", 1)[0].strip()
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict) or (first.startswith("{") and first.endswith("}")):
        return "jsonl"
    # A first line longer than the head (a URL with many images) is cut: its first member
    # still says which it is (a JSON Feed has none of a JSON Lines row's), so its reader, not
    # the JSON Feed's, says what is wrong with it (issue 35, item 26)
    member = re.match(r'\{\s*"(\w{1,20})"\s*:', first)
    if member is not None:
        from .jsonl import EXTENSION_FIELDS, JSON_FIELDS

        if member.group(1) in JSON_FIELDS or member.group(1) in EXTENSION_FIELDS:
            return "jsonl"
    return "jsonfeed"


def _list_kind(text: str) -> str:
    """'tsv', 'csv' or 'text', from the first non-blank line: a tab makes it TSV; a CSV header
    naming a loc (or url) column makes it CSV; anything else is one URL per line."""
    import csv

    from .columns import header_columns  # (readers import detect's neighbours only)

    first = text.split("\n", 1)[0].rstrip("\r")
    if "\t" in first:
        return "tsv"
    try:
        fields = next(csv.reader([first]))
    except (csv.Error, StopIteration):
        return "text"
    return "csv" if header_columns(fields) is not None else "text"
