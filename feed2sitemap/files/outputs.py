"""Where the files of a run go: temporaries beside the target, put in place only when the whole
run has succeeded; stdout and special files through a spool; the earlier run's parts replaced or
removed only when they are feed2sitemap's own (previous.py), with modes, owners and links kept
(safety.py)."""

from __future__ import annotations

import contextlib
import io
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from io import BufferedIOBase
from typing import IO, NamedTuple, Optional

from ..errors import OptionError, OutputError
from ..model.record import Lastmod
from ..model.report import Progress, Report
from .naming import journal_path, part_names, split_name, temp_prefix
from .previous import Previous, previous_output
from .safety import (
    deferred_signals,
    is_special,
    keep_metadata,
    leaves,
    link_backup,
    lock_directory,
    make_temp,
    move_into_place,
    pinned,
    real_target,
    same_bytes,
    umask_mode,
    unkeepable_owner,
)

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
    unchanged: Optional[bool] = None  # the same bytes were already there (not rewritten)


BinaryOut = BufferedIOBase  # what a part is written to: a temporary file, or a spool's


class OutputSet:
    """The files of one run, written as temporaries and put in place on commit.

    ``path`` None means ``stream`` (stdout). A path that is not a regular file (nor a link to
    one) — /dev/null, /dev/stdout, a FIFO — is written through like a stream, never renamed
    over. A stream takes one file only; it is spooled and copied out on commit, so a failed run
    writes nothing at all.

    With a path, the directory is locked for the run (two runs take turns), the earlier run's
    files are read (``previous``), and temporaries of an interrupted run are removed. With
    ``atomic`` (the default) each temporary lies beside its target and is renamed over it;
    without, the run is prepared in the system's temporary directory and copied over the
    targets at the end (for a file one may write in a directory one may not).
    """

    def __init__(self, path: Optional[str], stream: Optional[IO[bytes]] = None,
                 progress: Optional[Progress] = None, *, atomic: bool = True,
                 base_prefix: Optional[str] = None, lock_timeout: float = 60.0,
                 dry_run: bool = False) -> None:
        if path == "":
            raise OptionError("the file name is empty", "output")
        self.through = path if path is not None and is_special(path) else None
        self.path = None if self.through else path
        self.display = path or "<stdout>"
        self.progress = progress
        self.stream = stream
        self.atomic = atomic
        self.dry_run = dry_run  # commit puts nothing in place and removes nothing
        self._temps: list[str] = []
        self._spools: list[IO[bytes]] = []
        self.removed: list[str] = []  # earlier parts this run no longer writes, deleted
        self.cleaned: list[str] = []  # temporaries of an interrupted run, deleted
        self.not_removed: list[tuple[str, str]] = []  # (path, why)
        self.unchanged: list[str] = []  # files whose bytes were already there: not rewritten
        self._mode = umask_mode()
        self._like: Optional[str] = None  # the set's existing output, whose mode new files take
        self._lock: Optional[int] = None  # the locked directory's descriptor
        self.directory = os.path.dirname(os.path.abspath(self.path)) if self.path else None
        self.previous = Previous(self.directory or "", os.path.basename(self.path or ""))
        if self.path is not None:
            self._prepare(self.path, base_prefix, lock_timeout)

    def _prepare(self, path: str, base_prefix: Optional[str], lock_timeout: float) -> None:
        # Fail before reading anything when the output cannot be written at all (a merge reads
        # every input before it writes its first byte).
        assert self.directory is not None
        if not os.path.isdir(self.directory):
            why = "is not a directory" if os.path.exists(self.directory) else "does not exist"
            raise OutputError(f"{path}: cannot write: {self.directory} {why}")
        if os.path.isdir(path):
            raise OutputError(f"{path}: cannot write: it is a directory")
        try:
            self._lock = lock_directory(self.directory, lock_timeout)
        except TimeoutError:
            raise OutputError(
                f"{path}: another run is writing in {self.directory} (waited {lock_timeout:g} s "
                "for it); nothing was changed") from None
        self.previous = previous_output(path, base_prefix)
        # new files take the mode of the set's output: the file at path, else a part of it
        # (not one that is a link out of the directory: that would be anyone's file)
        self._like = real_target(path) if os.path.isfile(path) else next(
            (p for p in map(self._final, self.previous.owned())
             if os.path.isfile(p) and not leaves(p, self.directory)), None)
        try:
            if self.atomic:  # (a temporary made and removed: no signal between leaves it)
                with deferred_signals():
                    os.unlink(make_temp(self.directory, temp_prefix(os.path.basename(path))))
        except OSError as exc:
            raise OutputError(
                f"{path}: cannot write: no temporary file can be made in {self.directory} "
                f"({exc.strerror}), and the file is replaced through one; nothing was changed. "
                "To overwrite existing files in place instead, use `atomic=False`") from None
        for temp in self.previous.leftovers:
            with contextlib.suppress(OSError):
                os.unlink(temp)
                self.cleaned.append(temp)

    def close(self) -> None:
        """End the run: remove what was not committed, release the directory's lock."""
        self.abort()
        if self._lock is not None:
            os.close(self._lock)  # (which releases the lock)
            self._lock = None

    def open_temp(self, n: int) -> tuple[BinaryOut, FileInfo]:
        info = FileInfo(None)
        if self.progress is not None:
            self.progress.opened()
        # (tempfile imports shutil, bz2, lzma and random: only the runs that need it pay)
        if self.path is None or not self.atomic:
            import tempfile
        if self.path is None:
            spool = tempfile.TemporaryFile()
            self._spools.append(spool)
            # a second descriptor, so that closing the part leaves the spool to copy out
            return open(os.dup(spool.fileno()), "wb"), info
        where = self.directory if self.atomic and self.directory else tempfile.gettempdir()
        try:
            with deferred_signals():  # made and listed for abort() at once
                temp = make_temp(where, temp_prefix(os.path.basename(self.path)))
                self._temps.append(temp)
        except OSError as exc:
            raise OutputError(f"cannot write in {where}: {exc.strerror}") from None
        info.temp = temp
        return open(temp, "wb"), info

    def staging_dir(self) -> Optional[str]:
        """Where the temporaries are when not beside the output: stdout's spool and a run
        without ``atomic`` are prepared in the system's temporary directory."""
        if self.path is not None and self.atomic:
            return None
        import tempfile

        return tempfile.gettempdir()

    def _final(self, name: str) -> str:
        assert self.directory is not None
        return os.path.join(self.directory, name)

    def is_unchanged(self, info: FileInfo, name: str) -> bool:
        """Whether the file written for ``name`` holds exactly the bytes already there."""
        if info.unchanged is None:
            assert info.temp is not None
            info.unchanged = same_bytes(info.temp, real_target(self._final(name)))
        return info.unchanged

    def commit(self, files: list[FileInfo], names: list[str], kept: Iterable[str] = (),
               report: Optional[Report] = None) -> None:
        """Put every file in place (parts first, the file at ``path`` last), then remove the
        earlier run's parts that this run no longer writes. Files whose bytes did not change
        are left as they are, mtime and all. ``kept`` names parts already in place, written
        there by this run's workers: listed, so never removed. A replaced file with other hard
        links is warned of in ``report``, before anything changes."""
        kept = list(kept)
        if self.path is None:
            self._copy_out(files[0])
            return
        plan = [(info, name, real_target(self._final(name)))
                for info, name in zip(files, names, strict=True)]
        self._check_targets(plan)
        changed = [(i, n, t) for i, n, t in plan if not self.is_unchanged(i, n)]
        if report is not None and self.atomic:
            self._warn_hard_links(changed, report)
        if self.dry_run:
            self._dry(plan, set(names))
            return
        creating = [n for _, n, t in changed if not os.path.lexists(self._final(n))]
        creating += [n for n in kept if not self.previous.owns(n)]
        journal = journal_path(self.previous.directory, self.previous.name)
        self._check_replaceable(changed)
        with deferred_signals():
            if len(plan) + len(kept) > 1 and creating:
                self._write_journal(journal, creating)
            self._put_in_place(plan, journal)
            if self.progress is not None:
                self.progress.committed()
            self._remove_stale(set(names) | set(kept))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(journal)

    def _warn_hard_links(self, changed: list[tuple[FileInfo, str, str]], report: Report) -> None:
        """A file is replaced by renaming a new one over its name, so that no reader ever sees
        it half written and a failed run changes nothing; its other hard links keep the old
        file. That is said, and how to write through them instead (giving up both)."""
        for _, name, target in changed:
            with contextlib.suppress(OSError):
                links = os.stat(target).st_nlink
                if links > 1:
                    report.warn("hard link broken", self._final(name), None,
                                f"it has {links} hard links; it is replaced by a new file, so "
                                "its other names keep the old contents (`atomic=False` writes "
                                "through them, but not atomically)")

    def _dry(self, plan: list[tuple[FileInfo, str, str]], written: set[str]) -> None:
        """What commit would do, said and not done."""
        for info, name, _ in plan:
            info.path = self._final(name)
            if self.is_unchanged(info, name):
                self.unchanged.append(info.path)
        self.removed = [self._final(n) for n in self.previous.owned()
                        if n not in written and os.path.isfile(self._final(n))]

    def _copy_out(self, info: FileInfo) -> None:
        info.path = self.through or "<stdout>"
        if self.dry_run:
            return
        import shutil  # (as tempfile: a spooled run only)

        spool = self._spools[0]
        spool.seek(0)
        if self.through is None:
            assert self.stream is not None
            _copy_whole(spool, self.stream)
            self.stream.flush()
        else:  # appended: a file the shell opened with >> (or after other output) keeps it
            with open(self.through, "ab") as f:
                shutil.copyfileobj(spool, f, 1 << 20)
        if self.progress is not None:
            self.progress.committed()

    def _check_targets(self, plan: list[tuple[FileInfo, str, str]]) -> None:
        """Refuse, before anything changes, a target that is not ours to replace."""
        assert self.path is not None
        own = os.path.basename(self.path)
        for _, name, target in plan:
            final = self._final(name)
            if os.path.isdir(target):
                raise OutputError(f"{final}: cannot write: it is a directory; nothing was "
                                  "changed")
            if not self.atomic and not os.access(target if os.path.exists(target)
                                                 else os.path.dirname(target), os.W_OK):
                raise OutputError(f"{final}: cannot write: permission denied; nothing was "
                                  "changed")
            if name == own or not os.path.lexists(final):
                continue
            if leaves(final, self.directory or "."):
                raise OutputError(f"{final}: cannot write a part there: it is a symbolic link "
                                  f"out of {self.directory} (to {target}); nothing was changed")
            if is_special(final):
                raise OutputError(f"{final}: cannot write a part there: it is not a regular "
                                  "file; nothing was changed")
            if not self.previous.owns(name):
                raise OutputError(
                    f"{final}: exists, and the index at {self.path} does not list it: "
                    "feed2sitemap replaces only the parts it wrote. Move it away or choose "
                    "another -o name; nothing was changed")

    def _check_replaceable(self, changed: list[tuple[FileInfo, str, str]]) -> None:
        """Before the first rename, that every file to be replaced can be, so that a failure
        does not leave the first parts new and the rest old. Its directory must be writable
        (access() also says no on a read-only file system, even to root), and neither the file
        nor the directory immutable or append-only (chattr, which stops root too). Without
        ``atomic`` a file that exists is written in place: only the file counts. What no check
        foresees is undone (_put_in_place). A file that a new one could not replace with its
        owner and group kept (another user's, for a plain user) is refused too: writing through
        it keeps them (``atomic=False``)."""
        for _, name, target in changed:
            final = self._final(name)
            directory = os.path.dirname(os.path.abspath(target))
            in_place = not self.atomic and os.path.exists(target)
            why = ("its directory is not writable"
                   if not in_place and not os.access(directory, os.W_OK)
                   else "it is immutable or append-only (chattr)" if pinned(target)
                   else "its directory is immutable or append-only (chattr)"
                   if not in_place and pinned(directory) else None)
            owner = None if in_place or why is not None else unkeepable_owner(target)
            if owner is not None:
                why = (f"{owner}; run as its owner, or `atomic=False` to write through it "
                       "(without atomicity)")
            if why is not None:
                raise OutputError(f"{final}: cannot write: {why}; nothing was changed")

    def _write_journal(self, journal: str, names: list[str]) -> None:
        temp = make_temp(os.path.dirname(journal), temp_prefix(self.previous.name))
        with open(temp, "w", encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in names))
        os.chmod(temp, self._mode)
        os.replace(temp, journal)

    def _put_in_place(self, plan: list[tuple[FileInfo, str, str]], journal: str) -> None:
        """Rename (copy, without ``atomic``) each file over its target, in order. Should one
        fail, the files renamed before it are put back from the second name each old file
        was given first (link_backup), and those this run created are removed (with the
        journal that named them): all old, or all new."""
        done: list[_Done] = []
        prefix = temp_prefix(os.path.basename(self.path or ""))
        try:
            for info, name, target in plan:
                final = self._final(name)
                assert info.temp is not None
                if info.unchanged:
                    os.unlink(info.temp)
                    self.unchanged.append(final)
                elif self.atomic:
                    keep_metadata(info.temp, target, self._mode, self._like)
                    existed = os.path.lexists(target)
                    backup = link_backup(target, prefix) if existed else None
                    try:
                        move_into_place(info.temp, target)
                    except OSError:
                        if backup is not None:
                            os.unlink(backup)
                        raise
                    done.append(_Done(final, target, existed, backup))
                else:  # in place: the same inode, so its mode, owner and links stay
                    import shutil  # (a run that overwrites in place only)

                    created = not os.path.exists(target)
                    shutil.copyfile(info.temp, target)
                    if created and self._like is not None:
                        keep_metadata(target, self._like, self._mode)
                    os.unlink(info.temp)
                    done.append(_Done(final, target, True, None))
                if info.temp in self._temps:  # (else a part staged elsewhere: the caller's)
                    self._temps.remove(info.temp)
                info.temp = None
                info.path = final
        except OSError as exc:
            left = self._roll_back(done)
            if not left:
                with contextlib.suppress(OSError):
                    os.unlink(journal)
            raise OutputError(f"{final}: cannot write: {exc.strerror or exc}; " + (
                f"replaced {', '.join(left)}, the rest left as it was" if left
                else "nothing was changed")) from None
        for step in done:
            if step.backup is not None:
                with contextlib.suppress(OSError):
                    os.unlink(step.backup)

    @staticmethod
    def _roll_back(done: list[_Done]) -> list[str]:
        """Undo the steps in ``done``, last first; the files left replaced (a copy over a
        file, without ``atomic``, cannot be undone)."""
        left: list[str] = []
        for step in reversed(done):
            try:
                if step.backup is not None:
                    os.replace(step.backup, step.target)
                elif not step.existed:  # created by this run
                    os.unlink(step.target)
                else:
                    left.append(step.final)
            except OSError:
                left.append(step.final)
        return left[::-1]

    def _remove_stale(self, written: set[str]) -> None:
        """Remove the earlier run's files (ours: listed by its index, or named in an interrupted
        run's journal) that this run did not write, so the directory matches its index."""
        for name in self.previous.owned():
            if name in written:
                continue
            path = self._final(name)
            try:
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    self.not_removed.append((path, "not a regular file"))
                    continue
                os.unlink(path)
                self.removed.append(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                self.not_removed.append((path, str(exc.strerror or exc)))

    def abort(self) -> None:
        with deferred_signals():  # (a signal now would leave the rest of them behind)
            for temp in self._temps:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
            self._temps.clear()
        for spool in self._spools:
            spool.close()
        self._spools.clear()


def _copy_whole(source: IO[bytes], stream: IO[bytes]) -> None:
    """Copy ``source`` to ``stream`` to its last byte. A raw stream (stdout under
    PYTHONUNBUFFERED) may take part of a chunk, or nothing when it is non-blocking and full
    (write() returns None): the rest is written again, once there is room, never dropped."""
    import select

    while chunk := source.read(1 << 20):
        view = memoryview(chunk)
        while view:
            n = stream.write(view)
            if n is None and isinstance(stream, io.RawIOBase):
                select.select([], [stream], [])
                continue
            view = view[n or len(view):]


class _Done(NamedTuple):
    """One file put in place by a commit, and how to undo it."""

    final: str  # the name in the output's directory
    target: str  # the file renamed over (a link's target)
    existed: bool  # a file was there before
    backup: Optional[str]  # the old file's second name (link_backup), or None

