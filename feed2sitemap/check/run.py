"""check() and iter_check(): one file, then the parts its index lists; the run's last words.

A file is opened (plain or gzip), its format told from its first bytes as the converter tells
it (detect.sniff), and handed to the check of its kind: xml (sitemaps and indexes), lists (URL
lists: text, TSV, CSV, JSON Lines; and JSON Feeds), feed (RSS/Atom).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Union

from ..errors import InputError, OptionError
from ..files.naming import url_segment
from ..model.limits import Profile, profile_of
from ..model.report import MESSAGES_PER_KIND
from ..model.scope import Scope, scope_of
from ..readers.detect import open_input, sniff
from .diagnostics import CheckStats, Diagnostic, FileCheck
from .follow import FOLLOW_DEPTH, below_prefix
from .hreflang import message
from .lists import check_columns, check_jsonfeed, check_text
from .site import SHOWN
from .xml import check_sitemap_xml
from .xmlstream import check_encoding, is_utf16

__all__ = ["Source", "check", "hreflang_diagnostics", "iter_check", "site_diagnostics"]

Source = Union[str, "os.PathLike[str]", IO[bytes]]


def check(source: Source, *, profile: str | Profile = "sitemaps", base_url: str | None = None,
          follow: bool = False, now: datetime | None = None, stats: CheckStats | None = None,
          name: str | None = None) -> list[Diagnostic]:
    """Check one file (a path or a binary stream); return its diagnostics sorted by position."""
    return list(iter_check(source, profile=profile, base_url=base_url, follow=follow, now=now,
                           stats=stats, name=name))


def iter_check(source: Source, *, profile: str | Profile = "sitemaps", base_url: str | None = None,
               follow: bool = False, now: datetime | None = None,
               stats: CheckStats | None = None, name: str | None = None) -> Iterator[Diagnostic]:
    """Like ``check``, yielding diagnostics as they become final (flat memory on big files).

    With ``follow``, the parts an index lists are checked after it (see follow.py); a
    part that no file holds is an error.
    ``stats`` (optional) receives the counts of files, URLs, errors and warnings; ``name``
    is the file name in diagnostics (default: the path, or the stream's ``name``). Without
    ``stats`` the call is a run of its own, ended by its ``hreflang-reciprocal`` warnings; a
    caller that passes ``stats`` to several calls asks hreflang_diagnostics(stats) after the
    last (as the command does).
    """
    own_run = stats is None
    prof = profile_of(profile)  # a name or a Profile, as ``Limits.profile`` takes it
    try:
        scope = scope_of(base_url) if base_url is not None else None
    except ValueError as exc:
        raise OptionError(str(exc), "base_url") from None
    now = now or datetime.now(timezone.utc)
    stats = stats if stats is not None else CheckStats()
    follow_dir = None
    if follow and isinstance(source, (str, os.PathLike)):
        follow_dir = Path(os.fspath(source)).parent
    robots = stats.robots
    if robots is not None and isinstance(source, (str, os.PathLike)):
        # the sitemaps named on the command line are the ones robots.txt should announce
        # (their parts are found through them); at 1:1, so first of the file's diagnostics
        shown = name or os.fspath(source)
        # encoded as the converter names it there (run/publish.py)
        url = scope.prefix + url_segment(os.path.basename(shown)) if scope is not None else None
        if not robots.lists(shown, url):
            stats.warnings += 1
            yield Diagnostic(shown, 1, 1, "warning", "robots-unlisted", f"{robots.where} has "
                             f"no Sitemap: line for {url or os.path.basename(shown)}: search "
                             "engines will not find it")
    f = yield from _check_source(source, prof, scope, base_url, now, stats, follow_dir,
                                 name=name, follow_prefix=scope.prefix if scope else None)
    yield from _check_parts(f, prof, scope, base_url, now, stats)
    if own_run:
        yield from hreflang_diagnostics(stats)


def hreflang_diagnostics(stats: CheckStats) -> Iterator[Diagnostic]:
    """After every file of a run: the hreflang alternates whose page, checked in the run, does
    not list back the page that lists it (``hreflang-reciprocal``, see hreflang.py). At most
    MESSAGES_PER_KIND are shown per file; all are counted."""
    shown: Counter[str] = Counter()
    for name, link, where in stats.hreflang.unreciprocated(stats.seen):
        stats.warnings += 1
        shown[name] += 1
        n = shown[name]
        if n > MESSAGES_PER_KIND:
            continue
        text = message(link, where)
        if n == MESSAGES_PER_KIND:
            text += " (further 'hreflang-reciprocal' warnings in this file are counted, not shown)"
        yield Diagnostic(name, link.line, link.col, "warning", "hreflang-reciprocal", text)


def site_diagnostics(stats: CheckStats) -> Iterator[Diagnostic]:
    """After every file of a run: the HTML pages of the built site (``stats.site``) that no
    sitemap listed, as one warning (a count and the first names)."""
    site = stats.site
    if site is None:
        return
    count, first = 0, []
    for rel in site.unlisted():
        count += 1
        if count <= SHOWN:
            first.append(rel)
    if count:
        stats.warnings += 1
        more = f" and {count - SHOWN:,} more" if count > SHOWN else ""
        yield Diagnostic(site.root, 1, 1, "warning", "site-unlisted",
                         f"{count:,} HTML page{'s' if count != 1 else ''} no sitemap lists: "
                         f"{', '.join(first)}{more}")
    if site.not_regular:
        stats.warnings += 1
        more = f" and {site.not_regular - SHOWN:,} more" if site.not_regular > SHOWN else ""
        yield Diagnostic(site.root, 1, 1, "warning", "site-not-regular",
                         f"{site.not_regular:,} *.html name{'s' if site.not_regular != 1 else ''}"
                         " of the site not read: not regular files (a FIFO, a socket or a "
                         f"device): {', '.join(site.not_regular_names)}{more}")


def _check_parts(f: FileCheck, prof: Profile, scope: Scope | None, base_url: str | None,
                 now: datetime, stats: CheckStats) -> Iterator[Diagnostic]:
    """The parts of index ``f`` found on disk, each after the other, and theirs (if ours)."""
    if not f.is_index or f.follow_dir is None:
        return
    for part in f.parts:
        prefix = below_prefix(f.index_dir or "", f.follow_dir, part.path)
        sub = part.path.parent if f.depth + 1 < FOLLOW_DEPTH else None
        g = yield from _check_source(part.path, prof, scope, base_url, now, stats, sub,
                                     f.name, follow_prefix=prefix, depth=f.depth + 1)
        yield from _check_parts(g, prof, scope, base_url, now, stats)


def _check_source(source: Source, prof: Profile, scope: Scope | None,
                  base_url: str | None, now: datetime, stats: CheckStats,
                  follow_dir: Path | None,
                  listed_in: str | None = None, name: str | None = None,
                  follow_prefix: str | None = None, depth: int = 0,
                  ) -> Generator[Diagnostic, None, FileCheck]:
    if isinstance(source, (str, os.PathLike)):
        name = name or os.fspath(source)
    else:
        name = name or str(getattr(source, "name", "<stream>"))
    stats.files += 1
    f = FileCheck(name, prof, scope, now, stats, follow_dir, listed_in, follow_prefix, depth)
    # A file that cannot be read is bad data like any other (an error diagnostic):
    # in CI it is a sitemap the site does not have.
    try:
        if isinstance(source, (str, os.PathLike)):
            with open(source, "rb") as raw:
                yield from _dispatch(raw, f, base_url)
        else:
            yield from _dispatch(source, f, base_url)
    except OSError as exc:
        f.is_index = False
        f.error("unreadable", 1, 1, f"cannot read: {exc.strerror or exc}")
        yield from f.pop_all()
    return f


def _dispatch(raw: IO[bytes], f: FileCheck,
              base_url: str | None) -> Iterator[Diagnostic]:
    try:
        stream, head = open_input(raw, f.name)
    except InputError as exc:  # bad gzip data at the start
        f.error("input", 1, 1, exc.reason)
        yield from f.pop_all()
        return
    if is_utf16(head):
        # One message, as the converter gives: line by line, UTF-16 is only NUL bytes and
        # bad URLs, and feedparser's complaints about it say nothing more.
        f.error("encoding", 1, 1, "the file is UTF-16; sitemaps.org requires UTF-8: save it as "
                "UTF-8 (checking stopped here)")
        yield from f.pop_all()
        return
    looks_xml = head.lstrip(b"\xef\xbb\xbf \t\r\n\xff\xfe\x00").startswith(b"<")
    try:
        kind = sniff(head, f.name)
    except InputError as exc:
        if not looks_xml:
            f.error("empty-set" if not head else "format", 1, 1, exc.reason)
            yield from f.pop_all()
            return
        kind = "sitemap"  # the XML check names the wrong root or the syntax error
    if kind == "text":
        yield from check_text(stream, f)
    elif kind in ("tsv", "csv", "jsonl"):
        yield from check_columns(stream, f, kind)
    elif kind == "jsonfeed":
        yield from check_jsonfeed(stream, f, base_url)
    elif kind == "feed":
        from .feed import check_feed  # feedparser: 70 ms to import, for feeds only

        yield from check_feed(stream, f, base_url, check_encoding(head, f))
    else:
        yield from check_sitemap_xml(stream, f, check_encoding(head, f))
