"""Writers: how one record becomes one entry of an output file, per output format."""

from __future__ import annotations

from collections.abc import Callable
from typing import Optional

from ..batch import Batch
from .base import Format, StampedFormat
from .feed import ATOM, RSS, FeedFormat
from .jsonl import JSONL
from .text import TEXT
from .xml import INDEX, URLSET

__all__ = ["ATOM", "FORMATS", "INDEX", "JSONL", "RSS", "TEXT", "URLSET", "FeedFormat", "Format",
           "StampedFormat", "format_block", "format_entries", "format_for_name", "get_format",
           "limits_of"]

# --to's choices. An index is written by the splitter, not chosen by name: converting an index
# input writes an index because its records are sitemaps.
FORMATS: dict[str, Format] = {
    "xml": URLSET,
    "text": TEXT,
    "rss": RSS,
    "atom": ATOM,
    "jsonl": JSONL,
}


def limits_of(fmt: Format) -> str:
    """Which limits a format's files obey (limits.output_profile): "sitemap" (XML and text
    sitemaps: the profile's, split into parts), "feed" (one file, up to the byte limit) or
    "data" (JSON Lines: none unless asked)."""
    return str(getattr(fmt, "limits", "sitemap"))


def format_entries(fmt: Format) -> Callable[[Batch], list[str]]:
    """How ``fmt`` formats a batch: its own column-wise ``entries``, else ``entry`` per record."""
    own: Optional[Callable[[Batch], list[str]]] = getattr(fmt, "entries", None)
    if own is not None:
        return own
    entry = fmt.entry
    return lambda batch: [entry(record) for record in batch.records()]


def format_block(fmt: Format) -> Callable[[Batch], str]:
    """How ``fmt`` formats a whole batch as one string: its own ``block``, else its entries
    joined."""
    own: Optional[Callable[[Batch], str]] = getattr(fmt, "block", None)
    if own is not None:
        return own
    entries = format_entries(fmt)
    return lambda batch: "".join(entries(batch))


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown output format {name!r}; choose one of: "
                         f"{', '.join(sorted(FORMATS))}") from None


def format_for_name(ext: str) -> Format:
    """The format a file-name ending selects (".txt", ".rss.gz" …); XML for any other."""
    if ext.endswith(".gz"):
        ext = ext[: -len(".gz")]
    for fmt in FORMATS.values():
        if fmt.extension == ext:
            return fmt
    return URLSET
