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
from typing import Any, NamedTuple, Optional

from ..errors import InputError
from ..model.urls import request_url
from .cache import Cache, Copy

DEFAULT_TIMEOUT = 30.0
MAX_REDIRECTS = 5
MAX_TIME_FACTOR = 10  # the overall deadline of a fetch, by default: this many `timeout`s
# bytes of one input as sent (a gzip transfer expands at most detect.MAX_RATIO times: a cap of
# its own)
DEFAULT_MAX_FETCH_BYTES = 256 * 1024 * 1024
_SCHEMES = ("http", "https")
_CHUNK = 1 << 16


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
    cache = Cache(cache_dir) if cache_dir is not None else None
    # asked conditionally only with the cached copy open: a 304 always has a body to give
    cached, validators = cache.cached(url) if cache is not None else (None, {})
    bounds = _Bounds(timeout, MAX_TIME_FACTOR * timeout if max_time is None else max_time,
                     max_bytes, private_redirects, same_host)
    response = None
    try:
        response = _request(url, target, shown, validators, bounds)
        if response is None:  # not modified
            bounds.cancel()
            return Fetched(cached, shown, from_cache=True)
        if cached is not None:
            cached.close()
        final = response.geturl()
        copy = cache.copy(url, response.headers) if cache is not None else None
        return Fetched(_Body(response, redact(final), bounds, copy), final)
    except BaseException:
        bounds.cancel()
        for stream in (cached, response):
            if stream is not None:
                stream.close()
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
    that ends short of its Content-Length is cut short, not complete. With a cache ``copy``,
    what is read is copied to it, and kept only once read to its end (cache.py)."""

    def __init__(self, response: Any, url: str, bounds: _Bounds, copy: Optional[Copy]) -> None:
        self._response = response
        self._url = url
        self._bounds = bounds
        self._expected: Optional[int] = getattr(response, "length", None)
        self._got = 0
        self._copy = copy

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
            self._copy.write(data)
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
            copy, self._copy = self._copy, None
            copy.commit()

    def close(self) -> None:
        self._bounds.cancel()
        if self._copy is not None:
            self._copy.discard()
            self._copy = None
        self._response.close()
