"""Plain-text URL lists (sitemaps.org text sitemaps): one URL per line, UTF-8."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import repeat
from typing import IO, Optional

from ..batch import BATCH, Batch, unbatched
from ..errors import InputError
from ..record import Record
from ..report import Report
from ..urls import CLEAN_BYTES, CleanLocs, prove_lines, resolve

__all__ = ["MAX_LINE", "read_text", "read_text_batches"]

MAX_LINE = 64 * 1024  # a longer line is refused without being held in memory
CHUNK = 1 << 20
_SPACE = re.compile(r"\s")
# The first bytes, in UTF-8, of the characters str.strip() removes (str.isspace), but newline:
# ASCII white space and the lead bytes of U+0085, U+00A0, U+1680, U+2000-U+205F and U+3000.
SPACE_LEADS = b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f \xc2\xe1\xe2\xe3"
_NOT_SPACE_LEADS = bytes(b for b in range(256) if b not in SPACE_LEADS)


def read_text(stream: IO[bytes], source: str, report: Report,
              base_url: Optional[str] = None) -> Iterator[Record]:
    """Yield one Record per non-blank line (see read_text_batches)."""
    return unbatched(read_text_batches(stream, source, report, base_url))


def read_text_batches(stream: IO[bytes], source: str, report: Report,
                      base_url: Optional[str] = None) -> Iterator[Batch]:
    """Yield the non-blank lines as batches of locations; URL checks are the pipeline's job.

    A UTF-8 BOM is ignored, ``\\n``, ``\\r\\n`` and a lone ``\\r`` (old Macs, some spreadsheet
    exports) each end a line, surrounding whitespace is stripped. A line with white space inside
    is skipped: it is not one URL. A relative line (``/about``, ``contact.html``) is resolved
    against ``base_url``. Bytes that are not UTF-8 are an error naming the line and byte offset.

    The input is read and decoded a megabyte at a time, cut at the last newline: one decode and
    one split per megabyte, not per line, is what makes a million-line list cheap. A line may not
    grow past MAX_LINE bytes, so the carried-over tail stays small.
    """
    # read1: whatever a pipe has now (up to CHUNK), rather than block until a megabyte arrives
    read = getattr(stream, "read1", stream.read)
    tail = b""
    lineno = 0  # lines before this block
    offset = 0  # bytes before this block
    first = True
    while True:
        chunk = read(CHUNK)
        block = tail + chunk if tail else chunk
        if chunk:
            cut = block.rfind(b"\n") + 1
            # a lone "\r" after the last "\n" ends a line too (one at the very end may be
            # the first half of a "\r\n": it waits for the next chunk)
            cut = max(cut, block.rfind(b"\r", cut, len(block) - 1) + 1)
            if cut == 0:  # no newline at all yet
                if len(block) > MAX_LINE:
                    _too_long(source, lineno + 1)
                tail = block
                continue
            block, tail = block[:cut], block[cut:]
            if len(tail) > MAX_LINE:
                _too_long(source, lineno + block.count(b"\n") + 1)
        elif not block:
            return
        else:
            tail = b""
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as exc:
            if first and block.startswith((b"\xff\xfe", b"\xfe\xff")):
                raise InputError(source, 1, "UTF-16 text (a byte-order mark says so); a URL "
                                 "list must be UTF-8: save it as UTF-8") from None
            bad = exc.start
            line = lineno + block.count(b"\n", 0, bad) + 1
            if b"\0" in block:
                raise InputError(source, line, "binary data (NUL bytes), not a URL list") from None
            raise InputError(source, line, f"not UTF-8 (byte offset {offset + bad})") from None
        if first:
            first = False
            if text.startswith("\ufeff"):
                text = text[1:]
        if "\0" in text:
            line = lineno + text.count("\n", 0, text.index("\0")) + 1
            raise InputError(source, line, "binary data (NUL bytes), not a URL list")
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        strip = True
        if text.endswith("\n"):
            lines.pop()
            rest = block.translate(None, CLEAN_BYTES)  # the newlines, and any other byte
            proofs = prove_lines(text, lines, len(rest), BATCH)
            if proofs is not None:  # the usual block: nothing to strip, none blank
                yield from _clean_batches(proofs, source, lineno)
                lineno += len(lines)
                offset += len(block)
                continue
            # nothing to strip on any line unless some byte may begin a white-space character
            strip = bool(rest.translate(None, _NOT_SPACE_LEADS))
        for start in range(0, len(lines), BATCH):
            part = lines[start: start + BATCH]
            first_line = lineno + start + 1
            _check_lengths(part, source, first_line)
            locs = [raw.strip() for raw in part] if strip else part
            # white space inside a line: one search over the batch (no line holds a NUL)
            if "" in locs or (strip and _SPACE.search("\0".join(locs)) is not None):
                keep = [i for i, loc in enumerate(locs) if _one_url(loc, source, first_line + i,
                                                                   report)]
                locs = [locs[i] for i in keep]
                numbers: list[Optional[int]] = [first_line + i for i in keep]
            else:
                numbers = list(range(first_line, first_line + len(locs)))
            # a relative line (in C: does every line start as an absolute URL?)
            if base_url and not all(map(str.startswith, locs, repeat(_SCHEMES))):
                locs = [resolve(base_url, loc) for loc in locs]
            if locs:
                yield Batch(locs, source, numbers)
        lineno += len(lines)
        offset += len(block)
        if not chunk:
            return


_SCHEMES = ("https://", "http://")


def _one_url(loc: str, source: str, line: int, report: Report) -> bool:
    """Whether a stripped line is a URL to read: blank lines are not (nor reported); a line with
    white space inside is a row of columns or words, never one URL."""
    if not loc:
        return False
    if _SPACE.search(loc) is None:
        return True
    report.skip("white space in line", source, line, "contains white space; a list holds one "
                "URL per line (see the columns format)")
    return False


def _clean_batches(proofs: list[CleanLocs], source: str, lineno: int) -> Iterator[Batch]:
    """Batches of a block whose lines urls.py proved clean URLs already: what per-line strip
    and the normalize step would do has been done for the whole block."""
    for proof in proofs:
        part = proof.locs
        _check_lengths(part, source, lineno + 1)
        yield Batch(part, source, range(lineno + 1, lineno + 1 + len(part)), clean=proof)
        lineno += len(part)


def _check_lengths(lines: list[str], source: str, first_line: int) -> None:
    """Refuse the first of ``lines`` (numbered from ``first_line``) longer than MAX_LINE."""
    if max(map(len, lines)) > MAX_LINE:
        _too_long(source, first_line + next(
            i for i, raw in enumerate(lines) if len(raw) > MAX_LINE))


def _too_long(source: str, line: int) -> None:
    raise InputError(source, line, f"line longer than {MAX_LINE:,} bytes; not a URL list")
