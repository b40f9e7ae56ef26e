"""Readers: each turns one binary stream into an iterator of Batches (model/batch.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from importlib import import_module
from typing import IO, Optional, Protocol, cast

from ..model.batch import Batch
from ..model.report import Report

__all__ = ["READERS", "WHOLE_READERS", "BatchReader", "WholeReader", "reader", "whole_reader"]

BatchReader = Callable[[IO[bytes], str, Report, Optional[str]], Iterator[Batch]]


class WholeReader(Protocol):
    """A reader that parses its input whole, so takes the size it may read (``max_bytes``)."""

    def __call__(self, stream: IO[bytes], source: str, report: Report,
                 base_url: Optional[str] = None, *, max_bytes: int = ...) -> Iterator[Batch]: ...


# --from's choices (options.FORMATS) → the module and name of their reader(stream, source name,
# report, base_url), imported when first asked for (start-up time)
READERS: dict[str, tuple[str, str]] = {
    "feed": (".feed.reader", "read_feed"),
    "sitemap": (".sitemap", "read_sitemap"),
    "text": (".text", "read_text"),
    "jsonfeed": (".feed.jsonfeed", "read_jsonfeed"),
    "tsv": (".columns", "read_tsv"),
    "csv": (".columns", "read_csv"),
    "jsonl": (".jsonl", "read_jsonl"),
}
# those of READERS that read the whole input into memory: they are given max_bytes
WHOLE_READERS = frozenset({"feed", "jsonfeed"})


def reader(kind: str) -> BatchReader:
    """The reader of a format (a KeyError for a name not in READERS)."""
    module, name = READERS[kind]
    return cast(BatchReader, getattr(import_module(module, __name__), name))


def whole_reader(kind: str) -> WholeReader:
    """The reader of a format of WHOLE_READERS, which takes ``max_bytes``."""
    return cast(WholeReader, reader(kind))
