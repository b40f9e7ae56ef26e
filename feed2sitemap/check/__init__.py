"""check(): validate sitemaps, sitemap indexes, URL lists and feeds, with a position per problem.

Errors are what the sitemaps.org XSD rejects plus the protocol rules it cannot express (absolute
http(s) URLs, characters a URI may not hold, a zone on every time, the profile's limits, UTF-8,
no DTD). Warnings are what is legal but probably not meant, or what the converter would drop or
change. Notes (severity info) are what is legal but ignored or misread by search engines, once
a file each (notes.py). Every file is streamed (feeds excepted: feedparser needs them whole);
diagnostics come out sorted by position as soon as no earlier one can follow. The value rules
are the converter's own (model.rules).

run.py runs a check (a file and its parts); diagnostics.py holds its state; xml.py (with its
fast path xmlfast.py) and lists.py read the formats; locs.py holds the rules on values; notes.py
the notes; facts.py and report.py make `report`; site.py reads robots.txt and a built site.
"""

from .diagnostics import CheckStats, Diagnostic, FileCheck
from .report import SiteReport, report
from .run import check, follow_order, hreflang_diagnostics, iter_check, site_diagnostics
from .site import Robots, Site, load_robots

__all__ = ["CheckStats", "Diagnostic", "FileCheck", "Robots", "Site", "SiteReport", "check",
           "follow_order", "hreflang_diagnostics", "iter_check", "load_robots", "report",
           "site_diagnostics"]
