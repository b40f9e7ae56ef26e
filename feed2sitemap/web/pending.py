"""IndexNow submissions that could not be made, kept for the next run.

A run whose submission fails for a reason that may pass (a 5xx answer, a timeout, no
connection), after its own retries, writes the URLs it could not submit to a pending file; the
next run sends them first, with its own, and removes the file once they are accepted. The file
is in ``--cache DIR`` when the run has one (``indexnow-pending-HASH.txt``, HASH naming the
output), else beside the output as ``.NAME.indexnow-pending``: a dot file, which web servers
commonly refuse to serve, and which holds nothing secret (the site's own URLs; never the key).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable
from typing import Optional

from ..files.safety import replace_file

__all__ = ["clear_pending", "pending_path", "read_pending", "save_pending"]

MAX_PENDING_BYTES = 256 << 20  # a bound on what a next run reads back


def pending_path(output: str, cache_dir: Optional[str]) -> str:
    """Where the URLs not yet submitted for ``output`` wait."""
    output = os.path.abspath(output)
    if cache_dir is not None:
        tag = hashlib.sha256(output.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return os.path.join(cache_dir, f"indexnow-pending-{tag}.txt")
    directory, name = os.path.split(output)
    return os.path.join(directory, f".{name}.indexnow-pending")


def read_pending(path: str) -> list[str]:
    """The URLs waiting at ``path`` (none when it is missing or unreadable)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_PENDING_BYTES)
    except (OSError, UnicodeDecodeError):
        return []
    return [line for line in text.split("\n") if line.startswith(("http://", "https://"))]


def save_pending(path: str, urls: Iterable[str]) -> int:
    """Write ``urls`` (each once) to ``path`` atomically; return how many."""
    unique = list(dict.fromkeys(urls))
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)  # (as --cache is made)
    replace_file(path, "".join(url + "\n" for url in unique).encode("utf-8"))
    return len(unique)


def clear_pending(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
