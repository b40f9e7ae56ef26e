"""A run whose output is in object storage: the earlier set is fetched into a private folder
under the bucket's lock, the ordinary local run updates that copy (so in-place growth, merging,
ownership of parts and unchanged files work exactly as on disk), and what changed is published
to the bucket in order, the index last (files/store.py)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import Feed2SitemapError, OptionError
from ..files.store import Bucket
from ..model.report import Report
from .writing import Summary, public_prefix

__all__ = ["to_store"]


def to_store(convert: Callable[..., Summary], args: dict[str, Any]) -> Summary:
    """``convert(**args)`` with ``args["output"]`` a URL of object storage."""
    url: str = args["output"]
    publish, writing = args["publish"], args["writing"]
    if publish.robots is not None or publish.indexnow is not None:
        raise OptionError("robots.txt and IndexNow are not supported with an output in object "
                          "storage yet", "output")
    bucket = Bucket(url, writing.cache_control)
    report = args["report"] or Report(strict=args["strict"])
    with bucket.checked_out(writing.lock_timeout, public_prefix(args["base_url"])) as (
            earlier, work, prev):
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

