"""The project's exceptions and problems: structured, so the library knows no command line.

Each carries what a caller needs to render it: the ``source``, ``line`` and ``column`` of bad
data, and the ``parameter`` (the library's name, ``base_url``) a bad value belongs to. The
library names a parameter between backticks (`` `base_url` ``); the command line shows the
option (``--base-url``) instead, and decides the exit code (cli/main.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional


class Feed2SitemapError(Exception):
    """Base of every error the library raises for bad input, bad options or I/O faults.

    ``kind`` names the fault for callers that dispatch on data, not types: "input", "limit",
    "output", "option" or "format".
    """

    kind = "error"
    parameter: Optional[str] = None


class InputError(Feed2SitemapError):
    """Bad data in an input: ``source:line[:column]: reason``."""

    kind = "input"

    def __init__(self, source: Optional[str], line: Optional[int], reason: str,
                 column: Optional[int] = None, parameter: Optional[str] = None) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.reason = reason
        self.parameter = parameter
        super().__init__(self.location_prefix() + reason)

    def location_prefix(self) -> str:
        parts = [self.source or "<input>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts) + ": "


class LimitError(Feed2SitemapError):
    """The records do not fit where they must go (an overflowing stream, no `base_url`)."""

    kind = "limit"


class RemovalsRefused(LimitError):
    """A run would take more of the earlier output's URLs out than `max_removals` allows
    (pipeline/removals.py): nothing was written."""

    parameter = "max_removals"


class OutputError(Feed2SitemapError):
    """Writing the output failed (unwritable directory, full disk, file-size limit)."""

    kind = "output"


class OptionError(Feed2SitemapError, ValueError):
    """A parameter's value the library does not accept (``parameter``), or parameters that do
    not go together (``parameter`` None)."""

    kind = "option"

    def __init__(self, reason: str, parameter: Optional[str] = None) -> None:
        self.reason = reason
        self.parameter = parameter
        super().__init__(f"`{parameter}`: {reason}" if parameter else reason)


class IndexNowError(Feed2SitemapError):
    """An IndexNow submission failed; the sitemap files written before it stay (``summary``:
    what the run wrote, when the converter raised it). ``transient``: a failure that may pass
    (5xx, 429, a timeout, no connection), after retries; ``unsent``: the URLs not submitted."""

    summary: Any = None
    transient: bool = False
    unsent: list[str] = []
    submitted: Any = None  # (a Submitted: the requests that went through before it)


class UnsupportedFormat(OptionError):
    """An unknown format name, or an input that is no feed, sitemap or URL list."""

    kind = "format"


@dataclass(frozen=True)
class Problem:
    """One record skipped, or one field dropped (Report.problems, Report.on_problem).

    ``action`` is "skipped" or "warning" (kept, perhaps less a field); ``kind`` the counter it
    is counted under ("not absolute", "off scope" ...); ``reason`` the one-line text; ``url``
    the location concerned, where there is one.
    """

    action: str
    kind: str
    source: Optional[str]
    line: Optional[int]
    reason: str
    url: Optional[str] = None
