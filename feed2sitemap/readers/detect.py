"""Opening inputs (paths, stdin, gzip) and telling feeds, sitemaps and URL lists apart."""

from __future__ import annotations

import gzip
import io
import os
import re
import zlib
from typing import IO, Any, Optional, Union, cast

from ..errors import InputError, OptionError

__all__ = ["Source", "check_source", "csv_delimiter", "header_columns", "header_names",
           "open_input", "sniff"]

Source = Union[str, "os.PathLike[str]", IO[bytes]]


def check_source(source: object) -> None:
    """A path, an http(s) URL or a binary stream; anything else is the caller's error, said
    plainly (a text stream would fail deep inside a reader)."""
    if isinstance(source, (str, os.PathLike)):
        return
    if isinstance(source, (io.TextIOBase, bytes, bytearray)) or not hasattr(source, "read"):
        raise OptionError(f"must be a path, an http(s) URL or a binary stream (open(path, "
                          f"'rb')), not {type(source).__name__}", "source")

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
# bytes): real lists compress 5 to 20 times, a bomb of blank lines about 1,000 times.
MAX_RATIO = 100
MAX_RATIO_FROM = 1024 * 1024


class _Gunzip(io.RawIOBase):
    """gzip's streaming reader (concatenated members included), its errors in our words, and
    the expansion bounded."""

    def __init__(self, raw: _Replay, source: str) -> None:
        self._in = raw
        self._gz = gzip.GzipFile(fileobj=cast(IO[bytes], raw), mode="rb")
        self._source = source
        self._out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        try:
            n: int = self._gz.readinto(buf)
        except EOFError:
            raise InputError(self._source, None, "bad gzip data (truncated)") from None
        except gzip.BadGzipFile as exc:  # after a member: neither another one nor zeros
            message = "trailing garbage after gzip data" if "Not a gzipped" in str(exc) \
                else f"bad gzip data ({exc})"
            raise InputError(self._source, None, message) from None
        except zlib.error as exc:
            raise InputError(self._source, None, f"bad gzip data ({exc})") from None
        self._out += n
        if self._out > MAX_RATIO_FROM and self._out > MAX_RATIO * self._in.count:
            raise InputError(self._source, None, f"gzip data expands more than {MAX_RATIO} "
                             "times (a decompression bomb?); refused")
        return n


class _Replay(io.RawIOBase):
    """A raw stream that gives back ``head`` (already read to sniff it), then the rest;
    ``count``: the bytes it gave."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = memoryview(head)
        self._rest = rest
        self.count = 0
        # (a buffered stream reads into our buffer, no copy; any other object is asked to read)
        self._readinto = rest.readinto if isinstance(rest, io.BufferedIOBase) else None

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        if self._head:
            n = min(len(buf), len(self._head))
            buf[:n] = self._head[:n]
            self._head = self._head[n:]
        elif self._readinto is not None:
            n = self._readinto(buf)
        else:
            data = self._rest.read(len(buf))
            n = len(data)
            buf[:n] = data
        self.count += n
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
        gz = io.BufferedReader(_Gunzip(_Replay(head, stream), source), PEEK)
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
    """'jsonfeed' or 'jsonl' for input starting with "{" or "[": a JSON Feed names its version;
    else a first line that is (or ends like) one object, or starts with a member of ours, is JSON
    Lines (its reader names any error by line); anything else goes to the JSON Feed reader,
    which says what it lacks."""
    import json  # (imported by the runs that read JSON inputs: start-up time)

    if re.search(_JSONFEED, text) is not None:
        return "jsonfeed"
    first = text.split("\n", 1)[0].strip()
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict) or (first.startswith("{") and first.endswith("}")):
        return "jsonl"
    # (a first line longer than the head, cut: its first member says which it is)
    member = re.match(r'\{\s*"(\w{1,20})"\s*:', first)
    if member is not None:
        from .jsonl import EXTENSION_FIELDS, JSON_FIELDS

        if member.group(1) in JSON_FIELDS or member.group(1) in EXTENSION_FIELDS:
            return "jsonl"
    return "jsonfeed"


def _list_kind(text: str) -> str:
    """'tsv', 'csv' or 'text', from the first non-blank line: a tab makes it TSV; a CSV header
    naming a loc (or url) column, separated by commas or semicolons, makes it CSV; anything
    else is one URL per line."""
    first = text.split("\n", 1)[0].rstrip("\r")
    if "\t" in first:
        return "tsv"
    return "csv" if csv_delimiter(first) is not None else "text"


def header_names(fields: list[str]) -> list[str]:
    """A header line's fields as column names (``url`` is ``loc``)."""
    return ["loc" if n == "url" else n for n in (f.strip().lower() for f in fields)]


def header_columns(fields: list[str]) -> Optional[dict[str, int]]:
    """The columns a header line names (name → field index), or None when the line is data:
    a header names ``loc`` (or ``url``) and holds no URL."""
    names = header_names(fields)
    if "loc" not in names or any("://" in f for f in fields):
        return None
    return {name: i for i, name in reversed(list(enumerate(names)))}


def csv_delimiter(line: str) -> Optional[str]:
    """The separator with which ``line`` is a CSV header (``,``, ``;`` or a tab), or None."""
    import csv  # (only a run that sniffs a list: not every run's start-up)

    for delimiter in (",", ";", "\t"):
        try:
            fields = next(csv.reader([line], delimiter=delimiter))
        except (csv.Error, StopIteration):
            continue
        if header_columns(fields) is not None:
            return delimiter
    return None
