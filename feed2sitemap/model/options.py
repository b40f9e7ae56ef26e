"""The options of a run, grouped by what they govern, each group checked when it is made.

``convert(inputs, output, reading=ReadOptions(...), writing=WriteOptions(...), ...)``: a bad
value is an OptionError (a ValueError) naming its parameter, raised before any input is read,
never a file the sitemaps.org schema would reject.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Union

from ..errors import OptionError, UnsupportedFormat
from .limits import DEFAULT_MAX_FEED_BYTES, Profile
from .record import check_changefreq, check_priority
from .rules import news_language

__all__ = ["FORMATS", "Channel", "Defaults", "Limits", "NewsSitemap", "ReadOptions", "WriteOptions",
           "check_format"]


# --from's choices: each names a reader (readers.READERS)
FORMATS = ("feed", "text", "sitemap", "jsonfeed", "tsv", "csv", "jsonl")


def check_format(name: str) -> str:
    """``name`` if it is "auto" or one of FORMATS, else UnsupportedFormat listing them."""
    if name != "auto" and name not in FORMATS:
        raise UnsupportedFormat(f"unknown input format {name!r}; choose one of: auto, "
                                f"{', '.join(FORMATS)}", "from_format")
    return name


def _positive(value: object, parameter: str, *, integer: bool = True) -> None:
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not value > 0 or (
            isinstance(value, float) and math.isinf(value)):
        raise OptionError(f"must be a positive {'integer' if integer else 'number'}, "
                          f"not {value!r}", parameter)


@dataclass(frozen=True)
class ReadOptions:
    """How the inputs are read.

    ``from_format``: "auto" (sniffed from the first bytes) or one of FORMATS.
    ``max_feed_bytes``: the most a feed (read whole) may hold. ``follow``: read the parts an
    index input lists, as pages. ``input_url``: the inputs' own URL, the base of their
    relative links before ``base_url``.
    """

    from_format: str = "auto"
    max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES
    follow: bool = False
    input_url: Optional[str] = None

    def __post_init__(self) -> None:
        check_format(self.from_format)
        _positive(self.max_feed_bytes, "max_feed_bytes")


@dataclass(frozen=True)
class Limits:
    """The protocol profile ("sitemaps", "baidu" or a Profile) and lower limits asked for."""

    profile: Union[str, Profile] = "sitemaps"
    max_urls: Optional[int] = None
    max_bytes: Optional[int] = None

    def __post_init__(self) -> None:
        for name in ("max_urls", "max_bytes"):
            if getattr(self, name) is not None:
                _positive(getattr(self, name), name)


@dataclass(frozen=True)
class WriteOptions:
    """How the files are written.

    ``to``: the output format (else from the output's name, else XML). ``gzip``: compress
    (else when the name ends .gz), at ``gzip_level``. ``index``: "auto" (an index when the
    URLs need parts) or "always". ``atomic``: temporaries renamed over the old files when all
    succeeded (False: overwrite in place). ``lock_timeout``: seconds to wait for another run
    writing in the same directory.
    """

    to: Optional[str] = None
    gzip: Optional[bool] = None
    gzip_level: Optional[int] = None
    index: str = "auto"
    atomic: bool = True
    lock_timeout: float = 60.0

    def __post_init__(self) -> None:
        level = self.gzip_level
        if level is not None and (isinstance(level, bool) or not isinstance(level, int)
                                  or not 0 <= level <= 9):
            raise OptionError(f"must be an integer from 0 to 9, not {level!r}", "gzip_level")
        if self.index not in ("auto", "always"):
            raise OptionError(f"unknown index mode {self.index!r}; choose auto or always",
                              "index")
        if isinstance(self.lock_timeout, bool) or not isinstance(
                self.lock_timeout, (int, float)) or not self.lock_timeout >= 0:
            raise OptionError(f"must be a number of seconds, not {self.lock_timeout!r}",
                              "lock_timeout")


@dataclass(frozen=True)
class Defaults:
    """changefreq and priority for the pages whose input gave none."""

    changefreq: Optional[str] = None
    priority: Optional[float] = None

    def __post_init__(self) -> None:
        if self.changefreq is not None:
            check_changefreq(self.changefreq)
        if self.priority is not None:
            check_priority(self.priority)


@dataclass(frozen=True)
class NewsSitemap:
    """Write a Google News sitemap from the feeds: each entry published in the last two days
    (the clock, or SOURCE_DATE_EPOCH) gets a <news:news> with the publication ``name``, the
    ``language`` (else the feed's own, reduced to Google's codes), its first publication date
    and its title; older ones, and URLs that are no such article, are left out and counted.
    At most 1,000 URLs a file (Google News), split into parts with an index beyond."""

    name: str
    language: Optional[str] = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise OptionError("a Google News sitemap needs the publication's name", "news_name")
        if self.language is not None:
            code = news_language(self.language)
            if code is None:
                raise OptionError(f"{self.language!r} is no language code Google News takes "
                                  "(ISO 639: en, fr, ...; zh-cn or zh-tw)", "news_language")
            object.__setattr__(self, "language", code)


@dataclass(frozen=True)
class Channel:
    """RSS/Atom output's channel: title (default: the site's host), link (default: the
    `base_url` directory, else the first URL's site), description."""

    title: Optional[str] = None
    site_url: Optional[str] = None
    description: Optional[str] = None
