"""IndexNow for removals and retries (issue 34): removed URLs are submitted, a failure that may
pass is retried within the run and kept for the next one, a wrong key is not retried."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from .test_web import SITE, Server, body, feed_bytes, web

KEY = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def answers(server: Server, statuses: list[int]) -> None:
    left = list(statuses)

    def answer(h: BaseHTTPRequestHandler) -> None:
        status = left.pop(0) if left else 200
        headers = {"Retry-After": "0"} if status in (429, 503) else {}
        body(b"", status=status, headers=headers)(h)

    server.routes["/indexnow"] = answer


def posted(server: Server) -> list[list[str]]:
    return [json.loads(b)["urlList"] for m, _, _, b in server.requests if m == "POST"]


def cron(tmp_path: Path, server: Server, *extra: str) -> tuple[int, str, str]:
    return web("sitemap.xml", "feed.xml", "-o", "sitemap.xml", "--base-url", SITE,
               "--indexnow", KEY, "--indexnow-endpoint", server.url("/indexnow"), *extra,
               cwd=tmp_path)


def test_removed_urls_are_submitted(server: Server, tmp_path: Path) -> None:
    answers(server, [])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(20)))
    assert cron(tmp_path, server)[0] == 0
    server.requests.clear()
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(1, 20)))  # post/0 deleted
    code, _, err = cron(tmp_path, server, "--prune")
    assert code == 0, err
    assert posted(server) == [[f"{SITE}post/0"]]
    assert "1 removed" in err


def test_a_503_is_retried_within_the_run(server: Server, tmp_path: Path) -> None:
    answers(server, [503, 200])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(2)))
    code, _, err = cron(tmp_path, server)
    assert code == 0, err
    assert len(posted(server)) == 2 and posted(server)[0] == posted(server)[1]


def test_what_still_fails_is_sent_first_by_the_next_run(server: Server, tmp_path: Path) -> None:
    answers(server, [503] * 10)
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(2)))
    code, _, err = cron(tmp_path, server)
    assert code == 1 and "HTTP 503" in err
    pending = tmp_path / ".sitemap.xml.indexnow-pending"
    assert pending.read_text().split() == [f"{SITE}post/0", f"{SITE}post/1"]
    assert "kept" in err and str(pending.name) in err
    assert len(list((tmp_path).glob("sitemap.xml"))) == 1  # the sitemap is written
    # the endpoint is back; the feed has one new item: the kept URLs go first, with it
    answers(server, [])
    server.requests.clear()
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(3)))
    code, _, err = cron(tmp_path, server)
    assert code == 0, err
    assert posted(server) == [[f"{SITE}post/0", f"{SITE}post/1", f"{SITE}post/2"]]
    assert not pending.exists()


def test_pending_file_goes_to_the_cache_when_there_is_one(server: Server,
                                                          tmp_path: Path) -> None:
    answers(server, [503] * 10)
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(1)))
    code, _, _ = cron(tmp_path, server, "--cache", "cache")
    assert code == 1
    kept = list((tmp_path / "cache").glob("indexnow-pending-*.txt"))
    assert len(kept) == 1 and kept[0].read_text() == f"{SITE}post/0\n"
    assert not (tmp_path / ".sitemap.xml.indexnow-pending").exists()


def test_a_wrong_key_is_not_retried_nor_kept(server: Server, tmp_path: Path) -> None:
    answers(server, [403] * 10)
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(2)))
    code, _, err = cron(tmp_path, server)
    assert code == 1 and "HTTP 403" in err
    assert len(posted(server)) == 1
    assert not (tmp_path / ".sitemap.xml.indexnow-pending").exists()


def test_key_location_must_be_on_the_sites_host(server: Server, tmp_path: Path) -> None:
    answers(server, [])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(1)))
    code, _, err = cron(tmp_path, server, "--indexnow-key-location",
                        f"https://other.example/{KEY}.txt")
    assert code == 2 and "other.example" in err and "example.com" in err
    assert posted(server) == [] and not (tmp_path / "sitemap.xml").exists()
