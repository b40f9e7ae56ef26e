"""Hostile input, round 3 (issue 35), the JSON Lines, index and check items (13, 15, 16, 18 and
parts of 26): each through the installed command, and through the library where it applies.
Each case failed before its fix. The tests that depend on the mode run in both (the reference
mode: FEED2SITEMAP_REFERENCE=1).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from feed2sitemap import Report, convert
from feed2sitemap.extensions import from_json

from .conftest import run

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


@pytest.fixture(params=["", "1"], ids=["fast", "reference"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both modes: the environment the command inherits and the library reads at the call."""
    monkeypatch.setenv("FEED2SITEMAP_REFERENCE", request.param)
    yield request.param


# --- item 13: extension members of the wrong type ----------------------------------------------

VIDEO = {"thumbnail_loc": "https://example.com/t.jpg", "title": "T", "description": "D",
         "content_loc": "https://example.com/v.mp4"}
# (member, the line's extensions): each must be refused, naming the member
HOSTILE = [
    ("images[0]", {"images": [5]}),
    ("href", {"alternates": [{"hreflang": "de", "href": 5}]}),
    ("duration", {"videos": [{**VIDEO, "duration": True}]}),
    ("title", {"videos": [{**VIDEO, "title": ["T"]}]}),
    ("family_friendly", {"videos": [{**VIDEO, "family_friendly": [True]}]}),
    ("rating", {"videos": [{**VIDEO, "rating": "5"}]}),
    ("view_count", {"videos": [{**VIDEO, "view_count": 10 ** 20}]}),
    ("restriction", {"videos": [{**VIDEO, "restriction": "IE"}]}),
    ("restriction.countries", {"videos": [{**VIDEO, "restriction": {
        "relationship": "allow", "countries": "IE"}}]}),
    ("tags", {"videos": [{**VIDEO, "tags": [1, 2]}]}),
    ("caption", {"images": [{"loc": "https://example.com/i.jpg", "caption": 5}]}),
    ("title", {"news": [{"name": "N", "language": "en", "publication_date": "2024-01-01",
                         "title": {"a": 1}}]}),
    ("lang", {"links": [{"lang": 5, "url": "https://example.com/de"}]}),
]


def _hostile_lines() -> bytes:
    lines = [{"loc": f"https://example.com/p{i}", **ext} for i, (_, ext) in enumerate(HOSTILE)]
    lines.append({"loc": "https://example.com/good", "videos": [{**VIDEO, "duration": 60}]})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.mark.parametrize("member, ext", HOSTILE)
def test_from_json_refuses_a_member_of_the_wrong_type_naming_it(member: str,
                                                                ext: dict[str, object]) -> None:
    value, problems = from_json({"loc": "https://example.com/", **ext})
    assert not value  # the item is left out...
    assert len(problems) == 1 and member in problems[0]  # ...and said, naming the member


def test_hostile_extension_members_are_counted_warnings_never_a_crash(
        tmp_path: Path, mode: str) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(_hostile_lines())
    out = tmp_path / "out.xml"
    done = run(str(src), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert f"warnings: {len(HOSTILE)} bad extension".encode() in done.stderr
    text = out.read_text()
    assert text.count("<url>") == len(HOSTILE) + 1
    assert "True" not in text and "<video:duration>60</video:duration>" in text
    # what was written is what our own check accepts
    checked = run("check", str(out))
    assert checked.returncode == 0, checked.stdout
    # check of the list itself: an error per line, no crash
    listed = run("check", str(src))
    assert listed.returncode == 1 and b"Traceback" not in listed.stderr
    assert listed.stdout.count(b"extension dropped") == len(HOSTILE)


def test_hostile_extension_members_through_the_library(mode: str) -> None:
    report = Report()
    out = io.BytesIO()
    convert([io.BytesIO(_hostile_lines())], out, report=report, scope_check=False)
    assert sum(report.warnings.values()) == len(HOSTILE)
    assert b"True" not in out.getvalue() and out.getvalue().count(b"<video:video>") == 1
