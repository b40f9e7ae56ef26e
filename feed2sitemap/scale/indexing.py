"""The index step of a partitioned run: list the parts that partitions wrote (partition.py) in one
sitemap index, through the command's own output set (files/outputs.py), so with its lock, its
ownership of parts, its removal of parts no longer listed, and nothing changed on failure.

Parts are known from their manifests, or read again when there are none. A part already beside
the index (a Spark job that wrote there) stays where it is; a part elsewhere (a staging
directory) is moved into place, and left alone when its bytes are the ones already there.

In object storage the workers share no disk: each uploads its parts into a staging folder beside
the output, and the index step, under the bucket's lock, has the store copy each part that
changed into place and uploads the index last (``Bucket.publish``). A part is unchanged when the
object there has the staged one's ETag: every part is one PUT (at most 50 MiB, under s3fs's
multipart threshold), whose ETag is the MD5 of its bytes, and a copy keeps it. Only the earlier
index files are downloaded, never the parts.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Optional, Union

from ..errors import InputError, LimitError, OptionError, OutputError
from ..files.naming import ours_pattern, split_name
from ..files.outputs import FileInfo, OutputSet
from ..files.safety import same_file
from ..files.split import DEFAULT_GZIP_LEVEL, newest_of, write_indexes
from ..files.store import Bucket, is_store
from ..model.limits import Profile, profile_of
from ..model.options import Limits, WriteOptions
from ..model.record import Lastmod, lastmod_key
from ..model.report import Progress, Report
from ..model.scope import base_of
from ..readers.detect import open_input, sniff
from ..readers.sitemap import read_sitemap
from ..run.converting import Summary
from ..web.cache import open_regular
from .partition import PartManifest

__all__ = ["PartRef", "bucket_staging", "index_output", "open_regular", "read_manifest",
           "read_part", "write_index", "write_index_to", "write_index_to_bucket"]

PartRef = Union[PartManifest, str, "os.PathLike[str]"]


def read_manifest(path: str) -> list[PartManifest]:
    """The manifests in a JSON Lines file (one ``PartManifest.as_dict`` object a line, or one
    JSON list of them), each ``name`` made a path relative to the manifest's own directory."""
    try:
        with open_regular(path) as raw:
            text = raw.read(64 << 20).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not UTF-8 text (byte {exc.start})") from None
    rows: list[tuple[object, Optional[int]]]
    if text.lstrip().startswith("["):
        rows = [(d, None) for d in _manifest_json(text, path, None)]
    else:
        rows = [(_manifest_json(row, path, n), n)
                for n, row in enumerate(text.splitlines(), 1) if row.strip()]
    here = os.path.dirname(os.path.abspath(path))
    return [replace(m, name=os.path.join(here, m.name))
            for m in (PartManifest.from_dict(data, path, line) for data, line in rows)]


def _manifest_json(text: str, path: str, line: Optional[int]) -> Any:
    """The JSON value of a manifest (or of one of its lines); an InputError for anything json
    refuses, nesting too deep for it included (RecursionError: 100,000 "[" on a line)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise InputError(path, line, "not a part manifest: JSON nested too deeply") from None
    except ValueError as exc:
        raise InputError(path, line, f"not a part manifest: {exc}") from None
    if line is None and not isinstance(value, list):
        raise InputError(path, None, "not a part manifest: not a JSON list")
    return value


def is_manifest(path: str) -> bool:
    """Whether a file given to the index step is a manifest (JSON) rather than a part."""
    try:
        with open_regular(path) as f:
            head = f.read(64).lstrip()
    except InputError:
        return False
    return head[:1] in (b"{", b"[")


def read_part(path: str, profile: Profile) -> PartManifest:
    """A part's manifest, read from the part itself (streaming): its URLs counted, its
    uncompressed size measured and its newest lastmod found; it must be an XML sitemap within
    the profile's limits."""
    report = Report()
    urls = 0
    newest: Optional[Lastmod] = None
    try:
        with open_regular(path) as raw:
            stream, head = open_input(raw, path)
            if not head or sniff(head, path) != "sitemap":
                raise InputError(path, None, "not an XML sitemap: only sitemaps (<urlset>) can "
                                             "be listed as parts")
            for batch in read_sitemap(stream, path, report):
                if batch.is_sitemap:
                    raise InputError(path, None, "is a sitemap index: only sitemaps (<urlset>) "
                                                 "can be listed as parts")
                urls += len(batch.locs)
                newest = newest_of([newest, *(batch.lastmods or ())])
            # uncompressed: the bytes open_input's stream gave, read to its end
            size = stream.raw.count  # type: ignore[attr-defined]
            file_bytes = os.fstat(raw.fileno()).st_size
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if report.total_skipped or report.warnings:
        raise InputError(path, None, "the part has invalid entries; check it with "
                                     "feed2sitemap check")
    return PartManifest(path, urls, size, file_bytes, newest)


