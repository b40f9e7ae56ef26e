"""The protocol's limits as data, one profile per search-engine dialect. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

__all__ = ["PROFILES", "Profile", "get_profile"]


@dataclass(frozen=True)
class Profile:
    name: str
    max_urls: int  # URLs per sitemap (or feed) file
    max_bytes: int  # uncompressed UTF-8 bytes per file, indexes too, declaration to closing tag
    max_loc: int  # a <loc> must be shorter than this many characters
    min_loc: int = 12  # the sitemaps.org XSD: tLoc has minLength 12 (as "http://a.b/c" has)
    # sitemaps per index file. --max-urls does not lower it: asking for smaller sitemaps should
    # not turn one index into a tree of them.
    max_sitemaps: int = 50_000

    def lowered(self, max_urls: Optional[int] = None, max_bytes: Optional[int] = None) -> Profile:
        """The profile with lower limits; a value above the profile's own is a usage error."""
        if max_urls is not None:
            if not 1 <= max_urls <= self.max_urls:
                raise ValueError(
                    f"--max-urls must be between 1 and {self.max_urls:,} for profile {self.name}")
        if max_bytes is not None:
            if not 1 <= max_bytes <= self.max_bytes:
                raise ValueError(
                    f"--max-bytes must be between 1 and {self.max_bytes:,} for profile {self.name}")
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
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(
            f"unknown profile {name!r}; choose one of: {', '.join(sorted(PROFILES))}") from None
