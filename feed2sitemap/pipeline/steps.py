"""Pipeline steps between readers and writers: each one function over batches (model/batch.py),
composed by ``convert`` in the order below. Records go in as ``batched(records)`` and come out
as ``unbatched(batches)``; what a step skips is counted in ``report`` (a fresh Report when not
given: read ``report.problems``, or pass ``Report(on_problem=...)``)."""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator
from datetime import datetime
from itertools import repeat
from typing import Optional

from ..backends import fast
from ..model.batch import Batch, bad_values, check_shape
from ..model.lastmods import lastmod_key, newest_of
from ..model.limits import CLOCK_SKEW
from ..model.record import check_changefreq, check_priority, format_lastmod
from ..model.report import Report
from ..model.scope import Scope, scope_of
from ..model.urls import normalize_locs, shown
from .merging import DEFAULT_MEMORY_LIMIT, MergeCounts, ReferenceStore, Store

__all__ = ["apply_defaults", "check_fields", "check_length", "dedupe", "drop_deprecated",
           "future_lastmods", "in_input_order", "merge", "news_only", "normalize", "within_scope"]


def check_fields(batches: Iterable[Batch], report: Optional[Report] = None) -> Iterator[Batch]:
    """What a library user hands a writer, held to the rules a reader holds its input to: a
    batch of another shape is an OptionError; a row whose loc is no str is skipped, a bad
    lastmod, changefreq or priority left out, each counted. A caller may have changed a batch
    since it was made, so its fields are looked at here, not trusted, and text a reader
    formatted (``lastmod_texts``) is formatted again."""
    report = report if report is not None else Report()
    for batch in batches:
        check_shape(batch)
        bad = list(bad_values(batch))
        if not bad and batch.lastmod_texts is None:
            yield batch
            continue
        columns: dict[str, list[object]] = {}
        drop = [i for i, name, _ in bad if name == "loc"]
        for i, name, why in bad:
            where, loc = batch.where(i), batch.locs[i]
            if name == "loc":
                report.skip("invalid URL", *where, f"loc {why}")
            if i in drop:  # (the row goes: nothing more to say of it)
                continue
            plural = {"lastmod": "lastmods", "changefreq": "changefreqs",
                      "priority": "priorities", "extensions": "extensions"}[name]
            columns.setdefault(plural, list(getattr(batch, plural)))[i] = None
            report.warn(f"bad {name}", *where, f"{name} of {shown(loc, 200)} {why}; left out",
                        url=loc)
        rest = batch.replaced(lastmod_texts=None, **columns).without(drop)
        if rest.locs:
            yield rest


def normalize(batches: Iterable[Batch], report: Optional[Report] = None) -> Iterator[Batch]:
    """Each loc as its normalised absolute http(s) URI (urls.normalize_url), the others
    skipped and reported. A fragment removed is counted: copies of one page then fold into one."""
    report = report if report is not None else Report()
    for batch in batches:
        if batch.proven:  # a reader had it proven (the text reader, a block at a time)
            yield batch
            continue
        result = normalize_locs(batch.locs)
        for i, exc in result.bad:
            report.skip(exc.kind, *batch.where(i),
                        f"{exc}; {exc.hint}" if exc.hint else str(exc), url=batch.locs[i])
        for i, fixed in result.fragments:
            report.warn("fragment removed", *batch.where(i),
                        f"{shown(batch.locs[i], 200)} names a part of a page; listed as "
                        f"{fixed[:200]} (RFC 3986 section 3.5)", url=fixed)
        rest = batch.without([i for i, _ in result.bad])
        if rest.locs:
            yield rest.replaced(locs=result.clean.locs, clean=result.clean)


def check_length(batches: Iterable[Batch], max_loc: int, report: Optional[Report] = None,
                 profile: str = "", min_loc: int = 12) -> Iterator[Batch]:
    """Skip a record whose <loc> is not shorter than ``max_loc`` characters (the profile's rule)
    or shorter than ``min_loc`` (the XSD's minLength: "http://a.b/" cannot be in a sitemap)."""
    report = report if report is not None else Report()
    for batch in batches:
        # proven (model/urls.py): none shorter than the site all start with; and, from the text
        # reader, none longer than its block's longest line, else the longest is looked for
        if len(batch.prefix) >= min_loc and batch.locs:
            longest = batch.longest
            if (longest if longest is not None else max(map(len, batch.locs))) < max_loc:
                yield batch
                continue
        sizes = list(map(len, batch.locs))
        if not sizes:
            continue
        if max(sizes) < max_loc and min(sizes) >= min_loc:
            yield batch
            continue
        drop = []
        for i, n in enumerate(sizes):
            if n >= max_loc:
                report.skip("URL too long", *batch.where(i),
                            f"URL of {n:,} characters; profile {profile} requires under "
                            f"{max_loc:,}", url=batch.locs[i])
                drop.append(i)
            elif n < min_loc:
                report.skip("URL too short", *batch.where(i),
                            f"{batch.locs[i]} has {n} characters; the sitemaps.org schema "
                            f"requires at least {min_loc}", url=batch.locs[i])
                drop.append(i)
        rest = batch.without(drop)
        if rest.locs:
            yield rest


