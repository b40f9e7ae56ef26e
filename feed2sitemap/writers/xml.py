"""XML sitemaps (<urlset>) and sitemap indexes (<sitemapindex>), sitemaps.org 0.9."""

from __future__ import annotations

from ..record import Record, format_lastmod
from ..xmlutil import xml_escape

__all__ = ["INDEX", "URLSET"]

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _priority(value: float) -> str:
    # xsd:decimal: "0.5", "1.0"; never exponent notation, at most one decimal place needed for
    # the usual values, but keep what the user gave (0.25 stays 0.25).
    text = f"{value:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


class UrlsetFormat:
    name = "xml"
    extension = ".xml"

    def header(self) -> str:
        return f'{DECLARATION}<urlset xmlns="{NS}">\n'

    def footer(self) -> str:
        return "</urlset>\n"

    def entry(self, record: Record) -> str:
        if record.lastmod is None and record.changefreq is None and record.priority is None:
            return f"<url><loc>{xml_escape(record.loc)}</loc></url>\n"
        # Children in the XSD's order: loc, lastmod, changefreq, priority.
        parts = ["<url><loc>", xml_escape(record.loc), "</loc>"]
        if record.lastmod is not None:
            parts += ["<lastmod>", format_lastmod(record.lastmod), "</lastmod>"]
        if record.changefreq is not None:
            parts += ["<changefreq>", record.changefreq, "</changefreq>"]
        if record.priority is not None:
            parts += ["<priority>", _priority(record.priority), "</priority>"]
        parts.append("</url>\n")
        return "".join(parts)


class IndexFormat:
    name = "index"
    extension = ".xml"

    def header(self) -> str:
        return f'{DECLARATION}<sitemapindex xmlns="{NS}">\n'

    def footer(self) -> str:
        return "</sitemapindex>\n"

    def entry(self, record: Record) -> str:
        if record.lastmod is None:
            return f"<sitemap><loc>{xml_escape(record.loc)}</loc></sitemap>\n"
        return (f"<sitemap><loc>{xml_escape(record.loc)}</loc>"
                f"<lastmod>{format_lastmod(record.lastmod)}</lastmod></sitemap>\n")


URLSET = UrlsetFormat()
INDEX = IndexFormat()
