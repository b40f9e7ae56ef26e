"""URL checks and IRI → URI normalisation (RFC 3986/3987): ``normalize_url`` is the rule.

The block proofs let readers and steps skip it for whole blocks, accepting only what it returns
unchanged (tests/test_url_rules.py); a proof travels as a ``CleanLocs``, made only here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import compress
from operator import not_
from typing import NamedTuple, Optional

from ..backends import fast

# Characters left as they are in path and query (a regex class's contents); all else is
# encoded, "%" apart (an existing %XX escape is never encoded twice). Not "[" "]": RFC 3986
# allows them only around an IPv6 host, so "?q=x[]=1" is written "?q=x%5B%5D=1". Not "#": a
# fragment is removed (it is never sent to the server), so a URL holding one is never clean.
_CHARS = r"A-Za-z0-9\-._~!$&'()*+,;=:@/?"
# A scheme and host already in normal form: lower case, no port, userinfo or IPv6 literal.
_HOST = r"https?://[a-z0-9][a-z0-9.-]*"
_HEAD = _HOST + "/"
# A normalised absolute http(s) URI but for dot segments, which each proof looks for (_no_dots)
_CLEAN_TEXT = f"{_HEAD}[{_CHARS}]*"
_CLEAN = re.compile(_CLEAN_TEXT)
# A %XX escape in normal form (RFC 3986 section 6.2.2.1-2): upper-case hex digits, and not an
# unreserved character's (ALPHA, DIGIT, "-", ".", "_", "~"), which is decoded.
_GOOD_ESCAPE = r"%(?!3[0-9]|4[1-9A-F]|5[0-9AF]|6[1-9A-F]|7[0-9AE]|2[DE])[0-9A-F]{2}"
# The clean characters and "%" as bytes: deleting them from clean URL lines leaves the newlines.
CLEAN_BYTES = re.sub(f"[^{_CHARS}%]", "", bytes(range(128)).decode()).encode()
_head = re.compile(_HEAD).match
_clean_head = re.compile(_HOST + "(?=[/?#]|$)").match
# (compiled when first used: start-up time)
_CLEAN_PCT = f"{_HEAD}(?:[{_CHARS}]|{_GOOD_ESCAPE})*"
_CLEAN_URLS = f"(?:{_CLEAN_TEXT}\n)*"
_BAD_PCT = f"%(?!(?<=%){_GOOD_ESCAPE[1:]})"  # a "%" that starts no normal escape
# A dot segment (RFC 3986 section 5.2.4); one in a query only sends a URL the slow way
_DOTS = r"(?m)/\.\.?(?=[/?#\n]|$)"
# A host as written: RFC 3986 reg-name characters (no escapes), after IDNA encoding, which can
# map other characters to anything ("＜" to "<"); or an IPv6 literal
_GOOD_HOST = r"[a-z0-9\-._~!$&'()*+,;=]+|\[[0-9a-f:.]+\]"
# An IPv6 literal host, maybe with a port (which urlsplit checks)
_IPV6_AUTHORITY = r"\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\](?::[^\[\]]*)?"


def _no_dots(text: str) -> bool:
    return "/." not in text or re.search(_DOTS, text) is None


def proven_clean(text: str, n: int, unclean_bytes: int) -> str | None:
    """The scheme and host all ``n`` lines of ``text`` (each ending in a newline) start with,
    if that proves each a normalised URI already, else None. ``unclean_bytes`` counts the bytes
    outside CLEAN_BYTES, newlines included (one bytes.translate, the caller's)."""
    if unclean_bytes != n or ("%" in text and re.search(_BAD_PCT, text) is not None):
        return None
    head = _head(text)
    if head is not None and text.count("\n" + head.group()) == n - 1 and _no_dots(text):
        return head.group()
    return None


def all_normalized(locs: Sequence[str]) -> bool:
    """Whether every URL of ``locs`` is a normalised URI already, proven at once (False may
    only mean not proven: a URL holding a newline or a "%" of several sites is left to the
    rule)."""
    text = "\n".join(locs) + "\n"
    if text.count("\n") != len(locs):
        return False
    if _one_site(locs, text) is not None:
        return True
    return "%" not in text and re.fullmatch(_CLEAN_URLS, text) is not None and _no_dots(text)


_KEY = object()


class CleanLocs:
    """The proof that every location of a list is a normalised URI starting with ``prefix``
    ("" when nothing is said of the site), none longer than ``longest`` when known. It holds
    its own tuple, which the batch it proves takes as its ``locs``: ``covers`` is an identity
    test, so a list put in their place is unproven."""

    __slots__ = ("locs", "prefix", "longest")

    def __init__(self, locs: Sequence[str], prefix: str, key: object,
                 longest: Optional[int] = None) -> None:
        if key is not _KEY:
            raise TypeError("only feed2sitemap.model.urls proves locations clean")
        self.locs = tuple(locs)
        self.prefix = prefix
        self.longest = longest

    def covers(self, locs: Sequence[str]) -> bool:
        return locs is self.locs

    def subset(self, keep: Sequence[int]) -> CleanLocs:
        return CleanLocs(tuple(map(self.locs.__getitem__, keep)), self.prefix, _KEY,
                         self.longest)


def prove_lines(text: str, lines: list[str], unclean_bytes: int, size: int,
                longest: Optional[int] = None) -> Optional[list[CleanLocs]]:
    """Proofs for ``lines`` in slices of ``size``, if all are clean normalised URIs of one site
    (``text`` and ``unclean_bytes`` as for proven_clean), else None."""
    prefix = proven_clean(text, len(lines), unclean_bytes)
    if prefix is None:
        return None
    held = tuple(lines)
    return [CleanLocs(held[i: i + size], prefix, _KEY, longest)
            for i in range(0, len(held), size)]


class Normalized(NamedTuple):
    """The URLs kept (proven), refused and defragmented (with their indexes)."""

    clean: CleanLocs
    bad: list[tuple[int, BadURL]]
    fragments: list[tuple[int, str]]


def normalize_locs(locs: Sequence[str]) -> Normalized:
    """``normalize_url`` over a list, with the proof that the URLs kept are normalised."""
    return _normalize_block(locs) if fast("URL blocks") else _normalize_each(locs)


def _normalize_block(locs: Sequence[str]) -> Normalized:
    """One site's clean ASCII URLs proven at memory speed, also beside a few IRIs, which alone
    go through normalize_url."""
    site = _one_site(locs)
    if site is not None:
        return Normalized(CleanLocs(locs, site, _KEY), [], [])
    ascii_flags = list(map(str.isascii, locs))
    iris = list(compress(range(len(locs)), map(not_, ascii_flags)))
    if not iris or len(iris) * 4 > len(locs):
        return _normalize_each(locs)
    site = _one_site(list(compress(locs, ascii_flags)))
    if site is None:
        return _normalize_each(locs)
    done = _normalize_some(locs, iris)
    if done.bad or not all(done.clean.locs[i].startswith(site) for i in iris):
        return done
    return Normalized(CleanLocs(done.clean.locs, site, _KEY), [], done.fragments)


def _one_site(locs: Sequence[str], text: str = "") -> str | None:
    text = text or "\n".join(locs) + "\n"
    if not text.isascii():  # (never clean; and a lone surrogate cannot be encoded)
        return None
    return proven_clean(text, len(locs), len(text.encode().translate(None, CLEAN_BYTES)))


def _normalize_each(locs: Sequence[str]) -> Normalized:
    return _normalize_some(locs, range(len(locs)))


def _normalize_some(locs: Sequence[str], unclean: Iterable[int]) -> Normalized:
    """normalize_url for the locs at the indexes ``unclean`` (the others are normalised)."""
    fixed = list(locs)
    bad: list[tuple[int, BadURL]] = []
    fragments: list[tuple[int, str]] = []
    for i in unclean:
        try:
            fixed[i] = normalize_url(locs[i])
        except BadURL as exc:
            bad.append((i, exc))
            continue
        if "#" in locs[i] and "#" not in fixed[i]:
            fragments.append((i, fixed[i]))
    if bad:
        gone = {i for i, _ in bad}
        fixed = [url for i, url in enumerate(fixed) if i not in gone]
    return Normalized(CleanLocs(fixed, "", _KEY), bad, fragments)


def _is_clean(url: str) -> bool:
    return (_CLEAN.fullmatch(url) is not None
            or ("%" in url and re.fullmatch(_CLEAN_PCT, url) is not None)) and _no_dots(url)


class BadURL(ValueError):
    """A URL that cannot be written; ``kind`` is the summary's name for the reason, ``hint``
    what the user can do about it."""

    def __init__(self, message: str, kind: str = "invalid URL", hint: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.hint = hint


def shown(url: str, limit: int = 80) -> str:
    """``url`` for a message: no userinfo (a password is never printed), cut."""
    return repr(re.sub(r"(?<=//)[^/?#@]*@", "", url, count=1)[:limit])  # (re caches it)


@cache
def _quoting() -> tuple[re.Pattern[str], ...]:
    """_quote's patterns; the last, an escape not in normal form, is _GOOD_ESCAPE's complement
    spelt out (a double negative takes sre milliseconds to compile)."""
    return (re.compile(f"[{_CHARS}]*"), re.compile(f"[^{_CHARS}%]+"),
            re.compile(r"%(?![0-9A-Fa-f]{2})"), re.compile(r"%[0-9A-Fa-f]{2}"),
            re.compile(r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F]|3[0-9]|4[1-9A-F]|5[0-9AF]"
                       r"|6[1-9A-F]|7[0-9AE]|2[DE])"))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_DEFAULT_PORT = {"http": 80, "https": 443}
# urlsplit deletes these anywhere in a URL (WHATWG's rule); we encode them as in the rest of the
# path, so that one URL never normalises two ways
_SPLIT_DELETES = str.maketrans({"\t": "%09", "\n": "%0A", "\r": "%0D"})


def _pct(m: re.Match[str]) -> str:
    return "%" + m.group().encode("utf-8", "surrogatepass").hex("%").upper()


def _escape(m: re.Match[str]) -> str:
    ch = chr(int(m.group()[1:], 16))
    return ch if ch in _UNRESERVED else m.group().upper()


def _quote(part: str) -> str:
    """Percent-encode what a URI does not allow, as UTF-8; keep existing %XX escapes, in normal
    form (RFC 3986 section 6.2.2.1-2: hex digits upper-cased, unreserved characters decoded)."""
    clean, unsafe, lone_pct, escape, odd_escape = _quoting()
    if "%" in part and odd_escape.search(part) is not None:
        part = escape.sub(_escape, part)
    if clean.fullmatch(part) is None:
        part = lone_pct.sub("%25", unsafe.sub(_pct, part))
    return part


def _remove_dots(path: str) -> str:
    """RFC 3986 section 5.2.4 on a path that starts with "/": "/a/./b/../c" is "/a/c"."""
    if "/." not in path:
        return path
    out: list[str] = []
    segments = path.split("/")[1:]
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        if seg == "..":
            if out:
                out.pop()
        elif seg != ".":
            out.append(seg)
            continue
        if i == last:  # "/a/.." is "/", the directory, not "" or "/a"
            out.append("")
    return "/" + "/".join(out)


def _tail(rest: str) -> str:
    """What follows the authority, normalised: the path ("/" when empty) without dot segments,
    the query as given (an empty "?" kept: it may matter to the server), no fragment."""
    rest = _quote(rest.partition("#")[0] if "#" in rest else rest)
    if not rest.startswith("/"):
        rest = "/" + rest
    if "/." in rest:  # after _quote, which decodes "%2E"
        path, mark, query = rest.partition("?")
        rest = _remove_dots(path) + mark + query
    return rest


def normalize_url(raw: str) -> str:
    """The normalised absolute http(s) URI for ``raw``, or BadURL saying why.

    Strips surrounding white space, lower-cases scheme and host, drops a default port, writes
    an empty path as "/", IDNA-encodes a non-ASCII host, percent-encodes (as UTF-8) what a URI
    may not hold ("[" and "]" too), never encoding an escape twice, applies RFC 3986 section
    6.2.2 and drops the fragment. A URL with userinfo, or a backslash in its authority, is
    refused."""
    url = raw.strip()
    if _is_clean(url):
        return url
    head = _clean_head(url)
    if head is not None:  # a plain host: only the rest needs work
        return url[: head.end()] + _tail(url[head.end():])
    return _normalize_slow(url.translate(_SPLIT_DELETES))


def _normalize_slow(url: str) -> str:
    if not url:
        raise BadURL("empty URL")
    scheme, colon, rest = url.partition(":")
    scheme = scheme.lower() if colon else ""
    if not rest.startswith("//") or not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme):
        raise BadURL(f"not an absolute URL: {shown(url)}", hint="" if colon and scheme else
                     "give `base_url` to resolve relative links of lists and feeds")
    if scheme not in ("http", "https"):
        raise BadURL(f"not an http(s) URL: {shown(url)}")
    end = min((i for i in map(rest.find, "/?#", (2, 2, 2)) if i >= 0), default=len(rest))
    authority = rest[2:end]
    if "\\" in authority:  # http://example.com\@evil.com/: browsers read "\" as "/"
        raise BadURL("a backslash in the host part: browsers read it as \"/\" and RFC 3986 "
                     "does not, so the two see different hosts; refused as ambiguous",
                     "ambiguous URL")
    if "@" in authority:  # never written into a sitemap, never printed
        raise BadURL(f"user name or password in {shown(url)}", "has credentials")
    if ("[" in authority or "]" in authority) and re.fullmatch(_IPV6_AUTHORITY, authority) is None:
        # urlsplit reads "a[::1]x" and "[v1.x]" as other hosts (::1, v1.x) without a word
        raise BadURL(f"bad host in {shown(url)}: \"[\" and \"]\" may only enclose a whole "
                     "IPv6 host (RFC 3986 section 3.2.2)")
    from urllib.parse import urlsplit  # (2 ms of start-up)

    try:
        parts = urlsplit(scheme + "://" + authority)
        host = parts.hostname
        port = parts.port
    except ValueError as exc:  # a malformed IPv6 literal, a port out of range
        raise BadURL(f"bad host or port in {shown(url)} ({exc})") from None
    if not host:
        raise BadURL(f"no host in {shown(url)}")
    if not host.isascii():
        host = _idna_host(host)
    host = host.lower()
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    if re.fullmatch(_GOOD_HOST, host) is None:  # a space, control, "%", "<"… (perhaps from IDNA)
        raise BadURL(f"bad character in host of {shown(url)}")
    netloc = host
    if port is not None and port != _DEFAULT_PORT[scheme]:
        netloc = f"{host}:{port}"
    return f"{scheme}://{netloc}{_tail(rest[end:])}"


