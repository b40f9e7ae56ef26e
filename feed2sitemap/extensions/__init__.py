"""Sitemap extensions: images, videos, news, hreflang alternates, Baidu's mobile type, and any
element of another namespace, as values (model.py), rules (rules.py), XML (xmlin.py, xmlout.py),
JSON (jsonform.py), from feeds (feed.py, news.py) and merged (merging.py).

The values are named here; every module of the package imports model.py anyway."""

from ..model.extensions import EMPTY, Extensions
from .model import Alternate, Foreign, Image, Mobile, News, Platform, Problem, Restriction, Video

__all__ = ["EMPTY", "Alternate", "Extensions", "Foreign", "Image", "Mobile", "News", "Platform",
           "Problem", "Restriction", "Video"]
