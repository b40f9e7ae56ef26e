"""The cache of fetched bodies (``--cache DIR``), for conditional requests by scheduled runs.

ETag and Last-Modified per URL, with the body they describe, in a directory of the user's
choosing: two files per URL, named by a hash of the URL, readable by the owner only (a URL's
query may hold a token). The entry holds the URL's full hash and the URL without its password,
query or fragment. A missing directory is created, the owner's only (0700) like its files. A
folder in object storage (``s3://…``) holds the same objects, read and written whole: for runs
on machines that keep no disk between runs; who may read them is the bucket's policy.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import IO, Any, Optional

from ..errors import InputError
from ..files.store import is_store, open_store, shown, store_exists, store_put

_VALIDATORS = {"etag": "If-None-Match", "last_modified": "If-Modified-Since"}


class Cache:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        if is_store(directory):
            store_exists(directory.rstrip("/"))  # (a missing extra or store said before any fetch)
            return
        try:  # before anything is fetched or written
            os.makedirs(directory, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise InputError(directory, None, "cannot create the cache directory: "
                             f"{exc.strerror or exc}") from None
        try:
            import tempfile

            with tempfile.TemporaryFile(dir=directory):
                pass
        except OSError as exc:
            raise _unwritable(directory, exc) from None

    def _paths(self, url: str) -> tuple[str, str, str]:
        import hashlib  # (only a run with --cache: OpenSSL's module is slow to load)

        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        stem = f"{self.directory.rstrip('/')}/{key[:32]}"
        return stem + ".json", stem + ".body", key

    def cached(self, url: str) -> tuple[Optional[IO[bytes]], dict[str, str]]:
        """The cached body, open, and the headers that ask for it conditionally; (None, {})
        without a readable entry that validates a body of its own (a symbolic link planted
        there is not read)."""
        import json

        meta, body, key = self._paths(url)
        try:
            with _open_entry(meta) as f:
                data = json.loads(f.read(1 << 16))
            if not isinstance(data, dict) or data.get("key") != key:
                return None, {}
            headers = {ask: data[name] for name, ask in _VALIDATORS.items()
                       if isinstance(data.get(name), str)}
            return (_open_entry(body), headers) if headers else (None, {})
        except (OSError, ValueError, InputError):
            return None, {}

    def copy(self, url: str, headers: Any) -> Optional[Copy]:
        """Where a body of ``url`` is copied as it is read; None when nothing would validate
        it later."""
        meta_path, body_path, key = self._paths(url)
        meta = {"key": key, "url": shown(url),
                "etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified")}
        if not (meta["etag"] or meta["last_modified"]):
            return None
        return Copy(meta_path, body_path, meta)


class Copy:
    """A body copied to a temporary as it is read, put in the cache only when read to its end
    (a run that stops part-way, or a body cut short, leaves the earlier copy): both files by
    rename, so that one planted there is replaced, never written through."""

    def __init__(self, meta_path: str, body_path: str, meta: dict[str, Any]) -> None:
        self._meta_path, self._body_path, self._meta = meta_path, body_path, meta
        folder = None if is_store(meta_path) else os.path.dirname(meta_path)
        try:  # (for a cache in a bucket, in the system's temporary folder)
            self._temp, self._file = _temporary(folder)
        except OSError as exc:
            raise _unwritable(os.path.dirname(meta_path), exc) from None

    def write(self, data: bytes) -> None:
        self._keep(self._file.write, data)

    def commit(self) -> None:
        self._file.close()
        self._keep(self._store)

    def discard(self) -> None:
        self._file.close()
        with contextlib.suppress(OSError):
            os.unlink(self._temp)

    def _store(self) -> None:
        import json

        meta = json.dumps(self._meta).encode("utf-8")
        if is_store(self._meta_path):  # the body first, as on disk: a meta names a whole body
            try:
                store_put(self._body_path, self._temp)
            finally:
                os.unlink(self._temp)
            store_put(self._meta_path, meta)
            return
        meta_temp, f = _temporary(os.path.dirname(self._meta_path))
        with f:
            f.write(meta)
        os.replace(self._temp, self._body_path)
        os.replace(meta_temp, self._meta_path)

    def _keep(self, step: Any, *args: Any) -> None:
        try:
            step(*args)
        except OSError as exc:
            raise _unwritable(os.path.dirname(self._temp), exc) from None


def _open_entry(path: str) -> IO[bytes]:
    return open_store(path) if is_store(path) else open_regular(path, follow=False)


def open_regular(path: str, follow: bool = True) -> IO[bytes]:
    """``path`` opened for reading when it is a regular file (through a symbolic link only if
    ``follow``); else an InputError saying what it is. Opened without blocking and judged by
    the file opened: a FIFO would wait for a writer forever."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except ValueError:  # a NUL in the name: no file can have it
        raise InputError(path.replace("\0", "\\0"), None, "a file name cannot hold a NUL "
                         "byte") from None
    except FileNotFoundError:
        raise InputError(path, None, "no such file") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot open: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputError(path, None, "is a directory, not a file" if stat.S_ISDIR(mode) else
                         "is a FIFO (a named pipe), not a file: reading it would wait for a "
                         "writer; refused" if stat.S_ISFIFO(mode) else
                         "is not a regular file (a socket or a device); refused")
    return os.fdopen(fd, "rb")


def _unwritable(directory: str, exc: OSError) -> InputError:
    return InputError(directory, None, "cannot write in the cache directory: "
                      f"{exc.strerror or exc}")


def _temporary(directory: Optional[str]) -> tuple[str, IO[bytes]]:
    import tempfile

    fd, path = tempfile.mkstemp(dir=directory, suffix=".tmp")  # (mode 0600)
    return path, os.fdopen(fd, "wb")
