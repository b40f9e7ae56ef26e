"""Readers: each turns one binary stream into an iterator of Records."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Optional, Protocol

from ..batch import Batch
from ..report import Report
from .columns import read_csv_batches, read_jsonl, read_jsonl_batches, read_tsv_batches
from .feed import read_feed_batches
from .jsonfeed import read_jsonfeed, read_jsonfeed_batches
from .sitemap import read_sitemap, read_sitemap_batches
from .text import read_text, read_text_batches

__all__ = ["READERS", "WHOLE_READERS", "BatchReader", "WholeReader", "read_csv_batches",
           "read_feed_batches", "read_jsonfeed", "read_jsonfeed_batches",
           "read_jsonl", "read_jsonl_batches", "read_sitemap", "read_sitemap_batches",
           "read_text", "read_text_batches", "read_tsv_batches"]

BatchReader = Callable[[IO[bytes], str, Report, Optional[str]], Iterator[Batch]]


class WholeReader(Protocol):
    """A reader that parses its input whole, so takes the size it may read (`max_feed_bytes`)."""

    def __call__(self, stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None, *, max_bytes: int = ...) -> Iterator[Batch]: ...


# name → reader(stream, source name, report, base_url); the names are the formats
# (detect.FORMATS). Readers yield batches; record-level reading is reading.read (the record
# twins some modules still have are going: issue 12).
READERS: dict[str, BatchReader] = {
    "feed": read_feed_batches,
    "sitemap": read_sitemap_batches,
    "text": read_text_batches,
    "jsonfeed": read_jsonfeed_batches,
    "tsv": read_tsv_batches,
    "csv": read_csv_batches,
    "jsonl": read_jsonl_batches,
}
# those of READERS that read the whole input into memory: they are given max_bytes
WHOLE_READERS: dict[str, WholeReader] = {
    "feed": read_feed_batches,
    "jsonfeed": read_jsonfeed_batches,
}
