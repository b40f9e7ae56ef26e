"""Sitemap extensions: images, videos, news, hreflang alternates, Baidu's mobile type, and any
element of another namespace, as values with their rules, XML and feed mapping (issue 17).

This package is self-contained: nothing in the data path uses it yet. Where each piece plugs
in when it is wired (the integration step):

- **Values** (model.py): ``Extensions`` is the one per-URL value; ``EMPTY`` is the shared
  "none" (``bool(ext)`` is False). Record gains ``extensions: Extensions = EMPTY`` and Batch a
  column ``extensions: Optional[list[Extensions]]`` that is None when no row has any, so a
  batch without extensions costs what it costs today (its writer and merge paths test the
  column once, not each row).
- **Sitemap reader** (readers/sitemap.py): inside a <url>, feed every start/data/end event
  of the <url>'s children to one ``xmlin.UrlChildren`` (core fields may be fed too: they are
  passed over) with the line number; at </url>, ``finish()`` gives the Extensions, the
  problems met reading them (unknown sitemaps.org elements among them: a warning in the
  converter, an error in ``check``), and each item's line. Then ``rules.sanitize`` drops
  what breaks Google's rules, a warning per problem (Report.warn, ``Problem.message()``).
  The reader's hot path has no start handler today: set one only once the root says this is
  a <urlset> and only while inside a <url>, or keep the end-only path when a chunk holds no
  ``:`` prefix or ``xmlns``.
- **Feed reader** (readers/feed.py): the feedparser path calls ``feed.extensions_for_entry``
  (entry, feed-level dict, page URL, base); its problems are warnings. The fast path
  (readers/feed/fastpass.py) must give the same Extensions (the property test compares the two).
  News sitemaps: ``news.news_language(news.feed_language(feed, entry))`` unless the user
  gave one (None → a usage error naming `news_language`),
  ``news.now()`` (SOURCE_DATE_EPOCH), ``news.news_for_entry`` (publication date = first
  publication, two-day window; "too old" entries counted).
- **Merge** (pipeline/merging.py): per URL, ``merging.merge_extensions(first, first_lastmod, second,
  second_lastmod)``; the packed per-URL int cannot hold them, so a side dict keyed by the
  URL's slot holds only the URLs that have extensions (none for plain inputs).
- **Writers** (writers/xml.py, files/split.py): ``xmlout.declarations(kinds, foreign)`` gives the
  ``xmlns:`` attributes to put on <urlset> (counted in the header's bytes) and the prefix map;
  ``xmlout.serialize(ext, prefixes)`` gives the bytes between </priority> (or </loc>) and
  </url>, which count in the entry's size, so "closed only when the next entry would not
  fit" stays exact. A namespace the map lacks is declared on the element itself, so a writer
  that must write its header before it has seen every URL stays correct. Text, RSS and Atom
  writers count the extensions they leave out. News: at most ``rules.NEWS_PER_FILE`` URLs.
- **check** (check.py, check_xml.py): ``xmlin.UrlChildren`` for structure, then
  ``rules.check_extensions(ext, page=loc)`` for every rule, each Problem a diagnostic with
  the item's line; foreign namespaces pass.
"""

from importlib import import_module
from typing import Any

# Each public name and the module it lives in: imported when first used, so that model/record.py's
# import of the model (every run) loads none of the rest.
_WHERE = {
    "extensions_for_entry": "feed", "parse_duration": "feed", "plain_text": "feed",
    "merge_extensions": "merging", "ExtensionMerger": "merging",
    "EMPTY": "..model.extensions", "Alternate": "model",
    "Extensions": "..model.extensions", "Foreign": "model",
    "Image": "model", "Mobile": "model", "News": "model", "Platform": "model",
    "Problem": "model", "Restriction": "model", "Video": "model",
    "feed_language": "news", "in_window": "news", "news_for_entry": "news",
    "news_language": "news", "now": "news", "check_extensions": "rules", "sanitize": "rules",
    "UrlChildren": "xmlin", "located": "xmlin", "declarations": "xmlout",
    "serialize": "xmlout", "from_json": "jsonform", "to_json": "jsonform",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(name)
    value = getattr(import_module(module if module[0] == "." else f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = sorted(_WHERE)
