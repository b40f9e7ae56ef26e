"""The options of a run, grouped by what they govern, each checked when it is made: a bad value
is an OptionError naming its parameter before any input is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..errors import OptionError, UnsupportedFormat
from .limits import DEFAULT_MAX_FEED_BYTES, Profile
from .record import check_changefreq, check_priority
from .rules import news_language

# --from's choices: each names a reader (readers.READERS)
FORMATS = ("feed", "text", "sitemap", "jsonfeed", "tsv", "csv", "jsonl")
# a site directory's choices (readers/site/)
PRETTY_URLS = ("keep", "strip", "slash")
LASTMOD_FROM = ("page", "git", "content")


def _positive(value: object, parameter: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise OptionError(f"must be a positive integer, not {value!r}", parameter)


@dataclass(frozen=True)
class SiteOptions:
    """How a built site directory is read (readers/site/): which URL of ``page.html`` is
    named (``pretty_urls``: keep /page.html, strip to /page, or slash /page/); whether the
    images of each page's main content are listed (``images``); where a page without dates of
    its own gets its lastmod (``lastmod_from``: "page", none; "git", the last commit of its
    file or, with ``source``, of the source file in that repository; "content", the run that
    saw its main content change, remembered in the ``state`` file)."""

    pretty_urls: str = "keep"
    images: bool = False
    lastmod_from: str = "page"
    state: Optional[str] = None
    source: Optional[str] = None

    def __post_init__(self) -> None:
        for name, choices in (("pretty_urls", PRETTY_URLS), ("lastmod_from", LASTMOD_FROM)):
            if getattr(self, name) not in choices:
                raise OptionError(f"choose one of {', '.join(choices)}, not "
                                  f"{getattr(self, name)!r}", name)
        if (self.lastmod_from == "content") != (self.state is not None):
            raise OptionError("goes with `lastmod_from` content, which keeps its fingerprints "
                              "in that file: give both, or neither", "state")
        if self.source is not None and self.lastmod_from != "git":
            raise OptionError("names the sources in a repository: it goes with "
                              "`lastmod_from` git", "source")


@dataclass(frozen=True)
class ReadOptions:
    """How the inputs are read: ``from_format`` "auto" (sniffed) or one of FORMATS;
    ``max_feed_bytes``, the most a feed (read whole) may hold; ``follow``, read the parts an
    index lists; ``input_url``, the inputs' own URL, the base of relative links; ``site``,
    how a directory (a built site) is read."""

    from_format: str = "auto"
    max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES
    follow: bool = False
    input_url: Optional[str] = None
    site: SiteOptions = SiteOptions()

    def __post_init__(self) -> None:
        if self.from_format != "auto" and self.from_format not in FORMATS:
            raise UnsupportedFormat(f"unknown input format {self.from_format!r}; choose one "
                                    f"of: auto, {', '.join(FORMATS)}", "from_format")
        _positive(self.max_feed_bytes, "max_feed_bytes")
        if not isinstance(self.site, SiteOptions):
            raise OptionError(f"must be a SiteOptions, not {type(self.site).__name__}", "site")


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
    """How the files are written: ``to``, the format (else from the output's name, else XML);
    ``gzip`` (else when the name ends .gz) at ``gzip_level``; ``index`` "auto" (when the URLs
    need parts) or "always"; ``atomic``, temporaries renamed over the old files when all
    succeeded; ``lock_timeout``, seconds to wait for another run in the same directory;
    ``drop_deprecated``, leave out the extension tags search engines no longer read (image
    caption, video price, news keywords, ...: extensions/deprecated.py), counted;
    ``cache_control``, the Cache-Control header of objects written to object storage."""

    to: Optional[str] = None
    gzip: Optional[bool] = None
    gzip_level: Optional[int] = None
    index: str = "auto"
    atomic: bool = True
    lock_timeout: float = 60.0
    cache_control: Optional[str] = None
    drop_deprecated: bool = False

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
    """Write a Google News sitemap: each entry of the last two days (the clock, or
    SOURCE_DATE_EPOCH) gets a <news:news> with the publication ``name``, the ``language`` (else
    the feed's own), its date and title; the others are left out and counted. At most 1,000
    URLs a file."""

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

    def __post_init__(self) -> None:
        for name in ("title", "site_url", "description"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise OptionError(f"must be a str or None, not {type(value).__name__}", name)
