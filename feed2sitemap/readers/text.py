"""Plain-text URL lists (sitemaps.org text sitemaps): one URL per line, UTF-8."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import IO, Optional

from ..backends import fast
from ..model.batch import BATCH, Batch
from ..model.report import Report
from ..model.urls import CLEAN_BYTES, prove_lines, resolve
from .lines import MAX_LINE, Block, blocks

__all__ = ["MAX_LINE", "read_text"]

_SPACE = re.compile(r"\s")
# The first bytes, in UTF-8, of the characters str.strip() removes (str.isspace), but newline:
# ASCII white space and the lead bytes of U+0085, U+00A0, U+1680, U+2000-U+205F and U+3000.
SPACE_LEADS = b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f \xc2\xe1\xe2\xe3"
_NOT_SPACE_LEADS = bytes(b for b in range(256) if b not in SPACE_LEADS)
_SCHEMES = ("https://", "http://")


def read_text(stream: IO[bytes], source: str, report: Report,
              base_url: Optional[str] = None) -> Iterator[Batch]:
    """The non-blank lines, stripped, as batches of locations (a relative one resolved against
    ``base_url``); a line with white space inside is skipped: it is not one URL. A block of
    clean URLs only is proven so at once (urls.prove_lines); any other goes a line at a time."""
    for block in blocks(stream, source, "a URL list"):
        rest = block.raw.translate(None, CLEAN_BYTES)  # the newlines, and any other byte
        proofs = prove_lines(block.text, block.lines, len(rest), BATCH, block.longest) \
            if fast("URL list blocks") and block.ended else None
        if proofs is None:  # nothing to strip unless some byte may begin a white space
            strip = bool(rest.translate(None, _NOT_SPACE_LEADS))
            yield from _line_batches(block, source, report, base_url, strip)
            continue
        first_line = block.start
        for proof in proofs:
            part = proof.locs
            yield Batch._trusted(part, source, range(first_line, first_line + len(part)),
                                 clean=proof)
            first_line += len(part)


def _line_batches(block: Block, source: str, report: Report, base_url: Optional[str],
                  strip: bool) -> Iterator[Batch]:
    """Batches of a block taken a line at a time; ``strip``: whether some line may hold white
    space."""
    lines = block.lines
    for start in range(0, len(lines), BATCH):
        first_line = block.start + start
        part = lines[start: start + BATCH]
        locs = list(map(str.strip, part)) if strip else part
        # blank lines, white space inside a line: one search over the batch (no line holds a NUL)
        if "" in locs or (strip and _SPACE.search("\0".join(locs)) is not None):
            keep = [i for i, loc in enumerate(locs)
                    if _one_url(loc, source, first_line + i, report)]
            locs = [locs[i] for i in keep]
            numbers: Sequence[int] = [first_line + i for i in keep]
        else:
            numbers = range(first_line, first_line + len(locs))
        if base_url and not all(map(str.startswith, locs, repeat(_SCHEMES))):
            locs = [resolve(base_url, loc) for loc in locs]
        if locs:
            yield Batch._trusted(locs, source, numbers)


def _one_url(loc: str, source: str, line: int, report: Report) -> bool:
    """Whether a stripped line is a URL to read: a blank one is not (nor reported); one with
    white space inside is a row of columns or words."""
    if not loc:
        return False
    if _SPACE.search(loc) is None:
        return True
    report.skip("white space in line", source, line, "contains white space; a list holds one "
                "URL per line (see the columns format)")
    return False
