"""Telling inputs apart from their first bytes, and opening them (gzip, pipes)."""

from __future__ import annotations

import gzip
import io

import pytest

from feed2sitemap.detect import PEEK, open_input, sniff
from feed2sitemap.errors import InputError


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
        chunk, self.data = self.data[: self.step], self.data[self.step:]
        buf[: len(chunk)] = chunk  # type: ignore[index]
        return len(chunk)


def test_the_head_is_read_in_full_from_a_trickling_pipe_and_replayed() -> None:
    doc = b"<!-- " + b"x" * 5000 + b" -->\n<rss version='2.0'><channel></channel></rss>\n"
    stream, head = open_input(Trickle(doc), "pipe")  # type: ignore[arg-type]
    assert head == doc[:PEEK]
    assert sniff(head, "pipe") == "feed"
    assert stream.read() == doc


def test_gzip_is_unpacked_as_a_stream_with_concatenated_members() -> None:
    data = gzip.compress(b"https://e.example/1\n") + gzip.compress(b"https://e.example/2\n")
    stream, head = open_input(io.BytesIO(data), "in.gz")
    assert head.startswith(b"https://e.example/1\n")
    assert stream.read() == b"https://e.example/1\nhttps://e.example/2\n"
