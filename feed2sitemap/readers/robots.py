"""robots.txt as an input: the sitemaps its ``Sitemap:`` lines name (read as an index's are).

Google's robots.txt rules: a ``Sitemap:`` line may stand anywhere in the file, its field name
in any case, with a full URL; it is not part of any group. Other lines are not ours to read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import IO, Optional

from ..batch import Batch
from ..errors import InputError
from ..report import Report

__all__ = ["looks_like_robots", "read_robots"]

MAX_LINE = 64 * 1024  # a longer line is refused, not held (as in URL lists)
_FIELD = re.compile(r"^\s*(user-agent|disallow|allow|sitemap|crawl-delay|host)\s*:",
                    re.IGNORECASE | re.MULTILINE)
_SITEMAP = re.compile(rb"^\s*sitemap\s*:\s*(\S*)", re.IGNORECASE)


def looks_like_robots(name: str, head: bytes) -> bool:
    """A file named robots.txt, or text whose first field line is a robots.txt field."""
    if name.rstrip("/").rsplit("/", 1)[-1].split("?")[0].lower() == "robots.txt":
        return True
    text = head[:4096].decode("utf-8", "replace")
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
    for number, raw in enumerate(iter(lambda: stream.readline(MAX_LINE + 1), b""), 1):
        if len(raw) > MAX_LINE:
            raise InputError(source, number, f"line longer than {MAX_LINE:,} bytes")
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
    yield Batch(locs, source, lines, is_sitemap=True)
