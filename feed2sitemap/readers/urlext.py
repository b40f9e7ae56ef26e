"""The sitemap reader's extension pass: images, videos, news, alternates and other namespaces
inside each <url>, read only once the document declares a namespace besides its root's.

Start and end tags inside <url> go to extensions.xmlin.UrlChildren; what it built is the row's
fifth column. The Extensions are held to Google's rules a batch at a time: what breaks one is
dropped with a warning naming the field and line, the URL kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Optional

from ..backends import fast
from ..extensions.model import SITEMAP_NS
from ..extensions.model import Problem as ExtensionProblem
from ..extensions.rules import sanitize
from ..extensions.rulesfast import proven_problems
from ..extensions.xmlin import UrlChildren, located
from ..model.extensions import EMPTY, Extensions
from ..model.report import Report

__all__ = ["UrlExtensions", "extensions_column", "held_to_rules"]

# What UrlChildren (or urlextfast.py) gives for one <url>: the value, the problems met reading
# it, each item's line ((kind, index) → line)
ItemLines = Mapping[tuple[str, int], int]
Found = tuple[Extensions, list[ExtensionProblem], ItemLines]


class UrlExtensions:
    """Start and end tags inside <url> (``entry_name``), turned into one Found per <url>,
    appended to the last of ``rows`` after the reader's own end handler (``plain_end``) ends it.
    """

    def __init__(self, parser: Any, root_ns: str, entry_name: str, text: list[str],
                 plain_end: Callable[[str], None], rows: list[list[Any]]) -> None:
        self.parser, self.text, self.plain_end, self.rows = parser, text, plain_end, rows
        self.entry_name = entry_name
        # a root in another namespace (read anyway): its children count as sitemaps.org's
        self.root_prefix = root_ns + " " if root_ns and root_ns != SITEMAP_NS else None
        self.children = UrlChildren()
        self.inside = False

    def _name(self, name: str) -> str:
        prefix = self.root_prefix
        if prefix is not None and name.startswith(prefix):
            return SITEMAP_NS + " " + name[len(prefix):]
        return name

    def _flush(self) -> None:  # text since the last tag goes to the element it belongs to
        text = self.text
        if text:
            self.children.data("".join(text))

    def start(self, name: str, attrs: Any) -> None:
        if name == self.entry_name:
            self.inside = True
            self.text.clear()
            return
        if self.inside:
            self._flush()
            self.text.clear()
            self.children.start(self._name(name), attrs, self.parser.CurrentLineNumber)

    def end(self, name: str) -> None:
        if not self.inside:
            self.plain_end(name)
            return
        if name == self.entry_name:
            self.inside = False
            found = self.children.finish()
            self.plain_end(name)  # appends the row
            self.rows[-1].append(found)
            return
        self._flush()
        self.children.end(self._name(name))
        self.plain_end(name)  # a core field's value; the text cleared either way


def extensions_column(found: Sequence[Optional[Found]], locs: Sequence[str],
                      lines: Sequence[Optional[int]], source: str,
                      report: Report) -> Optional[list[Extensions]]:
    """The rows' Extensions as found, held to Google's rules; None when no row has any.
    (Lines are looked up only for a message: the fast path counts them only then.)"""
    column = [EMPTY if f is None else f[0] for f in found]
    unread = [i for i, f in enumerate(found) if f is not None and f[1]]
    if not unread and not any(column):
        return None
    for i in unread:  # what could not be read at all (unknown elements, bounds)
        loc = locs[i]
        for p in found[i][1]:  # type: ignore[index]
            kind = "unknown element" if p.kind == "url" else f"bad {p.kind} extension"
            report.warn(kind, source, p.line or lines[i], p.message(), url=loc or None)
    item_lines = [None if f is None else f[2] for f in found]
    return held_to_rules(column, locs, lines, source, report, item_lines)


def held_to_rules(column: Sequence[Extensions], locs: Sequence[str],
                  lines: Sequence[Optional[int]], source: str, report: Report,
                  item_lines: Optional[Sequence[Optional[ItemLines]]] = None
                  ) -> Optional[list[Extensions]]:
    """Each row's Extensions less what breaks Google's rules (rules.sanitize), a warning per
    problem with its line; None when no row keeps any. Rows rulesfast.py proves are taken a
    batch at a time (not in the reference mode)."""
    proven: Sequence[Optional[list[ExtensionProblem]]] = (
        proven_problems(column, locs) if fast("extension rules") else [None] * len(column))
    out = list(column)
    # unproven rows take the rules one at a time, in order; between them, each run of proven
    # rows gives its one shared warning in a call (a proven row's problems: [] or [NOT_ITSELF])
    unproven = [i for i, broken in enumerate(proven) if broken is None]
    start = 0
    for i in [*unproven, len(column)]:
        warned = [k for k in range(start, i) if proven[k]]
        if warned:
            (p,) = proven[warned[0]]  # type: ignore[misc]
            report.warn_rows(f"bad {p.kind} extension", source, p.message(), warned, lines,
                             locs)
        if i == len(column):
            break
        start = i + 1
        ext = column[i]
        if not ext:
            out[i] = EMPTY
            continue
        ext, broken = sanitize(ext, page=locs[i] or None)
        out[i] = ext if ext else EMPTY
        where = item_lines[i] if item_lines is not None else None
        for p in located(broken, where) if broken and where is not None else broken:
            report.warn(f"bad {p.kind} extension", source, p.line or lines[i], p.message(),
                        url=locs[i] or None)
    return out if any(out) else None
