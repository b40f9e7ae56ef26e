"""check(): validate sitemaps, sitemap indexes, URL lists and feeds, with a position per problem.

Errors are what the sitemaps.org XSD rejects plus the protocol rules it cannot express (absolute
http(s) URLs, characters a URI may not hold, a zone on every time, the profile's limits, UTF-8,
no DTD). Warnings are what is legal but probably not meant, or what the converter would drop or
change: duplicates, URLs outside the site, IRIs, dates in the future. Notes (severity info)
are what is legal but ignored or misread by search engines, once a file each (notes.py): a
lastmod most URLs share, changefreq and priority, the extension tags Google deprecated,
placeholder dates. Every file is streamed
(feeds excepted: feedparser needs them whole); diagnostics come out sorted by position as soon
as no earlier one can follow. The value rules are the converter's own (model.rules).

- run.py: check(), iter_check(): a file (or URL) and the parts its index lists, each once in
  a run (follow_order); what kind of file it is
- diagnostics.py: Diagnostic, CheckStats, FileCheck (the per-file state every check reports
  to), and the run's memory of URLs and hreflang alternates
- xml.py: encoding, well-formedness and the sitemaps.org schemas; xmlfast.py: its fast path for
  plain <url> entries (off in the reference mode)
- lists.py: URL lists (text, TSV, CSV, JSON Lines), JSON Feeds, RSS/Atom feeds
- locs.py: the rules on one location, and on lastmod, changefreq, priority
- notes.py: the counts behind the notes, and the guidance each follows (SOURCES)
- facts.py, report.py: report(), the facts a run gathers for `feed2sitemap report`
- site.py: a robots.txt's rules (``CheckStats.robots``) and a built site (``CheckStats.site``)
"""

from .diagnostics import CheckStats, Diagnostic, FileCheck
from .report import SiteReport, report
from .run import check, follow_order, hreflang_diagnostics, iter_check, site_diagnostics
from .site import Robots, Site, load_robots

__all__ = ["CheckStats", "Diagnostic", "FileCheck", "Robots", "Site", "SiteReport", "check",
           "follow_order", "hreflang_diagnostics", "iter_check", "load_robots", "report",
           "site_diagnostics"]
