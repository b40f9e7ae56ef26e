"""Readers: each turns one binary stream into an iterator of Batches (batch.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Optional, Protocol

from ..batch import Batch
from ..report import Report
from .columns import read_csv, read_jsonl, read_tsv
from .feed import read_feed
from .jsonfeed import read_jsonfeed
from .sitemap import read_sitemap
from .text import read_text

__all__ = ["READERS", "WHOLE_READERS", "BatchReader", "WholeReader", "read_csv", "read_feed",
           "read_jsonfeed", "read_jsonl", "read_sitemap", "read_text", "read_tsv"]

BatchReader = Callable[[IO[bytes], str, Report, Optional[str]], Iterator[Batch]]


class WholeReader(Protocol):
    """A reader that parses its input whole, so takes the size it may read (``max_bytes``)."""

    def __call__(self, stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None, *, max_bytes: int = ...) -> Iterator[Batch]: ...


# name → reader(stream, source name, report, base_url); the names are --from's choices
# (detect.FORMATS). Readers yield batches; reading.read gives records to library users.
READERS: dict[str, BatchReader] = {
    "feed": read_feed,
    "sitemap": read_sitemap,
    "text": read_text,
    "jsonfeed": read_jsonfeed,
    "tsv": read_tsv,
    "csv": read_csv,
    "jsonl": read_jsonl,
}
# those of READERS that read the whole input into memory: they are given max_bytes
WHOLE_READERS: dict[str, WholeReader] = {
    "feed": read_feed,
    "jsonfeed": read_jsonfeed,
}
