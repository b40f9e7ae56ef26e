"""check() and iter_check(): one file, then the parts its index lists, each file once in a run
(follow_order); the run's last words (hreflang_diagnostics, site_diagnostics). A file's format
is told from its first bytes as the converter tells it (detect.sniff)."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import IO

from ..errors import InputError
from ..files.naming import url_segment
from ..files.store import is_store, open_store, shown
from ..model.limits import Profile, profile_of
from ..model.scope import Scope, base_of
from ..model.urls import normalize_url
from ..readers.detect import Source, check_source, open_input, sniff
from ..web.fetch import fetch, is_url, redact
from .diagnostics import FOLLOW_DEPTH, CheckStats, Diagnostic, FileCheck, capped
from .lists import check_columns, check_feed, check_jsonfeed, check_text
from .site import SHOWN
from .xml import check_encoding, check_sitemap_xml, is_utf16

__all__ = ["Source", "check", "follow_order", "hreflang_diagnostics", "identity", "iter_check",
           "site_diagnostics"]



def check(source: Source, *, profile: str | Profile = "sitemaps", base_url: str | None = None,
          follow: bool = False, now: datetime | None = None, stats: CheckStats | None = None,
          name: str | None = None) -> list[Diagnostic]:
    """Check one file (a path, an http(s) URL or a binary stream); return its diagnostics
    sorted by position."""
    return list(iter_check(source, profile=profile, base_url=base_url, follow=follow, now=now,
                           stats=stats, name=name))


def iter_check(source: Source, *, profile: str | Profile = "sitemaps", base_url: str | None = None,
               follow: bool = False, now: datetime | None = None,
               stats: CheckStats | None = None, name: str | None = None) -> Iterator[Diagnostic]:
    """Like ``check``, yielding diagnostics as they become final (flat memory on big files).

    With ``follow``, the parts an index lists are checked after it: files beside it, or for an
    index fetched by URL, URLs on its host. ``stats`` receives the run's counts; ``name`` is the
    file's name in diagnostics (default: the path, or the stream's ``name``). Without ``stats``
    the call is a run of its own, ended by its ``hreflang-reciprocal`` warnings; a caller that
    passes ``stats`` to several calls asks hreflang_diagnostics(stats) after the last. A file
    is checked once in a run however it is reached: later calls yield nothing for it.
    """
    check_source(source)
    own_run = stats is None
    stats = stats if stats is not None else CheckStats()
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    if path is not None:
        key = identity(path)
        if key in stats.checked:
            return
        stats.checked.add(key)
        name = name or (redact(path) if is_url(path) else shown(path) if is_store(path)
                        else path)
    name = name or str(getattr(source, "name", "<stream>"))
    scope = _scope(base_url)
    robots = stats.robots
    if robots is not None and path is not None:
        # the sitemaps named by the user are the ones robots.txt should announce (their parts
        # are found through them), by the URL the converter names there (run/publish.py)
        url = None
        if is_url(path):
            url = name
        elif scope is not None:
            url = scope.prefix + url_segment(os.path.basename(name))
        if not robots.lists(name, url):
            stats.warnings += 1
            yield Diagnostic(name, 1, 1, "warning", "robots-unlisted", f"{robots.where} has "
                             f"no Sitemap: line for {url or os.path.basename(name)}: search "
                             "engines will not find it")
    f = _file_check(name, path, profile, scope, now, stats, follow)
    yield from _check_file(source, f, base_url)
    yield from _check_parts(f, scope, base_url)
    if own_run:
        yield from hreflang_diagnostics(stats)


def follow_order(files: Sequence[str], *, profile: str | Profile = "sitemaps",
                 base_url: str | None = None) -> list[str]:
    """``files`` in the order a run with ``follow`` checks them: the files an index among them
    lists last, so that each is checked once, as a part of its index (a pre-commit hook passes
    an index with its parts). The local indexes are read for this without a word."""
    scope = _scope(base_url)
    if len(files) < 2:
        return list(files)
    listed: set[object] = set()
    for name in files:
        if name != "-" and not is_url(name):
            f = _file_check(name, name, profile, scope, None, CheckStats(), True)
            listed.update(_listed(name, f, scope, base_url))
    return sorted(files, key=lambda name: name != "-" and identity(name) in listed)


def _listed(path: str | Path, f: FileCheck, scope: Scope | None,
            base_url: str | None) -> Iterator[object]:
    """The identities of the parts the index at ``path`` lists, and of theirs."""
    if f.follow_dir is None or not os.path.isfile(path):  # (a pipe is read once only)
        return
    try:
        with open(path, "rb") as raw:
            if b"sitemapindex" not in open_input(raw, f.name)[1]:
                return  # (only an index is read through)
    except (OSError, InputError):
        return
    for _ in _check_file(path, f, base_url):
        pass
    for part in f.parts if f.is_index and f.follow_dir is not None else ():
        yield identity(part)
        yield from _listed(part, _part_check(f, part, scope), scope, base_url)


def identity(source: str | os.PathLike[str]) -> object:
    """What makes two names one file in a run: its device and inode; a URL normalised."""
    name = os.fspath(source)
    if is_url(name):
        try:
            return normalize_url(redact(name))
        except ValueError:
            return name
    try:
        st = os.stat(name)
    except OSError:
        return os.path.abspath(name)
    return st.st_dev, st.st_ino


def _scope(base_url: str | None) -> Scope | None:
    return base_of(base_url)[1] if base_url is not None else None


def _file_check(name: str, path: str | None, profile: str | Profile, scope: Scope | None,
                now: datetime | None, stats: CheckStats, follow: bool) -> FileCheck:
    """The state of a file named by the caller; with ``follow``, where its parts are."""
    follow_dir: Path | str | None = None
    if follow and path is not None:
        follow_dir = path if is_url(path) or is_store(path) else Path(path).parent
    return FileCheck(name, profile_of(profile), scope, now or datetime.now(timezone.utc), stats,
                     follow_dir, follow_prefix=scope.prefix if scope else None)


def hreflang_diagnostics(stats: CheckStats) -> Iterator[Diagnostic]:
    """After every file of a run: the hreflang alternates whose page, checked in the run, does
    not list back the page that lists it (``hreflang-reciprocal``)."""
    shown: Counter[str] = Counter()
    for name, line, col, message in stats.hreflang.unreciprocated(stats.seen):
        stats.warnings += 1
        text = capped(shown, name, "hreflang-reciprocal", "warning", message)
        if text is not None:
            yield Diagnostic(name, line, col, "warning", "hreflang-reciprocal", text)


def site_diagnostics(stats: CheckStats) -> Iterator[Diagnostic]:
    """After every file of a run: the HTML pages of the built site that no sitemap listed, and
    the *.html names that are no regular file, a warning each."""
    site = stats.site
    if site is None:
        return
    unlisted = site.unlisted()
    first = list(itertools.islice(unlisted, SHOWN))
    count = len(first) + sum(1 for _ in unlisted)
    if count:
        stats.warnings += 1
        yield Diagnostic(site.root, 1, 1, "warning", "site-unlisted",
                         f"{count:,} HTML page{'s' if count != 1 else ''} no sitemap lists: "
                         f"{_named(count, first)}")
    n = site.not_regular
    if n:
        stats.warnings += 1
        yield Diagnostic(site.root, 1, 1, "warning", "site-not-regular",
                         f"{n:,} *.html name{'s' if n != 1 else ''} of the site not read: not "
                         "regular files (a FIFO, a socket or a device): "
                         f"{_named(n, site.not_regular_names)}")


def _named(count: int, first: list[str]) -> str:
    return ", ".join(first) + (f" and {count - SHOWN:,} more" if count > SHOWN else "")


def _check_parts(f: FileCheck, scope: Scope | None,
                 base_url: str | None) -> Iterator[Diagnostic]:
    """The parts of index ``f`` not checked yet in the run, and theirs."""
    if not f.is_index or f.follow_dir is None:
        return
    for part in f.parts:
        key = identity(part)
        if key in f.stats.checked:
            continue
        f.stats.checked.add(key)
        g = _part_check(f, part, scope)
        yield from _check_file(part, g, base_url)
        yield from _check_parts(g, scope, base_url)


def _part_check(f: FileCheck, part: Path | str, scope: Scope | None) -> FileCheck:
    """The state of a part of index ``f``: a file found beside it, or a URL on its host."""
    below = f.depth + 1 < FOLLOW_DEPTH
    if isinstance(part, str):  # its parts, if it is an index, are under its own URL directory
        return FileCheck(redact(part), f.profile, scope, f.now, f.stats, part if below else None,
                         f.name, part[:part.rfind("/") + 1], f.depth + 1)
    # the public URL of the part's directory, for a nested index (follow.LocalParts.below)
    prefix = f.index_dir or ""
    assert isinstance(f.follow_dir, Path)
    if part.parent != f.follow_dir:
        prefix += os.path.relpath(part.parent, f.follow_dir).replace(os.sep, "/") + "/"
    return FileCheck(os.fspath(part), f.profile, scope, f.now, f.stats,
                     part.parent if below else None, f.name, prefix, f.depth + 1)


def _check_file(source: Source, f: FileCheck, base_url: str | None) -> Iterator[Diagnostic]:
    """The diagnostics of one file; one that cannot be read is an error like any other."""
    facts = f.stats.facts
    if facts is not None:
        facts.begin()
    try:
        if isinstance(source, str) and is_url(source):
            # a part may not be redirected off its index's host (as the converter fetches it)
            fetched = fetch(source, same_host=f.depth > 0)
            if f.follow_dir is not None:  # relative to where the index was found
                f.follow_dir = fetched.url
            with contextlib.closing(fetched.stream):
                if facts is not None:
                    facts.fetched(fetched.stream)
                yield from _dispatch(_tap(fetched.stream, f), f, base_url)
        elif isinstance(source, (str, os.PathLike)):
            opened = open_store(source) if isinstance(source, str) and is_store(source) else \
                open(source, "rb")
            with opened as raw:
                yield from _dispatch(_tap(raw, f), f, base_url)
        else:
            yield from _dispatch(source, f, base_url)
    except OSError as exc:
        f.is_index = False
        f.error("unreadable", 1, 1, f"cannot read: {exc.strerror or exc}")
    except InputError as exc:  # a URL that could not be fetched
        f.is_index = False
        f.error("unreadable", 1, 1, exc.reason)
    f.notes.finish(f.note)
    yield from f.pop_all()
    if facts is not None:
        facts.end(f.name, f.listed_in, f.is_index, f.entries, f.bytes)


def _tap(raw: IO[bytes], f: FileCheck) -> IO[bytes]:
    facts = f.stats.facts
    return raw if facts is None else facts.tap(raw)


def _dispatch(raw: IO[bytes], f: FileCheck,
              base_url: str | None) -> Iterator[Diagnostic]:
    try:
        stream, head = open_input(raw, f.name)
    except InputError as exc:  # bad gzip data at the start
        f.error("input", 1, 1, exc.reason)
        return
    if is_utf16(head):  # one message: line by line, UTF-16 is only NUL bytes and bad URLs
        utf = "UTF-32" if head[:4] in (b"\xff\xfe\0\0", b"\0\0\xfe\xff") else "UTF-16"
        f.error("encoding", 1, 1, f"the file is {utf}; sitemaps.org requires UTF-8: save it "
                "as UTF-8 (checking stopped here)")
        return
    looks_xml = head.lstrip(b"\xef\xbb\xbf \t\r\n\xff\xfe\x00").startswith(b"<")
    try:
        kind = sniff(head, f.name)
    except InputError as exc:
        if not looks_xml:
            f.error("empty-set" if not head else "format", 1, 1, exc.reason)
            return
        kind = "sitemap"  # the XML check names the wrong root or the syntax error
    if f.stats.facts is not None:
        f.stats.facts.format = kind
    if kind == "text":
        from ..readers.robots import looks_like_robots  # (text inputs only: start-up)

        if looks_like_robots(f.name, head):  # not a URL per line: an error a line, all wrong
            f.error("format", 1, 1, "a robots.txt, not a sitemap or URL list: check the "
                    "sitemaps its Sitemap: lines name, with --robots robots.txt to hold them "
                    "to its rules")
            return
        yield from check_text(stream, f)
    elif kind in ("tsv", "csv", "jsonl"):
        yield from check_columns(stream, f, kind)
    elif kind == "jsonfeed":
        check_jsonfeed(stream, f, base_url)  # (read whole: its diagnostics come at the end)
    elif kind == "feed":
        yield from check_feed(stream, f, base_url, check_encoding(head, f))
    else:
        yield from check_sitemap_xml(stream, f, check_encoding(head, f))
