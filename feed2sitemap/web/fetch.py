"""Inputs by URL: http(s) only, bounded redirects, timeouts, a User-Agent naming the tool, and
(with a cache directory) conditional requests for scheduled runs.

The body is a stream, as a file would be (gzip is recognised by its first bytes, each reader
applies its own bounds). A server is hostile input: every protocol fault is an InputError naming
the URL; a fetch has an overall deadline and a size cap (``timeout`` bounds one read only, and a
cron run that never ends keeps its lock); a body short of its Content-Length is an error; a
redirect may not lead into the machine's own network; a password in a URL is sent, never shown.
urllib.request and http.client cost 50 ms to import: only a run that fetches imports them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import IO, Any, NamedTuple, Optional

from ..errors import InputError
from ..files.store import is_store, open_store, store_exists, store_put
from ..model.urls import request_url

DEFAULT_TIMEOUT = 30.0
MAX_REDIRECTS = 5
MAX_TIME_FACTOR = 10  # the overall deadline of a fetch, by default: this many `timeout`s
# bytes of one input as sent (a gzip transfer expands at most detect.MAX_RATIO times: a cap of
# its own)
DEFAULT_MAX_FETCH_BYTES = 256 * 1024 * 1024
_SCHEMES = ("http", "https")
_CHUNK = 1 << 16
_VALIDATORS = {"etag": "If-None-Match", "last_modified": "If-Modified-Since"}


def is_url(source: object) -> bool:
    return isinstance(source, str) and source.lower().startswith(("http://", "https://"))


def redact(url: str) -> str:
    """``url`` without its user and password: what every message and the cache show."""
    scheme, sep, rest = url.partition("://")
    end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    if not sep or "@" not in rest[:end]:  # (the authority ends at the path, query or fragment)
        return url
    return f"{scheme}://{rest[:end].rpartition('@')[2]}{rest[end:]}"


def user_agent() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"feed2sitemap/{version('feed2sitemap')} (sitemap generator)"
    except PackageNotFoundError:  # a source tree that was not installed
        return "feed2sitemap/0.0.0+unknown (sitemap generator)"


class Fetched(NamedTuple):
    stream: Any  # (IO[bytes], or an object with its read and close: all the readers call)
    url: str  # after redirects: relative links in the document resolve against it
    from_cache: bool = False


def fetch(url: str, *, timeout: float = DEFAULT_TIMEOUT, cache_dir: Optional[str] = None,
          max_time: Optional[float] = None, max_bytes: int = DEFAULT_MAX_FETCH_BYTES,
          private_redirects: bool = False, same_host: bool = False) -> Fetched:
    """Open ``url`` (http or https) for reading; InputError naming it on any failure.
    ``max_time`` bounds the whole fetch, body included (default MAX_TIME_FACTOR * timeout);
    ``max_bytes`` the body as sent. A redirect to a loopback, private or link-local address
    on another host is refused unless ``private_redirects``; with ``same_host`` any redirect
    off the URL's host is (the parts of a remote index)."""
    from urllib.parse import urlsplit

    shown = redact(url)
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError as exc:  # (an unclosed "[" of an IPv6 address)
        raise InputError(shown, None, f"cannot be fetched: not a valid URL: {exc}") from None
    if scheme not in _SCHEMES:
        raise InputError(shown, None, "only http and https URLs are fetched")
    try:  # the URI form (an IRI's characters encoded), or what http.client would refuse
        target = request_url(shown)
    except ValueError as exc:  # (named in one line: a CR or LF in it is shown as "?")
        raise InputError(_clean(shown), None, f"cannot be fetched: {exc}") from None
    cache = _Cache(cache_dir) if cache_dir is not None else None
    # asked conditionally only with the cached copy open: a 304 always has a body to give
    cached, validators = cache.cached(url) if cache is not None else (None, {})
    bounds = _Bounds(timeout, MAX_TIME_FACTOR * timeout if max_time is None else max_time,
                     max_bytes, private_redirects, same_host)
    try:
        response = _request(url, target, shown, validators, bounds)
        if response is None:  # not modified
            bounds.cancel()
            return Fetched(cached, shown, from_cache=True)
        if cached is not None:
            cached.close()
        final = response.geturl()
        entry = cache.entry(url, response.headers) if cache is not None else None
        return Fetched(_Body(response, redact(final), bounds, entry), final)
    except BaseException:
        bounds.cancel()
        if cached is not None:
            cached.close()
        raise


