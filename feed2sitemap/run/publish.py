"""What a run does once its files are in place: robots.txt's Sitemap: lines, IndexNow for the
pages that changed; or, in a dry run, what it would do. The modules that edit robots.txt and
submit to IndexNow are imported by the runs that use them only (start-up time)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Optional

from ..errors import IndexNowError, OptionError
from ..files.naming import ours_pattern, split_name, url_segment
from ..model.scope import scope_of

if TYPE_CHECKING:
    from ..model.report import Submitted
    from ..web.indexnow import IndexNow
    from .writing import Summary


@dataclass(frozen=True)
class Publish:
    """What a run does once its files are in place."""

    robots: Optional[str] = None  # a robots.txt whose Sitemap: lines name what was written
    indexnow: Optional[IndexNow] = None  # submit the URLs added or updated
    dry_run: bool = False  # write nothing, send nothing: say what would be done

    def __post_init__(self) -> None:
        # (an int would be opened as a file descriptor, a str key found missing deep inside)
        if self.robots is not None and not isinstance(self.robots, (str, os.PathLike)):
            raise OptionError(f"must be a path, not {type(self.robots).__name__}", "robots")
        if self.indexnow is not None:
            from ..web.indexnow import IndexNow

            if not isinstance(self.indexnow, IndexNow):
                raise OptionError(f"must be an IndexNow, not {type(self.indexnow).__name__}",
                                  "indexnow")


def check_publish(publish: Publish, out_path: Optional[str], base_url: Optional[str],
                  base_name: Optional[str]) -> None:
    if publish.robots is not None and (out_path is None or base_url is None):
        raise OptionError("needs an `output` file and `base_url`: the Sitemap: lines name "
                          "the files' public URLs", "robots")
    if publish.robots is not None:
        from ..web.robotsfile import check_robots_path

        check_robots_path(publish.robots)  # a FIFO, a device, too large: before any write
    if publish.indexnow is not None and base_name is None:
        raise OptionError("needs the output among the inputs (feed2sitemap sitemap.xml "
                          "feed.xml -o sitemap.xml): what changed is what the run adds to or "
                          "updates in it", "indexnow")
    location = None if publish.indexnow is None else publish.indexnow.key_location
    if location is not None and base_url is not None:
        # IndexNow: a key file vouches for the URLs of its own host only
        from urllib.parse import urlsplit

        key_host, site_host = urlsplit(location).hostname, urlsplit(base_url).hostname
        if key_host != site_host:
            raise OptionError(f"the IndexNow key file must be on the host of the URLs it "
                              f"covers: {location} is on {key_host}, the site on {site_host}",
                              "indexnow_key_location")


def submit(indexnow: IndexNow, changes: Changes, out_path: str, cache_dir: Optional[str],
           dry_run: bool, summary: Summary) -> Submitted:
    """Submit the URLs an earlier run could not (kept in the pending file, web/indexnow.py),
    then ``changes`` (closed after). What a failure that may pass leaves unsent is kept there
    for the next run (the error says so); a refusal (a wrong key or request) keeps nothing:
    retrying would not help. The error carries ``summary``: the files are written."""
    from ..web.indexnow import clear_pending, pending_path, read_pending, save_pending

    pending = pending_path(out_path, cache_dir)
    earlier = read_pending(pending)
    kept = set(earlier)
    urls = chain(earlier, (url for url in changes if url not in kept))
    try:
        done = indexnow.submit(urls, dry_run=dry_run)
    except IndexNowError as exc:
        note = ""
        if exc.transient and not dry_run:
            try:
                note = f"; {save_pending(pending, exc.unsent):,} kept in {pending} for the next run"
            except OSError as why:
                note = (f"; they could not be kept for the next run ({pending}: "
                        f"{why.strerror})")
        elif not dry_run:
            clear_pending(pending)
        exc.args = (f"{exc}{note}. The sitemap files are written.",)
        exc.summary = summary  # the command says what was written, then this
        raise
    finally:
        changes.close()
    if not dry_run:
        clear_pending(pending)
    return done


class Changes:
    """The URLs a run added or updated, spooled to a temporary file (a first run may add
    millions)."""

    def __init__(self) -> None:
        import tempfile

        self._file = tempfile.TemporaryFile("w+", encoding="utf-8")

    def add(self, url: str) -> None:
        self._file.write(url + "\n")

    def __iter__(self) -> Iterator[str]:
        self._file.seek(0)
        return (line.rstrip("\n") for line in self._file)

    def close(self) -> None:
        self._file.close()


def robots(path: str, summary: Summary, out_path: str, base_url: str,
           lock_timeout: float) -> bool:
    """Name the index (or the one sitemap) in robots.txt, and the -index-N files when the
    index split (Google does not follow an index of indexes); whether robots.txt changed."""
    from urllib.parse import unquote

    from ..web.robotsfile import update_robots

    prefix = scope_of(base_url).prefix
    name = os.path.basename(out_path)
    stem, ext = split_name(name)
    level_one = re.compile(re.escape(stem) + r"-index-[1-9][0-9]*" + re.escape(ext))
    # the top file first (the index, or the one sitemap), then the index files it lists
    names = [name] + [os.path.basename(f.path or "") for f in summary.indexes[:-1]
                      if level_one.fullmatch(os.path.basename(f.path or ""))]
    urls = [prefix + url_segment(n) for n in names]  # as the index lists them (files/split.py)
    ours = ours_pattern(name)

    def is_ours(url: str) -> bool:
        # decoded: a line of an earlier version (a raw "é") or encoded otherwise is still ours
        rest = unquote(url[len(prefix):], errors="surrogateescape")
        return url.startswith(prefix) and (rest == name or ours.fullmatch(rest) is not None)

    return update_robots(path, urls, is_ours, lock_timeout)
