"""Keeping the ``Sitemap:`` lines of a robots.txt in step with what a run wrote.

Search engines learn of a sitemap from robots.txt (Google's ping endpoint is gone since 2023).
Lines naming this output's files are replaced; every other line is kept byte for byte, in the
file's own line ending and behind its byte order mark. The file is replaced as sitemaps are:
atomically, its mode, owner and links kept, and not at all when nothing changed. Two runs
sharing one robots.txt take turns: the file itself is locked from the read to the rename. Only
a regular file is edited (a FIFO would hang the run, and renaming over a device replaces it),
and only one within what Google reads: a file over that is refused whole, never cut.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterator

from ..errors import OutputError
from ..files.safety import real_target, replace_file
from ..model.limits import MAX_ROBOTS_BYTES

_SITEMAP = re.compile(rb"^[ \t]*sitemap[ \t]*:[ \t]*(\S*)", re.IGNORECASE)
_BOM = b"\xef\xbb\xbf"
_UNTOUCHED = "; the sitemaps were written, robots.txt was left as it was"
_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | os.O_CLOEXEC
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def check_robots_path(path: str) -> None:
    """Refuse, before the run writes anything, a robots.txt that ``update_robots`` would refuse
    for what it is. A missing one is fine: it is created."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"{path}: `robots`: cannot read: {exc.strerror}; nothing was "
                          "written") from None
    _check_stat(path, st, "; nothing was written")


def _check_stat(path: str, st: os.stat_result, outcome: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = next((what for test, what in _KINDS if test(st.st_mode)), "a special file")
        raise OutputError(f"{path}: `robots`: {kind}, not a regular file: only a robots.txt "
                          f"file is edited{outcome}")
    _check_size(path, st.st_size, outcome)


def _check_size(path: str, size: int, outcome: str) -> None:
    if size > MAX_ROBOTS_BYTES:
        raise OutputError(f"{path}: `robots`: over {MAX_ROBOTS_BYTES:,} bytes, the 500 KiB "
                          "Google reads of a robots.txt (a Sitemap: line past them is never "
                          f"seen): shorten it{outcome}")


def update_robots(path: str, urls: list[str], ours: Callable[[str], bool],
                  lock_timeout: float = 60.0) -> bool:
    """Make ``path`` list exactly ``urls`` among the Sitemap: lines that ``ours`` claims;
    return whether the file changed. A missing file is created. Another run editing it is
    waited for up to ``lock_timeout`` seconds."""
    target = real_target(path)
    with _locked(path, target, lock_timeout) as old:
        new = _edited(old, urls, ours)
        if new == old:
            return False
        _check_size(path, len(new), _UNTOUCHED)
        try:
            replace_file(target, new)
        except OSError as exc:
            raise _unwritten(path, target, exc) from None
        return True


def _edited(old: bytes, urls: list[str], ours: Callable[[str], bool]) -> bytes:
    """``old`` with ``urls`` as its Sitemap: lines that ``ours`` claims, the first where the
    first of them stood (else at the end), every other line as it was."""
    bom = _BOM if old.startswith(_BOM) else b""  # kept, but no part of the first line
    lines = old[len(bom):].splitlines(keepends=True)
    # the file's line ending, by its first line that has one
    eol = next((line[len(line.rstrip(b"\r\n")):] for line in lines
                if line.endswith((b"\n", b"\r"))), b"\n")
    kept: list[bytes] = []
    existing: dict[str, bytes] = {}  # our lines as they were: kept to the byte when still right
    at = None
    for line in lines:
        m = _SITEMAP.match(line)
        if m is not None and ours(url := m.group(1).decode("utf-8", "replace")):
            existing.setdefault(url, line if line.endswith((b"\n", b"\r")) else line + eol)
            if at is None:
                at = len(kept)
            continue
        kept.append(line)
    new_lines = [existing.get(url) or f"Sitemap: {url}".encode() + eol for url in urls]
    if at is None:
        at = len(kept)
        if kept and not kept[-1].endswith((b"\n", b"\r")):
            kept[-1] += eol
    return bom + b"".join(kept[:at] + new_lines + kept[at:])


@contextlib.contextmanager
def _locked(path: str, target: str, timeout: float) -> Iterator[bytes]:
    """The bytes of ``target``, the file locked (flock) until the block ends: read, edit and
    rename are one step for other runs. A lock taken on a file another run renamed over
    meanwhile is dropped and the new file locked instead."""
    deadline = time.monotonic() + timeout
    while True:
        fd, created = _open(path, target)
        try:
            if not _lock(fd, path, deadline, timeout) or _same(fd, target):
                try:
                    with open(fd, "rb", closefd=False) as f:
                        data = f.read(MAX_ROBOTS_BYTES + 1)
                except OSError as exc:
                    raise _failed(path, "cannot read", exc) from None
                _check_size(path, len(data), _UNTOUCHED)  # it may have grown since
                yield data
                return
            if time.monotonic() >= deadline:  # renamed over again and again
                raise _busy(path, timeout)
        except BaseException:
            if created:  # the empty file made to be locked, if no run has replaced it
                with contextlib.suppress(OSError):
                    if _same(fd, target) and os.fstat(fd).st_size == 0:
                        os.unlink(target)
            raise
        finally:
            os.close(fd)


def _open(path: str, target: str) -> tuple[int, bool]:
    """A descriptor on ``target`` (made empty when missing, so that it can be locked), and
    whether it was made here. Looked at before it is opened: a device is never opened, and a
    FIFO is opened without waiting for a writer only to be refused."""
    while True:
        try:
            _check_stat(path, os.stat(target), _UNTOUCHED)
            fd, created = os.open(target, _OPEN), False
        except FileNotFoundError:
            try:
                fd, created = os.open(target, _OPEN | os.O_CREAT | os.O_EXCL, 0o666), True
            except FileExistsError:  # another run made it first: look again
                continue
            except OSError as exc:
                raise _failed(path, "cannot write", exc) from None
        except OSError as exc:
            raise _failed(path, "cannot read", exc) from None
        try:
            _check_stat(path, os.fstat(fd), _UNTOUCHED)  # it may have changed since
        except BaseException:
            os.close(fd)
            raise
        return fd, created


def _lock(fd: int, path: str, deadline: float, timeout: float) -> bool:
    """Take the lock, waiting until ``deadline``; False on a file system without flock (the
    file is then edited unlocked, as an output directory is)."""
    import fcntl  # (only a run that edits robots.txt)

    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise _busy(path, timeout) from None
            time.sleep(0.05)
        except OSError:
            return False


def _failed(path: str, what: str, exc: OSError) -> OutputError:
    return OutputError(f"{path}: {what}: {exc.strerror or exc}{_UNTOUCHED}")


def _unwritten(path: str, target: str, exc: OSError) -> OutputError:
    # replace_file names the temporary (or its directory) only when it could not make it
    if exc.filename not in (None, target) and exc.filename2 is None:
        directory = os.path.dirname(os.path.abspath(target))
        return OutputError(f"{path}: cannot write: no temporary file can be made in "
                           f"{directory} ({exc.strerror}){_UNTOUCHED}")
    return _failed(path, "cannot write", exc)


def _busy(path: str, timeout: float) -> OutputError:
    return OutputError(f"{path}: another run is editing it (waited {timeout:g} s){_UNTOUCHED}")


def _same(fd: int, target: str) -> bool:
    """Whether ``target`` is still the file open at ``fd`` (not renamed over meanwhile)."""
    try:
        return os.path.samestat(os.fstat(fd), os.stat(target))
    except OSError:
        return False