def within_scope(batches: Iterable[Batch], report: Optional[Report] = None,
                 scope: Optional[Scope] = None) -> Iterator[Batch]:
    """Keep the URLs of one site (sitemaps.org: a sitemap lists URLs of its own host only):
    ``scope`` (from `base_url`), else the site the first input states (_first_scope), named in
    ``report.scope``. Run after ``normalize``: both sides are in normalised form."""
    report = report if report is not None else Report()
    off = report.hosts_off_scope
    for batch in batches:
        if not batch.locs:
            continue
        if scope is None:
            scope = _first_scope(batch, report)
        prefix = scope.prefix
        if batch.prefix.startswith(prefix) or all(map(str.startswith, batch.locs,
                                                      repeat(prefix))):
            # the usual batch: known from the proof of its site, or found in C
            yield batch
            continue
        contains = scope.contains
        outside = [i for i, loc in enumerate(batch.locs) if not contains(loc)]
        for i in outside:
            loc = batch.locs[i]
            off[loc[: loc.find("/", loc.find("://") + 3)]] += 1
            report.skip("off scope", *batch.where(i),
                        f"{loc[:200]} is outside {prefix} (sitemaps.org: one site per sitemap; "
                        "`scope_check=False` to allow)", url=loc)
        rest = batch.without(outside)
        if rest.locs:
            yield rest


def _first_scope(batch: Batch, report: Report) -> Scope:
    """Without `base_url`: the site the input names — a JSON Feed's home_page_url
    (``batch.site``, the home page's directory, as the spec says it is the site's), an XML
    feed's own link (``report.site``: its scheme and host, since a channel link may be any page
    of the site) —, else, guessed, the scheme and host of the first URL."""
    for site, directory, named_by in (
            (batch.site, True, f"the home page of {batch.source}"),
            (report.site, False, f"the site link of {report.site_source}")):
        if site is None:
            continue
        try:
            scope = scope_of(site, directory=directory)
        except ValueError as exc:
            report.warn("bad site URL", batch.source, None, f"the site URL it names is not "
                        f"usable as the scope ({exc}); the first URL's site is taken")
            continue
        report.scope, report.scope_from = scope.prefix, named_by
        return scope
    scope = scope_of(batch.locs[0], directory=False)
    report.scope, report.scope_from = scope.prefix, "guessed from the first URL"
    return scope


def dedupe(batches: Iterable[Batch], report: Optional[Report] = None) -> Iterator[Batch]:
    """One entry per URL: the first copy keeps its place, later copies are dropped and counted.
    Only each URL's 64-bit hash is kept (about 60 bytes per URL, whatever its length); two URLs
    colliding is a one-in-2**64 event per pair."""
    report = report if report is not None else Report()
    seen: set[int] = set()
    for batch in batches:
        keys = list(map(hash, batch.locs))
        # the usual batch, in C: no key seen before, none twice in the batch (a key twice
        # shows as fewer new members, and is taken out again: none was there)
        if seen.isdisjoint(keys):
            before = len(seen)
            seen.update(keys)
            if len(seen) - before == len(keys):
                yield batch
                continue
            seen.difference_update(keys)
        drop = []
        for i, key in enumerate(keys):
            if key in seen:
                report.skip("duplicate", *batch.where(i), f"duplicate URL {batch.locs[i]}",
                            url=batch.locs[i])
                drop.append(i)
            else:
                seen.add(key)
        rest = batch.without(drop)
        if rest.locs:
            yield rest


def apply_defaults(batches: Iterable[Batch], changefreq: Optional[str] = None,
                   priority: Optional[float] = None) -> Iterator[Batch]:
    """Fill changefreq/priority where the input gave none. The values are checked here, before
    any batch: a bad one is an OptionError, never a sitemap the schema rejects."""
    if changefreq is not None:
        changefreq = check_changefreq(changefreq)
    if priority is not None:
        priority = check_priority(priority)
    return _with_defaults(batches, changefreq, priority)


def _with_defaults(batches: Iterable[Batch], changefreq: Optional[str],
                   priority: Optional[float]) -> Iterator[Batch]:
    for batch in batches:
        if batch.is_sitemap or (changefreq is None and priority is None):
            yield batch
            continue
        n = len(batch.locs)
        changefreqs, priorities = batch.changefreqs, batch.priorities
        if changefreq is not None:
            changefreqs = [changefreq] * n if changefreqs is None else [
                changefreq if v is None else v for v in changefreqs]
        if priority is not None:
            priorities = [priority] * n if priorities is None else [
                priority if v is None else v for v in priorities]
        yield batch.replaced(changefreqs=changefreqs, priorities=priorities)


