"""Plain URL lists (text sitemaps): every line judged, where readers.text stops at the first
bad one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

from ..errors import InputError
from ..readers.text import MAX_LINE
from ..xmlutil import MAX_VALUE
from .locs import check_loc

if TYPE_CHECKING:
    from .diagnostics import Diagnostic, FileCheck

__all__ = ["check_text"]


def check_text(stream: IO[bytes], f: FileCheck) -> Iterator[Diagnostic]:
    """A text sitemap: one absolute URL per line, UTF-8. Unlike readers.text, which stops at the
    first bad line, every line is judged."""
    try:
        yield from _check_lines(stream, f)
    except InputError as exc:  # gzip data that breaks off or expands like a bomb
        f.error("input", 1, 1, exc.reason)
        yield from f.pop_all()


def _check_lines(stream: IO[bytes], f: FileCheck) -> Iterator[Diagnostic]:
    lineno = offset = blank = 0
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            break
        lineno += 1
        offset += len(raw)
        f.size(offset, lineno, 1)
        # A run of blank lines is only white space: past MAX_VALUE bytes it stops the check, as
        # in XML (a gigabyte of newlines would otherwise take minutes, line by line).
        blank = blank + len(raw) if raw.isspace() else 0
        if blank > MAX_VALUE:
            f.error("too-complex", lineno, 1, f"more than {MAX_VALUE:,} bytes of blank lines; "
                    "refused, checking stopped here")
            break
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            f.error("loc-too-long", lineno, 1, f"a line of more than {MAX_LINE:,} bytes")
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(MAX_LINE + 1)
                offset += len(raw)
            yield from f.pop_all()
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            col = len(raw[:exc.start].decode("utf-8", "replace")) + 1
            f.error("encoding", lineno, col, "bytes that are not UTF-8; sitemaps.org "
                    "requires UTF-8")
            yield from f.pop_all()
            continue
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        loc = text.strip()
        if loc:
            col = len(text) - len(text.lstrip()) + 1
            f.entry(lineno, col)
            check_loc(f, loc, lineno, col)
        yield from f.pop_all()
    if not f.entries:
        f.error("empty-set", max(lineno, 1), 1, "no URLs in the file")
    yield from f.pop_all()
