"""The rules on one location, wherever it was read (a <loc>, a list's line, a feed's link), and
on lastmod, changefreq and priority values (an XML sitemap's or a list's, same rule ids).

The grammar is the converter's own (model/). Errors are what the XSD or RFC 3986 refuse;
warnings what the converter would change or leave out, and what --robots and --site find. A
lastmod is judged once per distinct text (most in a sitemap repeat).
"""

from __future__ import annotations

import functools
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..errors import InputError
from ..files.store import is_store
from ..model.limits import CLOCK_SKEW
from ..model.record import Record
from ..model.rules import (
    CHANGEFREQ_SET,
    CHANGEFREQS,
    LOC_MIN,
    XML_SPACE,
    XSD_LOC_MAX,
    bad_bracket,
    bad_uri_char,
    parse_lastmod,
    xsd_lastmod,
    xsd_priority,
)
from ..model.scope import scope_of
from ..model.urls import normalize_url
from ..readers.site.pages import canonical_elsewhere
from ..run.follow import DEFAULT_MAX_PARTS, StoreParts, part_path
from ..web.fetch import redact

if TYPE_CHECKING:
    from .diagnostics import FileCheck
    from .site import Site

__all__ = ["PLACEHOLDER_DAYS", "check_loc", "judge_changefreq", "judge_lastmod", "judge_field",
           "judge_priority"]

_HTTP = re.compile(r"https?://", re.I)
_XML_WS = re.compile(r"[ \t\n\r]+")


def check_loc(f: FileCheck, raw: str, line: int, col: int, *, xsd: bool = False,
              index: bool = False, truncated: bool = False) -> None:
    """All checks on one location: the XSD's (``xsd``), the protocol's, and the warnings."""
    # anyURI collapses whitespace; a text line or feed link is taken stripped.
    value = _XML_WS.sub(" ", raw).strip(" ") if xsd else raw.strip()
    if not _length(f, value, line, col, xsd, truncated):
        return
    bad = _chars(f, value, line, col)
    try:
        norm = normalize_url(value)
    except ValueError as exc:
        if getattr(exc, "kind", None) == "bad host":  # IDNA refuses it
            f.error("loc-host", line, col, f"{exc}: no browser reaches it; the converter "
                    "leaves it out")
        # "http://a.com&<>/" fails for its characters, already reported
        elif not bad or not _HTTP.match(value):
            f.error("loc-not-http", line, col, f"{exc}; a sitemap lists absolute "
                    "http(s) URLs only")
        return
    if not xsd and len(norm) < f.profile.min_loc:
        # a list or a feed has no schema, but the converter cannot list such a URL in a
        # sitemap (the XSD's minLength), so it leaves it out
        f.warn("loc-too-short", line, col, f"{norm} has {len(norm)} characters; the "
               f"sitemaps.org schema requires at least {f.profile.min_loc}: the converter "
               "leaves it out")
    if "#" in value:  # RFC 3986 section 3.5: never sent to the server; the converter drops it
        f.warn("loc-fragment", line, col, f"{norm[:200]} is given with a fragment "
               f"(#{value.partition('#')[2][:40]}); a sitemap lists pages")
    _placed(f, norm, line, col, index)


def _chars(f: FileCheck, value: str, line: int, col: int) -> bool:
    """The character rules; whether an error was reported."""
    bad = bad_uri_char().search(value)
    if bad is not None:
        f.error("loc-chars", line, col, f"{_char_name(bad.group())} at character "
                f"{bad.start() + 1} of the URL; a URI must percent-encode it")
        return True
    at = bad_bracket(value)
    if at >= 0:  # the XSD's anyURI lets it pass; RFC 3986 does not
        f.error("loc-chars", line, col, f"{value[at]!r} at character {at + 1} of the URL; "
                "RFC 3986 allows it only around an IPv6 host: percent-encode it "
                f"({'%5B' if value[at] == '[' else '%5D'})")
        return True
    if not value.isascii():
        f.warn("loc-iri", line, col, "non-ASCII characters: an IRI, not a URI; "
               "percent-encode them as UTF-8")
    return False


