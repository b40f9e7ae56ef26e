"""Following an index: each sitemap it lists stands for the records of its part, a file beside
the index (a missing one stops the run: an update would drop its URLs), an object beside it, or
fetched by URL (from the index's host only, at most ``max_parts``; skipped and reported, not
stopping the run, with ``skip_unreadable``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Optional, Union

from ..errors import InputError
from ..files.previous import part_relpath
from ..files.safety import leaves
from ..files.store import shown, store_exists
from ..model.batch import Batch
from ..model.record import Record
from ..model.report import Report
from ..web.fetch import redact

DEFAULT_MAX_PARTS = 1000  # parts fetched by URL in one run (each is a request to the site)
PartReader = Callable[[str], Iterable[Batch]]


def part_path(index: Record, directory: str, base_prefix: Optional[str] = None) -> str:
    """The local file of an index's <loc>: its path under ``base_prefix`` when that file
    exists, else its name beside the index. A name that would leave the directory ("..", an
    encoded "/") is refused, since the index may come from anywhere, and so is a symbolic link
    out of it: an in-place run would replace the part through the link."""
    paths = [os.path.join(directory, *rel.split("/")) for rel in _relpaths(index, base_prefix)]
    if not paths:
        raise InputError(index.source, index.line,
                         f"{index.loc[:200]} names no file of this directory (`follow`)")
    path = next((p for p in paths if os.path.isfile(p)), paths[0])
    if os.path.lexists(path) and leaves(path, directory):
        raise InputError(index.source, index.line,
                         f"part {path} is a symbolic link out of "
                         f"{os.path.abspath(directory)} (to "
                         f"{os.path.realpath(path)}): refused, as a part is read and replaced "
                         "in its index's directory; nothing was written")
    return path


class LocalParts:
    """The parts of an index read from a file, beside it; ``directory`` None for an index read
    from a stream, which has no directory to find its parts in."""

    def __init__(self, directory: Optional[str], read_part: PartReader,
                 base_prefix: Optional[str] = None) -> None:
        self.directory = directory
        self.read_part = read_part
        self.base_prefix = base_prefix

    def locate(self, index: Record) -> str:
        if self.directory is None:
            raise InputError(index.source, index.line,
                             "`follow` needs the index as a file: its parts are read beside it")
        path = part_path(index, self.directory, self.base_prefix)
        if not os.path.isfile(path):
            raise InputError(index.source, index.line,
                             f"part {index.loc[:200]} is missing: no file {path}"
                             f"{self.hint(index.loc)}; nothing was written")
        return path

    def hint(self, loc: str) -> str:
        """Where a missing part is, when it lies at its URL's path in a folder of the index's
        directory (read so with `base_url`)."""
        assert self.directory is not None
        found = _folder_part(loc, self.directory)
        if found is not None and found[0] != self.base_prefix:
            return (f", but there is {os.path.join(self.directory, found[1])}: give `base_url` "
                    f"{found[0]} to read parts at their path under it")
        if self.base_prefix is None:
            return (" (looked for by its name beside the index: `base_url`, the public URL of "
                    "the index's directory, reads parts in its folders)")
        return ""

    def read(self, where: str, index: Record) -> Iterable[Batch]:
        return self.read_part(where)

    def below(self, where: str) -> LocalParts:
        assert self.directory is not None  # (located: there is one)
        sub = os.path.dirname(where)
        prefix = self.base_prefix
        if prefix is not None and sub != self.directory:
            prefix += os.path.relpath(sub, self.directory).replace(os.sep, "/") + "/"
        return LocalParts(sub, self.read_part, prefix)


class StoreParts(LocalParts):
    """The parts of an index in object storage: objects beside it (``directory``, a URL),
    found by name as files are."""

    def locate(self, index: Record) -> str:
        urls = [f"{self.directory}/{rel}" for rel in _relpaths(index, self.base_prefix)]
        if not urls:
            raise InputError(index.source, index.line,
                             f"{index.loc[:200]} names no object of this folder (`follow`)")
        found = next((u for u in urls if store_exists(u)), None)
        if found is None:
            raise InputError(index.source, index.line, f"part {index.loc[:200]} is missing: "
                             f"no object {shown(urls[0])}; nothing was written")
        return found

    def below(self, where: str) -> StoreParts:
        sub = where.rpartition("/")[0]
        prefix = self.base_prefix
        if prefix is not None and sub != self.directory:
            prefix += sub[len(f"{self.directory}/"):] + "/"
        return StoreParts(sub, self.read_part, prefix)


class RemoteParts:
    def __init__(self, index_url: str, read_part: PartReader, report: Report, *,
                 same_host: bool = True, max_parts: int = DEFAULT_MAX_PARTS,
                 skip_unreadable: bool = False) -> None:
        from urllib.parse import urlsplit  # (2 ms of start-up, with ipaddress)

        try:
            self.host = _host(urlsplit(index_url).netloc)
        except ValueError:  # (the index's own fetch says what is wrong with it)
            self.host = ""
        self.read_part = read_part
        self.report = report
        self.same_host = same_host
        self.max_parts = max_parts
        self.skip_unreadable = skip_unreadable
        self.left = max_parts  # (the indexes below this one are read by this one too)

    def locate(self, index: Record) -> str:
        from urllib.parse import urlsplit

        loc = index.loc.strip()
        try:
            parts = urlsplit(loc)
        except ValueError as exc:  # (an unclosed "[" of an IPv6 address)
            raise InputError(index.source, index.line,
                             f"part {redact(loc)[:200]} is not a valid URL: {exc}") from None
        if parts.scheme.lower() not in ("http", "https"):
            raise InputError(index.source, index.line, f"part {redact(loc)[:200]} is not an "
                             "http(s) URL")
        if self.same_host and _host(parts.netloc) != self.host:
            raise InputError(index.source, index.line,
                             f"part {redact(loc)[:200]} is on another host than its index "
                             f"({self.host}); `scope_check=False` to fetch it anyway")
        return loc

    def read(self, where: str, index: Record) -> Iterator[Batch]:
        if self.left <= 0:  # (a part listed again is not read again: not counted twice)
            raise InputError(index.source, index.line, "the index lists more parts than one "
                             f"run fetches ({self.max_parts:,})")
        self.left -= 1
        try:
            yield from self.read_part(where)
        except InputError as exc:
            if not self.skip_unreadable:
                raise InputError(index.source, index.line, f"part cannot be read: {exc}; "
                                 "nothing was written (`skip_unreadable_parts` to go on "
                                 "without it)") from None
            self.report.skip("unreadable part", index.source, index.line,
                             f"part cannot be read: {exc}")

    def below(self, where: str) -> RemoteParts:
        return self


Parts = Union[LocalParts, RemoteParts]


def _relpaths(index: Record, base_prefix: Optional[str]) -> list[str]:
    """A part's path under ``base_prefix`` (the index's public folder), then its name alone."""
    rels = (part_relpath(index.loc, base_prefix), part_relpath(index.loc, None))
    return [rel for rel in rels if rel is not None]


def _folder_part(loc: str, directory: str) -> Optional[tuple[str, str]]:
    """The public URL of ``directory`` under which ``loc`` names a file in a folder of it, with
    that file's relative path; None when there is none."""
    end = min((i for i in (loc.find("?"), loc.find("#")) if i != -1), default=len(loc))
    i = loc.find("/", loc.find("//") + 2)
    while 0 <= i < end:
        rel = part_relpath(loc, loc[:i + 1])
        if rel is not None and "/" not in rel:
            break  # (beside the index: already looked for)
        if rel is not None and os.path.isfile(os.path.join(directory, *rel.split("/"))):
            return loc[:i + 1], rel
        i = loc.find("/", i + 1)
    return None


def _host(netloc: str) -> str:
    """A URL's host[:port], without the user and password that messages never show."""
    return netloc.rpartition("@")[2].lower()


def follow_index_batches(batches: Iterable[Batch], parts: Parts, report: Report,
                         depth: int = 2, seen: Optional[set[str]] = None) -> Iterator[Batch]:
    """Replace each sitemap of an index by the records of its part. A part may itself be an
    index (ours are, past 50,000 parts), down to ``depth`` levels. Each part is read once
    however often it is listed (an index naming one part 20,000 times would otherwise cost
    20,000 reads); a repeat is a counted warning."""
    seen = set() if seen is None else seen
    for batch in batches:
        if not batch.is_sitemap:
            yield batch
            continue
        for record in batch.records():
            if depth <= 0:
                raise InputError(record.source, record.line,
                                 "indexes nested deeper than two levels (`follow`)")
            where = parts.locate(record)
            if where in seen:
                report.warn("repeated part", record.source, record.line,
                            f"part {redact(where)[:200]} is listed again: read once",
                            record.loc)
                continue
            seen.add(where)
            yield from follow_index_batches(parts.read(where, record), parts.below(where),
                                            report, depth - 1, seen)