def _request(url: str, target: str, shown: str, validators: dict[str, str],
             bounds: _Bounds) -> Any:
    """The response to one GET of ``target``, redirects followed, or None for a 304 to a
    conditional request; InputError on any failure."""
    import base64
    import urllib.error
    import urllib.request
    from urllib.parse import unquote, urlsplit

    request = urllib.request.Request(target, headers={
        "User-Agent": user_agent(), "Accept-Encoding": "gzip", **validators})
    parts = urlsplit(url)
    if parts.username is not None:  # sent to this URL only, never to where it redirects
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
        request.add_unredirected_header(
            "Authorization", "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii"))
    try:
        response = _opener(shown, bounds).open(request, timeout=bounds.timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 304 and validators:
            return None
        raise InputError(shown, None, _status(exc)) from None
    except InputError:
        raise
    except Exception as exc:  # http.client's faults are not OSErrors
        raise InputError(shown, None, _failure(exc, bounds, opening=True)) from None
    length = getattr(response, "length", None)
    if length is not None and length > bounds.max_bytes:
        response.close()
        raise InputError(redact(response.geturl()), None, _too_big(bounds, length))
    return response


def _status(exc: Any) -> str:
    if exc.code == 304:
        return "HTTP 304 Not Modified to a request that was not conditional"
    if exc.code in (301, 302, 303, 307, 308):  # urllib did not follow it
        to = exc.headers.get("Location") or exc.headers.get("URI")
        if not to:
            return f"HTTP {exc.code} {_clean(str(exc.reason))}: a redirect without a Location"
        from urllib.parse import urlsplit

        if urlsplit(to).scheme.lower() not in ("", *_SCHEMES):  # (urllib refused it itself)
            return f"redirected to {_clean(redact(to))}: only http and https are followed"
        return (f"more than {MAX_REDIRECTS} redirects (or a loop); the last pointed to "
                f"{_clean(redact(to))}")
    return f"HTTP {exc.code} {_clean(str(exc.reason))}"


def _failure(exc: BaseException, bounds: _Bounds, opening: bool) -> str:
    """The reason of a failed fetch or read, in one line."""
    import http.client
    import urllib.error

    if bounds.expired:
        return f"not fetched within {bounds.seconds:g} s in all (`max_time`); stopped"
    if isinstance(exc, urllib.error.URLError) and isinstance(exc.reason, BaseException):
        exc = exc.reason
    if isinstance(exc, TimeoutError):
        return (f"no answer within {bounds.timeout:g} s" if opening else
                f"the server sent nothing for {bounds.timeout:g} s")
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the server closed the connection without an answer"
    if isinstance(exc, http.client.IncompleteRead):
        # (http.client says so of a chunk size that is no number, too)
        return "the body is cut short, or its chunked encoding is malformed"
    if isinstance(exc, http.client.InvalidURL) or opening and isinstance(exc, ValueError):
        return f"not a valid URL: {_clean(str(exc))}"  # (a ValueError: a Location that is none)
    if isinstance(exc, http.client.BadStatusLine):
        return f"not an HTTP answer (it began {str(exc)[:40]!r})"
    if isinstance(exc, http.client.HTTPException):
        return f"not a valid HTTP answer: {_clean(str(exc))}"
    if isinstance(exc, (ValueError, OverflowError)):  # a chunk size that is no size
        return "not a valid HTTP answer: a bad chunk size in its chunked body"
    if isinstance(exc, OSError):  # a connection reset, a TLS failure
        return f"{'cannot fetch' if opening else 'read error'}: {exc.strerror or exc}"
    if isinstance(exc, urllib.error.URLError):
        return f"cannot fetch: {_clean(str(exc.reason))}"
    raise exc  # (a fault of ours: not hidden behind a message)


def _clean(text: str) -> str:
    """What a server said, fit for a one-line message."""
    return "".join(c if c.isprintable() else "?" for c in text[:200])


def _too_big(bounds: _Bounds, size: Optional[int] = None) -> str:
    said = f" (it says {size:,})" if size is not None else ""
    return f"more than {bounds.max_bytes:,} bytes{said} (`max_fetch_bytes`); stopped"


def _opener(shown: str, bounds: _Bounds) -> Any:
    """urllib's opener with our redirect rules, its connections watched by the deadline."""
    import http.client
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        max_redirections = MAX_REDIRECTS

        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                             newurl: str) -> Any:
            why = _refused_redirect(req.full_url, newurl, bounds)
            if why is not None:
                fp.close()
                raise InputError(shown, None, f"redirected to {_clean(redact(newurl))}: {why}")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    def watched(base: Any) -> Any:
        class Connection(base):  # type: ignore[misc]
            def connect(self) -> None:
                super().connect()
                bounds.watch(self.sock)
        return Connection

    plain, tls = watched(http.client.HTTPConnection), watched(http.client.HTTPSConnection)

    class Handler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
        def http_open(self, req: Any) -> Any:
            return self.do_open(plain, req)

        def https_open(self, req: Any) -> Any:
            return self.do_open(tls, req)

    return urllib.request.build_opener(Redirects, Handler)


