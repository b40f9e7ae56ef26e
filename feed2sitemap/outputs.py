"""Where the files of a run go: temporaries beside the target, renamed only on success; stdout
through a spool; the part names of a split set and the removal of stale ones."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import IO, Optional, Protocol

from .errors import OutputError
from .record import Lastmod
from .report import Progress

__all__ = ["BinaryOut", "FileInfo", "OutputSet", "part_names", "split_name"]


@dataclass
class FileInfo:
    """One output file: final path, entry count, exact sizes, newest lastmod of its entries."""

    path: Optional[str]
    count: int = 0
    size: int = 0  # uncompressed bytes
    compressed_size: Optional[int] = None
    newest: Optional[Lastmod] = None
    temp: Optional[str] = field(default=None, repr=False)


class BinaryOut(Protocol):
    """What a part is written to: a temporary file, or a spool for stdout."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...

    def tell(self) -> int: ...

    def close(self) -> None: ...


_GZ = ".gz"


def split_name(name: str) -> tuple[str, str]:
    """'sitemap.xml.gz' → ('sitemap', '.xml.gz'); 'urls.txt' → ('urls', '.txt'); the case of
    the name is kept ('SITEMAP.XML.GZ' → ('SITEMAP', '.XML.GZ')), and ".gz" found in any."""
    gz = ""
    if name[-len(_GZ):].lower() == _GZ:
        name, gz = name[: -len(_GZ)], name[-len(_GZ):]
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem:
        return name, gz
    return stem, "." + ext + gz


def part_names(name: str, n: int, kind: str = "") -> list[str]:
    """The file names of n parts beside ``name``: STEM-1.EXT … (STEM-index-1.EXT for indexes)."""
    stem, ext = split_name(name)
    infix = f"-{kind}" if kind else ""
    return [f"{stem}{infix}-{i}{ext}" for i in range(1, n + 1)]


def _stale_pattern(name: str) -> re.Pattern[str]:
    stem, ext = split_name(name)
    return re.compile(re.escape(stem) + r"-(?:index[0-9]*-)?[1-9][0-9]*" + re.escape(ext))


class OutputSet:
    """The files of one run: written as temporaries beside the target, renamed on commit.

    ``path`` None means ``stream`` (stdout): then only one file can be written, and it is spooled
    to a temporary file and copied out on commit, so a failed run writes nothing at all.
    """

    def __init__(self, path: Optional[str], stream: Optional[IO[bytes]] = None,
                 progress: Optional[Progress] = None) -> None:
        self.path = path
        self.progress = progress
        self.stream = stream
        self.directory = os.path.dirname(os.path.abspath(path)) if path else None
        # Fail before reading anything when the output cannot be written at all (a merge reads
        # every input before it writes its first byte).
        if self.directory is not None and not os.path.isdir(self.directory):
            why = "is not a directory" if os.path.exists(self.directory) else "does not exist"
            raise OutputError(f"{path}: cannot write: {self.directory} {why}")
        if path is not None and os.path.isdir(path):
            raise OutputError(f"{path}: cannot write: it is a directory")
        self._temps: list[str] = []
        self._spools: list[IO[bytes]] = []
        self.removed: list[str] = []
        mask = os.umask(0)
        os.umask(mask)
        self._mode = 0o666 & ~mask

    def open_temp(self, n: int) -> tuple[BinaryOut, FileInfo]:
        info = FileInfo(None)
        if self.progress is not None:
            self.progress.opened()
        if self.path is None:
            spool = tempfile.TemporaryFile()
            self._spools.append(spool)
            return _KeepOpen(spool), info
        base = os.path.basename(self.path)
        try:
            fd, temp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=self.directory)
        except OSError as exc:
            raise OutputError(f"cannot write in {self.directory}: {exc.strerror}") from None
        self._temps.append(temp)
        info.temp = temp
        return os.fdopen(fd, "wb"), info

    def commit(self, files: list[FileInfo], names: list[str]) -> None:
        """Give each temporary its final name (parts first, the file at ``path`` last)."""
        if self.path is None:
            assert self.stream is not None and len(self._spools) >= 1
            spool = self._spools[0]
            spool.seek(0)
            shutil.copyfileobj(spool, self.stream, 1 << 20)
            self.stream.flush()
            files[0].path = "<stdout>"
            return
        assert self.directory is not None
        keep = set()
        for info, name in zip(files, names, strict=True):
            final = os.path.join(self.directory, name)
            assert info.temp is not None
            os.chmod(info.temp, self._mode)
            os.replace(info.temp, final)
            self._temps.remove(info.temp)
            info.path = final
            keep.add(name)
        # Parts of an earlier, larger run would still be served but listed nowhere: remove them
        # so the directory matches its index.
        pattern = _stale_pattern(os.path.basename(self.path))
        for entry in sorted(os.listdir(self.directory)):
            if entry not in keep and pattern.fullmatch(entry):
                os.unlink(os.path.join(self.directory, entry))
                self.removed.append(os.path.join(self.directory, entry))

    def abort(self) -> None:
        for temp in self._temps:
            try:
                os.unlink(temp)
            except OSError:
                pass
        self._temps.clear()
        for spool in self._spools:
            spool.close()
        self._spools.clear()


class _KeepOpen:
    """A spool file whose close() only flushes: the output set copies it out on commit."""

    def __init__(self, f: IO[bytes]) -> None:
        self._f = f

    def write(self, data: bytes) -> int:
        return self._f.write(data)

    def flush(self) -> None:
        self._f.flush()

    def tell(self) -> int:
        return self._f.tell()

    def close(self) -> None:
        self._f.flush()
