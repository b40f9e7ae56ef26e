"""Telling inputs apart from their first bytes, and opening them (gzip, pipes)."""

from __future__ import annotations

import gzip
import io
from functools import partial
from pathlib import Path

import pytest

from feed2sitemap.errors import InputError
from feed2sitemap.readers.detect import PEEK, open_input, sniff


@pytest.mark.parametrize("head,kind", [
    (b"https://e.example/\n", "text"),
    (b"\xef\xbb\xbf  https://e.example/\n", "text"),
    (b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
     "sitemap"),
    (b"<!-- made by hand -->\n<sitemapindex>", "sitemap"),
    (b'<rss version="2.0"><channel>', "feed"),
    (b'<?xml version="1.0"?><?xml-stylesheet href="s.xsl"?><feed xmlns="http://www.w3.org/2005/Atom">',
     "feed"),
    (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">', "feed"),
    (b'<!DOCTYPE rss PUBLIC "-//Netscape" "http://my.netscape.com/rss.dtd">\n<rss>', "feed"),
    ('<?xml version="1.0" encoding="utf-16"?><rss version="2.0">'.encode("utf-16"), "feed"),
])
def test_sniffing(head: bytes, kind: str) -> None:
    assert sniff(head, "in") == kind


@pytest.mark.parametrize("head,message", [
    (b"", "empty"),
    (b"\x00\x01\x02binary", "binary"),
    (b"<html><body>", "<html>"),
])
def test_sniffing_refuses_what_no_reader_takes(head: bytes, message: str) -> None:
    with pytest.raises(InputError, match=message):
        sniff(head, "in")


class Trickle(io.RawIOBase):
    """A pipe that hands over a few bytes per read, as curl into a pipe does."""

    def __init__(self, data: bytes, step: int = 7) -> None:
        self.data, self.step = data, step

    def readable(self) -> bool:
        return True

    def readinto(self, buf: object) -> int:
        n = min(self.step, len(buf))  # type: ignore[arg-type]
        chunk, self.data = self.data[:n], self.data[n:]
        buf[: len(chunk)] = chunk  # type: ignore[index]
        return len(chunk)


def test_the_head_is_read_in_full_from_a_trickling_pipe_and_replayed() -> None:
    doc = b"<!-- " + b"x" * 5000 + b" -->\n<rss version='2.0'><channel></channel></rss>\n"
    stream, head = open_input(Trickle(doc), "pipe")  # type: ignore[arg-type]
    assert head == doc[:PEEK]
    assert sniff(head, "pipe") == "feed"
    assert stream.read() == doc


class ReadOnly:
    """A file-like object of the library's users that has read() alone."""

    def __init__(self, data: bytes) -> None:
        self.rest = io.BytesIO(data)

    def read(self, n: int = -1) -> bytes:
        return self.rest.read(n)


def test_the_rest_after_the_head_comes_whole_from_every_kind_of_stream(tmp_path: Path) -> None:
    """Past the head, a buffered stream (a file, BytesIO, a trickling pipe behind a buffer)
    is read into the reader's buffer directly; an object with read() alone is read: the
    bytes are the input's, in order, read a 64 KiB chunk at a time."""
    doc = b"https://e.example/" + bytes(range(48, 123)) * (3 * PEEK // 75) + b"\n"
    (tmp_path / "in.txt").write_bytes(doc)
    with open(tmp_path / "in.txt", "rb") as f:
        streams = [f, io.BytesIO(doc), io.BufferedReader(Trickle(doc, 1000)), ReadOnly(doc)]
        for raw in streams:
            stream, head = open_input(raw, "in")  # type: ignore[arg-type]
            assert head == doc[:PEEK]
            chunks = iter(partial(stream.read, 1 << 16), b"")
            assert b"".join(chunks) == doc, type(raw)


def test_gzip_is_unpacked_as_a_stream_with_concatenated_members() -> None:
    data = gzip.compress(b"https://e.example/1\n") + gzip.compress(b"https://e.example/2\n")
    stream, head = open_input(io.BytesIO(data), "in.gz")
    assert head.startswith(b"https://e.example/1\n")
    assert stream.read() == b"https://e.example/1\nhttps://e.example/2\n"
