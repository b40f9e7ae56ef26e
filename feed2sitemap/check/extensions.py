"""check's view of the extensions inside <url>: images, videos, news, alternates, Baidu's
mobile type, by the rules the converter holds them to (extensions/rules.py).

A problem that makes the converter leave something out is an error; one it only warns about
(a page missing from its own alternates) is a warning. Also per file: at most 1,000 URLs with
news (Google News), and news older than two days is a warning (Google shows only recent
articles). Elements of an unknown namespace pass.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..extensions.news import in_window
from ..extensions.rules import NEWS_PER_FILE, check_extensions
from ..extensions.xmlin import UrlChildren, located

if TYPE_CHECKING:
    from .diagnostics import FileCheck

__all__ = ["ExtensionCheck"]


class ExtensionCheck:
    """The extension elements of the current <url>, fed event by event, judged at its end."""

    def __init__(self, f: FileCheck) -> None:
        self.f = f
        self.children = UrlChildren()
        self.depth = 0  # how deep inside an extension element (0: not in one)
        self.any = False  # this <url> had an extension element
        self.news = 0  # URLs with news in this file

    def start(self, name: str, attrs: Any, line: int) -> None:
        self.depth += 1
        self.any = True
        self.children.start(name, attrs, line)

    def data(self, text: str) -> None:
        self.children.data(text)

    def end(self, name: str) -> None:
        self.depth -= 1
        self.children.end(name)

    def _alternates(self, page: str, alternates: Any, lines: dict[tuple[str, int], int],
                    line: int, col: int) -> None:
        """Leave them for hreflang-reciprocal, judged after the run's last file."""
        f = self.f
        links = f.stats.hreflang
        listed = [(alt.hreflang, alt.href, lines.get(("alternates", i), line))
                  for i, alt in enumerate(alternates)]
        if not links.add(page, listed, f.file_no, col):
            f.warn("hreflang-limit", line, col, f"more than {links.limit:,} hreflang "
                   "alternates in this run: later ones are not checked for reciprocity")

    def url_done(self, page: Optional[str], line: int, col: int) -> None:
        """Judge the <url> that ended (``page`` its loc, when it had one)."""
        if not self.any:
            return
        self.any = False
        ext, problems, lines = self.children.finish()
        f = self.f
        if ext.alternates and page is not None:
            self._alternates(page, ext.alternates, lines, line, col)
        for p in problems + located(check_extensions(ext, page), lines):
            rule = f"ext-{p.kind}" if p.kind != "url" else "unknown-element"
            (f.warn if p.drops == "none" else f.error)(rule, p.line or line, col, p.message())
        if ext.news:
            self.news += 1
            if self.news == NEWS_PER_FILE + 1:
                f.error("news-limit", line, col, f"more than {NEWS_PER_FILE:,} URLs with news "
                        "in one sitemap; Google News reads at most that many")
            for news in ext.news:
                if news.publication_date is not None and not in_window(news.publication_date,
                                                                        f.now):
                    f.warn("news-old", line, col, f"news published "
                           f"{news.publication_date.isoformat()} is older than two days; "
                           "Google News shows only recent articles")
