"""Inputs by URL: http(s) only, a bounded number of redirects, timeouts, a User-Agent naming the
tool, and (with a cache directory) conditional requests for scheduled runs.

The body is handed to the readers as a stream, exactly as a file would be: gzip is recognised
by its first bytes whether the server compressed the transfer (``Content-Encoding: gzip``) or
the file itself (``sitemap.xml.gz``), and each reader applies its own bounds (the feed cap, the
line and value limits). Standard library only: nothing here needs more than urllib.
"""

from __future__ import annotations

import contextlib
import os
from typing import IO, Any, Optional

from .errors import InputError

__all__ = ["DEFAULT_TIMEOUT", "MAX_REDIRECTS", "Fetched", "fetch", "is_url", "user_agent"]

DEFAULT_TIMEOUT = 30.0
MAX_REDIRECTS = 5
_SCHEMES = ("http", "https")


def is_url(source: object) -> bool:
    return isinstance(source, str) and source.lower().startswith(("http://", "https://"))


def user_agent() -> str:
    from . import __version__

    return f"feed2sitemap/{__version__} (sitemap generator)"


def _opener() -> Any:
    """urllib's opener with our redirect rules. (urllib.request and http.client cost 50 ms to
    import: only a run that fetches pays for them.)"""
    import urllib.request

    class Redirects(urllib.request.HTTPRedirectHandler):
        """At most MAX_REDIRECTS, and only to http(s): a redirect to file: or ftp: would read
        what the server's owner chooses from our disk or network."""

        max_redirections = MAX_REDIRECTS

        def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                             newurl: str) -> Any:
            scheme = urllib.parse.urlsplit(newurl).scheme.lower()
            if scheme not in _SCHEMES:
                raise InputError(req.full_url, None, f"redirected to {newurl[:200]}: only "
                                 "http and https are followed")
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(Redirects)


class Fetched:  # (internal: a plain class, as a dataclass's __init__ is compiled at start-up)
    """An open body and what the fetch said about it."""

    __slots__ = ("stream", "url", "from_cache")

    def __init__(self, stream: IO[bytes], url: str, from_cache: bool = False) -> None:
        self.stream = stream  # (an object with read and close: all that the readers call)
        self.url = url  # after redirects: relative links in the document resolve against it
        self.from_cache = from_cache


