"""Replacing a user's files the way careful tools do: keep mode, owner and links, write through
special files, leave unchanged files alone, take a lock, and let no signal split a commit.

coreutils' ``install``, rsync and editors that save atomically are the model (see STYLE.md, "The
user's files are sacred"). Nothing here knows about sitemaps.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import signal
import stat
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Optional

__all__ = ["deferred_signals", "find_base", "is_special", "keep_metadata", "leaves",
           "link_backup", "lock_directory", "make_temp", "move_into_place", "pinned",
           "real_target", "replace_file", "same_bytes", "same_file", "umask_mode",
           "unkeepable_owner"]


def real_target(path: str) -> str:
    """Where writing ``path`` must land: the file a symlink points to (followed to the end),
    so that replacing it keeps the link; ``path`` itself otherwise."""
    return os.path.realpath(path) if os.path.islink(path) else path


def leaves(path: str, directory: str) -> bool:
    """True when ``path``, its links followed, lies outside ``directory`` (links followed
    too): a part planted as a link to /etc/passwd, or in a linked folder, is not the set's."""
    top = os.path.realpath(directory)
    return os.path.commonpath([os.path.realpath(path), top]) != top


def is_special(path: str) -> bool:
    """True for an existing path that is not a regular file or a directory (after links):
    /dev/null, a FIFO, a process substitution; and for a descriptor (/dev/stdout, /dev/fd/N,
    /proc/self/fd/N) whatever it leads to, a file the shell opened with ``>`` or ``>>``. Such a
    path is written through, never renamed over."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)) or _descriptor(path)


_DESCRIPTOR = re.compile(r"/dev/(stdout|stderr|fd/[0-9]+)|/proc/[^/]+/fd/[0-9]+")


def _descriptor(path: str) -> bool:
    """Whether ``path``, or a link on the way to its file, names an open descriptor."""
    name = os.path.abspath(path)
    for _ in range(40):  # (the kernel's own limit of links followed)
        if _DESCRIPTOR.fullmatch(name):
            return True
        if not os.path.islink(name):
            return False
        name = os.path.join(os.path.dirname(name), os.readlink(name))
    return False


_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"  # tempfile's, so its names look alike
_NEW_FILE = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def umask_mode() -> int:
    """The mode a new file gets: 0666 less the umask (which can only be read by setting it)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _temp_names(directory: str, prefix: str) -> Iterator[str]:
    """100 paths PREFIX + 8 random characters + ".tmp" in ``directory``, as tempfile names."""
    directory = os.path.abspath(directory)
    for _ in range(100):
        name = prefix + "".join(_TEMP_CHARS[b % len(_TEMP_CHARS)] for b in os.urandom(8))
        yield os.path.join(directory, name + ".tmp")


def make_temp(directory: str, prefix: str) -> str:
    """A new empty temporary file in ``directory`` (mode 0600 until it is given its final
    mode), named as tempfile.mkstemp names them, made here because importing tempfile (with
    shutil, bz2, lzma and random) was a tenth of a small run's start-up. O_EXCL: a name that
    exists (a file, or a planted link) is never opened."""
    for path in _temp_names(directory, prefix):
        try:
            os.close(os.open(path, _NEW_FILE, 0o600))
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, "no unused temporary name", directory)


def same_bytes(a: str, b: str) -> bool:
    """Whether two files hold the same bytes (False when either cannot be read)."""
    import filecmp  # (only a run that rewrites an existing file compares)

    try:
        return os.path.getsize(a) == os.path.getsize(b) and filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False


def keep_metadata(temp: str, target: str, new_mode: int, like: Optional[str] = None) -> None:
    """Give ``temp`` the mode, owner, group and extended attributes (an ACL among them) of the
    file it replaces; when there is none, of ``like`` (the set's existing output, so that a
    new part is served as its index is); when neither exists, ``new_mode`` (the umask's). The
    mode is copied exactly, never widened. The owner and group are kept where the process may
    set them: root always, a plain user only for a group it belongs to."""
    source = target if os.path.exists(target) else like
    st = _stat(source) if source is not None else None
    if source is None or st is None:
        os.chmod(temp, new_mode)
        return
    mine = os.stat(temp)
    if (st.st_uid, st.st_gid) != (mine.st_uid, mine.st_gid):
        for uid, gid in ((st.st_uid, st.st_gid), (-1, st.st_gid)):
            try:
                os.chown(temp, uid, gid)
                break
            except PermissionError:
                continue
    # after chown, which may clear set-id bits
    os.chmod(temp, stat.S_IMODE(st.st_mode))
    _copy_xattrs(source, temp)


def _copy_xattrs(source: str, temp: str) -> None:
    """The extended attributes of ``source`` on ``temp``, after its mode: an ACL that denies a
    user what the mode allows others, or a MIME type a web server reads (user.mime_type), is
    not dropped by the replacement. Those the process may not set (trusted.*) stay behind."""
    if not hasattr(os, "listxattr"):  # (Linux only: elsewhere, the mode alone)
        return
    try:
        names = os.listxattr(source)
    except OSError:  # (a file system without them)
        return
    for name in names:
        with contextlib.suppress(OSError):
            os.setxattr(temp, name, os.getxattr(source, name))


