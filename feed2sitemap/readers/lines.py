"""The block loop of every line-based list (text, TSV, CSV, JSON Lines): decoded lines of a
UTF-8 input, a megabyte at a time (one decode and split per block, not per line), bounded."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, NoReturn

from ..errors import InputError

__all__ = ["CHUNK", "MAX_JSON_LINE", "MAX_LINE", "Block", "blocks", "too_long"]

MAX_LINE = 64 * 1024  # a longer line is refused without being held in memory
# A JSON Lines line may hold what one <url> of a sitemap may (extensions/xmlin.py:
# MAX_URL_CHARS), and the writer writes no longer line, so whatever -t jsonl writes reads back.
MAX_JSON_LINE = 4 * 1024 * 1024
CHUNK = 1 << 20


@dataclass
class Block:
    """A run of whole lines of the input (the last block may end without a line end)."""

    start: int  # the number of its first line
    raw: bytes  # its bytes as read (a BOM and "\r" included)
    text: str  # decoded, the BOM dropped, every line end made "\n"
    lines: list[str]  # its lines, without line ends
    ended: bool  # whether its last line has a line end (``text`` ends with "\n")
    longest: int  # the length of its longest line, in characters


def blocks(stream: IO[bytes], source: str, what: str,
           max_line: int = MAX_LINE) -> Iterator[Block]:
    """The input's lines a block at a time (``what`` names the format in messages): UTF-8, a
    BOM ignored; ``\\n``, ``\\r\\n`` and a lone ``\\r`` each end a line; no NUL byte; no line
    longer than ``max_line`` bytes."""
    # read1: whatever a pipe has now (up to CHUNK), rather than block until a megabyte arrives
    read = getattr(stream, "read1", stream.read)
    tail = b""
    lineno = offset = 0  # lines and bytes before this block
    while True:
        chunk = read(CHUNK)
        block = tail + chunk if tail else chunk
        if chunk:
            cut = _cut(block)
            if cut == 0:  # no line end at all yet
                if len(block) > max_line:
                    too_long(source, lineno + 1, what, max_line)
                tail = block
                continue
            block, tail = block[:cut], block[cut:]
            if len(tail) > max_line:
                too_long(source, lineno + block.count(b"\n") + 1, what, max_line)
        elif not block:
            return
        else:
            tail = b""
        text = _decode(block, source, lineno, offset, what)
        if offset == 0 and text.startswith("\ufeff"):
            text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        ended = text.endswith("\n")
        if ended:
            lines.pop()
        longest = max(map(len, lines))
        if longest > max_line:
            too_long(source, lineno + 1 + next(i for i, s in enumerate(lines) if len(s) > max_line),
                     what, max_line)
        yield Block(lineno + 1, block, text, lines, ended, longest)
        lineno += len(lines)
        offset += len(block)
        if not chunk:
            return


def _cut(block: bytes) -> int:
    """Where the block's last whole line ends (0: none does yet)."""
    cut = block.rfind(b"\n") + 1
    # a lone "\r" after the last "\n" ends a line too (one at the very end may be the first
    # half of a "\r\n": it waits for the next chunk)
    return max(cut, block.rfind(b"\r", cut, len(block) - 1) + 1)


def _decode(block: bytes, source: str, lineno: int, offset: int, what: str) -> str:
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as exc:
        if offset == 0 and block.startswith((b"\xff\xfe", b"\xfe\xff")):
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


def too_long(source: str, line: int, what: str, max_line: int = MAX_LINE) -> NoReturn:
    raise InputError(source, line, f"line longer than {max_line:,} bytes; not {what}")
