"""The options of a run, grouped by what they govern, each checked when it is made: a bad value
is an OptionError naming its parameter before any input is read."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any, Optional, TypeVar, Union

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


_O = TypeVar("_O", bound="_Options")


class _Options:
    """Values fixed when made, compared by value. Plain classes, not dataclasses: making seven
    frozen dataclasses was 6 ms of every run's start-up."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    def __hash__(self) -> int:
        return hash(tuple(vars(self).values()))

    def __repr__(self) -> str:
        values = ", ".join(f"{name}={value!r}" for name, value in vars(self).items())
        return f"{type(self).__name__}({values})"

    def replace(self: _O, **changes: Any) -> _O:
        """A copy with the values given changed (checked again)."""
        return type(self)(**{**vars(self), **changes})


class SiteOptions(_Options):
    """How a built site directory is read (readers/site/): which URL of ``page.html`` is
    named (``pretty_urls``: keep /page.html, strip to /page, or slash /page/); whether the
    images of each page's main content are listed (``images``); where a page without dates of
    its own gets its lastmod (``lastmod_from``: "page", none; "git", the last commit of its
    file or, with ``source``, of the source file in that repository; "content", the run that
    saw its main content change, remembered in the ``state`` file)."""

    pretty_urls: str
    images: bool
    lastmod_from: str
    state: Optional[str]
    source: Optional[str]

    def __init__(self, pretty_urls: str = "keep", images: bool = False,
                 lastmod_from: str = "page", state: Optional[str] = None,
                 source: Optional[str] = None) -> None:
        for name, value, choices in (("pretty_urls", pretty_urls, PRETTY_URLS),
                                     ("lastmod_from", lastmod_from, LASTMOD_FROM)):
            if value not in choices:
                raise OptionError(f"choose one of {', '.join(choices)}, not {value!r}", name)
        if (lastmod_from == "content") != (state is not None):
            raise OptionError("goes with `lastmod_from` content, which keeps its fingerprints "
                              "in that file: give both, or neither", "state")
        if source is not None and lastmod_from != "git":
            raise OptionError("names the sources in a repository: it goes with "
                              "`lastmod_from` git", "source")
        super().__init__(pretty_urls=pretty_urls, images=images, lastmod_from=lastmod_from,
                         state=state, source=source)


class ReadOptions(_Options):
    """How the inputs are read: ``from_format`` "auto" (sniffed) or one of FORMATS;
    ``max_feed_bytes``, the most a feed (read whole) may hold; ``follow``, read the parts an
    index lists; ``input_url``, the inputs' own URL, the base of relative links; ``site``,
    how a directory (a built site) is read."""

    from_format: str
    max_feed_bytes: int
    follow: bool
    input_url: Optional[str]
    site: SiteOptions

    def __init__(self, from_format: str = "auto", max_feed_bytes: int = DEFAULT_MAX_FEED_BYTES,
                 follow: bool = False, input_url: Optional[str] = None,
                 site: SiteOptions = SiteOptions()) -> None:
        if from_format != "auto" and from_format not in FORMATS:
            raise UnsupportedFormat(f"unknown input format {from_format!r}; choose one "
                                    f"of: auto, {', '.join(FORMATS)}", "from_format")
        _positive(max_feed_bytes, "max_feed_bytes")
        if not isinstance(site, SiteOptions):
            raise OptionError(f"must be a SiteOptions, not {type(site).__name__}", "site")
        super().__init__(from_format=from_format, max_feed_bytes=max_feed_bytes, follow=follow,
                         input_url=input_url, site=site)


class Limits(_Options):
    """The protocol profile ("sitemaps", "baidu" or a Profile) and lower limits asked for."""

    profile: Union[str, Profile]
    max_urls: Optional[int]
    max_bytes: Optional[int]

    def __init__(self, profile: Union[str, Profile] = "sitemaps", max_urls: Optional[int] = None,
                 max_bytes: Optional[int] = None) -> None:
        for name, value in (("max_urls", max_urls), ("max_bytes", max_bytes)):
            if value is not None:
                _positive(value, name)
        super().__init__(profile=profile, max_urls=max_urls, max_bytes=max_bytes)


