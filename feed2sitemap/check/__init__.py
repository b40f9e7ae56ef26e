"""check(): validate sitemaps, sitemap indexes, URL lists and feeds (see diagnostics)."""

from .diagnostics import CheckStats, Diagnostic, FileCheck, check, iter_check, site_diagnostics

__all__ = ["CheckStats", "Diagnostic", "FileCheck", "check", "iter_check", "site_diagnostics"]