def _refused_redirect(old: str, new: str, bounds: _Bounds) -> Optional[str]:
    """Why a redirect is not followed, or None. Only to http(s): a redirect to file: or ftp:
    would read what the server's owner chooses from our disk or network. Off the host, never to
    a loopback, private or link-local address (169.254.169.254 is a cloud machine's own
    secrets): a server on the internet must not make an unattended run read the machine's own
    network. The URL the user gave is fetched as given, wherever it is."""
    from urllib.parse import urlsplit

    to, was = urlsplit(new), urlsplit(old)
    if to.scheme.lower() not in _SCHEMES:
        return "only http and https are followed"
    if (to.hostname or "").lower() == (was.hostname or "").lower():
        return None  # (another port or scheme of the same host too: http to https)
    if bounds.same_host:
        return (f"a part is fetched from its index's host only ({was.hostname}; "
                "`scope_check=False` to follow it anyway)")
    if not bounds.private_redirects and not _public(to.hostname or ""):
        return ("a loopback, private or link-local address, refused "
                "(`allow_private_redirects`)")
    return None


def _public(host: str) -> bool:
    """Whether every address of ``host`` is a global one (an unknown host fails later)."""
    import ipaddress
    import socket

    try:
        addresses = {str(info[4][0]) for info in socket.getaddrinfo(
            host, 80, type=socket.SOCK_STREAM)}
    except (OSError, UnicodeError):
        return True
    for text in addresses:
        address = ipaddress.ip_address(text.split("%")[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if not address.is_global or address.is_multicast:
            return False
    return True


class _Bounds:
    """The bounds of one fetch. When its deadline comes, the connections it watches are shut
    down, so that a read blocked on a server sending a byte now and then returns (``timeout``
    is per socket operation, and one read is many of them)."""

    def __init__(self, timeout: float, seconds: float, max_bytes: int,
                 private_redirects: bool, same_host: bool) -> None:
        import threading

        self.timeout = timeout
        self.seconds = seconds
        self.max_bytes = max_bytes
        self.private_redirects = private_redirects
        self.same_host = same_host
        self.expired = False
        self._sockets: list[Any] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        if seconds > 0:  # (0: no deadline)
            self._timer.start()

    def watch(self, sock: Any) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shut(sock)

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._sockets.clear()


def _shut(sock: Any) -> None:
    import socket

    with contextlib.suppress(OSError):  # (closed already: nothing to stop)
        # the plain socket's shutdown, a TLS one's too: ssl's own would unwrap it under the
        # reading thread
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Body:
    """A response body, read within the fetch's bounds: every fault of the server or the
    network is an InputError naming the URL, the size is capped, the deadline holds, and a body
    that ends short of its Content-Length is cut short, not complete. With a cache ``entry``
    it is copied to a temporary as it is read, and put in the cache only when read to its end
    (a run that stops part-way, or a body cut short, leaves the earlier copy): both files by
    rename, so that one planted there is replaced, never written through."""

    def __init__(self, response: Any, url: str, bounds: _Bounds,
                 entry: Optional[tuple[str, str, dict[str, Any]]]) -> None:
        self._response = response
        self._url = url
        self._bounds = bounds
        self._expected: Optional[int] = getattr(response, "length", None)
        self._got = 0
        self._entry = entry
        self._copy: Optional[IO[bytes]] = None
        if entry is not None:
            folder = None if is_store(entry[0]) else os.path.dirname(entry[0])
            try:  # (for a cache in a bucket, in the system's temporary folder)
                self._temp, self._copy = _temporary(folder)
            except OSError as exc:
                self.close()
                raise _unwritable(os.path.dirname(entry[0]), exc) from None

    def read(self, n: Optional[int] = -1) -> bytes:
        if n is None or n < 0:  # (never all at once: the cap bounds the memory too)
            return b"".join(iter(lambda: self.read(_CHUNK), b""))
        if self._bounds.expired:
            raise self._failed(TimeoutError())
        try:
            data: bytes = self._response.read(min(n, self._bounds.max_bytes - self._got + 1))
        except Exception as exc:
            raise self._failed(exc) from None
        self._got += len(data)
        if self._got > self._bounds.max_bytes:
            raise InputError(self._url, None, _too_big(self._bounds))
        if n and not data:
            self._at_end()
        elif self._copy is not None:
            self._keep(self._copy.write, data)
        return data

    def facts(self) -> dict[str, Any]:
        """What the server said of this body (check/facts.py, for `feed2sitemap report`)."""
        headers = self._response.headers
        return {"url": self._url, "status": getattr(self._response, "status", None),
                "content_length": self._expected, "etag": headers.get("ETag"),
                "last_modified": headers.get("Last-Modified"),
                "content_type": headers.get("Content-Type"),
                "content_encoding": headers.get("Content-Encoding")}

    def _failed(self, exc: BaseException) -> InputError:
        return InputError(self._url, None, _failure(exc, self._bounds, False))

    def _at_end(self) -> None:
        if self._bounds.expired:  # (the deadline shut the connection)
            raise self._failed(TimeoutError())
        if self._expected is not None and self._got < self._expected:
            raise InputError(self._url, None, f"the body is cut short: {self._got:,} of the "
                             f"{self._expected:,} bytes its Content-Length announced")
        self._bounds.cancel()
        if self._copy is not None:
            self._copy.close()
            self._copy = None
            self._keep(self._store)

    def _store(self) -> None:
        import json

        assert self._entry is not None
        meta_path, body_path, meta = self._entry
        if is_store(meta_path):  # the body first, as on disk: a meta names only a whole body
            try:
                store_put(body_path, self._temp)
            finally:
                os.unlink(self._temp)
            store_put(meta_path, json.dumps(meta).encode("utf-8"))
            return
        meta_temp, f = _temporary(os.path.dirname(meta_path))
        with f:
            f.write(json.dumps(meta).encode("utf-8"))
        os.replace(self._temp, body_path)
        os.replace(meta_temp, meta_path)

    def _keep(self, step: Any, *args: Any) -> None:
        try:
            step(*args)
        except OSError as exc:
            raise _unwritable(os.path.dirname(self._temp), exc) from None

    def close(self) -> None:
        self._bounds.cancel()
        if self._copy is not None:
            self._copy.close()
            self._copy = None
            with contextlib.suppress(OSError):
                os.unlink(self._temp)
        self._response.close()


class _Cache:
    """ETag and Last-Modified per URL, with the body they describe, in a directory of the
    user's choosing: two files per URL, named by a hash of the URL, readable by the owner only
    (a URL's query may hold a token). The entry holds the URL's full hash, not the URL. A
    missing directory is created, the owner's only (0700) like its files. A folder in object
    storage (``s3://…``) holds the same objects, read and written whole: for runs on machines
    that keep no disk between runs; who may read them is the bucket's policy."""

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

    def entry(self, url: str, headers: Any) -> Optional[tuple[str, str, dict[str, Any]]]:
        """Where a body of ``url`` goes, and what is kept of it; None when nothing would
        validate it later."""
        meta_path, body_path, key = self._paths(url)
        meta = {"key": key, "url": redact(url).split("?")[0].split("#")[0],
                "etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified")}
        if not (meta["etag"] or meta["last_modified"]):
            return None
        return meta_path, body_path, meta


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
