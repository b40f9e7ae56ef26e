"""Telling search engines which pages changed: the IndexNow protocol (indexnow.org).

One JSON POST per host and per 10,000 URLs: ``host``, ``key``, optional ``keyLocation`` and
``urlList``. The engine checks the key against a text file on the site (``/KEY.txt``, or
``keyLocation``). A failure that may pass (429 too many requests, a 5xx answer, a timeout, no
connection) is retried after a pause, a bounded number of times; a 4xx that says the key or
the request is wrong is not. The key is never shown in full.

What a failure that may pass leaves unsent (after the retries) is kept in a pending file; the
next run sends it first, with its own, and removes the file once it is accepted. The file is in
``--cache DIR`` when the run has one (``indexnow-pending-HASH.txt``, HASH naming the output),
else beside the output as ``.NAME.indexnow-pending``: a dot file, which web servers commonly
refuse to serve, and which holds nothing secret (the site's own URLs; never the key).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

from ..errors import IndexNowError, OptionError
from ..files.safety import replace_file
from ..files.store import is_store
from ..model.limits import DEFAULT_ENDPOINT
from ..model.report import Submitted
from ..model.urls import request_url
from .fetch import user_agent

MAX_URLS = 10_000  # per request, the protocol's limit
RETRIES = 3  # after a failure that may pass
MAX_PENDING_BYTES = 256 << 20  # a bound on what a next run reads back
_KEY = re.compile(r"[A-Za-z0-9-]{8,128}")
_WHY = {
    400: "bad request (the engine could not read it)",
    403: "the key is not valid: its key file was not found on the site",
    422: "the URLs are not on the key's host, or the key does not match its file",
    429: "too many requests",
}


def mask(key: str) -> str:
    return key[:4] + "…" if len(key) > 4 else "…"


@dataclass
class IndexNow:
    key: str
    endpoint: str = DEFAULT_ENDPOINT
    key_location: Optional[str] = None
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if not _KEY.fullmatch(self.key):
            raise OptionError("the IndexNow key must be 8 to 128 characters of a-z, A-Z, 0-9 "
                              "and '-'")
        try:  # what http.client would refuse with a traceback
            parts = urlsplit(self.endpoint)
            if parts.scheme not in ("http", "https"):
                raise OptionError("the IndexNow endpoint must be an http(s) URL")
            if "@" in parts.netloc:  # (it would be shown in every message)
                raise OptionError("the IndexNow endpoint must not hold a user or a password")
            self.endpoint = request_url(self.endpoint)
        except OptionError:
            raise
        except ValueError as exc:
            raise OptionError(f"the IndexNow endpoint cannot take a request: {exc}") from None

    def bodies(self, urls: Iterable[str]) -> Iterator[dict[str, object]]:
        """The requests to send: URLs grouped by host (in first-seen order), 10,000 a request."""
        by_host: dict[str, list[str]] = {}
        for url in urls:
            host = urlsplit(url).hostname or ""
            batch = by_host.setdefault(host, [])
            batch.append(url)
            if len(batch) == MAX_URLS:
                yield self._body(host, by_host.pop(host))
        for host, batch in by_host.items():
            yield self._body(host, batch)

    def _body(self, host: str, urls: list[str]) -> dict[str, object]:
        location = {"keyLocation": self.key_location} if self.key_location else {}
        return {"host": host, "key": self.key, **location, "urlList": urls}

    def submit(self, urls: Iterable[str], dry_run: bool = False) -> Submitted:
        done = Submitted()
        pending = iter(self.bodies(urls))
        for body in pending:
            if dry_run:
                done.bodies.append(dict(body, key=mask(self.key)))
            else:
                try:
                    self._post(body)
                except IndexNowError as exc:
                    raise self._not_submitted(exc, body, pending, done) from None
            done.requests += 1
            done.urls += len(body["urlList"])  # type: ignore[arg-type]
        return done

    def _post(self, body: dict[str, object]) -> None:
        import http.client  # (imported by the runs that submit only: 50 ms)
        import urllib.error
        import urllib.request

        data = json.dumps(body).encode("utf-8")
        for attempt in range(RETRIES + 1):
            request = urllib.request.Request(
                self.endpoint, data=data, method="POST",
                headers={"Content-Type": "application/json; charset=utf-8",
                         "User-Agent": user_agent()})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    if response.status in (200, 202):
                        return
                    raise IndexNowError(f"IndexNow: {self.endpoint} answered HTTP "
                                        f"{response.status}")
            except urllib.error.HTTPError as exc:
                exc.close()
                transient = exc.code == 429 or exc.code >= 500
                retry_after = exc.headers.get("Retry-After")
                failure = IndexNowError(f"IndexNow: {self.endpoint} answered HTTP {exc.code}: "
                                        f"{_WHY.get(exc.code, exc.reason)}")
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                reason = getattr(exc, "reason", exc)  # (a malformed answer too)
                transient, retry_after = True, None
                failure = IndexNowError(f"IndexNow: cannot reach {self.endpoint}: {reason}")
            failure.transient = transient
            if not transient or attempt == RETRIES:
                raise failure
            time.sleep(_pause(retry_after, attempt))

    def _not_submitted(self, exc: IndexNowError, body: dict[str, object],
                       rest: Iterator[dict[str, object]], done: Submitted) -> IndexNowError:
        """``exc`` with the URLs not submitted (``unsent``) and what was (``submitted``)."""
        first: list[str] = body["urlList"]  # type: ignore[assignment]
        unsent = first + [url for b in rest for url in b["urlList"]]  # type: ignore[attr-defined]
        left = len(unsent)
        shown = ", ".join(first[:5]) + (f" (+{left - 5:,} more)" if left > 5 else "")
        were = "URL was" if left == 1 else "URLs were"
        error = IndexNowError(f"{exc} (key {mask(self.key)}); {left:,} {were} not submitted: "
                              f"{shown}")
        error.transient, error.unsent, error.submitted = exc.transient, unsent, done
        return error


def _pause(retry_after: Optional[str], attempt: int) -> float:
    """Retry-After in seconds when the engine gives it (at most a minute), else 1, 2, 4 s."""
    if retry_after is not None and retry_after.strip().isdigit():
        return min(float(retry_after.strip()), 60.0)
    return float(2 ** attempt)


def pending_path(output: str, cache_dir: Optional[str]) -> str:
    """Where the URLs not yet submitted for ``output`` wait."""
    output = os.path.abspath(output)
    if cache_dir is not None and not is_store(cache_dir):  # (a bucket cache: beside it)
        import hashlib  # (only a run with --cache: OpenSSL's module is slow to load)

        tag = hashlib.sha256(output.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return os.path.join(cache_dir, f"indexnow-pending-{tag}.txt")
    directory, name = os.path.split(output)
    return os.path.join(directory, f".{name}.indexnow-pending")


def read_pending(path: str) -> list[str]:
    """The URLs waiting at ``path`` (none when it is missing or unreadable)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(MAX_PENDING_BYTES)
    except (OSError, UnicodeDecodeError):
        return []
    return [line for line in text.split("\n") if line.startswith(("http://", "https://"))]


def save_pending(path: str, urls: Iterable[str]) -> int:
    """Write ``urls`` (each once) to ``path`` atomically; return how many."""
    unique = list(dict.fromkeys(urls))
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)  # (as --cache is made)
    replace_file(path, "".join(url + "\n" for url in unique).encode("utf-8"))
    return len(unique)


def clear_pending(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
