"""The protocol's limits as data, one profile per search-engine dialect. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, Optional, Union

from ..errors import OptionError, UnsupportedFormat
from .rules import LOC_MIN


@dataclass(frozen=True)
class Profile:
    """One dialect's limits per file: what the writers split by and ``check`` judges by."""

    name: str
    max_urls: int  # URLs per sitemap (or feed) file
    max_bytes: int  # uncompressed UTF-8 bytes per file, indexes too, declaration to closing tag
    max_loc: int  # a <loc> must be shorter than this many characters
    min_loc: int = LOC_MIN  # the sitemaps.org XSD's tLoc
    # sitemaps per index file; only past it does an index split into a tree of indexes (a lower
    # max_urls lowers an index's entries too, but a tree for it is refused: files/split.py)
    max_sitemaps: int = 50_000

    def lowered(self, max_urls: Optional[int] = None, max_bytes: Optional[int] = None) -> Profile:
        """The profile with lower limits; a value above the profile's own is a usage error."""
        asked = {"max_urls": max_urls, "max_bytes": max_bytes}
        given: dict[str, Any] = {name: value for name, value in asked.items() if value is not None}
        for name, value in given.items():
            if not 1 <= value <= getattr(self, name):
                raise OptionError(f"must be between 1 and {getattr(self, name):,} for profile "
                                  f"{self.name}", name)
        return replace(self, **given)


PROFILES = {
    # sitemaps.org 0.9: 50,000 URLs and 50 MiB uncompressed per file, indexes alike
    "sitemaps": Profile("sitemaps", max_urls=50_000, max_bytes=52_428_800, max_loc=2048),
    "baidu": Profile("baidu", max_urls=50_000, max_bytes=10_485_760, max_loc=256),
}


def profile_of(profile: Union[str, Profile], max_urls: Optional[int] = None,
               max_bytes: Optional[int] = None) -> Profile:
    """A profile given by name or as itself (``Limits.profile``), lowered to the limits given."""
    if isinstance(profile, Profile):
        return profile.lowered(max_urls, max_bytes)
    found = PROFILES.get(profile) if isinstance(profile, str) else None
    if found is None:
        raise UnsupportedFormat(f"unknown profile {profile!r}; choose one of: "
                                f"{', '.join(sorted(PROFILES))}", "profile")
    return found.lowered(max_urls, max_bytes)  # (a limit too high: an OptionError of its own)


DEFAULT_ENDPOINT = "https://api.indexnow.org/indexnow"  # where IndexNow submissions go

# Google reads the first 500 KiB of a robots.txt: check reads no more, --robots edits no larger
MAX_ROBOTS_BYTES = 500 * 1024
# A lastmod this far past the clock is in the future (the converter warns, check says
# lastmod-future); nearer, it may be a zone ahead or a clock's skew
CLOCK_SKEW = timedelta(days=1)
UNLIMITED = 1 << 62  # "no limit": larger than any count or size a run can reach


def output_profile(profile: Profile, limits: str, to_stdout: bool,
                   max_urls: Optional[int] = None, max_bytes: Optional[int] = None) -> Profile:
    """The limits the files of one output obey (Format.limits): "sitemap", and "text" to a
    file, the profile's, lowered; "text" to stdout and "data" (JSON Lines), only those asked
    for (``-t text | wc -l`` counts every URL); "feed", any entry count up to the byte limit."""
    lowered = profile.lowered(max_urls, max_bytes)
    if limits == "sitemap" or (limits == "text" and not to_stdout):
        return lowered
    if limits == "feed":
        return replace(lowered, max_urls=max_urls or UNLIMITED)
    return replace(lowered, max_urls=max_urls or UNLIMITED, max_bytes=max_bytes or UNLIMITED)


# A feed is held whole (feedparser needs about fifteen times its size, a JSON Feed nine): 64 MiB
# is above a 50,000-entry Atom feed with content (49 MB) and keeps a run near its documented
# memory (at the cap: the densest RSS 278 MB, a JSON Feed 569 MB, feedparser 1.0 GB).
DEFAULT_MAX_FEED_BYTES = 64 * 1024 * 1024
