"""Readers: each turns one binary stream into an iterator of Records."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Optional

from ..batch import Batch
from ..report import Report
from .feed import read_feed, read_feed_batches
from .sitemap import read_sitemap, read_sitemap_batches
from .text import read_text, read_text_batches

__all__ = ["READERS", "BatchReader", "read_feed", "read_feed_batches", "read_sitemap",
           "read_sitemap_batches", "read_text", "read_text_batches"]

BatchReader = Callable[[IO[bytes], str, Report, Optional[str]], Iterator[Batch]]

# name → reader(stream, source name, report, base_url); the names are --from's choices. Each
# module also has the same reader yielding records (read_feed, ...) for library users.
READERS: dict[str, BatchReader] = {
    "feed": read_feed_batches,
    "sitemap": read_sitemap_batches,
    "text": read_text_batches,
}