def _idna_host(host: str) -> str:
    """A non-ASCII host in its ASCII form: IDNA 2008 after the UTS #46 mapping, as browsers read
    it: "faß.de" is xn--fa-hia.de (the standard library's IDNA 2003 makes it fass.de)."""
    ascii_host, why = _encoded_host(host)
    if why:
        raise BadURL(f"bad host {host[:80]!r}: {why[:200]} (IDNA 2008 with UTS #46)", "bad host")
    return ascii_host


@lru_cache(maxsize=1024)  # one site's URLs share their host
def _encoded_host(host: str) -> tuple[str, str]:
    """(the ASCII host, "") or ("", why not). Only non-ASCII labels are encoded and judged:
    ASCII labels pass as in an ASCII host, "_" included."""
    import idna  # (7 ms of start-up)

    try:
        labels = idna.uts46_remap(host, std3_rules=False).split(".")
        return ".".join(label if label.isascii() else idna.alabel(label).decode("ascii")
                        for label in labels), ""
    except ValueError as exc:  # idna.IDNAError and its kinds are UnicodeErrors
        return "", str(exc)


def request_url(url: str) -> str:
    """``url`` as a request can carry it: normalize_url's URI with a host name a resolver
    accepts, every label of 1 to 63 characters (RFC 1035). BadURL otherwise, where http.client
    would end the run with a traceback. A control character is refused rather than encoded: it
    is a mangled argument, not a page's address."""
    bad = re.search("[\x00-\x1f\x7f]", url.strip())  # (re caches it)
    if bad is not None:
        raise BadURL(f"control character U+{ord(bad.group()):04X} in {shown(url)}: a URL is "
                     "one line of printable characters")
    norm = normalize_url(url)
    start = norm.find("//") + 2
    netloc = norm[start: norm.find("/", start)]
    if not netloc.startswith("["):  # (an IPv6 literal has no labels)
        name = netloc.rpartition(":")[0] if ":" in netloc else netloc
        labels = (name[:-1] if name.endswith(".") else name).split(".")
        if not all(0 < len(label) < 64 for label in labels):
            raise BadURL(f"bad host in {shown(url)}: every label between dots must have 1 to "
                         "63 characters (RFC 1035)", "bad host")
    return norm


def base_problem(url: str) -> Optional[str]:
    """Why ``url`` cannot be a base links are resolved against (urljoin would raise), or None."""
    if url.isascii() and "[" not in url and "]" not in url:  # what urlsplit takes
        return None
    from urllib.parse import urlsplit

    try:
        urlsplit(url)
    except ValueError as exc:
        return str(exc)
    return None


def resolve(base: Optional[str], link: str) -> str:
    """``link`` made absolute against ``base`` if it is relative and there is a base; else as
    it is (the URL check reports what stays relative)."""
    if not base or re.match(r"\s*[A-Za-z][A-Za-z0-9+.-]*:", link) is not None:
        return link
    from urllib.parse import urljoin

    try:
        return urljoin(base, link.strip())
    except ValueError:  # "//[x/": a host urllib cannot split; the URL check refuses it as given
        return link