def _placed(f: FileCheck, norm: str, line: int, col: int, index: bool) -> None:
    """The rules on where a normalised location points."""
    _duplicate(f, norm, line, col, index)
    if f.scope is None:
        f.scope = scope_of(norm, directory=False)
    scope = f.scope
    if index:
        if not norm.startswith(scope.origin + "/"):
            f.warn("index-host", line, col, f"{norm[:200]} is not on {scope.origin}; "
                   "an index lists sitemaps of its own site")
        if f.follow_dir is not None:
            _follow(f, norm, line, col)
        return
    if not scope.contains(norm):
        f.warn("scope", line, col, f"{norm[:200]} is outside {scope.prefix}; a sitemap "
               "lists URLs of its own site and directory")
    robots = f.stats.robots
    if robots is not None and robots.disallowed(norm):
        f.warn("robots-disallowed", line, col, f"{norm[:200]} is disallowed for "
               f"Googlebot by {robots.where}: never crawled")
    site = f.stats.site
    if site is not None and norm.startswith(site.prefix):
        _site_page(f, site, norm, line, col)


def _length(f: FileCheck, value: str, line: int, col: int, xsd: bool, truncated: bool) -> bool:
    """The length rules; False when nothing more can be said about the location."""
    n = len(value)
    max_loc = f.profile.max_loc
    if xsd and (truncated or not LOC_MIN <= n <= XSD_LOC_MAX):
        size = "more than 65,536" if truncated else f"{n:,}"
        f.error("loc-length", line, col, f"<loc> of {size} characters; the schema requires "
                f"{LOC_MIN} to {XSD_LOC_MAX:,}")
        if truncated or not value:
            return False
    elif n >= max_loc:  # sitemaps.org: "less than 2,048 characters"
        f.error("loc-too-long", line, col, f"URL of {n:,} characters; profile "
                f"{f.profile.name} requires fewer than {max_loc:,}")
    if not value:
        f.error("missing-loc", line, col, "empty URL")
        return False
    return True


_CHAR_NAMES = {" ": "a space", "%": "'%' not followed by two hex digits"}


def _char_name(ch: str) -> str:
    if ch in _CHAR_NAMES:
        return _CHAR_NAMES[ch]
    return repr(ch) if ch.isprintable() else f"control character U+{ord(ch):04X}"


def _site_page(f: FileCheck, site: Site, norm: str, line: int, col: int) -> None:
    rel, names = site.file_of(norm)
    if rel is None:
        looked = " or ".join(names[:3]) or "no file name"
        f.warn("site-missing", line, col, f"{norm[:200]}: no file {looked} in "
               f"{site.root} (404 when served)")
        return
    page = site.page(rel)
    if page is None:
        return
    if page.noindex:
        f.warn("site-noindex", line, col, f"{norm[:200]}: {rel} says noindex (meta "
               "robots); a sitemap lists pages to index")
    canonical = canonical_elsewhere(norm, page.canonical)
    if canonical is not None:
        f.warn("site-canonical", line, col, f"{norm[:200]}: {rel} names "
               f"{canonical[:200]} as canonical; a sitemap lists canonical URLs")


def _duplicate(f: FileCheck, norm: str, line: int, col: int, index: bool) -> None:
    key = hash(norm)  # 64 bits, as pipeline.dedupe keeps
    if index:  # sitemaps listed: within this index only (they are not the site's URLs)
        first = f.index_lines.get(key)
        if first is None and len(f.index_lines) < f.profile.max_urls:
            f.index_lines[key] = line
        place = None if first is None else (f.name, first)
    else:
        seen = f.stats.seen
        full = seen.full
        place = seen.first(key, f.file_no, line)
        if seen.full and not full:
            f.warn("duplicate-limit", line, col, f"more than {seen.limit:,} URLs in "
                   "this run: later ones are looked up but no longer remembered")
    if place is None:
        return
    if place[0] == f.name:
        f.warn("duplicate-loc", line, col, f"{norm[:200]} is already listed on line "
               f"{place[1]}")
    else:
        f.warn("duplicate-across-files", line, col, f"{norm[:200]} is already listed "
               f"in {place[0]} on line {place[1]}")


