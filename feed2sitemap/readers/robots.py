"""robots.txt as an input: the sitemaps its ``Sitemap:`` lines name (read as an index's are).

As Google reads them, a ``Sitemap:`` line may stand anywhere, its field name in any case; lines
end with LF, CRLF or CR, and a byte order mark is no part of the first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import IO, Optional
from urllib.parse import unquote

from ..errors import InputError
from ..model.batch import Batch
from ..model.report import Report

__all__ = ["AGENT", "Robots", "looks_like_robots", "read_robots"]

AGENT = "Googlebot"  # whose rules a Disallow is judged by

MAX_LINE = 64 * 1024  # a longer line is refused, not held (as in URL lists)
_BOM = b"\xef\xbb\xbf"
_FIELD = re.compile(r"^\s*(user-agent|disallow|allow|sitemap|crawl-delay|host)\s*:",
                    re.IGNORECASE | re.MULTILINE)
_SITEMAP = re.compile(rb"^\s*sitemap\s*:\s*(\S*)", re.IGNORECASE)


def looks_like_robots(name: str, head: bytes) -> bool:
    """A file named robots.txt, or text whose first field line is a robots.txt field."""
    if name.rstrip("/").rsplit("/", 1)[-1].split("?")[0].lower() == "robots.txt":
        return True
    text = head[:4096].decode("utf-8-sig", "replace")
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return _FIELD.match(line) is not None
    return False


def read_robots(stream: IO[bytes], source: str, report: Report,
                        base_url: Optional[str] = None) -> Iterator[Batch]:
    """Yield the sitemaps of the ``Sitemap:`` lines, as index entries (``is_sitemap``)."""
    locs: list[str] = []
    lines: list[Optional[int]] = []
    for number, raw in _lines(stream, source):
        m = _SITEMAP.match(raw)
        if m is None:
            continue
        url = m.group(1).decode("utf-8", "replace")
        if not url:
            report.skip("no loc", source, number, "Sitemap: line without a URL")
            continue
        locs.append(url)
        lines.append(number)
    if not locs:
        raise InputError(source, None, "robots.txt without a Sitemap: line")
    yield Batch._trusted(locs, source, lines, is_sitemap=True)


def _lines(stream: IO[bytes], source: str) -> Iterator[tuple[int, bytes]]:
    """The file's lines, numbered from 1, whatever their ending; the byte order mark left out."""
    number = 0
    carry = b""  # the last line of a chunk, perhaps not complete yet (or a CR a LF may follow)
    while raw := stream.readline(MAX_LINE + 1):
        if number == 0 and not carry and raw.startswith(_BOM):
            raw = raw[len(_BOM):]
        parts = (carry + raw).splitlines(keepends=True)
        carry = b"" if parts[-1].endswith(b"\n") else parts.pop()
        if len(carry) > MAX_LINE:
            raise InputError(source, number + len(parts) + 1,
                             f"line longer than {MAX_LINE:,} bytes")
        for part in parts:
            number += 1
            yield number, part
    if carry:
        yield number + 1, carry


class Robots:
    """The rules of one robots.txt, and the sitemaps its Sitemap: lines name."""

    def __init__(self, text: str, where: str) -> None:
        import urllib.robotparser  # (urllib.request with it: 50 ms no other check needs)

        self.where = where
        self._parser = urllib.robotparser.RobotFileParser()
        self._parser.parse(text.splitlines())
        self.sitemaps = [s.strip() for s in self._parser.site_maps() or []]

    def disallowed(self, url: str) -> bool:
        return not self._parser.can_fetch(AGENT, url)

    def lists(self, file_name: str, url: str | None) -> bool:
        """Whether a Sitemap: line names this sitemap: its public URL when known (from
        --base-url), else any URL whose last segment is the file's name."""
        # robotparser decodes the Sitemap: lines' escapes, and names are percent-encoded in
        # them (naming.url_segment): a name with a space is listed as "%20"
        if url is not None:
            return unquote(url) in self.sitemaps
        name = os.path.basename(file_name)
        return any(s.rstrip("/").rpartition("/")[2] == name for s in self.sitemaps)
