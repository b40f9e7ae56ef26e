"""Lastmods from outside the page (``--lastmod-from git|content``): a stub of the interface
that its own branch fills in."""

from __future__ import annotations

from typing import Optional

from ...errors import OptionError

__all__ = ["LastmodSource", "lastmod_source"]


class LastmodSource:
    """Each page's lastmod by its file (``rel``, relative, "/"-separated) and the fingerprint
    of its main content; ``warnings`` to say once; ``close`` after a run that succeeded."""

    warnings: list[str]

    def lastmod(self, rel: str, fingerprint: str) -> Optional[str]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


def lastmod_source(kind: str, root: str, *, source: Optional[str] = None,
                   state: Optional[str] = None) -> LastmodSource:
    raise OptionError("--lastmod-from git/content: not built yet")
