"""feedparser's tables held as data (readers/feed/compat.py) and our copies of its small rules
must stay what feedparser itself says, and a run the fast pass serves must not import it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import feedparser
import pytest
from feedparser.encodings import RE_XML_PI_ENCODING
from feedparser.mixin import _FeedParserMixin

from feed2sitemap import backends as mode
from feed2sitemap.readers.feed import compat as feedcompat


def test_the_data_is_what_feedparser_derives() -> None:
    assert feedcompat.installed_version() == feedparser.__version__
    version, namespaces, handled, start_only, html = feedcompat.derive()
    assert version == feedcompat.FEEDPARSER_VERSION
    assert namespaces == feedcompat.NAMESPACES
    assert handled == feedcompat.HANDLED
    assert start_only == feedcompat.START_ONLY
    assert html == feedcompat.HTML_TYPE_NAMES


def test_another_feedparser_version_derives_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feedcompat, "installed_version", lambda: "6.0.99")
    assert feedcompat.tables() == feedcompat.derive()


@pytest.mark.parametrize("given", ["text", "TEXT", "plain", "html", "HTML", "xhtml",
                                   "text/html", "Application/XHTML+XML", "image/png", ""])
def test_content_types_map_as_feedparser_maps_them(given: str) -> None:
    assert feedcompat.map_content_type(given) == _FeedParserMixin.map_content_type(given)


def test_the_declared_encoding_is_found_by_feedparser_s_pattern() -> None:
    assert feedcompat.XML_PI_ENCODING.pattern == RE_XML_PI_ENCODING.pattern
    assert feedcompat.XML_PI_ENCODING.flags == RE_XML_PI_ENCODING.flags


PROBE = """
import sys
from feed2sitemap.cli.main import main
try:
    main([sys.argv[1], "-o", sys.argv[2], "-q"])
except SystemExit as exc:
    assert not exc.code, exc.code
print(",".join(m for m in ("feedparser", "urllib.request", "email", "http.client")
               if m in sys.modules))
"""


@pytest.mark.skipif(mode.reference(), reason="the reference mode reads every feed with feedparser")
def test_a_feed_the_fast_pass_reads_never_imports_feedparser(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    items = "".join(f"<item><link>https://example.com/p/{i}</link>"
                    f"<pubDate>Tue, 05 Mar 2024 10:15:00 +0100</pubDate></item>" for i in range(20))
    feed.write_text(f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
                    f"<link>https://example.com/</link>{items}</channel></rss>")
    out = subprocess.run([sys.executable, "-c", PROBE, str(feed), str(tmp_path / "s.xml")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert (tmp_path / "s.xml").read_text().count("<url>") == 20