def _follow(f: FileCheck, norm: str, line: int, col: int) -> None:
    # The index's directory: `base_url`'s, else that of the first entry (split output
    # puts the parts and the index side by side).
    if f.index_dir is None:
        f.index_dir = norm[: norm.rfind("/") + 1]
    prefix, where = f.index_dir, f.follow_dir
    if not norm.startswith(prefix):
        f.error("follow-outside", line, col, f"{norm[:200]} is not under {prefix}, "
                "the index's directory")
        return
    if isinstance(where, str) and not is_store(where):
        _follow_url(f, where, norm, line, col)
        return
    assert where is not None
    # found as the converter finds it: by its path under the index's URL directory, then by
    # its last segment beside the index (for object storage, the object beside it)
    record = Record(norm, is_sitemap=True, source=f.name, line=line)
    try:
        if isinstance(where, str):
            part: Path | str = StoreParts(where.rpartition("/")[0], lambda _: (),
                                          prefix).locate(record)
        else:
            path = part_path(record, os.fspath(where), prefix)
            if not os.path.isfile(path):  # a 404: a search engine drops the whole part
                f.error("follow-missing", line, col, f"part {norm[:200]} is missing: no file "
                        f"{path}")
                return
            part = Path(path)
            if part.name == os.path.basename(f.name) and _same_file(part, f.name):
                _lists_itself(f, norm, line, col)
                return
    except InputError as exc:
        f.error("follow-missing", line, col, exc.reason)
        return
    f.parts.setdefault(part)


