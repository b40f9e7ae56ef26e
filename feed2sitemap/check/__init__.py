"""check(): validate sitemaps, sitemap indexes, URL lists and feeds, with a position per problem.

Errors are what the sitemaps.org XSD rejects plus the protocol rules it cannot express; warnings
what is legal but probably not meant, or what the converter would drop or change; notes (info)
what search engines ignore or misread. The value rules are the converter's own (model.rules).

run.py runs a check; diagnostics.py holds its state and notes; xml.py (with its fast path
xmlfast.py) and lists.py read the formats; locs.py judges the values; facts.py and report.py
make `report`; site.py reads robots.txt and a built site.
"""

from .diagnostics import CheckStats, Diagnostic, FileCheck
from .report import SiteReport, report
from .run import check, follow_order, hreflang_diagnostics, iter_check, site_diagnostics
from .site import Robots, Site, load_robots

__all__ = ["CheckStats", "Diagnostic", "FileCheck", "Robots", "Site", "SiteReport", "check",
           "follow_order", "hreflang_diagnostics", "iter_check", "load_robots", "report",
           "site_diagnostics"]
