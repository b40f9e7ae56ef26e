"""How the feed pass gives its pieces to expat: with runs of plain entries read by feedruns.py
in place of the handlers wherever they can start (issue 18), or, under
FEED2SITEMAP_FEED_HANDLERS=1 (the handler path, the twin the differential tests compare), as
they come. A small feed never imports feedruns.py: runs start past ``SMALL`` bytes."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .feedcompat import ENTRY, KIND, PLAIN

if TYPE_CHECKING:
    from .feedpass import _Pass

__all__ = ["COMPILED", "ENV", "SMALL", "UNLAID", "Feeder", "feeder"]

ENV = "FEED2SITEMAP_FEED_HANDLERS"
# Runs start past this many bytes: a small feed (the usual cron job's) is read by the handlers
# alone, without compiling the grammar; past it, the handlers have read ~0.2% of a 16 MB feed.
SMALL = 32 << 10
UNLAID = 4
COMPILED = 8


def feeder(p: _Pass) -> Callable[[bytes], object]:
    """The function that gives ``p``'s parser a piece of the document."""
    if os.environ.get(ENV, "") not in ("", "0"):
        parse = p.parser.Parse
        return lambda piece: parse(piece, False)
    return Feeder(p).feed

class Feeder:
    """Gives a pass's pieces to its parser, with a run in place of plain entries wherever
    expat, with the handlers, has just read an entry's end tag (see the module's text)."""

    __slots__ = ("p", "fed", "end", "wait", "backoff", "prefixed", "layouts", "unlaid",
                 "compiled")

    def __init__(self, p: _Pass) -> None:
        self.p = p
        self.fed = 0  # bytes given to expat (stand-ins counted as given): its byte index
        self.end = b""
        # After a region without a run, the next tries wait 1, 2, 4... entries (up to 256): a
        # feed whose entries no run takes costs a few tries, not one per entry.
        self.wait = 0
        self.backoff = 1
        self.prefixed: tuple[str, ...] = ()  # the PREFIXED names the document binds as assumed
        # Runs read the entries laid out as their first by its layout (feedlayout.py) until
        # UNLAID runs had most of theirs read by the grammar, or COMPILED layouts were made
        # (a millisecond or more each): a feed whose entries differ (categories, say), or
        # one made to make a new layout every run, costs layouts no more than a few times.
        self.layouts = True
        self.unlaid = 0
        self.compiled = 0

    def feed(self, piece: bytes) -> None:
        p = self.p
        parse = p.parser.Parse
        pos = 0
        if not self.end:
            if not p.tag and self.fed + len(piece) > SMALL:  # read up to an end tag: the root
                ends = [i for i in (piece.find(b"</item>"), piece.find(b"</entry>")) if i >= 0]
                pos = min(ends, default=len(piece))
                parse(piece[:pos], False)
                self.fed += pos
            if not p.tag or self.fed < SMALL:  # (no root yet, or a small feed so far)
                parse(piece[pos:], False)
                self.fed += len(piece) - pos
                return
            self.end = f"</{p.tag}>".encode()
        end, window = self.end, len(piece)
        while True:
            cut = piece.find(end, pos)
            if cut < 0:
                break
            cut += len(end)
            parse(piece[pos:cut], False)
            self.fed += cut - pos
            pos = cut
            if self.wait:
                self.wait -= 1
                continue
            last = piece.rfind(end, pos, pos + window)
            if last < 0 or not self.between_entries():
                continue
            made = self.run(piece[pos : last + len(end)])
            if made is None:
                window = 4096  # (this piece's next entry is tried with a short region)
                self.wait, self.backoff = self.backoff, min(2 * self.backoff, 256)
                continue
            self.backoff = 1
            pos += made
        if pos < len(piece):
            parse(piece[pos:], False)
            self.fed += len(piece) - pos

    def run(self, region: bytes) -> int | None:
        """The run at the start of ``region``, taken: its size in bytes, or None."""
        p = self.p
        from . import feedlayout  # (a large feed's first run imports them)
        from .feedruns import NotPlain, entries, scan

        compiled = feedlayout.compiled
        found = scan(region, p.tag, p.encoding, self.prefixed, self.layouts)
        if self.layouts:
            if found is not None and found.by_layout * 2 < found.n:
                self.unlaid += 1
            self.compiled += feedlayout.compiled - compiled
            self.layouts = self.unlaid < UNLAID and self.compiled < COMPILED
        if found is None:
            return None
        try:
            made = entries(found, p.base, p.resolve, p.parser.CurrentLineNumber + p.shift,
                           p.html_types)
        except NotPlain:
            return None
        p.entries.extend(made)
        p.parser.Parse(found.stand_in, False)
        self.fed += len(found.stand_in)
        return found.size

    def between_entries(self) -> bool:
        """expat has read all it was given, the last thing an entry's end tag, and the pass is
        where runs start: no entry, leaf, source or image open, a base that stays the same,
        and the grammar's names of the kinds it assumes in the default namespace."""
        p = self.p
        if (p.parser.CurrentByteIndex != self.fed or p.closed != self.fed - len(self.end)
                or p.entry or p.inside or p.source or p.image
                or p.base and p.base is not p.stable):
            return False
        from .feedruns import NAMES, PREFIXED

        bound = p.bound
        uri = bound[None][-1] if bound.get(None) else ""
        for local, kind in ((p.tag, ENTRY), *NAMES.items()):
            if self.kind(f"{uri} {local}" if uri else local) != kind:
                return False
        prefixed = []
        for qname, kind in PREFIXED.items():
            prefix, local = qname.split(":")
            if bound.get(prefix) and self.kind(f"{bound[prefix][-1]} {local} {prefix}") == kind:
                prefixed.append(qname)
        self.prefixed = tuple(prefixed)
        return True

    def kind(self, name: str) -> str:
        """The kind (feedcompat.KIND) of the element expat names ``name``."""
        info: dict[str, Any] = self.p.names
        return KIND.get((info.get(name) or self.p.learn(name))[1], PLAIN)