class WriteOptions(_Options):
    """How the files are written: ``to``, the format (else from the output's name, else XML);
    ``gzip`` (else when the name ends .gz) at ``gzip_level``; ``index`` "auto" (when the URLs
    need parts) or "always"; ``atomic``, temporaries renamed over the old files when all
    succeeded; ``lock_timeout``, seconds to wait for another run in the same directory;
    ``drop_deprecated``, leave out the extension tags search engines no longer read (image
    caption, video price, news keywords, ...: extensions/deprecated.py), counted;
    ``cache_control``, the Cache-Control header of objects written to object storage."""

    to: Optional[str]
    gzip: Optional[bool]
    gzip_level: Optional[int]
    index: str
    atomic: bool
    lock_timeout: float
    cache_control: Optional[str]
    drop_deprecated: bool

    def __init__(self, to: Optional[str] = None, gzip: Optional[bool] = None,
                 gzip_level: Optional[int] = None, index: str = "auto", atomic: bool = True,
                 lock_timeout: float = 60.0, cache_control: Optional[str] = None,
                 drop_deprecated: bool = False) -> None:
        if gzip_level is not None and (isinstance(gzip_level, bool) or not isinstance(
                gzip_level, int) or not 0 <= gzip_level <= 9):
            raise OptionError(f"must be an integer from 0 to 9, not {gzip_level!r}",
                              "gzip_level")
        if index not in ("auto", "always"):
            raise OptionError(f"unknown index mode {index!r}; choose auto or always", "index")
        if isinstance(lock_timeout, bool) or not isinstance(
                lock_timeout, (int, float)) or not lock_timeout >= 0:
            raise OptionError(f"must be a number of seconds, not {lock_timeout!r}",
                              "lock_timeout")
        super().__init__(to=to, gzip=gzip, gzip_level=gzip_level, index=index, atomic=atomic,
                         lock_timeout=lock_timeout, cache_control=cache_control,
                         drop_deprecated=drop_deprecated)


class Defaults(_Options):
    """changefreq and priority for the pages whose input gave none."""

    changefreq: Optional[str]
    priority: Optional[float]

    def __init__(self, changefreq: Optional[str] = None,
                 priority: Optional[float] = None) -> None:
        if changefreq is not None:
            check_changefreq(changefreq)
        if priority is not None:
            check_priority(priority)
        super().__init__(changefreq=changefreq, priority=priority)


class NewsSitemap(_Options):
    """Write a Google News sitemap: each entry of the last two days (the clock, or
    SOURCE_DATE_EPOCH) gets a <news:news> with the publication ``name``, the ``language`` (else
    the feed's own), its date and title; the others are left out and counted. At most 1,000
    URLs a file."""

    name: str
    language: Optional[str]

    def __init__(self, name: str, language: Optional[str] = None) -> None:
        if not isinstance(name, str) or not name.strip():
            raise OptionError("a Google News sitemap needs the publication's name", "news_name")
        code = None if language is None else news_language(language)
        if language is not None and code is None:
            raise OptionError(f"{language!r} is no language code Google News takes "
                              "(ISO 639: en, fr, ...; zh-cn or zh-tw)", "news_language")
        super().__init__(name=name, language=code)


class Channel(_Options):
    """RSS/Atom output's channel: title (default: the site's host), link (default: the
    `base_url` directory, else the first URL's site), description."""

    title: Optional[str]
    site_url: Optional[str]
    description: Optional[str]

    def __init__(self, title: Optional[str] = None, site_url: Optional[str] = None,
                 description: Optional[str] = None) -> None:
        super().__init__(title=title, site_url=site_url, description=description)
