"""feed2sitemap: turn RSS/Atom feeds, URL lists and old sitemaps into correct sitemaps."""

from __future__ import annotations

from .convert import Summary, convert, read, write
from .errors import Feed2SitemapError, InputError, LimitError, OutputError, UnsupportedFormat
from .limits import PROFILES, Profile
from .record import CHANGEFREQS, Record
from .report import Report


def __getattr__(name: str) -> str:
    # __version__ on demand: importlib.metadata costs 30 ms at every start of the command
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("feed2sitemap")
        except PackageNotFoundError:  # a source tree that was not installed
            return "0.0.0+unknown"
    raise AttributeError(name)


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
