"""Plain-text URL lists (sitemaps.org text sitemaps): one URL per line, UTF-8."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Optional

from ..errors import InputError
from ..record import Record, make_record
from ..report import Report

__all__ = ["MAX_LINE", "read_text"]

MAX_LINE = 64 * 1024  # a longer line is refused without being held in memory


def read_text(stream: IO[bytes], source: str, report: Report,
              base_url: Optional[str] = None) -> Iterator[Record]:
    """Yield one Record per non-blank line; URL checks are the pipeline's job.

    A UTF-8 BOM is ignored, ``\\n`` and ``\\r\\n`` both end a line, surrounding whitespace is
    stripped. Bytes that are not UTF-8 are an error naming the line and byte offset.
    """
    readline = stream.readline
    offset = 0
    lineno = 0
    limit = MAX_LINE + 1
    while True:
        raw = readline(limit)
        if not raw:
            return
        lineno += 1
        if len(raw) == limit and not raw.endswith(b"\n"):
            raise InputError(source, lineno, f"line longer than {MAX_LINE:,} bytes; "
                                             "not a URL list")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if b"\0" in raw:
                raise InputError(source, lineno,
                                 "binary data (NUL bytes), not a URL list") from None
            raise InputError(source, lineno, f"not UTF-8 (byte offset {offset + exc.start})"
                             ) from None
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        offset += len(raw)
        loc = text.strip()
        if loc:
            if "\0" in loc:
                raise InputError(source, lineno, "binary data (NUL bytes), not a URL list")
            yield make_record(loc, source=source, line=lineno)
