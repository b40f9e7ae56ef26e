"""JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1): each item's page and date.

Read whole (up to ``max_bytes``) with the standard library's json, as hostile input: UTF-8 only
(RFC 8259; a BOM is ignored); NaN, Infinity, a key named twice in an object and nesting past
the parser's limit are refused, with the line and column where the parser gives them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any, Optional
from urllib.parse import urljoin

from ...errors import InputError
from ...model.batch import BATCH, Batch
from ...model.record import Lastmod, parse_lastmod
from ...model.report import Report
from ...model.scope import scope_of
from ...model.urls import base_problem, shown
from ..detect import JSONFEED_VERSION
from ..jsonl import JSON_TYPE_NAMES, json_limit
from .reader import DEFAULT_MAX_FEED_BYTES, read_all

KNOWN_VERSIONS = ("1", "1.1")
_UTF16_32 = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # (json pairs the halves it can)


def read_jsonfeed(stream: Any, source: str, report: Report, base_url: Optional[str] = None,
                  *, max_bytes: int = DEFAULT_MAX_FEED_BYTES) -> Iterator[Batch]:
    """Yield the feed's items in batches: each one's page (its ``url``; an ``external_url`` is
    the article a link post points to, not a page: skipped with a note) and its
    modified-else-published time. Relative URLs are resolved against ``home_page_url``, then
    ``base_url``; every batch carries ``home_page_url`` as its ``site``, the default scope."""
    feed = load_jsonfeed(read_all(stream, source, max_bytes), source)
    _check_version(feed, source, report)
    items = feed.get("items")
    if not isinstance(items, list):
        raise InputError(source, None, "not a JSON Feed: \"items\" is missing or not an array "
                         "(jsonfeed.org: items is required)")
    home = feed.get("home_page_url")
    base = base_url
    site = None
    if isinstance(home, str) and home.strip():
        why = base_problem(home.strip())
        if why is None:
            site = urljoin(base_url or "", home.strip())
            base = site
        else:  # a "[" that opens no IPv6 literal: nothing can be resolved against it
            report.warn("bad home_page_url", source, None, f"home_page_url "
                        f"{shown(home.strip(), 200)} is not a URL ({why}); ignored")
    elif home is not None:
        report.warn("bad home_page_url", source, None, "home_page_url is not a string; ignored")
    pages = []
    for n, item in enumerate(items, 1):
        loc = _page(item, n, source, report, base)
        if loc is not None:
            pages.append((loc, _lastmod(item, n, source, report)))
    if site is not None and pages and not _under(site, pages):
        report.note(f"{source}: home_page_url {shown(site, 200)} is not the site of any item "
                    "(http for https, or www?); not used as the scope")
        site = None
    for start in range(0, len(pages), BATCH):
        locs, lastmods = map(list, zip(*pages[start: start + BATCH], strict=True))
        batch = Batch._trusted(locs, source, None,
                               lastmods if lastmods.count(None) < len(lastmods) else None)
        batch.site = site
        yield batch


def _under(site: str, pages: list[tuple[str, Optional[Lastmod]]]) -> bool:
    """Whether some page lies in the scope ``site`` gives (as the run would take it)."""
    try:
        scope = scope_of(site, directory=True)
    except ValueError:
        return True  # (the run says what is wrong with it)
    return scope.holds_any(loc for loc, _ in pages)


def load_jsonfeed(data: bytes, source: str) -> dict[str, Any]:
    """The document as a JSON object, or InputError saying what is wrong and where."""
    if data.startswith(_UTF16_32) or data[:4].count(0) >= 2:
        raise InputError(source, 1, "UTF-16 or UTF-32 text; JSON must be UTF-8 (RFC 8259): "
                         "save it as UTF-8")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(source, line, f"not UTF-8 (byte offset {exc.start}); JSON must be "
                         "UTF-8", col) from None
    text = text[1:] if text.startswith("\ufeff") else text
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise InputError(source, exc.lineno, f"not valid JSON: {exc.msg}", exc.colno) from None
    except _Refused as exc:
        raise InputError(source, None, str(exc)) from None
    except ValueError as exc:  # a number of more digits than Python converts (4,300)
        raise InputError(source, None, json_limit(exc)) from None
    except RecursionError:
        raise InputError(source, None, "JSON nested too deeply (more levels than the parser "
                         "allows); not a JSON Feed") from None
    if not isinstance(value, dict):
        raise InputError(source, 1, f"not a JSON Feed: the document is {_kind(value)}, not an "
                         "object")
    return value


class _Refused(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (RFC 8259 has no NaN or Infinity); not a JSON Feed")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # RFC 8259: names "SHOULD be unique"; json would keep the last silently: refused
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"the field {key!r} appears twice in one object; refused, since "
                               "only one copy could be read")
            seen.add(key)
    return obj


def _kind(value: Any) -> str:
    return JSON_TYPE_NAMES.get(type(value), "a value")


def _check_version(feed: dict[str, Any], source: str, report: Report) -> None:
    version = feed.get("version")
    if not isinstance(version, str) or not version.startswith(JSONFEED_VERSION):
        raise InputError(source, None, "not a JSON Feed: no \"version\" naming "
                         f"{JSONFEED_VERSION}1 or 1.1")
    number = version[len(JSONFEED_VERSION):].rstrip("/")
    if number not in KNOWN_VERSIONS:
        report.warn("feed version", source, None, f"JSON Feed version {number[:20]!r} is not "
                    "1 or 1.1; read as 1.1")


def _page(item: Any, n: int, source: str, report: Report, base: Optional[str]) -> Optional[str]:
    """The item's page URL, resolved; None (reported) when it has none."""
    if not isinstance(item, dict):
        report.skip("no link", source, None, f"item {n} is {_kind(item)}, not an object")
        return None
    url = item.get("url")
    if isinstance(url, str) and not url.isascii() and _LONE_SURROGATE.search(url):
        report.skip("no link", source, None, f"item {n}: url has a \\uD800-\\uDFFF escape that "
                    "is not half of a pair: no character (RFC 8259, section 8.2)")
        return None
    if isinstance(url, str) and url.strip():
        # (with no base a relative URL stays relative, for the URL check to report)
        return _join(base, url.strip()) if base else url.strip()

    if url is not None and not isinstance(url, str):
        report.skip("no link", source, None, f"item {n}: url is {_kind(url)}, not a string")
    elif isinstance(item.get("external_url"), str):
        report.skip("link post", source, None, f"item {n} has only an external_url, the "
                    "article it links to, not a page of this site")
    else:
        report.skip("no link", source, None, f"item {n} has no url")
    return None


def _join(base: str, url: str) -> str:
    try:
        return urljoin(base, url)
    except ValueError:  # "//[x/": a host urllib cannot split; the URL check refuses it as given
        return url


def _lastmod(item: dict[str, Any], n: int, source: str, report: Report) -> Optional[Lastmod]:
    """date_modified, else date_published (RFC 3339), in UTC; a bad one is dropped, reported."""
    for key in ("date_modified", "date_published"):
        value = item.get(key)
        if value is None:
            continue
        try:
            if not isinstance(value, str):
                raise ValueError(f"{_kind(value)}, not a string")
            # RFC 3339 5.6 allows a lower-case "t" and "z", and (its note) a space for the "T"
            text = value.strip().upper()
            if text[10:11] == " ":
                text = text[:10] + "T" + text[11:]
            parsed = parse_lastmod(text)
        except ValueError as exc:
            why = exc if not isinstance(value, str) else (
                f"{value.strip()[:60]!r} is not an RFC 3339 date-time")
            report.warn("bad lastmod", source, None, f"item {n}: {key} dropped: {why}")
            continue
        if isinstance(parsed, datetime):
            return parsed.astimezone(timezone.utc)
        return parsed
    return None
