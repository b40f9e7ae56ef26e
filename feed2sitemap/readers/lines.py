"""Decoded lines of a UTF-8 list, a block at a time, bounded: what the column readers share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from ..errors import InputError
from .text import MAX_LINE

__all__ = ["CHUNK", "line_blocks", "too_long"]

CHUNK = 1 << 20


def line_blocks(stream: IO[bytes], source: str, what: str) -> Iterator[tuple[int, list[str]]]:
    """Yield (number of the block's first line, its lines without line ends), about a megabyte
    at a time.

    As for text lists (readers.text): UTF-8 only (an error names the line and byte offset), a
    BOM ignored, ``\\n`` or ``\\r\\n``, no NUL byte, and no line longer than MAX_LINE bytes: the
    carried-over tail is refused before it can grow. ``what`` names the format in messages.
    """
    read = getattr(stream, "read1", stream.read)
    tail = b""
    lineno = offset = 0
    first = True
    while True:
        chunk = read(CHUNK)
        block = tail + chunk if tail else chunk
        if chunk:
            cut = block.rfind(b"\n") + 1
            if cut == 0:
                if len(block) > MAX_LINE:
                    too_long(source, lineno + 1, what)
                tail = block
                continue
            block, tail = block[:cut], block[cut:]
            if len(tail) > MAX_LINE:
                too_long(source, lineno + block.count(b"\n") + 1, what)
        elif not block:
            return
        else:
            tail = b""
        text = _decode(block, source, lineno, offset, first, what)
        if first:
            first = False
            if text.startswith("\ufeff"):
                text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        lines = text.split("\n")
        if text.endswith("\n"):
            lines.pop()
        if max(map(len, lines), default=0) > MAX_LINE:
            too_long(source, lineno + 1 + next(i for i, s in enumerate(lines) if len(s) > MAX_LINE),
                     what)
        yield lineno + 1, lines
        lineno += len(lines)
        offset += len(block)
        if not chunk:
            return


def _decode(block: bytes, source: str, lineno: int, offset: int, first: bool,
            what: str) -> str:
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as exc:
        if first and block.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise InputError(source, 1, f"UTF-16 text (a byte-order mark says so); {what} must "
                             "be UTF-8: save it as UTF-8") from None
        line = lineno + block.count(b"\n", 0, exc.start) + 1
        if b"\0" in block:
            raise InputError(source, line, f"binary data (NUL bytes), not {what}") from None
        raise InputError(source, line, f"not UTF-8 (byte offset {offset + exc.start})") from None
    if "\0" in text:
        line = lineno + text.count("\n", 0, text.index("\0")) + 1
        raise InputError(source, line, f"binary data (NUL bytes), not {what}")
    return text


def too_long(source: str, line: int, what: str) -> None:
    raise InputError(source, line, f"line longer than {MAX_LINE:,} bytes; not {what}")
