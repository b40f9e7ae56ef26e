"""URL checks and IRI → URI normalisation (RFC 3986/3987), with a cheap path for clean URLs.

One rule, whatever path a URL takes: ``normalize_url`` is the rule, and the batch proofs below
(``proven_clean``, ``unclean_lines``), which let the text reader and the normalize step skip it
for blocks of URLs, only ever accept what ``normalize_url`` returns unchanged. A differential
test (tests/test_url_rules.py) holds them to it; ``all_clean`` is the same proof for URLs of
several sites (extensions/rulesfast.py).

A proof travels as a value only this module makes, ``CleanLocs``, never as a flag. In the
reference mode (backends.py) normalize_locs takes its plain twin, normalize_url for each URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import compress, repeat
from operator import not_
from typing import NamedTuple, Optional

from ..backends import fast

__all__ = ["CLEAN_BYTES", "BadURL", "CleanLocs", "Normalized", "all_clean", "base_problem",
           "normalize_locs", "normalize_url", "prove_lines", "proven_clean", "request_url",
           "resolve", "shown", "unclean_lines"]

# Characters left as they are inside path and query (as a regex character class's contents);
# everything else is encoded. RFC 3986 reserved and unreserved characters but "[" and "]", plus
# "%" (handled separately so that an existing %XX escape is never encoded twice). Not "[" "]":
# RFC 3986 allows them only around an IPv6 host (section 3.2.2), so "?q=x[]=1" (PHP's arrays)
# is written "?q=x%5B%5D=1", an equivalent URI every server decodes alike. Not "#": a fragment
# is removed (RFC 3986 section 3.5: it names a part of the page, and is never sent to the
# server), so a URL holding one is never clean.
_CHARS = r"A-Za-z0-9\-._~!$&'()*+,;=:@/?"
# A scheme and host already in normal form: lower case, no port, userinfo or IPv6 literal.
_HOST = r"https?://[a-z0-9][a-z0-9.-]*"
_HEAD = _HOST + "/"
# A URL that is already a clean, normalised absolute http(s) URI: a clean scheme and host, a
# path, and nothing after the host that would need percent-encoding. Most URLs of a real site
# pass these two regexes and skip urlsplit entirely. Dot segments are the one thing the
# character class cannot see: each proof also looks for "/." (see _dots).
_CLEAN_TEXT = f"{_HEAD}[{_CHARS}]*"
_CLEAN = re.compile(_CLEAN_TEXT)
# A %XX escape already in normal form (RFC 3986 section 6.2.2.1-2): upper-case hex digits, and
# not one of an unreserved character (ALPHA, DIGIT, "-", ".", "_", "~"), which is decoded.
_GOOD_ESCAPE = r"%(?!3[0-9]|4[1-9A-F]|5[0-9AF]|6[1-9A-F]|7[0-9AE]|2[DE])[0-9A-F]{2}"

# The regexes below are compiled when first used: most runs need none of them (start-up time).


@cache
def _clean_pct() -> re.Pattern[str]:
    """The clean URL allowing such escapes: slower (an alternation per character), so tried
    only for URLs that contain a "%"."""
    return re.compile(f"{_HEAD}(?:[{_CHARS}]|{_GOOD_ESCAPE})*")


@cache
def _clean_urls() -> re.Pattern[str]:
    """The clean URL for many URLs at once, each followed by a newline (which no clean URL
    contains)."""
    return re.compile(f"(?:{_CLEAN_TEXT}\n)*")


@cache
def _bad_pct() -> re.Pattern[str]:
    """A "%" that starts no normal escape."""
    return re.compile(f"%(?!(?<=%){_GOOD_ESCAPE[1:]})")


@cache
def _dots() -> re.Pattern[str]:
    """A dot segment ("/./", "/../", a final "/." or "/..", RFC 3986 section 5.2.4). Seen in a
    query too, where it is harmless: such a URL merely takes the slow path, which gets it
    right."""
    return re.compile(r"/\.\.?(?=[/?#\n]|$)", re.M)


# The clean characters and "%" as bytes: deleting them (bytes.translate) from the lines of clean
# URLs leaves only the newlines.
CLEAN_BYTES = re.sub(f"[^{_CHARS}%]", "", bytes(range(128)).decode()).encode()
_head = re.compile(_HEAD).match


def _no_dots(text: str) -> bool:
    return "/." not in text or _dots().search(text) is None


def proven_clean(text: str, n: int, unclean_bytes: int) -> str | None:
    """The scheme and host that all ``n`` lines of ``text`` start with, if that proves each of
    them a normalised URI already (one that normalize_url returns as it is), else None. Each
    line ends in a newline; ``unclean_bytes`` counts the bytes of ``text`` outside CLEAN_BYTES,
    newlines included.

    The proof, for lines of one site: no byte but the newlines is unclean (one bytes.translate,
    done by the caller), every "%" starts a normal %XX escape, no dot segment, the first line
    starts with a clean scheme and host, and every other line with the same (one str.count).
    All run in C at memory speed, several times faster than a regex over the lines.
    """
    if unclean_bytes != n or ("%" in text and _bad_pct().search(text) is not None):
        return None
    head = _head(text)
    if head is not None and text.count("\n" + head.group()) == n - 1 and _no_dots(text):
        return head.group()
    return None


def all_clean(text: str) -> bool:
    """Whether every line of ``text`` (each ending in a newline, none holding a "%") is a
    normalised URI already: the proof for clean URLs of several sites."""
    return _clean_urls().fullmatch(text) is not None and _no_dots(text)


def unclean_lines(text: str, locs: Sequence[str]) -> list[int]:
    """The indexes of the locs that normalize_url might change (or refuse); ``text`` is the
    locs, each followed by a newline.

    The batch is matched as lines from the start, and each line the match stops at is noted and
    stepped over. Most URLs of a real site are clean; a batch with 5% of IRIs costs one pass,
    not a call per URL.
    """
    if text.count("\n") != len(locs) or not _no_dots(text):  # rare: each loc by itself
        return [i for i, loc in enumerate(locs) if not _is_clean(loc)]
    match = _clean_urls().match
    unclean = []
    end = match(text).end()  # type: ignore[union-attr]  # (…)* always matches
    i = text.count("\n", 0, end)
    while end < len(text):
        unclean.append(i)  # line i starts at end and is not clean
        pos = end + len(locs[i]) + 1
        end = match(text, pos).end()  # type: ignore[union-attr]
        i += 1 + text.count("\n", pos, end)
    return unclean


class CleanLocs:
    """The proof that every location of one list is a normalised URI (normalize_url returns
    it unchanged: no space, control character, "<", ">" or quote in it), each starting with
    ``prefix`` ("" when the proof says nothing of the site), none longer than ``longest``
    characters when that is known. Only this module makes one (the constructor wants a key no
    other module has). It holds its own immutable copy of the
    locations (a tuple), which the batch it proves takes as its ``locs``: ``covers`` is an
    identity test with that copy, so what it proved cannot change under it, and a list put in
    its place is unproven (issue 33, item 6: a proof that checked only "the same list object"
    passed a list changed since).
    """

    __slots__ = ("locs", "prefix", "longest")

    def __init__(self, locs: Sequence[str], prefix: str, key: object,
                 longest: Optional[int] = None) -> None:
        if key is not _KEY:
            raise TypeError("only feed2sitemap.model.urls proves locations clean")
        self.locs = tuple(locs)  # (a tuple given is kept as it is: no copy)
        self.prefix = prefix
        self.longest = longest

    def covers(self, locs: Sequence[str]) -> bool:
        return locs is self.locs

    def subset(self, keep: Sequence[int]) -> CleanLocs:
        """The proof for the rows ``keep`` of the list: clean URLs stay clean when others go."""
        return CleanLocs(tuple(map(self.locs.__getitem__, keep)), self.prefix, _KEY,
                         self.longest)


_KEY = object()


def prove_lines(text: str, lines: list[str], unclean_bytes: int, size: int,
                longest: Optional[int] = None) -> Optional[list[CleanLocs]]:
    """Proofs for ``lines`` in slices of ``size``, if all are clean normalised URIs of one site
    (proven_clean), else None. ``text`` is the lines each followed by a newline;
    ``unclean_bytes`` as for proven_clean; ``longest``, the length of the longest line, when
    the caller knows it."""
    prefix = proven_clean(text, len(lines), unclean_bytes)
    if prefix is None:
        return None
    held = tuple(lines)  # (its slices are tuples: one copy in all)
    return [CleanLocs(held[i: i + size], prefix, _KEY, longest)
            for i in range(0, len(held), size)]


def _non_ascii_only(locs: Sequence[str]) -> tuple[list[int], str]:
    """The indexes of the non-ASCII locs and the scheme and host all the others start with, if
    those (most of the locs) are proven clean by proven_clean, the proof of ASCII blocks; else
    ([], "") (unclean_lines decides). A list with a few IRIs is proven at memory speed rather
    than by a regex pass over every character."""
    ascii_flags = list(map(str.isascii, locs))
    others = list(compress(range(len(locs)), map(not_, ascii_flags)))
    if not others or len(others) * 4 > len(locs):
        return [], ""
    plain = list(compress(locs, ascii_flags))
    text = "\n".join(plain) + "\n"
    unclean_bytes = len(text.encode().translate(None, CLEAN_BYTES))
    prefix = proven_clean(text, len(plain), unclean_bytes)
    return (others, prefix) if prefix is not None else ([], "")


@cache  # (compiled when first used: start-up time)
def _unsafe_but_newline() -> re.Pattern[str]:
    """What _quote encodes, but for the newline that joins the paths in _quote_tails."""
    return re.compile(f"[^{_CHARS}%\n]+")


def _quote_tails(fixed: list[str], unclean: Sequence[int]) -> list[int]:
    """normalize_url for those of the ``unclean`` locs (of ``fixed``, changed in place) whose
    only fault is a character to percent-encode after a clean scheme and host (an IRI's path):
    their paths are encoded in one regex pass, joined. The rest are returned, for
    normalize_url one by one.

    The same as _tail for them: with no "%", "#" or dot segment, _tail is _quote, and _quote
    is its ``unsafe.sub(_pct)`` (``lone_pct`` finds nothing: _pct makes only whole escapes)."""
    heads, tails, done, rest = [], [], [], []
    clean_head = _clean_head().match
    for i in unclean:
        url = fixed[i]
        head = clean_head(url)
        tail = url[head.end():] if head is not None else ""
        if head is None or not tail.startswith("/") or "%" in tail or "#" in tail or \
                "\n" in tail or "/." in tail or len(url.strip()) != len(url):
            rest.append(i)
            continue
        heads.append(head.group())
        tails.append(tail)
        done.append(i)
    if done:
        quoted = _unsafe_but_newline().sub(_pct, "\n".join(tails)).split("\n")
        for i, site, path in zip(done, heads, quoted, strict=True):
            fixed[i] = site + path
    return rest


class Normalized(NamedTuple):
    """normalize_locs's result: the URLs kept (proven), refused (index, why), defragmented."""

    clean: CleanLocs
    bad: list[tuple[int, BadURL]]
    fragments: list[tuple[int, str]]


def normalize_locs(locs: Sequence[str]) -> Normalized:
    """``normalize_url`` over a list, with the proof that the URLs kept are normalised."""
    return _normalize_block(locs) if fast("URL blocks") else _normalize_each(locs)


def _normalize_block(locs: Sequence[str]) -> Normalized:
    """normalize_locs for a block: one site's clean ASCII URLs are proven at memory speed
    (proven_clean), beside a few IRIs too (_non_ascii_only), whose paths are encoded in one
    pass (_quote_tails); else the unclean ones are found in one regex pass (unclean_lines). What
    is left is normalize_url's, one by one."""
    text = "\n".join(locs) + "\n"
    if text.isascii():  # the usual list, one site's clean URLs
        unclean_bytes = len(text.encode().translate(None, CLEAN_BYTES))
        prefix = proven_clean(text, len(locs), unclean_bytes)
        if prefix is not None:
            return Normalized(CleanLocs(locs, prefix, _KEY), [], [])
    iris, site = _non_ascii_only(locs)  # (the non-ASCII locs, when all others start with site)
    unclean = iris or unclean_lines(text, locs)
    if not unclean:
        return Normalized(CleanLocs(locs, "", _KEY), [], [])
    fixed = list(locs)
    unclean = _quote_tails(fixed, unclean)
    if iris and not unclean and all(map(str.startswith, map(fixed.__getitem__, iris),
                                        repeat(site))):
        return Normalized(CleanLocs(fixed, site, _KEY), [], [])  # one site's, all
    return _normalize_some(locs, unclean, fixed)


def _normalize_each(locs: Sequence[str]) -> Normalized:
    """normalize_locs's plain twin: normalize_url for every URL."""
    return _normalize_some(locs, range(len(locs)))


def _normalize_some(locs: Sequence[str], unclean: Iterable[int],
                    fixed: Optional[list[str]] = None) -> Normalized:
    """normalize_url for the locs at the indexes ``unclean`` (the others are normalised, as
    they are in ``fixed`` when given)."""
    fixed = list(locs) if fixed is None else fixed
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
    """Whether ``url`` is a normalised URI already (normalize_url returns it unchanged)."""
    return (_CLEAN.fullmatch(url) is not None
            or ("%" in url and _clean_pct().fullmatch(url) is not None)) and _no_dots(url)


class BadURL(ValueError):
    """A URL that cannot be written; ``kind`` is the summary's name for the reason, ``hint``
    what the converter's user can do about it."""

    def __init__(self, message: str, kind: str = "invalid URL", hint: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.hint = hint


def shown(url: str, limit: int = 80) -> str:
    """``url`` as a message may show it: no userinfo (a password is never printed), cut."""
    return repr(re.sub(r"(?<=//)[^/?#@]*@", "", url, count=1)[:limit])  # (re caches it)


@cache  # (compiled when first used: start-up time; a tuple, as a class costs start-up too)
def _quoting() -> tuple[re.Pattern[str], ...]:
    """_quote's patterns: a part with nothing to encode, a run of characters to encode, a "%"
    that starts no escape, any escape, and an escape not in normal form (a lower-case hex
    digit, or an unreserved character's code: the complement of _GOOD_ESCAPE, spelt out, as a
    double negative takes sre milliseconds to compile)."""
    return (re.compile(f"[{_CHARS}]*"), re.compile(f"[^{_CHARS}%]+"),
            re.compile(r"%(?![0-9A-Fa-f]{2})"), re.compile(r"%[0-9A-Fa-f]{2}"),
            re.compile(r"%(?:[0-9A-Fa-f][a-f]|[a-f][0-9A-F]|3[0-9]|4[1-9A-F]|5[0-9AF]"
                       r"|6[1-9A-F]|7[0-9AE]|2[DE])"))


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_DEFAULT_PORT = {"http": 80, "https": 443}


@cache  # (compiled when first used: start-up time)
def _clean_head() -> re.Pattern[str]:
    """An absolute http(s) URL whose scheme and host are already in normal form: only what
    follows the host may need work, and urlsplit is not needed."""
    return re.compile(_HOST + "(?=[/?#]|$)")


@cache  # (compiled when first used: start-up time)
def _good_host() -> re.Pattern[str]:
    """A host as written: RFC 3986 reg-name characters (percent-escapes refused), after IDNA
    encoding, which can map other characters to anything ("＜" to "<"); or an IPv6 literal."""
    return re.compile(r"[a-z0-9\-._~!$&'()*+,;=]+|\[[0-9a-f:.]+\]")


@cache  # (compiled when first used: start-up time)
def _ipv6_authority() -> re.Pattern[str]:
    """An authority whose host is an IPv6 literal, maybe with a port (checked by urlsplit)."""
    return re.compile(r"\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\](?::[^\[\]]*)?")


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
    # the given escapes first: the ones _pct makes are in normal form already
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
    # path and query are encoded alike, so as one string; "?" and "/" are kept as they are
    rest = _quote(rest.partition("#")[0] if "#" in rest else rest)
    if not rest.startswith("/"):
        rest = "/" + rest
    if "/." in rest:  # after _quote, which decodes "%2E"
        path, mark, query = rest.partition("?")
        rest = _remove_dots(path) + mark + query
    return rest


def normalize_url(raw: str) -> str:
    """Return the normalised absolute http(s) URI for ``raw``, or raise BadURL saying why.

    Strips surrounding whitespace, lower-cases scheme and host, drops a default port, writes an
    empty path as "/", IDNA-encodes a non-ASCII host (_idna_host), percent-encodes (as UTF-8)
    characters a URI may not contain ("[" and "]" too: only an IPv6 host may hold them), never
    encoding an existing %XX escape twice, and applies RFC 3986
    section 6.2.2: escapes upper-cased or decoded, dot segments removed. The fragment is
    dropped. A URL with userinfo, or a backslash in its authority, is refused.
    """
    url = raw.strip()
    if _is_clean(url):
        return url
    head = _clean_head().match(url)
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
    if ("[" in authority or "]" in authority) and _ipv6_authority().fullmatch(authority) is None:
        # urlsplit reads "a[::1]x" and "[v1.x]" as other hosts (::1, v1.x) without a word
        raise BadURL(f"bad host in {shown(url)}: \"[\" and \"]\" may only enclose a whole "
                     "IPv6 host (RFC 3986 section 3.2.2)")
    from urllib.parse import urlsplit  # (2 ms of start-up, with ipaddress)

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
    if _good_host().fullmatch(host) is None:  # a space, control, "%", "<"… (perhaps from IDNA)
        raise BadURL(f"bad character in host of {shown(url)}")
    netloc = host
    if port is not None and port != _DEFAULT_PORT[scheme]:
        netloc = f"{host}:{port}"
    return f"{scheme}://{netloc}{_tail(rest[end:])}"


def _idna_host(host: str) -> str:
    """A host with non-ASCII characters in its ASCII form: IDNA 2008 after the mapping of UTS
    #46, non-transitional, as browsers and the ``idna`` package read it: "faß.de" is
    xn--fa-hia.de (the standard library's IDNA 2003 codec makes it fass.de, another host, and
    drops a zero-width joiner). BadURL, kind "bad host", when a label breaks those rules."""
    ascii_host, why = _encoded_host(host)
    if why:
        raise BadURL(f"bad host {host[:80]!r}: {why[:200]} (IDNA 2008 with UTS #46)", "bad host")
    return ascii_host


@lru_cache(maxsize=1024)  # one site's URLs share their host: it is encoded once
def _encoded_host(host: str) -> tuple[str, str]:
    """(the ASCII host, "") or ("", why not). Only the labels with non-ASCII characters (after
    the mapping) are encoded and judged: an ASCII label is taken as it is, as every label of an
    ASCII host is (the block proofs pass them unseen), "_" and "xn--" labels included (real
    hosts have "_", which IDNA 2008 refuses)."""
    import idna  # (7 ms: only a run with a non-ASCII host pays for it)

    try:
        labels = idna.uts46_remap(host, std3_rules=False).split(".")
        return ".".join(label if label.isascii() else idna.alabel(label).decode("ascii")
                        for label in labels), ""
    except ValueError as exc:  # idna.IDNAError and its kinds are UnicodeErrors
        return "", str(exc)


def request_url(url: str) -> str:
    """``url`` as a request can carry it: normalize_url's URI (an IRI's host in IDNA, a space
    or an IRI's characters in its path percent-encoded as browsers do, no fragment) with a host
    name a resolver accepts, every label of 1 to 63 characters (RFC 1035 section 2.3.4). BadURL
    otherwise, saying why, where http.client and the socket layer would end the run with a
    traceback: a space in the host, a port that is no number, a broken IPv6 literal, an empty
    or 64-character label, a host IDNA refuses. A control character (CR, LF, tab...) inside
    the URL is refused rather than encoded: it is a mangled argument, not a page's address."""
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
    """Why ``url`` cannot be the base that links are resolved against (urllib's urljoin would
    raise: a "[" that opens no IPv6 literal in the host), or None."""
    if url.isascii() and "[" not in url and "]" not in url:  # what urlsplit takes, unimported
        return None
    from urllib.parse import urlsplit  # (2 ms of start-up, with ipaddress)

    try:
        urlsplit(url)
    except ValueError as exc:
        return str(exc)
    return None


@cache  # (compiled when first used: start-up time)
def _absolute() -> re.Pattern[str]:
    return re.compile(r"\s*[A-Za-z][A-Za-z0-9+.-]*:")


def resolve(base: Optional[str], link: str) -> str:
    """``link`` made absolute against ``base`` (a document's URL) if it is relative and there is
    a base; otherwise as it is (the URL check reports what stays relative)."""
    if not base or _absolute().match(link) is not None:
        return link
    from urllib.parse import urljoin  # (2 ms of start-up, with ipaddress)

    try:
        return urljoin(base, link.strip())
    except ValueError:  # "//[x/": a host urllib cannot split; the URL check refuses it as given
        return link