def write_index(parts: Iterable[PartRef], output: str, *, base_url: str,
                directory: Optional[str] = None, limits: Limits = Limits(),
                writing: WriteOptions = WriteOptions(), report: Optional[Report] = None,
                progress: Optional[Progress] = None) -> Summary:
    """Write the sitemap index at ``output`` listing ``parts`` (manifests, or paths of parts to
    read), each as ``base_url`` joined with its file name; split into STEM-index-N files past
    the profile's sitemaps per index, as the command does. Part names must be the output's own
    (STEM-PARTITION-K.EXT or STEM-N.EXT, the output's extension): only those are ours to
    replace and remove later. A manifest's bare name lies in ``directory`` (default: the
    output's). Parts elsewhere than beside ``output`` are moved there. Returns the summary the
    command gives; raises Feed2SitemapError subclasses, with nothing changed, on bad parts.
    """
    prof = profile_of(limits.profile)
    if is_store(output):
        raise OptionError("the index step writes to object storage only in feed2sitemap.dask "
                          "(whose workers stage the parts there): write to a folder and copy "
                          "it, or use the command", "output")
    with index_output(output, base_url, writing, progress) as (out, beside, level):
        return write_index_to(out, parts, directory or beside, prof,
                              report if report is not None else Report(), level, base_url)


def check_index_writing(writing: WriteOptions, output: str) -> Optional[int]:
    """What of ``writing`` an index step takes: XML, gzipped as its name says (``.gz``), at
    ``gzip_level``; atomic or not; ``lock_timeout``. Anything else is said, not ignored.
    Returns the gzip level of a .gz index, None for XML."""
    if writing.to not in (None, "xml"):
        raise OptionError(f"an index is written as XML, not {writing.to!r}", "to")
    if writing.gzip is not None and writing.gzip != output.endswith(".gz"):
        raise OptionError(f"{output}: the index's name says whether it is gzipped (.gz)", "gzip")
    if writing.index != "auto":
        raise OptionError("an index step always writes an index", "index")
    if not output.endswith(".gz"):
        return None
    level = DEFAULT_GZIP_LEVEL if writing.gzip_level is None else writing.gzip_level
    if not 0 <= level <= 9:
        raise OptionError("must be between 0 and 9", "gzip_level")
    return level


@contextlib.contextmanager
def index_output(output: str, base_url: str, writing: WriteOptions,
                 progress: Optional[Progress] = None
                 ) -> Iterator[tuple[OutputSet, str, Optional[int]]]:
    """The output set of an index step (its directory locked, the replaced index read), its
    directory, and ``check_index_writing``'s gzip level. A distributed run takes it before its
    workers start, so that no other run writes there meanwhile."""
    prefix = base_of(base_url)[1].prefix
    if not output:
        raise OptionError("the index step writes a file: give an output path")
    level = check_index_writing(writing, output)
    out = OutputSet(output, progress=progress, atomic=writing.atomic, base_prefix=prefix,
                    lock_timeout=writing.lock_timeout)
    try:
        assert out.directory is not None
        yield out, out.directory, level
    finally:
        out.close()


def write_index_to(out: OutputSet, parts: Iterable[PartRef], directory: str, prof: Profile,
                   report: Report, level: Optional[int], base_url: str) -> Summary:
    """``write_index`` into an output set already taken (``index_output``), gzipped at
    ``level``."""
    assert out.path is not None
    name = os.path.basename(out.path)
    try:
        listed = _listed_parts(parts, directory, name, prof)
        return _commit(listed, out, name, prof, report, level, base_url)
    except OSError as exc:
        raise OutputError(f"{out.display}: cannot write: {exc.strerror or exc}; nothing was "
                          "replaced") from None
    finally:
        out.abort()


