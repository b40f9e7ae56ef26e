"""feed2sitemap: turn RSS/Atom feeds, URL lists and old sitemaps into correct sitemaps."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("feed2sitemap")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

from .convert import Summary, convert, read, write
from .errors import Feed2SitemapError, InputError, LimitError, OutputError, UnsupportedFormat
from .limits import PROFILES, Profile
from .record import CHANGEFREQS, Record
from .report import Report

__all__ = [
    "CHANGEFREQS",
    "PROFILES",
    "Feed2SitemapError",
    "InputError",
    "LimitError",
    "OutputError",
    "Profile",
    "Record",
    "Report",
    "Summary",
    "UnsupportedFormat",
    "__version__",
    "convert",
    "read",
    "write",
]
