"""Keeping the ``Sitemap:`` lines of a robots.txt in step with what a run wrote.

Search engines learn of a sitemap from robots.txt (Google's ping endpoint is gone since 2023).
A run names its index (or its single sitemap) there, and each STEM-index-N file when the index
itself had to split, since Google does not follow an index of indexes. Lines naming this
output's files are replaced; every other line, other sitemaps' included, is kept byte for byte.
The file is replaced as sitemaps are: atomically, its mode, owner and links kept, and not at
all when nothing changed.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable

from .errors import OutputError
from .filesafety import deferred_signals, keep_metadata, make_temp, move_into_place, real_target

__all__ = ["update_robots"]

_SITEMAP = re.compile(rb"^[ \t]*sitemap[ \t]*:[ \t]*(\S*)", re.IGNORECASE)


def update_robots(path: str, urls: list[str], ours: Callable[[str], bool]) -> bool:
    """Make ``path`` list exactly ``urls`` among the Sitemap: lines that ``ours`` claims;
    return whether the file changed. A missing file is created."""
    try:
        with open(path, "rb") as f:
            old = f.read(1 << 24)
    except FileNotFoundError:
        old = b""
    except OSError as exc:
        raise OutputError(f"{path}: cannot read: {exc.strerror}") from None
    lines = old.splitlines(keepends=True)
    eol = b"\r\n" if lines and lines[0].endswith(b"\r\n") else b"\n"
    kept: list[bytes] = []
    existing: dict[str, bytes] = {}  # our lines as they were: kept to the byte when still right
    at = None
    for line in lines:
        m = _SITEMAP.match(line)
        if m is not None and ours(url := m.group(1).decode("utf-8", "replace")):
            existing.setdefault(url, line if line.endswith((b"\n", b"\r")) else line + eol)
            if at is None:
                at = len(kept)
            continue
        kept.append(line)
    new_lines = [existing.get(url) or f"Sitemap: {url}".encode() + eol for url in urls]
    if at is None:
        at = len(kept)
        if kept and not kept[-1].endswith((b"\n", b"\r")):
            kept[-1] += eol
    new = b"".join(kept[:at] + new_lines + kept[at:])
    if new == old:
        return False
    _replace(path, new)
    return True


def _replace(path: str, data: bytes) -> None:
    target = real_target(path)
    directory = os.path.dirname(os.path.abspath(target))
    mask = os.umask(0)
    os.umask(mask)
    # Held: a signal while the temporary exists (an interrupted run raises there) left it
    # behind, empty or not (issue 35, item 21); the file is small, the hold short.
    with deferred_signals():
        try:
            temp = make_temp(directory, f".{os.path.basename(target)}.")
        except OSError as exc:
            raise OutputError(f"{path}: cannot write: no temporary file can be made in "
                              f"{directory} ({exc.strerror})") from None
        try:
            with open(temp, "wb") as f:
                f.write(data)
            keep_metadata(temp, target, 0o666 & ~mask)
            move_into_place(temp, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise OutputError(f"{path}: cannot write: {exc.strerror or exc}") from None
