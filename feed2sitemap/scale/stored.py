"""The index step of a partitioned run whose output is in object storage, where the workers share
no disk: each uploads its parts into a staging folder beside the output (``staging``, then
``write_partition`` with that folder's URL), and the index step, under the bucket's lock, lists
them in the index, has the store copy each part that changed into place, and uploads the index
last, the commit point (files/store.py, ``Bucket.publish``).

A part is unchanged when the object already there has the staged one's ETag: every part is one
PUT (at most 50 MiB, under s3fs's multipart threshold), whose ETag is the MD5 of its bytes, and
a copy keeps it. Only the earlier index files are downloaded (to know the parts they own and to
leave an unchanged index alone), never the parts. A run removes its staging folder whatever
happens; one whose driver was killed leaves it, and a later run removes it after a day.
"""

from __future__ import annotations

import contextlib
import os
import time
import uuid
from collections.abc import Iterator
from typing import Optional

from ..errors import InputError
from ..files.naming import split_name
from ..files.outputs import FileInfo, OutputSet
from ..files.split import write_indexes
from ..files.store import Bucket
from ..model.limits import Profile
from ..model.report import Report
from ..model.scope import base_of
from ..run.converting import Summary
from .indexing import listed_parts
from .partition import PartManifest

__all__ = ["staging", "write_index_to_bucket"]


STALE_STAGING = 86_400.0  # seconds after which another run's staging folder is a dead run's


@contextlib.contextmanager
def staging(bucket: Bucket) -> Iterator[str]:
    """The URL of a new folder beside the output for the workers' parts (named for the time it
    was made), removed at the end whatever happened."""
    name = f".{bucket.name}.parts.{time.time():.0f}-{uuid.uuid4().hex[:8]}"
    try:
        yield f"{bucket.url.rpartition('/')[0]}/{name}"
    finally:
        bucket.remove_all(name + "/")


def write_index_to_bucket(bucket: Bucket, parts: list[PartManifest], stage_url: str,
                          prof: Profile, report: Report, level: Optional[int], base_url: str,
                          lock_timeout: float) -> Summary:
    """The index of ``parts`` (staged at ``stage_url``) at the bucket's output, the parts copied
    beside it; the earlier parts the new index no longer lists are removed after it."""
    name, stage = bucket.name, stage_url.rpartition("/")[2]
    stem = split_name(name)[0]
    prefix = base_of(base_url)[1].prefix
    with bucket.checked_out(lock_timeout, prefix, parts=False) as (earlier, work, prev):
        _remove_dead_stagings(bucket, stage)
        staged = bucket.listing(stage + "/")
        live = bucket.listing(stem + "-")

        def check(m: PartManifest, _: Profile) -> None:
            size = staged.get(f"{stage}/{os.path.basename(m.name)}", (None, ""))[0]
            if size != m.file_bytes:
                raise InputError(m.name, None, f"its manifest says {m.file_bytes:,} bytes, the "
                                 "bucket holds " + ("none" if size is None else f"{size:,}"))

        listed = listed_parts(parts, stage_url, name, prof, check)
        names = [os.path.basename(m.name) for m in listed]
        files = [FileInfo(None, m.urls, m.bytes, None if level is None else m.file_bytes,
                          m.newest, unchanged=live.get(n) == staged[f"{stage}/{n}"])
                 for m, n in zip(listed, names, strict=True)]
        out = OutputSet(os.path.join(work, name), base_prefix=prefix, lock_timeout=lock_timeout)
        try:
            indexes, all_names = write_indexes(files, name, prof, out, report, level, base_url,
                                               names)
            for info, n in zip(indexes, all_names[len(files):], strict=True):
                out.is_unchanged(info, n)
            owned = set(prev.owned())
            gone, kept = bucket.publish(
                [(i.temp or "", n) for i, n in zip(indexes, all_names[len(files):], strict=True)
                 if not i.unchanged], owned, earlier, sorted(owned - set(all_names)),
                stage, [n for f, n in zip(files, names, strict=True) if not f.unchanged])
        finally:
            out.close()
    for info, n in zip(files + indexes, all_names, strict=True):
        info.path, info.temp = bucket.url_of(n), None
    return Summary(files, indexes, gone, report, not_removed=kept,
                   unchanged=[f.path or "" for f in files + indexes if f.unchanged],
                   left=[bucket.url_of(n) for n in prev.others if bucket.exists(n)],
                   placed={f.path or "": "unchanged" if f.unchanged else "moved into place"
                           for f in files})


def _remove_dead_stagings(bucket: Bucket, ours: str) -> None:
    """Remove the staging folders of runs killed before they could remove theirs: those older
    than STALE_STAGING by the time in their name (a run still computing may hold the lock's
    turn later, so a younger one is left alone)."""
    prefix = f".{bucket.name}.parts."
    for folder in {n.partition("/")[0] for n in bucket.listing(prefix)} - {ours}:
        made = folder[len(prefix):].partition("-")[0]
        if made.isdigit() and time.time() - int(made) > STALE_STAGING:
            bucket.remove_all(folder + "/")
