"""URL checks and IRI → URI normalisation (RFC 3986/3987), with a cheap path for clean URLs."""

from __future__ import annotations

import re
from typing import NamedTuple
from urllib.parse import urlsplit, urlunsplit

__all__ = ["CLEAN_BYTES", "CLEAN_URL", "CLEAN_URLS", "Scope", "normalize_url", "proven_clean",
           "scope_of"]

# Characters left as they are inside path, query and fragment (as a regex character class's
# contents); everything else is encoded. RFC 3986 reserved and unreserved characters, plus "%"
# (handled separately so that an existing %XX escape is never encoded twice) and "[" "]" which
# browsers and servers pass through.
_CHARS = r"A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]"
# A scheme and host already in normal form: lower case, no port, userinfo or IPv6 literal.
_HOST = r"https?://[a-z0-9][a-z0-9.-]*"
_HEAD = _HOST + "/"
# A URL that is already a clean, normalised absolute http(s) URI: a clean scheme and host, a
# path, and nothing after the host that would need percent-encoding. Most URLs of a real site
# pass these two regexes and skip urlsplit entirely.
_CLEAN_TEXT = f"{_HEAD}[{_CHARS}]*"
CLEAN_URL = _CLEAN = re.compile(_CLEAN_TEXT)
# The same for many URLs at once, each followed by a newline (which no clean URL contains)
CLEAN_URLS = re.compile(f"(?:{_CLEAN_TEXT}\n)*")
# The same, allowing well-formed %XX escapes: slower (an alternation per character), so tried only
# for URLs that contain a "%".
_CLEAN_PCT = re.compile(f"{_HEAD}(?:[{_CHARS}]|%[0-9A-Fa-f]{{2}})*")
_PCT = re.compile(r"%(?![0-9A-Fa-f]{2})")  # a "%" that starts no %XX escape
# The clean characters and "%" as bytes: deleting them (bytes.translate) from the lines of clean
# URLs leaves only the newlines.
CLEAN_BYTES = bytes(b for b in range(128) if re.fullmatch(f"[{_CHARS}%]", chr(b)))
_head = re.compile(_HEAD).match


def proven_clean(text: str, n: int, unclean_bytes: int) -> str | None:
    """The scheme and host that all ``n`` lines of ``text`` start with, if that proves each of
    them a normalised URI already (one that normalize_url returns as it is), else None. Each
    line ends in a newline; ``unclean_bytes`` counts the bytes of ``text`` outside CLEAN_BYTES,
    newlines included.

    The proof, for lines of one site: no byte but the newlines is unclean (one bytes.translate,
    done by the caller), every "%" starts a %XX escape, the first line starts with a clean
    scheme and host, and every other line with the same (one str.count). All run in C at
    memory speed, several times faster than a regex over the lines.
    """
    if unclean_bytes != n or ("%" in text and _PCT.search(text) is not None):
        return None
    head = _head(text)
    if head is not None and text.count("\n" + head.group()) == n - 1:
        return head.group()
    return None


_CLEAN_PART = re.compile(f"[{_CHARS}]*")
_UNSAFE = re.compile(f"[^{_CHARS}%]+")
_DEFAULT_PORT = {"http": 80, "https": 443}
# An absolute http(s) URL whose scheme and host are already in normal form: only what follows
# the host may need encoding, and urlsplit is not needed.
_CLEAN_HEAD = re.compile(_HOST + "(?=[/?#]|$)")


def _pct(m: re.Match[str]) -> str:
    return "%" + m.group().encode("utf-8", "surrogatepass").hex("%").upper()


def _quote(part: str) -> str:
    """Percent-encode what a URI does not allow, as UTF-8; keep existing %XX escapes."""
    if _CLEAN_PART.fullmatch(part) is not None:
        return part
    return _PCT.sub("%25", _UNSAFE.sub(_pct, part))


def normalize_url(raw: str) -> str:
    """Return the normalised absolute http(s) URI for ``raw``, or raise ValueError saying why.

    Strips surrounding whitespace, lower-cases scheme and host, drops a default port, writes an
    empty path as "/", IDNA-encodes a non-ASCII host and percent-encodes (as UTF-8) characters a
    URI may not contain, never encoding an existing %XX escape twice.
    """
    url = raw.strip()
    if _CLEAN.fullmatch(url) is not None or ("%" in url and _CLEAN_PCT.fullmatch(url) is not None):
        return url
    head = _CLEAN_HEAD.match(url)
    if head is not None:  # a non-ASCII path or query on a plain host: encode the rest only
        rest = url[head.end():]
        return url[: head.end()] + ("/" if not rest.startswith("/") else "") + _quote(rest)
    return _normalize_slow(url)


def _normalize_slow(url: str) -> str:
    if not url:
        raise ValueError("empty URL")
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # e.g. a malformed IPv6 literal
        raise ValueError(f"not a valid URL ({exc})") from None
    scheme = parts.scheme.lower()
    if not scheme or "://" not in url[: len(scheme) + 3]:
        raise ValueError(f"not an absolute URL: {url[:80]!r}")
    if scheme not in ("http", "https"):
        raise ValueError(f"not an http(s) URL: {url[:80]!r}")
    try:
        host = parts.hostname
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"bad host or port in {url[:80]!r} ({exc})") from None
    if not host:
        raise ValueError(f"no host in {url[:80]!r}")
    if any(ch.isspace() or ch in '"<>\\^`{|}%' for ch in host):
        raise ValueError(f"bad character in host of {url[:80]!r}")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise ValueError(f"host cannot be IDNA-encoded: {host[:80]!r}") from None
    host = host.lower()
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    netloc = host
    if port is not None and port != _DEFAULT_PORT[scheme]:
        netloc = f"{host}:{port}"
    if parts.username is not None or parts.password is not None:
        userinfo = parts.netloc.rpartition("@")[0]
        netloc = _quote(userinfo) + "@" + netloc
    path = _quote(parts.path) or "/"
    return urlunsplit((scheme, netloc, path, _quote(parts.query), _quote(parts.fragment))) + (
        # urlunsplit drops an empty query or fragment marker; keep what the page named
        "?" if url.endswith("?") and not parts.query and not parts.fragment else ""
    )


class Scope(NamedTuple):
    """The site a sitemap may speak for: a scheme, host (with port) and directory prefix."""

    prefix: str  # "https://example.com/blog/" — every URL in scope starts with it
    origin: str  # "https://example.com"

    def contains(self, loc: str) -> bool:
        """Whether a normalised URL lies in scope: under the directory, or the directory itself
        written without its trailing slash."""
        return loc.startswith(self.prefix) or loc + "/" == self.prefix


def scope_of(url: str, *, directory: bool = True) -> Scope:
    """The scope of a normalised URL: its origin, and with ``directory`` its directory too.

    sitemaps.org: a sitemap at https://example.com/blog/sitemap.xml may list only URLs under
    https://example.com/blog/. A base URL that names a directory should end with "/"; the part
    after the last "/" is taken as a file name.
    """
    norm = normalize_url(url)
    after_host = norm.find("/", norm.find("://") + 3)
    origin = norm[:after_host]
    if not directory:
        return Scope(origin + "/", origin)
    path = norm[after_host:].split("?", 1)[0].split("#", 1)[0]
    return Scope(origin + path[: path.rfind("/") + 1], origin)
