"""The reference mode: FEED2SITEMAP_REFERENCE=1 makes every reader and step take its plain path.

Each fast path (the feed reader's own expat pass, a block of clean URLs proven at once, a
column of lastmods parsed in one call) sits beside a plain, obviously-correct twin: feedparser
for feeds, one URL normalised at a time, one value parsed at a time. The reference mode runs
the twins only, so that a differential test can hold the fast paths to byte-identical output
(tests/test_reference.py) and a user who doubts a result can rerun it the plain way.

Read at the call, not at import, so one process (a test) can run both ways.
"""

from __future__ import annotations

import os

__all__ = ["ENV", "reference"]

ENV = "FEED2SITEMAP_REFERENCE"


def reference() -> bool:
    """True when the plain paths are asked for (``FEED2SITEMAP_REFERENCE`` set, not "0")."""
    return os.environ.get(ENV, "") not in ("", "0")
