"""check --follow: where the parts an index lists are on disk, and which nested index is ours.

A part is found the way the converter finds it (follow.part_path): by its path under the
index's own URL directory (--base-url, else the directory of the index's first <loc>), then by
its last segment beside the index. A part the index lists but no file holds is an error: the
site would serve a 404 for it, and a search engine drops the whole part.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..files.naming import ours_pattern, split_name
from ..model.record import Record
from ..run.follow import part_path

__all__ = ["FOLLOW_DEPTH", "Part", "below_prefix", "locate_part", "ours_nested"]

# As follow.follow_index_batches: an index, the indexes the converter writes past 50,000
# parts, their sitemaps. Deeper nesting is an error (sitemaps.org allows none at all).
FOLLOW_DEPTH = 2


@dataclass(frozen=True)
class Part:
    """A part an index lists and a file holds, with the index's position of its <loc>."""

    path: Path
    line: int
    column: int


def locate_part(index_name: str, directory: Path, prefix: str, loc: str,
                line: int) -> tuple[Path | None, str]:
    """The part file of ``loc`` (a normalised <loc> of the index ``index_name``), or None and
    why not. ``prefix`` is the public URL of ``directory``."""
    record = Record(loc, is_sitemap=True, source=index_name, line=line)
    try:
        path = part_path(record, os.fspath(directory), prefix)
    except InputError as exc:
        return None, exc.reason
    if not os.path.isfile(path):
        return None, f"part {loc[:200]} is missing: no file {path}"
    return Path(path), ""


def below_prefix(prefix: str, directory: Path, part: Path) -> str:
    """The public URL of a nested index's directory (as follow.LocalParts.below)."""
    sub = part.parent
    if sub == directory:
        return prefix
    return prefix + os.path.relpath(sub, directory).replace(os.sep, "/") + "/"


def ours_nested(listed_in: str, name: str) -> bool:
    """True when ``name`` is an index file the converter writes beside the index ``listed_in``
    (STEM-index-N.EXT: past 50,000 parts the top index lists indexes, since one index cannot
    list them all)."""
    top = os.path.basename(listed_in)
    base = os.path.basename(name)
    stem, _ = split_name(top)
    return base.startswith(stem + "-index") and ours_pattern(top).fullmatch(base) is not None
