"""What a run does once its files are in place: robots.txt's Sitemap: lines, IndexNow for the
pages that changed; or, in a dry run, what it would do."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..errors import IndexNowError, OptionError
from ..files.naming import ours_pattern, split_name, url_segment
from ..files.outputs import OutputSet
from ..model.scope import scope_of

if TYPE_CHECKING:  # (IndexNow and robots.txt: imported by the runs that use them, start-up)
    from ..web.indexnow import IndexNow
    from .writing import Summary

__all__ = ["Changes", "Publish", "check_publish", "robots", "submit"]



@dataclass(frozen=True)
class Publish:
    """What a run does once its files are in place."""

    robots: Optional[str] = None  # a robots.txt whose Sitemap: lines name what was written
    indexnow: Optional[IndexNow] = None  # submit the URLs added or updated
    dry_run: bool = False  # write nothing, send nothing: say what would be done


def check_publish(publish: Publish, out_path: Optional[str], base_url: Optional[str],
                   base_name: Optional[str]) -> None:
    if publish.robots is not None and (out_path is None or base_url is None):
        raise OptionError("needs an `output` file and `base_url`: the Sitemap: lines name "
                          "the files' public URLs", "robots")
    if publish.robots is not None:
        from ..web.robotsfile import check_robots_path  # (only a run that edits robots.txt)

        check_robots_path(publish.robots)  # a FIFO, a device, too large: before any write
    if publish.indexnow is not None and base_name is None:
        raise OptionError("needs the output among the inputs (feed2sitemap sitemap.xml "
                          "feed.xml -o sitemap.xml): what changed is what the run adds to or "
                          "updates in it", "indexnow")


class Changes:
    """The URLs a run added or updated, spooled to a temporary file (a first run may add
    millions)."""

    def __init__(self) -> None:
        import tempfile  # (only a run that submits to IndexNow: start-up time)

        self._file = tempfile.TemporaryFile("w+", encoding="utf-8")
        self.count = 0

    def add(self, url: str) -> None:
        self._file.write(url + "\n")
        self.count += 1

    def __iter__(self) -> Iterator[str]:
        self._file.seek(0)
        return (line.rstrip("\n") for line in self._file)

    def __enter__(self) -> Changes:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


def robots(path: str, summary: Summary, out: OutputSet, base_url: str,
           dry_run: bool, lock_timeout: float = 60.0) -> Optional[bool]:
    """Name the index (or the one sitemap) in robots.txt, and the -index-N files when the
    index split (Google does not follow an index of indexes)."""
    prefix = scope_of(base_url).prefix
    assert out.path is not None
    name = os.path.basename(out.path)
    stem, ext = split_name(name)
    level_one = re.compile(re.escape(stem) + r"-index-[1-9][0-9]*" + re.escape(ext))
    # the top file first (the index, or the one sitemap), then the index files it lists
    names = [name] + [os.path.basename(f.path or "") for f in summary.indexes[:-1]
                      if level_one.fullmatch(os.path.basename(f.path or ""))]
    urls = [prefix + url_segment(n) for n in names]  # as the index lists them (files/split.py)
    ours = ours_pattern(name)
    from urllib.parse import unquote  # (only a run that edits robots.txt)

    def is_ours(url: str) -> bool:
        # decoded: a line of an earlier version (a raw "é") or encoded otherwise is still ours
        rest = unquote(url[len(prefix):], errors="surrogateescape")
        return url.startswith(prefix) and (rest == name or ours.fullmatch(rest) is not None)

    if dry_run:
        return None
    from ..web.robotsfile import update_robots

    return update_robots(path, urls, is_ours, lock_timeout)


def submit(summary: Summary, indexnow: IndexNow, changes: Changes, dry_run: bool) -> None:
    try:
        summary.indexnow = indexnow.submit(changes, dry_run=dry_run)
    except IndexNowError as exc:
        exc.summary = summary
        raise
