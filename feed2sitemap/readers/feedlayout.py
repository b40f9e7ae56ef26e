"""The layout of a run's entries (feedruns.py): most feeds write every entry with the same
children, in the same order, with the same white space. From the first entry of a region,
read by the grammar (feedruns._grammar), a regex is made for the entries laid out as it is:
their children one after the other, with no choice among them and no "at most once" marks.
findall reads such entries at about 40% of the grammar's cost, and the grammar reads on from
the first entry that differs. A layout is made only when a second entry shares it (compiling
one costs a millisecond), and the one last found is tried first (feedfeeder.py stops looking
for layouts in a feed whose runs they do not read).

A layout accepts a part of what the grammar accepts (each child is one of the grammar's own
alternatives, its name written out: _KINDS mirrors feedruns._CHILD) and captures the same text
in the same groups, so the run is the grammar's, whichever reads it. tests/test_feedlayout.py
holds the two equal on laid-out feeds with odd entries among them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from . import feedruns as fr

__all__ = ["MAX_CHILDREN", "Layout", "compiled", "layout_of"]

_AV, _TEXT, _VALUE, _WS = fr._AV, fr._TEXT, fr._VALUE, fr._WS
_SPACE = re.compile(_WS)

# The children the grammar reads, after their "<": the pattern that finds one (its group 1
# the element's name, where names vary) and the layout's pattern for it ("{n}": the name).
# Tried in the grammar's order, so that an <author> is text where the grammar makes it text.
_KINDS = (
    ("text", "({names})(?:[ \t\n]+(?:type|domain)" + _AV + ")?>" + _TEXT + "</\\1>",
     "{n}(?:[ \t\n]+(?:type|domain)" + _AV + ")?>" + _TEXT + "</{n}>"),
    ("link", "(link)>" + _VALUE + "link>", "link>(" + _VALUE + ")link>"),
    ("atom", "(link)(?:[ \t\n]+(?:rel|type|href|title|length)" + _AV + ")+" + _WS
     + "(?:/>|></link>)",
     "link((?:[ \t\n]+(?:rel|type|href|title|length)" + _AV + ")+)" + _WS + "(?:/>|></link>)"),
    ("id", "(id)>" + _VALUE + "id>", "id>(" + _VALUE + ")id>"),
    ("updated", "(updated)>" + _VALUE + "updated>", "updated>(" + _VALUE + ")updated>"),
    ("published", "(pubDate|published)>" + _VALUE + "\\1>", "{n}>(" + _VALUE + "){n}>"),
    ("guid", "(guid)(?:[ \t\n]+isPermaLink" + _AV + ")?>" + _VALUE + "guid>",
     "guid((?:[ \t\n]+isPermaLink" + _AV + ")?)>(" + _VALUE + ")guid>"),
    ("person", "(author|contributor)>" + _WS + "(?:<(name|email|uri)>[^<]*</\\2>" + _WS
     + ")*</\\1>",
     "{n}>" + _WS + "(?:<(?:name>[^<]*</name|email>[^<]*</email|uri>[^<]*</uri)>" + _WS
     + ")*</{n}>"),
)
# The grammar's groups (feedruns' column indexes) each kind's layout pattern captures, in order
_CAPTURES = {"link": (fr.LINK,), "atom": (fr.ATOM,), "id": (fr.ID,), "updated": (fr.UPDATED,),
             "published": (fr.PUBLISHED,), "guid": (fr.GUID_ATTRS, fr.GUID)}


class Layout(NamedTuple):
    """A compiled layout: ``pattern`` (its entries, or the rest of the text in its last
    group) and, for each group it captures, the grammar's column it fills."""

    pattern: re.Pattern[str]
    targets: tuple[int, ...]
    breaks: int  # the line ends of one entry's white space (its values may hold more)
    lead_breaks: int  # of them, those before its start tag

    def read(self, text: str) -> tuple[list[tuple[str, ...]], int, str]:
        """The columns (by the grammar's groups, as long as the grammar's: an unread one
        all "") of the entries of this layout at the start of ``text``, their number, and the
        text after them."""
        found = self.pattern.findall(text)
        rest = found.pop()[-1] if found and found[-1][-1] else ""
        n = len(found)
        empty = ("",) * n
        columns = [empty] * fr.JUNK
        if n:  # (the groups after the leading empty one, but for the last: the rest's)
            for target, column in zip(self.targets, list(zip(*found, strict=True))[1:-1],
                                      strict=True):
                columns[target] = column
        return columns, n, rest


