"""Writers: how a batch of records becomes entries of an output file, per output format."""

from __future__ import annotations

from .base import JSONL, TEXT, Format
from .feed import ATOM, RSS, FeedFormat
from .xml import INDEX, URLSET, UrlsetFormat

__all__ = ["ATOM", "FORMATS", "INDEX", "JSONL", "RSS", "TEXT", "URLSET", "FeedFormat", "Format",
           "UrlsetFormat", "format_for_name", "get_format"]

# --to's choices. An index is written by the splitter, not chosen by name: converting an index
# input writes an index because its records are sitemaps.
FORMATS: dict[str, Format] = {"xml": URLSET, "text": TEXT, "rss": RSS, "atom": ATOM,
                              "jsonl": JSONL}


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown output format {name!r}; choose one of: "
                         f"{', '.join(sorted(FORMATS))}") from None


def format_for_name(ext: str) -> Format:
    """The format a file-name ending selects (".txt", ".rss.gz" …); XML for any other."""
    ext = ext.removesuffix(".gz")
    return next((f for f in FORMATS.values() if f.extension == ext), URLSET)