def unkeepable_owner(path: str) -> Optional[str]:
    """Why a new file renamed over ``path`` could not keep its owner or group, or None: a
    plain user can give a file only their own owner and one of their groups, so replacing
    another user's file would hand it to us (and its readers through the group would lose it).
    """
    st = _stat(path)
    if st is None or os.geteuid() == 0:
        return None
    if st.st_uid != os.geteuid():
        return f"it belongs to {_name('pwd', st.st_uid)}, and a new file would belong to you"
    if st.st_gid != os.getegid() and st.st_gid not in os.getgroups():
        return f"its group is {_name('grp', st.st_gid)}, which you are not in"
    return None


def _name(module: str, number: int) -> str:
    """A user's (``pwd``) or group's (``grp``) name, else its number."""
    import grp
    import pwd

    try:
        return (pwd.getpwuid(number).pw_name if module == "pwd"
                else grp.getgrgid(number).gr_name)
    except KeyError:
        return str(number)


def _stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


def move_into_place(temp: str, target: str) -> None:
    """Rename ``temp`` over ``target``; when they lie on different file systems (a symlink's
    target elsewhere), copy to a temporary beside the target first, so the replacement is
    still one rename."""
    try:
        os.replace(temp, target)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    import shutil  # (a rename across file systems only)

    near = make_temp(os.path.dirname(target), "." + os.path.basename(target) + ".")
    try:
        shutil.copyfile(temp, near)
        shutil.copystat(temp, near)  # (the mode and extended attributes kept_metadata gave)
        with contextlib.suppress(OSError):
            st = os.stat(temp)
            os.chown(near, st.st_uid, st.st_gid)
        os.replace(near, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(near)
        raise
    os.unlink(temp)


def replace_file(path: str, data: bytes) -> None:
    """Make ``path`` hold ``data`` in one rename: a temporary beside it, flushed to disk, given
    the mode and owner of the file it replaces (the umask's mode for a new file), renamed over
    it. A symlink or a non-regular file is refused (OSError): a caller that keeps links passes
    real_target(path), and writes devices and pipes through itself."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = stat.S_IFREG
    if not stat.S_ISREG(mode):
        code = (errno.ELOOP if stat.S_ISLNK(mode) else errno.EISDIR if stat.S_ISDIR(mode)
                else errno.EINVAL)
        raise OSError(code, os.strerror(code), path)
    why = unkeepable_owner(path)
    if why is not None:
        raise PermissionError(errno.EPERM, why, path)
    directory = os.path.dirname(os.path.abspath(path))
    # Held: a signal while the temporary exists would leave it behind.
    with deferred_signals():
        temp = make_temp(directory, f".{os.path.basename(path)}.")
        try:
            with open(temp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            keep_metadata(temp, path, umask_mode())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
    with contextlib.suppress(OSError):  # the rename itself made durable
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def link_backup(target: str, prefix: str) -> Optional[str]:
    """A second name for ``target`` beside it (a hard link, named like make_temp's
    temporaries, so that a run killed before it is removed leaves what the next run cleans),
    through which a rename over ``target`` can be undone; None when there is no file or the
    file system links none."""
    for path in _temp_names(os.path.dirname(os.path.abspath(target)), prefix):
        try:
            os.link(target, path, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError:
            return None
        return path
    return None


# Linux's inode flags (linux/fs.h): FS_IOC_GETFLAGS, and the immutable and append-only bits
_FS_IOC_GETFLAGS = 0x80086601
_PINNED_FLAGS = 0x10 | 0x20


def pinned(path: str) -> bool:
    """Whether ``path`` is immutable or append-only (chattr +i / +a): then not even root may
    rename over it, or create or remove a name in it when it is a directory. False where the
    file system or the system keeps no such flags."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        flags = int.from_bytes(fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(4)), sys.byteorder)
    except OSError:
        return False
    finally:
        os.close(fd)
    return bool(flags & _PINNED_FLAGS)


_DEFERRED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP until the block ends: a set of renames is either done
    or not begun when such a signal acts (SIGKILL cannot be held; the renames are ordered so
    that every state between them is consistent)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def lock_directory(directory: str, timeout: float) -> Optional[int]:
    """Take an advisory lock (flock) on ``directory``, so that two runs writing there take
    turns, waiting up to ``timeout`` seconds (TimeoutError past that); the descriptor to close
    to release it. The directory itself is locked, so no lock file is left among the user's
    files; one that cannot be opened or flock()ed is not locked (None)."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise TimeoutError(directory) from None
            time.sleep(0.05)
        except OSError:  # a file system without flock: go on unlocked
            os.close(fd)
            return None


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (one that may not exist yet: then by absolute path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist yet
        return os.path.abspath(a) == os.path.abspath(b)


def find_base(inputs: Sequence[object], output: str | None) -> str | None:
    """The input that is the output file itself (an update in place), by its source name."""
    if output is None:
        return None
    for source in inputs:
        if isinstance(source, (str, os.PathLike)):
            name = os.fspath(source)
            if same_file(name, output):
                return name
    return None

