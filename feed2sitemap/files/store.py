"""Object storage (s3://; gs://, az:// and the other fsspec schemes for reading, once their
package is installed): inputs opened through fsspec, and a set of output files published to a
bucket with the safety the local writer gives files on disk (outputs.py).

An object store has no rename, so publishing is ordered instead: each object is one PUT (a
multipart upload is aborted when it fails, so no object is ever half written), the parts go up
first, each complete before the next starts, and the index LAST: it is the commit point, and a
reader never finds it listing a part that is not there. Should an upload fail, the objects
already replaced are put back from their earlier bytes and those created are deleted, so the
earlier index and its parts are left as they were. Parts the new index no longer lists are
deleted only once it is in place, and only those the earlier one listed under our names
(previous.py's rule). Two runs take turns through a lock object made by a conditional PUT
(If-None-Match: *), which S3 honours; that is why only s3:// is written to.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import IO, Any, Optional

from ..errors import InputError, OptionError, OutputError
from .naming import journal_path, split_name
from .previous import Previous, previous_output

__all__ = ["Bucket", "content_type", "is_store", "open_store", "shown", "store_exists",
           "store_put"]

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://")
_PACKAGES = {"s3": "s3fs", "s3a": "s3fs", "gs": "gcsfs", "gcs": "gcsfs", "az": "adlfs",
             "abfs": "adlfs", "abfss": "adlfs"}
_TYPES = {".xml": "application/xml", ".txt": "text/plain; charset=utf-8",
          ".rss": "application/rss+xml", ".atom": "application/atom+xml",
          ".jsonl": "application/jsonl", ".json": "application/json"}
STALE_LOCK = 3600.0  # seconds after which a lock object is taken as a dead run's


def is_store(name: object) -> bool:
    """Whether ``name`` is a URL of object storage: a scheme other than http(s) and file."""
    if not isinstance(name, str):
        return False
    m = _SCHEME.match(name)
    return m is not None and m.group(1).lower() not in ("http", "https", "file")


def shown(url: str) -> str:
    """``url`` as messages show it: without a user, password, query or fragment (where some
    stores carry credentials or signatures)."""
    scheme, _, rest = url.partition("://")
    rest = re.split(r"[?#]", rest, maxsplit=1)[0]
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host.rpartition('@')[2]}{slash}{path}"


def _filesystem(url: str) -> tuple[Any, str]:
    """The fsspec file system of ``url`` (credentials from the store's usual environment and
    configuration) and the path in it."""
    scheme = url.partition("://")[0].lower()
    try:
        import fsspec
    except ImportError:
        raise OptionError(f"{shown(url)}: object storage needs the cloud extra: pip install "
                          "'feed2sitemap[cloud]'") from None
    try:
        # (no listings cache: an object another run wrote must be seen at once)
        fs, path = fsspec.core.url_to_fs(url, use_listings_cache=False)
        return fs, str(path)
    except ImportError:
        package = _PACKAGES.get(scheme, f"the fsspec package for {scheme}://")
        raise OptionError(f"{shown(url)}: {scheme}:// needs {package}: pip install "
                          f"'feed2sitemap[cloud]' {package if scheme in _PACKAGES else ''}"
                          .rstrip()) from None
    except ValueError:
        raise OptionError(f"{shown(url)}: unknown storage scheme {scheme}://") from None


def _why(exc: BaseException) -> str:
    """What went wrong, in a line, with any URL in it shown without credentials or query."""
    if isinstance(exc, FileNotFoundError):
        return "no such object"
    if isinstance(exc, PermissionError):
        return "access denied"
    text = str(exc.strerror if isinstance(exc, OSError) and exc.strerror else exc)
    text = re.sub(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+", lambda m: shown(m.group(0)), text)
    return " ".join(text.split())[:300] or type(exc).__name__


def open_store(url: str) -> IO[bytes]:
    """An object opened for reading (InputError, naming it, when it cannot be)."""
    fs, path = _filesystem(url)
    try:
        return fs.open(path, "rb")  # type: ignore[no-any-return]
    except Exception as exc:
        raise InputError(shown(url), None, f"cannot open: {_why(exc)}") from None


def store_exists(url: str) -> bool:
    fs, path = _filesystem(url)
    try:
        return bool(fs.exists(path))
    except Exception as exc:
        raise InputError(shown(url), None, f"cannot read: {_why(exc)}") from None


def store_put(url: str, data: bytes | str, kind: Optional[str] = None) -> None:
    """Write an object whole, in one PUT: ``data``, or the local file it names; ``kind``, its
    Content-Type."""
    fs, path = _filesystem(url)
    extra = {"ContentType": kind} if kind else {}
    try:
        if isinstance(data, bytes):
            fs.pipe_file(path, data, **extra)
        else:
            fs.put_file(data, path, **extra)
    except Exception as exc:
        raise OutputError(f"{shown(url)}: cannot upload: {_why(exc)}") from None


def content_type(name: str) -> str:
    """What a web server would label the file: a .gz file is served as gzip data, without a
    Content-Encoding (which would make clients unpack it while its name says .gz)."""
    ext = split_name(name)[1].lower()
    if ext.endswith(".gz"):
        return "application/gzip"
    return _TYPES.get(ext, "application/octet-stream")


class Bucket:
    """The folder of an output object (``url``): its objects by name, the run's lock, and the
    ordered publishing of a set of files (see the module docstring)."""

    def __init__(self, url: str, cache_control: Optional[str] = None) -> None:
        self.url = url
        if url.partition("://")[0].lower() not in ("s3", "s3a"):
            raise OptionError(f"{shown(url)}: writing is supported on s3:// only (runs take "
                              "turns through S3's conditional write); other stores are read "
                              "only", "output")
        self.fs, path = _filesystem(url)
        self.folder, _, self.name = path.rpartition("/")
        if not self.folder or not self.name:
            raise OptionError(f"{shown(url)}: names a bucket, not an object in it", "output")
        self.extra = {"CacheControl": cache_control} if cache_control else {}
        self.lock_name = f".{self.name}.lock"
        self.etag: Optional[str] = None  # the output's, as fetched: replaced only if still so
        self.journal = os.path.basename(journal_path("", self.name))

    def key(self, name: str) -> str:
        return f"{self.folder}/{name}"

    def url_of(self, name: str) -> str:
        return shown(self.url).rpartition("/")[0] + "/" + name

    def _fail(self, name: str, what: str, exc: BaseException) -> OutputError:
        return OutputError(f"{self.url_of(name)}: cannot {what}: {_why(exc)}")

    def exists(self, name: str) -> bool:
        try:
            return bool(self.fs.exists(self.key(name)))
        except Exception as exc:
            raise self._fail(name, "read", exc) from None

    def fetch(self, names: list[str], directory: str) -> None:
        """Download the objects of ``names`` there are into ``directory``."""
        for name in names:
            try:
                if name == self.name:
                    self.etag = self.fs.info(self.key(name), refresh=True)["ETag"]
                self.fs.get_file(self.key(name), os.path.join(directory, name))
            except FileNotFoundError:
                continue
            except Exception as exc:
                raise self._fail(name, "read", exc) from None

    @contextlib.contextmanager
    def checked_out(self, lock_timeout: float, base_prefix: Optional[str], parts: bool = True
                    ) -> Iterator[tuple[str, str, Previous]]:
        """Under the bucket's lock: a private folder holding the earlier set as fetched (the
        output, its run's journal, its index files, and with ``parts`` the parts), a copy of
        it to work in, and what the earlier run left, as read there."""
        import shutil  # (as tempfile: runs with an output in a bucket only)
        import tempfile

        with tempfile.TemporaryDirectory(prefix="feed2sitemap-") as tmp, \
                self.locked(lock_timeout):
            earlier, work = os.path.join(tmp, "was"), os.path.join(tmp, "new")
            os.mkdir(earlier)
            stem = split_name(self.name)[0]
            names, fetched = [self.name, self.journal], set()
            while names:
                self.fetch(names, earlier)
                fetched.update(names)
                prev = previous_output(os.path.join(earlier, self.name), base_prefix)
                names = [n for n in prev.owned() if n not in fetched
                         and (parts or n[len(stem):].startswith("-index"))]
            shutil.copytree(earlier, work)
            yield earlier, work, prev

    @contextlib.contextmanager
    def locked(self, timeout: float) -> Iterator[None]:
        """Hold the lock object beside the output for the block, waiting up to ``timeout``
        seconds for another run's; one older than STALE_LOCK is a dead run's, taken over."""
        key = self.key(self.lock_name)
        bucket, name, _ = self.fs.split_path(key)
        stamp = f"{os.uname().nodename} {os.getpid()} {time.time():.0f}\n".encode()
        deadline = time.monotonic() + timeout
        while True:
            try:
                etag = self.fs.call_s3("put_object", Bucket=bucket, Key=name, Body=stamp,
                                       IfNoneMatch="*")["ETag"]
                break
            except FileExistsError:
                if self._break_stale(key):
                    continue
            except FileNotFoundError:
                raise OutputError(f"{shown(self.url)}: cannot write: no such bucket") from None
            except Exception as exc:
                raise self._fail(self.lock_name, "take the lock", exc) from None
            if time.monotonic() >= deadline:
                raise OutputError(
                    f"{shown(self.url)}: another run is writing there (waited {timeout:g} s "
                    f"for its lock {self.url_of(self.lock_name)}); nothing was changed")
            time.sleep(0.2)
        try:
            yield
        finally:  # (only our own lock: not one a run took over, had ours been stale)
            with contextlib.suppress(Exception):
                self.fs.call_s3("delete_object", Bucket=bucket, Key=name, IfMatch=etag)

    def _break_stale(self, key: str) -> bool:
        """Delete the lock at ``key`` if older than STALE_LOCK, only if it is still the same
        object (If-Match on its ETag: two runs cannot both take it over)."""
        try:
            info = self.fs.info(key, refresh=True)
            age = time.time() - info["LastModified"].timestamp()
            if age < STALE_LOCK:
                return False
            bucket, name, _ = self.fs.split_path(key)
            self.fs.call_s3("delete_object", Bucket=bucket, Key=name, IfMatch=info["ETag"])
            return True
        except FileNotFoundError:  # released meanwhile: try again at once
            return True
        except Exception:  # taken over by another run meanwhile: wait for it
            return False

    def _put(self, local: str, name: str) -> None:
        # one PUT below 100 MB (s3fs aborts a multipart upload that fails): never half written.
        # The output only if it is still the one read (the lock keeps out our runs, not
        # other writers): else the run is undone.
        extra = dict(self.extra)
        if name == self.name:
            extra.update({"IfMatch": self.etag} if self.etag else {"IfNoneMatch": "*"})
        self.fs.put_file(local, self.key(name), ContentType=content_type(name), **extra)

    def _undo(self, done: list[tuple[str, Optional[Callable[[], None]]]]) -> list[str]:
        """Undo the writes of ``done``, last first: the earlier object put back (by its
        callable), or the new one deleted; the URLs of those that could not be."""
        left = []
        for name, put_back in reversed(done):
            try:
                if put_back is not None:
                    put_back()
                else:
                    self.fs.rm_file(self.key(name))
            except Exception:
                left.append(self.url_of(name))
        return left[::-1]

    def _remove(self, names: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
        gone: list[str] = []
        kept: list[tuple[str, str]] = []
        for name in names:
            try:
                self.fs.rm_file(self.key(name))
                gone.append(self.url_of(name))
            except FileNotFoundError:
                continue
            except Exception as exc:
                kept.append((self.url_of(name), _why(exc)))
        return gone, kept

    # A distributed run (feed2sitemap.dask): workers upload their parts into a staging folder
    # beside the output, and the run copies them into place by the store, under the lock.

    def upload(self, local: str, name: str) -> None:
        """Put one object beside the output, whatever is there (a worker's staged part: a task
        retried puts the same bytes again)."""
        try:
            self._put(local, name)
        except Exception as exc:
            raise self._fail(name, "upload", exc) from None

    def listing(self, prefix: str) -> dict[str, tuple[int, str]]:
        """(size, ETag) of the objects whose names begin with ``prefix``, by name: one listing
        (a name in a folder is "folder/name")."""
        start = len(self.key(""))
        try:
            found = self.fs.find(self.folder, prefix=prefix, detail=True)
        except Exception as exc:
            raise self._fail(prefix, "list", exc) from None
        return {key[start:]: (info["size"], info["ETag"]) for key, info in found.items()}

    def remove_all(self, prefix: str) -> None:
        """Delete the objects whose names begin with ``prefix`` (a run's staging folder), as
        far as the store lets us."""
        with contextlib.suppress(OutputError):
            self._remove(list(self.listing(prefix)))

    def publish(self, files: list[tuple[str, str]], owned: set[str], earlier: str,
                removed: list[str], stage: str = "", parts: Sequence[str] = ()
                ) -> tuple[list[str], list[tuple[str, str]]]:
        """Upload ``files`` ((local path, name), the index at the output's name last), after
        copying ``parts`` from the folder ``stage`` beside the output (Dask's staged parts:
        CopyObject passes no bytes through here, and keeps their Content-Type and
        Cache-Control); then delete those of ``removed`` that ``owned`` (the earlier index's or
        journal's names) holds. A failed run puts back what it replaced, from ``earlier`` (a
        folder of the earlier files) or ``stage``. Returns the removed objects' URLs, and
        (URL, why) for those that could not be."""
        files = sorted(files, key=lambda f: f[1] == self.name)
        journal = self._claim([*parts, *(n for _, n in files)], owned)
        self._place(files, owned, earlier, stage, parts, journal)
        gone, kept = self._remove([n for n in removed if n in owned and n != self.name])
        with contextlib.suppress(Exception):
            self.fs.rm_file(self.key(self.journal))
        return gone, kept

    def _claim(self, names: list[str], owned: set[str]) -> bool:
        """Refuse to replace an object the earlier set does not own; name in the journal those
        about to be created, so that a run cut short owns what it left. Whether it did."""
        for name in names:
            if name != self.name and name not in owned and self.exists(name):
                raise OutputError(
                    f"{self.url_of(name)}: exists, and the index at {shown(self.url)} does "
                    "not list it: feed2sitemap replaces only the objects it wrote. Move it "
                    "away or choose another -o name; nothing was changed")
        creating = [n for n in names if n not in owned and n != self.name]
        if not creating or len(names) == 1:
            return False
        try:
            self.fs.pipe_file(self.key(self.journal), "".join(n + "\n" for n in creating).encode())
        except Exception as exc:
            raise OutputError(f"{self.url_of(self.journal)}: cannot upload: {_why(exc)}; "
                              "nothing was changed") from None
        return True

    def _place(self, files: list[tuple[str, str]], owned: set[str], earlier: str, stage: str,
               parts: Sequence[str], journal: bool) -> None:
        """Copy the staged ``parts`` and upload ``files`` in order; on a failure, undo them."""
        done: list[tuple[str, Optional[Callable[[], None]]]] = []
        name, what = "", "copy"
        try:
            for name in parts:
                saved = None
                if name in owned:
                    with contextlib.suppress(FileNotFoundError):
                        self._copy(name, f"{stage}/earlier/{name}")
                        saved = partial(self._copy, f"{stage}/earlier/{name}", name)
                self._copy(f"{stage}/{name}", name)
                done.append((name, saved))
            what = "upload"
            for local, name in files:
                was = os.path.join(earlier, name)
                self._put(local, name)
                done.append((name, partial(self._put, was, name) if os.path.isfile(was)
                             else None))
        except BaseException as exc:
            left = self._undo(done)
            if not left and journal:
                with contextlib.suppress(Exception):
                    self.fs.rm_file(self.key(self.journal))
            if not isinstance(exc, Exception):
                raise
            why = _why(exc)
            if name == self.name and "pre-condition" in str(exc):
                why = "another writer changed it since this run read it"
            raise OutputError(f"{self.url_of(name)}: cannot {what}: {why}; " + (
                f"replaced {', '.join(left)}, the rest left as it was" if left
                else "nothing was changed")) from None

    def _copy(self, source: str, name: str) -> None:
        bucket, key, _ = self.fs.split_path(self.key(name))
        source_key = self.fs.split_path(self.key(source))[1]
        self.fs.call_s3("copy_object", Bucket=bucket, Key=key,
                        CopySource={"Bucket": bucket, "Key": source_key})