def _same_file(a: Path, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # (``b`` is a name given for a stream, not a path)
        return False


def _lists_itself(f: FileCheck, norm: str, line: int, col: int) -> None:
    # read once as a run checks each file once, it would pass without a word; a search
    # engine sees an index inside an index
    f.error("nested-index", line, col, f"the index lists itself ({norm[:200]}); sitemaps.org: "
            "an index lists sitemaps, not indexes")


def _follow_url(f: FileCheck, index: str, norm: str, line: int, col: int) -> None:
    """A part of an index fetched by URL: fetched too, as the converter's --follow fetches it,
    from the index's host only and at most DEFAULT_MAX_PARTS in a run."""
    host = url_host(index)
    if norm == normalize_url(redact(index)):
        _lists_itself(f, norm, line, col)
    elif url_host(norm) != host:
        f.error("follow-outside", line, col, f"{norm[:200]} is not on {host}, the index's "
                "host: not fetched")
    elif norm not in f.parts:
        if f.stats.fetched_parts >= DEFAULT_MAX_PARTS:
            f.error("follow-limit", line, col, f"{norm[:200]} not fetched: one run fetches "
                    f"at most {DEFAULT_MAX_PARTS:,} parts")
            return
        f.stats.fetched_parts += 1
        f.parts[norm] = None


def url_host(url: str) -> str:
    """The host[:port] of an http(s) URL as normalize_url writes it, without a user or
    password; "" for no URL."""
    try:
        return urlsplit(normalize_url(redact(url))).netloc
    except ValueError:
        return ""


# The dates generators write when they know none: the Unix epoch (also as 1969-12-31 in a zone
# west of UTC), and 1900-01-01 (spreadsheets' and databases' day zero). Year 0001 (.NET's and
# Go's zero time) is no date for the converter at all: "lastmod-dropped", a warning.
PLACEHOLDER_DAYS = ("1970-01-01", "1900-01-01", "1969-12-31")
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_Verdict = tuple[str, str, str]  # (severity, rule, message); ("", "", "") when all is well
_FINE: _Verdict = ("", "", "")
# the verdicts remembered: of distinct texts up to _SHORT characters (small, whatever the input)
_REMEMBERED = 1 << 16
_SHORT = 64


def judge_lastmod(f: FileCheck, text: str, line: int, col: int) -> None:
    judge = _remembered_lastmod if len(text) <= _SHORT else _lastmod_verdict
    severity, rule, message = judge(text, f.now)
    if severity == "info":  # a note: one a file, counted (Notes)
        f.notes.add(rule, "", line, col, message)
    elif rule:
        (f.error if severity == "error" else f.warn)(rule, line, col, message)


def _lastmod_verdict(text: str, now: datetime) -> _Verdict:
    problem, naive, instant = xsd_lastmod(text)
    shown = text.strip()[:40]
    if problem:
        return "error", "lastmod-format", problem
    if naive:
        return "error", "lastmod-timezone", f"{shown!r} has a time without a timezone; " \
               "sitemaps.org requires one (Z or +hh:mm)"
    digits = len(text.strip().lstrip("-").partition("-")[0])
    if digits > 4:  # the XSD takes any year; W3C Datetime, which sitemaps.org names, YYYY
        return "error", "lastmod-format", f"{shown!r} has a year of {digits:,} digits; " \
               "sitemaps.org requires W3C Datetime (YYYY-MM-DD): four"
    try:
        parse_lastmod(text)
    except ValueError as exc:  # valid for the XSD; no date for the converter (a year 0001)
        return "warning", "lastmod-dropped", f"lastmod {shown}: the converter reads no date " \
               f"from it ({exc})"
    if instant is not None and instant > now + CLOCK_SKEW:  # as the converter warns
        return "warning", "lastmod-future", f"lastmod {shown} is in the future"
    if text.strip(XML_SPACE)[:10] in PLACEHOLDER_DAYS[:2] or instant == _EPOCH:
        return "info", "lastmod-placeholder", f"lastmod {shown} is a placeholder (what " \
            "generators write for an unknown date), not the page's date: search engines " \
            "read it as one; leave lastmod out where the date is unknown"
    return _FINE


_remembered_lastmod = functools.lru_cache(maxsize=_REMEMBERED)(_lastmod_verdict)


def judge_changefreq(f: FileCheck, text: str, line: int, col: int,
                     stripped: bool = False) -> None:
    """``stripped``: a list's column, taken stripped as the converter takes it (an XML value
    is an xsd:string: no white space collapsing). Case matters in both."""
    if (text.strip() if stripped else text) not in CHANGEFREQ_SET:
        spaces = "" if stripped else ", no spaces"
        f.error("changefreq", line, col, f"{text[:40]!r} is not one of "
                f"{', '.join(CHANGEFREQS)} (exactly, lower-case{spaces})")


def judge_field(f: FileCheck, field: str, text: str, line: int, col: int,
                stripped: bool = False) -> None:
    """A URL's lastmod, changefreq or priority, with what it adds to the notes and facts;
    ``stripped``: a list's column (judge_changefreq)."""
    if field == "lastmod":
        judge_lastmod(f, text, line, col)
        f.notes.lastmod_at(line, col)
        f.notes.lastmod_values([text.strip() if stripped else text.strip(XML_SPACE)])
        if f.stats.facts is not None:
            f.stats.facts.lastmods([text])
        return
    if field == "changefreq":
        judge_changefreq(f, text, line, col, stripped)
    else:
        judge_priority(f, text, line, col)
    f.notes.field_at(line, col)


def judge_priority(f: FileCheck, text: str, line: int, col: int) -> None:
    problem = xsd_priority(text)
    if problem:
        f.error("priority", line, col, problem)