class _Cache:
    """ETag and Last-Modified per URL, with the body they describe, in a directory of the
    user's choosing (two files per URL, named by a hash of the URL)."""

    def __init__(self, directory: str) -> None:
        if not os.path.isdir(directory):
            raise InputError(directory, None, "cache directory does not exist")
        self.directory = directory

    def _paths(self, url: str) -> tuple[str, str]:
        import hashlib  # (only a run with --cache: OpenSSL's module is slow to load)

        key = hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]
        return (os.path.join(self.directory, key + ".json"),
                os.path.join(self.directory, key + ".body"))

    def validators(self, url: str) -> dict[str, str]:
        import json  # (json and tempfile: only a run with --cache, start-up time)

        meta, body = self._paths(url)
        try:
            with open(meta, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            return {}
        if not os.path.isfile(body) or data.get("url") != url:
            return {}
        headers = {}
        if isinstance(data.get("etag"), str):
            headers["If-None-Match"] = data["etag"]
        if isinstance(data.get("last_modified"), str):
            headers["If-Modified-Since"] = data["last_modified"]
        return headers

    def cached(self, url: str) -> IO[bytes]:
        return open(self._paths(url)[1], "rb")

    def storing(self, url: str, response: Any) -> Any:
        """The response's body, copied to the cache as it is read; kept only when read to its
        end (a run that stops part-way leaves the earlier copy)."""
        meta = {"url": url, "etag": response.headers.get("ETag"),
                "last_modified": response.headers.get("Last-Modified")}
        if not (meta["etag"] or meta["last_modified"]):
            return response  # nothing to validate it by later
        return _Tee(response, self._paths(url), meta)


class _Tee:
    """A response body that is also written to a temporary, put in the cache at its end."""

    def __init__(self, response: Any, paths: tuple[str, str], meta: dict[str, Any]) -> None:
        self._response = response
        self._paths = paths
        self._meta = meta
        import tempfile

        fd, self._temp = tempfile.mkstemp(dir=os.path.dirname(paths[0]), suffix=".tmp")
        self._copy: Optional[IO[bytes]] = os.fdopen(fd, "wb")

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._response.read(n)
        if self._copy is not None:
            if data:
                self._copy.write(data)
            elif n != 0:
                self._finish()
        return data

    def _finish(self) -> None:
        assert self._copy is not None
        self._copy.close()
        self._copy = None
        os.replace(self._temp, self._paths[1])
        import json

        with open(self._paths[0], "w", encoding="utf-8") as f:
            json.dump(self._meta, f)

    def close(self) -> None:
        if self._copy is not None:
            self._copy.close()
            self._copy = None
            with contextlib.suppress(OSError):
                os.unlink(self._temp)
        self._response.close()


def fetch(url: str, *, timeout: float = DEFAULT_TIMEOUT,
          cache_dir: Optional[str] = None) -> Fetched:
    """Open ``url`` (http or https) for reading; raise InputError naming it on any failure."""
    from urllib.parse import urlsplit  # (2 ms of start-up, with ipaddress)

    from .urls import request_url, shown

    if url.strip().partition(":")[0].lower() not in _SCHEMES:
        raise InputError(url, None, "only http and https URLs are fetched")
    try:  # what http.client would refuse with a traceback (issue 35, item 5)
        target = request_url(url)
    except ValueError as exc:  # (named as shown: no password, no line break in the message)
        raise InputError(shown(url, 200), None, f"cannot be fetched: {exc}") from None
    cache = _Cache(cache_dir) if cache_dir is not None else None
    headers = {"User-Agent": user_agent(), "Accept-Encoding": "gzip"}
    if cache is not None:
        headers.update(cache.validators(url))
    import urllib.error
    import urllib.request

    opener = _opener()
    request = urllib.request.Request(target, headers=headers)
    try:
        response = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        if exc.code == 304 and cache is not None:
            return Fetched(cache.cached(url), url, from_cache=True)
        if 300 <= exc.code < 400:  # urllib refused to follow it
            to = (exc.headers.get("Location") or "")[:200]
            if urlsplit(to).scheme.lower() not in ("", *_SCHEMES):
                raise InputError(url, None, f"redirected to {to}: only http and https are "
                                 "followed") from None
            raise InputError(url, None, f"more than {MAX_REDIRECTS} redirects (or a loop); the "
                             f"last pointed to {to}") from None
        raise InputError(url, None, f"HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError):
            raise InputError(url, None, f"no answer within {timeout:g} s") from None
        raise InputError(url, None, f"cannot fetch: {getattr(reason, 'strerror', None) or reason}"
                         ) from None
    except TimeoutError:
        raise InputError(url, None, f"no answer within {timeout:g} s") from None
    except OSError as exc:  # a connection reset, a TLS failure
        raise InputError(url, None, f"cannot fetch: {exc.strerror or exc}") from None
    final = response.geturl()
    stream = cache.storing(url, response) if cache is not None else response
    return Fetched(_Timeouts(stream, final, timeout), final)  # type: ignore[arg-type]


class _Timeouts:
    """Turns a read that times out, or a connection that drops, into an InputError naming the
    URL (the socket's timeout applies to each read)."""

    def __init__(self, stream: Any, url: str, timeout: float) -> None:
        self._stream = stream
        self._url = url
        self._timeout = timeout

    def read(self, n: int = -1) -> bytes:
        try:
            return self._stream.read(n)  # type: ignore[no-any-return]
        except TimeoutError:
            raise InputError(self._url, None, f"the server sent nothing for {self._timeout:g} s"
                             ) from None
        except OSError as exc:
            raise InputError(self._url, None, f"read error: {exc.strerror or exc}") from None

    def close(self) -> None:
        self._stream.close()