def layout_of(text: str, tag: str, prefixed: tuple[str, ...]) -> Layout | None:
    """The layout of the first entry of ``text``, or None when the grammar for ``tag`` and
    ``prefixed`` does not read that entry, or when the layout is new and the second entry is
    not laid out as the first (compiling one costs a millisecond: not for a single entry)."""
    recent = _RECENT.get((tag, prefixed))
    if recent is not None:  # (the usual region: laid out as the last one, found in a match)
        m = recent.pattern.match(text)
        if m is not None and m.group(recent.pattern.groups) is None:
            return recent
    grammar = fr._grammar(tag, prefixed)
    first = grammar.match(text)
    if first is None or first.group(fr.JUNK + 1) is not None:
        return None
    key = _laid_out(first.group(), tag, prefixed)
    if key is None:
        return None
    layout = _LAYOUTS.get(key)
    if layout is None:
        second = grammar.match(text, first.end())
        if (second is None or second.group(fr.JUNK + 1) is not None
                or _laid_out(second.group(), tag, prefixed) != key):
            return None
        if len(_LAYOUTS) >= 64:
            _LAYOUTS.clear()
        layout = _LAYOUTS[key] = _compiled(tag, *key)
        global compiled
        compiled += 1
    _RECENT[tag, prefixed] = layout
    return layout


# An entry with more children has no layout (the grammar reads it): a layout is one regex of
# them all, and a hostile entry of 50,000 categories would make compiling it cost seconds.
MAX_CHILDREN = 64
_Key = tuple[str, tuple[tuple[str, str, str], ...], str]
_LAYOUTS: dict[_Key, Layout] = {}
# The layout last found for each grammar: any text's entries laid out as it says are ones the
# grammar reads, so it is tried first, whatever feed it came from.
_RECENT: dict[tuple[str, tuple[str, ...]], Layout] = {}
compiled = 0  # layouts made so far (feedfeeder.py bounds them per feed)


def _laid_out(entry: str, tag: str, prefixed: tuple[str, ...]) -> _Key | None:
    """How ``entry`` (one the grammar reads) is laid out: its leading white space, its
    children (white space before, kind, name) and the white space before its end tag."""
    lead = _SPACE.match(entry).group()  # type: ignore[union-attr]  # (… * always matches)
    pos = len(lead) + len(tag) + 2  # past "<tag>"
    children: list[tuple[str, str, str]] = []
    finders = _finders(prefixed)
    end_tag = f"</{tag}>"
    while True:
        space = _SPACE.match(entry, pos).group()  # type: ignore[union-attr]
        pos += len(space)
        if entry.startswith(end_tag, pos):
            break
        if len(children) == MAX_CHILDREN:
            return None
        for kind, finder in finders:
            m = finder.match(entry, pos + 1)
            if m is not None:
                children.append((space, kind, m.group(1)))
                pos = m.end()
                break
        else:
            return None  # (not reached: the grammar read the entry as these children)
    if pos + len(end_tag) != len(entry):
        return None
    return lead, tuple(children), space


@lru_cache(maxsize=16)
def _finders(prefixed: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    names = fr.text_names(prefixed)  # (as the grammar reads them)
    return tuple((kind, re.compile(find.replace("{names}", names)))
                 for kind, find, _ in _KINDS)


_LAYOUT_PATTERN = {kind: layout for kind, _, layout in _KINDS}


def _compiled(tag: str, lead: str, children: tuple[tuple[str, str, str], ...],
              last: str) -> Layout:
    """The layout _laid_out describes. A leading empty group makes findall give tuples
    whatever the number of captures."""
    parts = ["()", re.escape(lead), f"<{tag}>"]
    targets: list[int] = []
    for space, kind, name in children:
        parts += [re.escape(space), "<", _LAYOUT_PATTERN[kind].replace("{n}", name)]
        targets += _CAPTURES.get(kind, ())
    parts += [re.escape(last), f"</{tag}>|((?s:.+))"]
    spaces = lead + "".join(space for space, _, _ in children) + last
    return Layout(re.compile("".join(parts)), tuple(targets), spaces.count("\n"),
                  lead.count("\n"))
