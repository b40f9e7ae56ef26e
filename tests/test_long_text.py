"""Long text that no reader keeps (an Atom entry's content) streams past the markup bound in
the converter and in check alike, however much the feed holds after it (issue 36, item 15)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import run

ATOM = "http://www.w3.org/2005/Atom"


def _feed(content: str, title: str = "a", more: int = 3000) -> bytes:
    entries = "".join(
        f'<entry><title>e{i}</title><id>https://e.com/e{i}</id><link href="https://e.com/e{i}"/>'
        "<updated>2024-01-01T00:00:00Z</updated></entry>" for i in range(more))
    return (f'<?xml version="1.0"?><feed xmlns="{ATOM}"><title>t</title><id>https://e.com/</id>'
            f"<updated>2024-01-01T00:00:00Z</updated><entry><title>{title}</title>"
            f'<id>https://e.com/a</id><link href="https://e.com/a"/>'
            f'<updated>2024-01-01T00:00:00Z</updated><content type="html">{content}</content>'
            f"</entry>{entries}</feed>").encode()


@pytest.mark.parametrize("reference", ["", "1"])
def test_long_content_then_many_entries_converts(tmp_path: Path, reference: str) -> None:
    path = tmp_path / "feed.xml"
    path.write_bytes(_feed("&lt;p&gt;" + "x" * 1_000_000 + "&lt;/p&gt;"))
    env = {**os.environ, "FEED2SITEMAP_REFERENCE": reference}
    done = run(str(path), "-t", "text", "-q", env=env)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 3001


def test_check_reads_long_content_and_refuses_a_long_title(tmp_path: Path) -> None:
    ok = tmp_path / "ok.xml"
    ok.write_bytes(_feed("x" * 1_000_000))
    done = run("check", str(ok))
    assert done.returncode == 0, done.stdout
    bad = tmp_path / "bad.xml"
    bad.write_bytes(_feed("x", title="y" * 1_000_000, more=1))
    refused = run("check", str(bad))
    assert refused.returncode == 1 and b"too-complex" in refused.stdout
