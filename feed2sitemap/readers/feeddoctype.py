"""What a DOCTYPE means for the fast pass (feedpass.py): where feedparser reads a document
with one differently from expat, the pass gives way to feedparser."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from .feedentries import FastPathUnsupported

__all__ = ["Doctype"]


@cache  # (compiled when first used: start-up time)
def _undefined_ref() -> re.Pattern[bytes]:
    """A reference to an entity other than XML's five (a character reference starts "&#").
    Under an external DTD (never loaded) expat drops such a reference from an attribute value
    without a word, where feedparser keeps it and calls the feed malformed."""
    return re.compile(rb"&(?!(?:amp|lt|gt|quot|apos);|#)")


class Doctype:
    """The DOCTYPE handlers of one pass, and the pieces it parsed after one."""

    __slots__ = ("internal_subset", "external", "pieces")

    def __init__(self) -> None:
        self.internal_subset = False
        self.external = False  # the DOCTYPE names an external DTD
        self.pieces = 0  # pieces of the document parsed

    def start(self, name: str, sysid: Any, pubid: Any, has_internal_subset: int) -> None:
        self.internal_subset = bool(has_internal_subset)
        # Under an external DTD (never loaded) expat drops a reference to an undefined entity
        # from an attribute value without a word ("/a/&secret;/b" became "/a//b"), where
        # feedparser keeps it and calls the feed malformed: any such reference, feedparser.
        # Searched in this piece and each one after it (a DOCTYPE comes before the root); one
        # after the first piece could follow a reference read before: feedparser decides.
        # (an empty system literal, SYSTEM "", names an external DTD all the same for expat:
        # the reference was dropped silently, issue 35, item 20)
        if sysid is not None or pubid is not None:
            if self.pieces:
                raise FastPathUnsupported("a DOCTYPE with an external DTD after 64 KiB")
            self.external = True

    def parsed(self, piece: bytes) -> None:
        """After each piece. (A reference cut by the piece's end is taken for an undefined
        one: feedparser reads the document.)"""
        self.pieces += 1
        if self.external and _undefined_ref().search(piece):
            raise FastPathUnsupported("an entity reference under an external DTD")

    def end(self) -> None:
        # feedparser cuts the DOCTYPE out with a regex that stops at the first ">", so an
        # internal subset (ATTLIST defaults, element declarations) means something else to it.
        if self.internal_subset:
            raise FastPathUnsupported("DOCTYPE with an internal subset")

    @staticmethod
    def skipped_entity(name: str, is_parameter: int) -> None:
        # Only with a DOCTYPE naming an external DTD, which expat does not read. feedparser
        # strips that DOCTYPE, so for it the undefined entity is fatal: its call (bozo), not a
        # refusal (xmlutil's rule for the other passes).
        raise FastPathUnsupported(f"undefined entity {name!r}")
