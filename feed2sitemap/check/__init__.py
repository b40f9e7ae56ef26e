"""check(): validate sitemaps, sitemap indexes, URL lists and feeds, with a position per problem.

Errors are what the sitemaps.org XSD rejects plus the protocol rules it cannot express (absolute
http(s) URLs, characters a URI may not hold, a zone on every time, the profile's limits, UTF-8,
no DTD). Warnings are what is legal but probably not meant, or what the converter would drop or
change: duplicates, URLs outside the site, IRIs, dates in the future. Every file is streamed
(feeds excepted: feedparser needs them whole); diagnostics come out sorted by position as soon
as no earlier one can follow.

The value rules (lastmod, changefreq, priority, loc length and characters) are the converter's
own, from feed2sitemap.model.rules. By concern:

- run.py: check(), iter_check(): a file and the parts its index lists; what kind of file it is
- diagnostics.py: Diagnostic, CheckStats, and FileCheck, the per-file state every check reports to
- xmlstream.py: encoding and well-formedness (the expat pump); xml.py: the sitemaps.org schemas;
  xmlfast.py: its fast path for plain <url> entries (off in the reference mode); extensions.py:
  the extension elements of a <url>
- lists.py: URL lists (text, TSV, CSV, JSON Lines) and JSON Feeds; feed.py: RSS/Atom feeds
- locs.py: the rules on one location; fields.py: lastmod, changefreq, priority
- follow.py: an index's parts on disk; dupes.py: duplicates across the run; hreflang.py:
  alternates that are not reciprocal across the run
- site.py: a robots.txt's rules (``CheckStats.robots``) and a built site (``CheckStats.site``)
"""

from .diagnostics import CheckStats, Diagnostic, FileCheck
from .run import check, hreflang_diagnostics, iter_check, site_diagnostics
from .site import Robots, Site, load_robots

__all__ = ["CheckStats", "Diagnostic", "FileCheck", "Robots", "Site", "check",
           "hreflang_diagnostics", "iter_check", "load_robots", "site_diagnostics"]
