"""A run whose output is in object storage: the earlier set is fetched into a private folder
under the bucket's lock, the ordinary local run updates that copy (so in-place growth, merging,
ownership of parts and unchanged files work exactly as on disk), and what changed is published
to the bucket in order, the index last (files/store.py)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from typing import Any, Optional

from ..errors import Feed2SitemapError, OptionError
from ..files.naming import journal_path
from ..files.previous import Previous, previous_output
from ..files.store import Bucket
from ..model.report import Report
from .writing import Summary, public_prefix

__all__ = ["to_store"]

_DEPTH = 4  # the top index, STEM-index-N, STEM-index2-N, then their parts


def to_store(convert: Callable[..., Summary], args: dict[str, Any]) -> Summary:
    """``convert(**args)`` with ``args["output"]`` a URL of object storage."""
    url: str = args["output"]
    publish, writing = args["publish"], args["writing"]
    if publish.robots is not None or publish.indexnow is not None:
        raise OptionError("robots.txt and IndexNow are not supported with an output in object "
                          "storage yet", "output")
    bucket = Bucket(url, writing.cache_control)
    report = args["report"] or Report(strict=args["strict"])
    with tempfile.TemporaryDirectory(prefix="feed2sitemap-") as tmp, \
            bucket.locked(writing.lock_timeout):
        earlier, work = os.path.join(tmp, "was"), os.path.join(tmp, "new")
        os.mkdir(earlier)
        prev = _fetch_set(bucket, earlier, public_prefix(args["base_url"]))
        shutil.copytree(earlier, work)
        local = os.path.join(work, bucket.name)
        with _named_as_bucket(report, work, bucket):
            summary: Summary = convert(**{
                **args, "report": report, "output": local,
                "inputs": [local if s == url else s for s in args["inputs"]]})
            if summary.dry_run:
                summary.removed = [bucket.url_of(os.path.basename(p)) for p in summary.removed]
            else:
                if args["progress"] is not None:  # (in place once uploaded, not before)
                    args["progress"].written = False
                unchanged = {os.path.basename(p) for p in summary.unchanged}
                files = [(f.path, os.path.basename(f.path)) for f in summary.files
                         if f.path is not None and os.path.basename(f.path) not in unchanged]
                summary.removed, summary.not_removed = bucket.publish(
                    files, set(prev.owned()), earlier,
                    [os.path.basename(p) for p in summary.removed])
                if args["progress"] is not None:
                    args["progress"].committed()
    for f in summary.files:
        if f.path is not None:
            f.path = bucket.url_of(os.path.basename(f.path))
    summary.unchanged = [bucket.url_of(os.path.basename(p)) for p in summary.unchanged]
    summary.cleaned = []
    if summary.merge is not None and summary.merge.base is not None:
        summary.merge.base = bucket.url_of(os.path.basename(summary.merge.base))
    return summary


def _fetch_set(bucket: Bucket, folder: str, base_prefix: Optional[str]) -> Previous:
    """Download the output, its run's journal and the files they own (nested indexes first,
    then what those list) into ``folder``; what the earlier run left there, as read there."""
    path = os.path.join(folder, bucket.name)
    bucket.fetch([bucket.name, os.path.basename(journal_path("", bucket.name))], folder)
    fetched: set[str] = set()
    prev = previous_output(path, base_prefix)
    for _ in range(_DEPTH):
        missing = [n for n in prev.owned() if n not in fetched]
        if not missing:
            break
        bucket.fetch(missing, folder)
        fetched.update(missing)
        prev = previous_output(path, base_prefix)
    return prev


@contextlib.contextmanager
def _named_as_bucket(report: Report, work: str, bucket: Bucket) -> Iterator[None]:
    """Messages and errors name the bucket's objects, not the private copies."""
    folder = bucket.url_of("")
    say = report.on_message

    def rename(text: str) -> str:
        return text.replace(work + os.sep, folder).replace(work, folder.rstrip("/"))

    if say is not None:
        report.on_message = lambda text: say(rename(text))
    try:
        yield
    except Feed2SitemapError as exc:
        exc.args = tuple(rename(a) if isinstance(a, str) else a for a in exc.args)
        raise
    finally:
        report.on_message = say

