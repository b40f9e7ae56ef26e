"""Readers: each turns one binary stream into an iterator of Records."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Optional

from ..record import Record
from ..report import Report
from .feed import read_feed
from .sitemap import read_sitemap
from .text import read_text

__all__ = ["READERS", "ReaderFn", "read_feed", "read_sitemap", "read_text"]

ReaderFn = Callable[[IO[bytes], str, Report, Optional[str]], Iterator[Record]]

# name → reader(stream, source name, report, base_url); the names are --from's choices.
READERS: dict[str, ReaderFn] = {
    "feed": read_feed,
    "sitemap": read_sitemap,
    "text": read_text,
}
