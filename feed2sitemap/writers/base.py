"""The interface every output format implements."""

from __future__ import annotations

from typing import Protocol

from ..record import Record

__all__ = ["Format"]


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
