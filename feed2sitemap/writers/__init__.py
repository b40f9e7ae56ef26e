"""Writers: how one record becomes one entry of an output file, per output format."""

from __future__ import annotations

from .base import Format
from .text import TEXT
from .xml import INDEX, URLSET

__all__ = ["FORMATS", "INDEX", "TEXT", "URLSET", "Format", "get_format"]

# --to's choices. An index is written by the splitter, not chosen by name: converting an index
# input writes an index because its records are sitemaps.
FORMATS: dict[str, Format] = {
    "xml": URLSET,
    "text": TEXT,
}


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"unknown output format {name!r}; choose one of: "
                         f"{', '.join(sorted(FORMATS))}") from None