def drop_deprecated(batches: Iterable[Batch], report: Report) -> Iterator[Batch]:
    """Leave out the extension tags search engines no longer read (extensions/deprecated.py:
    image caption, video price, news keywords, ...), each counted by tag in
    ``report.dropped_tags``."""
    from ..extensions.deprecated import without_deprecated  # (only when asked)

    for batch in batches:
        exts = batch.extensions
        if exts is not None:
            kept = [without_deprecated(ext, report.dropped_tags) if ext else None
                    for ext in exts]
            if any(e is not None for e in kept):
                batch = batch.replaced(extensions=[
                    ext if new is None else new for ext, new in zip(exts, kept, strict=True)])
        yield batch


def future_lastmods(batches: Iterable[Batch], at: datetime,
                    report: Optional[Report] = None) -> Iterator[Batch]:
    """The batches as they are, their lastmods later than ``at`` (plus a day) counted and said
    in one warning at the end, naming the first. They are kept: sitemaps.org forbids none, and
    the page's own date is the user's to fix (``check`` says "lastmod-future" too)."""
    report = report if report is not None else Report()
    limit = at + CLOCK_SKEW
    count, first = 0, None
    for batch in batches:
        lastmods = batch.lastmods or []
        newest = newest_of(lastmods)
        if newest is not None and lastmod_key(newest) > limit:  # (rare: one C pass else)
            late = [i for i, lm in enumerate(lastmods) if lm and lastmod_key(lm) > limit]
            if first is None:
                first = (*batch.where(late[0]), batch.locs[late[0]],
                         format_lastmod(lastmods[late[0]] or newest))
            count += len(late)
        yield batch
    if first is not None:
        source, line, loc, text = first
        are = "lastmod is" if count == 1 else "lastmods are"
        report.warn("lastmod in the future", source, line, f"{count:,} {are} in the future "
                    f"(first: {shown(loc, 200)}, {text}); kept", url=loc, count=count)


def in_input_order(batches: Iterable[Batch], report: Report) -> Iterator[Batch]:
    """The batches, the messages the steps before gave about each held and given in input
    order before it goes on (Report.hold). The last step of the data path; what the writer
    says of a batch comes out with the next one's."""
    report.hold()
    try:
        for batch in batches:
            report.release()
            yield batch
    finally:
        report.release(stop=True)


def news_only(batches: Iterable[Batch], at: datetime,
              report: Optional[Report] = None) -> Iterator[Batch]:
    """A Google News sitemap's URLs: those with a <news:news> published within two days of
    ``at``. The others are left out and counted: "news aged out" (an article that was news
    when an earlier run wrote it), "not news" (no <news:news> at all)."""
    from ..extensions.news import in_window  # (only a news sitemap)

    report = report if report is not None else Report()
    for batch in batches:
        drop = []
        for i, ext in enumerate(batch.extensions or [None] * len(batch.locs)):
            dates = [n.publication_date for n in ext.news] if ext else []
            if dates and any(d is not None and in_window(d, at) for d in dates):
                continue
            kind, why = (("news aged out", "published more than two days ago") if dates
                         else ("not news", "no <news:news> (publication date and title)"))
            report.skip(kind, *batch.where(i), f"{batch.locs[i][:200]}: {why}",
                        url=batch.locs[i])
            drop.append(i)
        rest = batch.without(drop)
        if rest.locs:
            yield rest


def merge(batches: Iterable[Batch], counts: Optional[MergeCounts] = None, *,
          base: Optional[Container[Optional[str]]] = None,
          memory_limit: int = DEFAULT_MEMORY_LIMIT) -> Iterator[Batch]:
    """One entry per URL, newest lastmod wins (merging.py). Nothing is yielded until ``batches``
    is exhausted: every URL is remembered, on temporary files past ``memory_limit`` bytes.
    ``base``: the source names of the output's previous version when it is also an input;
    ``counts`` is filled once the last batch is yielded."""
    kind = Store if fast("merge store") else ReferenceStore
    store = kind(base_mode=base is not None, memory_limit=memory_limit)
    try:
        for batch in batches:
            if base is None:
                store.add(batch)
            elif batch.sources is None:
                store.add(batch, batch.source in base)
            else:  # rows of several sources: each run of base (or other) rows in turn
                flags = [s in base for s in batch.sources]
                start = 0
                for end in range(1, len(flags) + 1):
                    if end == len(flags) or flags[end] != flags[start]:
                        outside = [*range(start), *range(end, len(flags))]
                        store.add(batch.without(outside), flags[start])
                        start = end
        yield from store.batches(counts)
    finally:
        store.close()
