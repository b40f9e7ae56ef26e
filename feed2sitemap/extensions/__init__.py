"""Sitemap extensions: images, videos, news, hreflang alternates, Baidu's mobile type, and any
element of another namespace, as values (model.py), rules (rules.py), XML (xmlin.py, xmlout.py),
JSON (jsonform.py), from feeds (feed.py, news.py) and merged (merging.py).

Each public name is imported from its module when first used: a run importing one module of
the package loads none of the rest."""

from importlib import import_module
from typing import Any

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
