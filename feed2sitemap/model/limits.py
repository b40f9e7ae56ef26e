"""The protocol's limits as data, one profile per search-engine dialect. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Union

from ..errors import OptionError, UnsupportedFormat
from .rules import LOC_MIN

__all__ = ["DEFAULT_MAX_FEED_BYTES", "MAX_ROBOTS_BYTES", "PROFILES", "UNLIMITED", "Profile",
           "get_profile", "output_profile"]


@dataclass(frozen=True)
class Profile:
    """One dialect's limits per file (PROFILES): what the writers split by and ``check``
    judges by."""

    name: str
    max_urls: int  # URLs per sitemap (or feed) file
    max_bytes: int  # uncompressed UTF-8 bytes per file, indexes too, declaration to closing tag
    max_loc: int  # a <loc> must be shorter than this many characters
    min_loc: int = LOC_MIN  # the sitemaps.org XSD: tLoc has minLength 12 ("http://a.b/c")
    # sitemaps per index file. --max-urls does not lower it: asking for smaller sitemaps should
    # not turn one index into a tree of them.
    max_sitemaps: int = 50_000

    def lowered(self, max_urls: Optional[int] = None, max_bytes: Optional[int] = None) -> Profile:
        """The profile with lower limits; a value above the profile's own is a usage error."""
        if max_urls is not None:
            if not 1 <= max_urls <= self.max_urls:
                raise OptionError(
                    f"must be between 1 and {self.max_urls:,} for profile {self.name}", "max_urls")
        if max_bytes is not None:
            if not 1 <= max_bytes <= self.max_bytes:
                raise OptionError(
                    f"must be between 1 and {self.max_bytes:,} for profile {self.name}",
                    "max_bytes")
        return replace(
            self,
            max_urls=max_urls if max_urls is not None else self.max_urls,
            max_bytes=max_bytes if max_bytes is not None else self.max_bytes,
        )


PROFILES = {
    # sitemaps.org 0.9: 50,000 URLs and 50 MiB (52,428,800 bytes) uncompressed per file, for
    # urlsets and indexes alike; <loc> under 2,048 characters.
    "sitemaps": Profile("sitemaps", max_urls=50_000, max_bytes=52_428_800, max_loc=2048,
                        max_sitemaps=50_000),
    # Baidu: 50,000 URLs, 10 MiB per file, <loc> under 256 characters.
    "baidu": Profile("baidu", max_urls=50_000, max_bytes=10_485_760, max_loc=256,
                     max_sitemaps=50_000),
}


def get_profile(name: str) -> Profile:
    found = PROFILES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(
            f"unknown profile {name!r}; choose one of: {', '.join(sorted(PROFILES))}")
    return found


def profile_of(profile: Union[str, Profile], max_urls: Optional[int] = None,
               max_bytes: Optional[int] = None) -> Profile:
    """A profile given by name or as itself (``Limits.profile``), lowered to the limits given:
    the one reading of the option every entry point shares."""
    if isinstance(profile, Profile):
        return profile.lowered(max_urls, max_bytes)
    try:
        return get_profile(profile).lowered(max_urls, max_bytes)
    except ValueError as exc:
        raise UnsupportedFormat(str(exc), "profile") from None


DEFAULT_ENDPOINT = "https://api.indexnow.org/indexnow"  # where IndexNow submissions go

# Google reads the first 500 KiB of a robots.txt: check reads no more, and --robots edits no
# larger file (a Sitemap: line past it is never seen)
MAX_ROBOTS_BYTES = 500 * 1024
UNLIMITED = 1 << 62  # "no limit": larger than any count or size a run can reach


def output_profile(profile: Profile, limits: str, to_stdout: bool,
                   max_urls: Optional[int] = None, max_bytes: Optional[int] = None) -> Profile:
    """The limits the files of one output obey, by what they are (Format.limits):

    - "sitemap" (XML sitemaps and indexes), and "text" written to a file (a text sitemap):
      the profile's, lowered by ``max_urls``/``max_bytes``; the splitter makes parts.
    - "text" to stdout, and "data" (JSON Lines) anywhere: an extraction, not a sitemap. No
      limit but the ones asked for (``max_urls``/``max_bytes``), so ``-t text | wc -l`` counts
      every URL of a sitemap set.
    - "feed" (RSS, Atom): one file a reader subscribes to, whatever its entry count (feed
      readers have no 50,000 rule), up to the profile's byte limit (or ``max_bytes``), and at
      most ``max_urls`` entries when asked.

    Feeds and JSON Lines are never split (an index of feeds is nothing a feed reader follows):
    the splitter refuses them when a second file would be needed. An explicit value above the
    profile's is a ValueError, whatever the output.
    """
    lowered = profile.lowered(max_urls, max_bytes)
    if limits == "sitemap" or (limits == "text" and not to_stdout):
        return lowered
    if limits == "feed":
        return replace(lowered, max_urls=max_urls or UNLIMITED)
    return replace(lowered, max_urls=max_urls or UNLIMITED, max_bytes=max_bytes or UNLIMITED)


# The fast pass streams a feed's bytes (readers/feed/policy.py), but holds each entry (about
# 200 bytes) to the end, since it may still give the feed to feedparser, which needs it whole
# and about fifteen times its size; a JSON Feed is parsed whole (readers/feed/jsonfeed.py), about
# nine times. At 256 MiB a feed of bare items took 918 MB (2 GB as a JSON Feed): far past the
# memory a run is documented to take (issue 35, item 23). 64 MiB is still above a 50,000-entry
# Atom feed with summaries and content (49 MB); measured at the cap, with --no-dedupe: the
# densest RSS 278 MB, a JSON Feed 569 MB, RSS read by feedparser 1.0 GB. `max_feed_bytes`
# changes it.
DEFAULT_MAX_FEED_BYTES = 64 * 1024 * 1024
