"""XML sitemaps (<urlset>) and sitemap indexes (<sitemapindex>), sitemaps.org 0.9."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from datetime import date, datetime
from typing import Any, Optional, TypeVar

from ..backends import fast
from ..model.batch import Batch
from ..model.record import format_lastmod
from ..xmlutil import escape_specials, escape_uris, needs_escaping, xml_escape
from .base import Format

__all__ = ["INDEX", "URLSET", "styled"]

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

F = TypeVar("F", "UrlsetFormat", "IndexFormat")


def _priority(value: float) -> str:
    # xsd:decimal: "0.5", "1.0"; never exponent notation, at most one decimal place needed for
    # the usual values, but keep what the user gave (0.25 stays 0.25).
    text = f"{value:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


class UrlsetFormat(Format):
    """<urlset>: each URL's loc, lastmod, changefreq and priority, then its extensions
    (images, videos, news, alternates, other namespaces; extensions/xmlout.py) in their own
    namespaces, declared on <urlset> by ``declaring`` (the header's bytes count them)."""

    name = "xml"
    extension = ".xml"
    carries_extensions = True
    prolog = ""  # what comes between the declaration and the root: a stylesheet instruction

    def __init__(self, xmlns: str = "", prefixes: Optional[dict[str, str]] = None) -> None:
        self.xmlns = xmlns
        self.prefixes = prefixes or {}

    def declaring(self, batch: Batch) -> UrlsetFormat:
        """This format with the namespaces of the extensions in ``batch`` declared on
        <urlset>; a namespace that first appears later is declared where it is used."""
        if batch.extensions is None:
            return self
        from ..extensions.xmlout import declarations  # (only a run with extensions)

        kinds: set[str] = set()
        foreign: dict[str, None] = {}
        for ext in batch.extensions:
            if ext:
                kinds |= ext.kinds()
                foreign.update(dict.fromkeys(ext.foreign_namespaces()))
        xmlns, prefixes = declarations(kinds, foreign)
        return styled(UrlsetFormat(xmlns, prefixes), self.prolog)

    def header(self) -> str:
        return f'{DECLARATION}{self.prolog}<urlset xmlns="{NS}"{self.xmlns}>\n'

    def footer(self) -> str:
        return "</urlset>\n"

    def block(self, batch: Batch) -> str:
        """All the batch's entries as one string. For locations alone (the common case) that is
        one join, all in C, rather than an entry each."""
        if not batch.plain:
            return "".join(self.entries(batch))
        return ("<url><loc>" + "</loc></url>\n<url><loc>".join(_escaped_locs(batch))
                + "</loc></url>\n")

    def entries(self, batch: Batch) -> list[str]:
        if batch.plain:
            return [f"<url><loc>{loc}</loc></url>\n" for loc in _escaped_locs(batch)]
        if batch.extensions is None:
            return [f"<url><loc>{loc}</loc>{lm}{cf}{pr}</url>\n" for loc, lm, cf, pr in
                    _columns(batch)]
        from ..extensions.xmlout import serialized  # (only a run with extensions)

        return [f"<url><loc>{loc}</loc>{lm}{cf}{pr}{ext}</url>\n" for (loc, lm, cf, pr), ext in
                zip(_columns(batch), serialized(batch.extensions, self.prefixes), strict=True)]


def _escaped_locs(batch: Batch) -> Sequence[str]:
    """The batch's locations XML-escaped (xml_escape each)."""
    if batch.proven and fast("escaped URIs"):
        return _escaped_uris(batch.locs)
    return _escaped(batch.locs)


def _escaped_uris(locs: Sequence[str]) -> Sequence[str]:
    """_escaped for normalised URIs (urls.CleanLocs proves them so): no control character,
    "<", ">" or quote in any, so only "&" and "'" may need escaping, looked for at memory
    speed in the locations joined by newlines (which no URI holds)."""
    joined = "\n".join(locs)
    if "&" not in joined and "'" not in joined:
        return locs
    return escape_uris(joined).split("\n")


def _escaped(locs: Sequence[str]) -> Sequence[str]:
    """The locations XML-escaped: checked in one pass over their concatenation, since
    locations that need escaping (a "&" in a query) are the exception. Escaping is per
    character, so a block of printable locations (no newline in any) is escaped at once,
    joined on newlines, and cut there."""
    flat = "".join(locs)
    if not needs_escaping(flat):
        return locs
    if flat.isprintable():
        return escape_specials("\n".join(locs)).split("\n")
    return [xml_escape(loc) for loc in locs]


def _columns(batch: Batch) -> Iterator[tuple[str, str, str, str]]:
    """Per row: escaped loc and the lastmod, changefreq and priority elements (or "")."""
    n = len(batch.locs)
    texts = batch.lastmod_texts
    if texts is not None and batch.lastmods is not None:  # the reader's texts, where it had them
        lastmods = [f"<lastmod>{t}</lastmod>" if t is not None else
                    "" if v is None else f"<lastmod>{format_lastmod(v)}</lastmod>"
                    for t, v in zip(texts, batch.lastmods, strict=True)]
    else:
        lastmods = _elements(batch.lastmods, "lastmod", format_lastmod, n)
    return zip(_escaped_locs(batch), lastmods,
               _elements(batch.changefreqs, "changefreq", str, n),
               _elements(batch.priorities, "priority", _priority, n), strict=True)


def _elements(column: Optional[list[Any]], name: str, text: Callable[[Any], str],
              n: int) -> list[str]:
    """Each row's element (or "" for no value), each distinct value formatted once: a column
    of a real sitemap repeats a few dates and one or two priorities, and formatting a date
    costs more than looking it up."""
    if column is None:
        return [""] * n
    template = f"<{name}>{{}}</{name}>".format
    values = set(column)
    values.discard(None)
    if text is format_lastmod:
        if datetime in set(map(type, values)):
            # times are mostly distinct (and an aware one costs a utcoffset call per hash)
            return [template(text(v)) if v is not None else "" for v in column]
        text = date.isoformat  # dates alone (the usual lastmods): formatted in C
    elements = dict(zip(values, map(template, map(text, values)), strict=True))
    elements[None] = ""
    return list(map(elements.__getitem__, column))


class IndexFormat(Format):
    name = "index"
    extension = ".xml"
    prolog = ""

    def header(self) -> str:
        return f'{DECLARATION}{self.prolog}<sitemapindex xmlns="{NS}">\n'

    def footer(self) -> str:
        return "</sitemapindex>\n"

    def entries(self, batch: Batch) -> list[str]:
        return [f"<sitemap><loc>{loc}</loc>{lm}</sitemap>\n" for loc, lm, _, _ in
                _columns(batch)]


def styled(fmt: F, prolog: str) -> F:
    """``fmt`` with ``prolog`` (complete lines: an earlier file's stylesheet instruction) before
    its root element; the header's size counts it, as the splitter measures headers."""
    if prolog == fmt.prolog:
        return fmt
    fmt = copy.copy(fmt)
    fmt.prolog = prolog
    return fmt


URLSET = UrlsetFormat()
INDEX = IndexFormat()
