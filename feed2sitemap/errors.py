"""The project's exceptions: everything a user can cause derives from Feed2SitemapError."""

from __future__ import annotations

from typing import Optional

__all__ = [
    "Feed2SitemapError",
    "InputError",
    "LimitError",
    "OptionError",
    "OutputError",
    "UnsupportedFormat",
]


class Feed2SitemapError(Exception):
    """Base of every error the library raises for bad input, bad options or I/O faults."""

    exit_code = 1


class InputError(Feed2SitemapError):
    """Bad data in an input: ``source:line: reason``."""

    def __init__(self, source: Optional[str], line: Optional[int], reason: str,
                 column: Optional[int] = None) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.reason = reason
        super().__init__(self.location_prefix() + reason)

    def location_prefix(self) -> str:
        parts = [self.source or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts) + ": "


class LimitError(Feed2SitemapError):
    """The records do not fit where they must go (stdout overflow, no --base-url to split)."""


class OutputError(Feed2SitemapError):
    """Writing the output failed (unwritable directory, full disk, file-size limit)."""


class UnsupportedFormat(Feed2SitemapError):
    """An unknown format name, or an input that is no feed, sitemap or URL list."""

    exit_code = 2


class OptionError(UnsupportedFormat, ValueError):
    """A parameter's value is not one the library accepts (an empty output name, say)."""