def _listed_parts(parts: Iterable[PartRef], directory: str, name: str, prof: Profile,
                 check: Optional[Callable[[PartManifest, Profile], None]] = None
                 ) -> list[PartManifest]:
    """Every part as a manifest with its path, checked against its file (by ``check``, default
    read again) and the limits, in the order of their numbers (partition, then K)."""
    ours = ours_pattern(name)
    stem = split_name(name)[0]
    seen: dict[str, str] = {}
    out = []
    for ref in parts:
        if isinstance(ref, PartManifest):
            path = os.path.join(directory, ref.name)
            m = PartManifest(path, ref.urls, ref.bytes, ref.file_bytes, ref.newest)
            (check or _check_file)(m, prof)
        else:
            m = read_part(os.fspath(ref), prof)
        base = os.path.basename(m.name)
        if not ours.fullmatch(base) or base[len(stem):].startswith("-index"):
            raise InputError(m.name, None, f"a part beside {name} must be named "
                             f"{stem}-PARTITION-K{split_name(name)[1]} (the output's stem "
                             "and extension): only such files are replaced and removed by "
                             "later runs")
        if base in seen:
            raise InputError(m.name, None, f"two parts named {base} (the other is {seen[base]})")
        seen[base] = m.name
        if m.urls < 1 or m.urls > prof.max_urls or m.bytes > prof.max_bytes:
            raise LimitError(f"{m.name}: {m.urls:,} URLs, {m.bytes:,} bytes: a part must hold "
                             f"1 to {prof.max_urls:,} URLs in at most {prof.max_bytes:,} bytes "
                             f"(profile {prof.name})")
        out.append(m)
    if not out:
        raise InputError(None, None, "no parts to list in an index (no URLs to write)")
    return sorted(out, key=lambda m: [int(n) for n in re.findall(
        r"[0-9]+", os.path.basename(m.name)[len(stem):])])


def _check_file(m: PartManifest, prof: Profile) -> None:
    """The part a manifest describes, read: every number of the manifest must be the file's
    own (the index lists its URLs and lastmod; a manifest is no proof of what a file holds)."""
    try:
        size = os.stat(m.name).st_size
    except ValueError:
        raise InputError(m.name.replace("\0", "\\0"), None, "the manifest lists it, but a "
                         "file name cannot hold a NUL byte") from None
    except OSError as exc:
        raise InputError(m.name, None, f"the manifest lists it, but it cannot be read: "
                         f"{exc.strerror}") from None
    if size != m.file_bytes:
        raise InputError(m.name, None, f"is {size:,} bytes, its manifest says {m.file_bytes:,}: "
                         "it changed since it was written")
    read = read_part(m.name, prof)
    for what, count, said in (("URLs", read.urls, m.urls),
                              ("uncompressed bytes", read.bytes, m.bytes)):
        if count != said:
            raise InputError(m.name, None, f"holds {count:,} {what}, its manifest says "
                             f"{said:,}: it changed since it was written")
    keys = [None if lm is None else lastmod_key(lm) for lm in (read.newest, m.newest)]
    if keys[0] != keys[1]:
        raise InputError(m.name, None, "its newest lastmod is not the one its manifest says: "
                         "it changed since it was written")


def _commit(listed: Sequence[PartManifest], out: OutputSet, name: str, prof: Profile,
            report: Report, level: Optional[int], base_url: str) -> Summary:
    assert out.directory is not None
    files: list[FileInfo] = []
    names: list[str] = []
    kept: list[str] = []
    for m in listed:
        base = os.path.basename(m.name)
        if same_file(os.path.dirname(os.path.abspath(m.name)), out.directory):
            info = FileInfo(m.name, unchanged=False)  # written in place by the job itself
            kept.append(base)
        else:
            # staged: put in place on commit like a temporary, and left be by a failed run
            info = FileInfo(None, temp=m.name)
        info.count, info.size, info.newest = m.urls, m.bytes, m.newest
        if level is not None:
            info.compressed_size = m.file_bytes
        files.append(info)
        names.append(base)
    indexes, all_names = write_indexes(files, name, prof, out, report, level, base_url, names)
    every = files + indexes
    moving = [(f, n) for f, n in zip(every, all_names, strict=True) if n not in kept]
    out.commit([f for f, _ in moving], [n for _, n in moving], kept, report)
    prev = out.previous
    placed = {f.path or "": "left in place" if n in kept else
              "unchanged" if f.unchanged else "moved into place"
              for f, n in zip(files, names, strict=True)}
    return Summary(files, indexes, out.removed, report, unchanged=out.unchanged,
                   cleaned=out.cleaned, not_removed=out.not_removed,
                   left=[p for p in (os.path.join(prev.directory, n) for n in prev.others)
                         if os.path.isfile(p)], placed=placed)


STALE_STAGING = 86_400.0  # seconds after which another run's staging folder is a dead run's


@contextlib.contextmanager
def bucket_staging(bucket: Bucket) -> Iterator[str]:
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

        listed = _listed_parts(parts, stage_url, name, prof, check)
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
