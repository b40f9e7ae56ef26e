"""feed2sitemap check on URL lists (text sitemaps): one case per rule, and the limits."""

from __future__ import annotations

import pytest

from feed2sitemap.model.limits import PROFILES, Profile

from .test_check import found, run


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(PROFILES, "tiny", Profile("tiny", max_urls=2, max_bytes=400, max_loc=30))
    return "tiny"


TEXT_CASES: list[tuple[str, bytes, list[tuple[str, int]]]] = [
    ("valid", b"http://example.com/a\r\n\n  http://example.com/b  \n", []),
    ("relative", b"http://example.com/a\n/b\n", [("loc-not-http", 2)]),
    ("space", b"http://example.com/a b\n", [("loc-chars", 1)]),
    ("not UTF-8", b"http://example.com/a\nhttp://example.com/caf\xe9\nhttp://example.com/c\n",
     [("encoding", 2)]),
    ("duplicate", b"http://example.com/a\nhttp://example.com/a\n", [("duplicate-loc", 2)]),
    ("another host", b"http://example.com/a\nhttps://example.com/b\n", [("scope", 2)]),
    ("IRI", "http://example.com/é\n".encode(), [("loc-iri", 1)]),
    ("blank", b"\n\n", [("empty-set", 2)]),
    ("empty", b"", [("empty-set", 1)]),
    ("too short for a sitemap", b"http://a.b/\nhttp://a.b/c/d\n", [("loc-too-short", 1)]),
]


@pytest.mark.parametrize("data, expected", [c[1:] for c in TEXT_CASES],
                         ids=[c[0] for c in TEXT_CASES])
def test_text_rules(data: bytes, expected: list[tuple[str, int]]) -> None:
    assert found(run(data)) == expected


def test_text_limits(tiny: str) -> None:
    lines = b"".join(b"http://example.com/%d\n" % n for n in range(30))
    assert found(run(lines, profile=tiny)) == [("too-many-urls", 3), ("too-large", 19)]
