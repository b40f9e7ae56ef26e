"""The interface every output format implements."""

from __future__ import annotations

from typing import Protocol

from ..record import Lastmod, Record

__all__ = ["Format", "StampedFormat"]


class Format(Protocol):
    """An output file is ``header``, then ``entry(record)`` per record, then ``footer``.

    The splitter measures each piece's UTF-8 length and so knows every file's exact size before
    it writes a byte: a file is closed only when the next entry would not fit.
    """

    name: str
    extension: str  # the file-name ending that selects this format (".xml", ".txt")

    def header(self) -> str: ...

    def footer(self) -> str: ...

    def entry(self, record: Record) -> str: ...


class StampedFormat(Format, Protocol):
    """A format whose header names the newest lastmod of the file's own entries (feeds).

    The header cannot be written before the file's entries are known, yet the splitter must know
    its size before the first entry. So ``file_header(newest)`` must have exactly the UTF-8 length
    of ``header()`` whatever ``newest`` is (a fixed-width timestamp, padded when absent); the
    splitter holds the file's entries aside and writes this header first when the file is closed.
    """

    def file_header(self, newest: Lastmod | None) -> str: ...
