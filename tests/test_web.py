"""Talking to the web: inputs by URL, robots.txt, IndexNow. Every request goes to a real HTTP
server that the test starts on 127.0.0.1 (the standard library's http.server in a thread);
nothing else is ever reached."""

from __future__ import annotations

import gzip
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from feed2sitemap import Limits, Publish, convert, read
from feed2sitemap.model.limits import PROFILES

from .conftest import run

SITE = "https://example.com/"


def feed_bytes(items: range, day: int = 2) -> bytes:
    body = "".join(
        f"<item><title>t{i}</title><link>{SITE}post/{i}</link>"
        f"<pubDate>Mon, {day:02d} Feb 2026 10:00:00 GMT</pubDate></item>" for i in items)
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>'
            f"<link>{SITE}</link>{body}</channel></rss>").encode()


def urlset(*locs: str) -> bytes:
    return ('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(f"<url><loc>{loc}</loc></url>" for loc in locs) + "</urlset>").encode()


Route = Callable[[BaseHTTPRequestHandler], None]


class Server:
    """A local server whose routes the test sets; it records every request."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                server.requests.append((self.command, self.path, dict(self.headers), body))
                route = server.routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                route(self)

            do_GET = _handle
            do_POST = _handle

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base + path

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def body(data: bytes, status: int = 200, headers: dict[str, str] | None = None) -> Route:
    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
    return route


def redirect(to: str, status: int = 302) -> Route:
    def route(h: BaseHTTPRequestHandler) -> None:
        h.send_response(status)
        h.send_header("Location", to)
        h.send_header("Content-Length", "0")
        h.end_headers()
    return route


def env() -> dict[str, str]:
    """The environment without proxies: requests go straight to 127.0.0.1."""
    return {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}


def web(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    done = run(*args, cwd=cwd, env=env(), timeout=60)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


# --- inputs by URL ------------------------------------------------------------------------


def test_a_feed_by_url_is_fetched_with_our_user_agent(server: Server) -> None:
    server.routes["/feed"] = body(feed_bytes(range(3)), headers={"Content-Type": "text/xml"})
    code, out, err = web(server.url("/feed"), "-t", "text")
    assert code == 0, err
    assert out.split() == [f"{SITE}post/{i}" for i in range(3)]
    headers = server.requests[0][2]
    assert headers["User-Agent"].startswith("feed2sitemap/")


def test_gzip_transfer_encoding_and_gzip_files_are_both_read(server: Server) -> None:
    server.routes["/feed"] = body(gzip.compress(feed_bytes(range(2))),
                                  headers={"Content-Encoding": "gzip"})
    server.routes["/sitemap.xml.gz"] = body(gzip.compress(urlset(f"{SITE}a", f"{SITE}b")),
                                            headers={"Content-Type": "application/gzip"})
    assert web(server.url("/feed"), "-t", "text")[1].split() == [f"{SITE}post/0",
                                                                 f"{SITE}post/1"]
    assert web(server.url("/sitemap.xml.gz"), "-t", "text")[1].split() == [f"{SITE}a",
                                                                           f"{SITE}b"]


def test_redirects_are_followed_but_never_to_file_urls(server: Server, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text(f"{SITE}secret\n")
    server.routes["/feed"] = body(feed_bytes(range(1)))
    server.routes["/old"] = redirect("/feed", 301)
    server.routes["/evil"] = redirect(secret.as_uri())
    code, out, _ = web(server.url("/old"), "-t", "text")
    assert code == 0 and out.split() == [f"{SITE}post/0"]
    code, out, err = web(server.url("/evil"), "-t", "text")
    assert code == 1 and "secret" not in out
    assert f"{server.url('/evil')}: redirected to file:" in err


def test_too_many_redirects_are_refused(server: Server) -> None:
    for i in range(7):
        server.routes[f"/r{i}"] = redirect(f"/r{i + 1}")
    code, _, err = web(server.url("/r0"), "-t", "text")
    assert code == 1 and "redirect" in err.lower()
    assert len(server.requests) == 6  # the first and five redirects, no more


@pytest.mark.parametrize("status", [404, 500])
def test_http_errors_name_the_status_and_the_url(server: Server, status: int) -> None:
    server.routes["/feed"] = body(b"no", status=status)
    code, _, err = web(server.url("/feed"), "-t", "text")
    assert code == 1
    assert err.strip().startswith(f"feed2sitemap: {server.url('/feed')}: HTTP {status}")
    assert "Traceback" not in err


def test_a_slow_server_times_out(server: Server) -> None:
    def slow(h: BaseHTTPRequestHandler) -> None:
        time.sleep(3)
        body(feed_bytes(range(1)))(h)

    server.routes["/slow"] = slow
    start = time.monotonic()
    code, _, err = web(server.url("/slow"), "-t", "text", "--timeout", "0.5")
    assert code == 1 and time.monotonic() - start < 3
    assert "no answer within 0.5 s" in err or "sent nothing for 0.5 s" in err


def test_an_endless_feed_is_capped(server: Server) -> None:
    def endless(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.end_headers()
        h.wfile.write(b'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>')
        chunk = b"<item><title>" + b"x" * 8000 + b"</title></item>"
        try:
            for _ in range(100_000):  # bounded: about 800 MB if nobody stops reading
                h.wfile.write(chunk)
        except OSError:
            pass

    server.routes["/endless"] = endless
    code, _, err = web(server.url("/endless"), "-t", "text", "--max-feed-bytes", "1000000")
    assert code == 1 and "1,000,000" in err.replace("1000000", "1,000,000")


def test_a_remote_index_is_followed_on_its_own_host_only(server: Server) -> None:
    server.routes["/a.xml"] = body(urlset(f"{SITE}a"))
    server.routes["/b.xml"] = body(b"broken", status=500)
    server.routes["/index.xml"] = body(
        ('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
         f"<sitemap><loc>{server.url('/a.xml')}</loc></sitemap>"
         f"<sitemap><loc>{server.url('/b.xml')}</loc></sitemap>"
         "</sitemapindex>").encode())
    code, out, err = web(server.url("/index.xml"), "--follow", "-t", "text",
                         "--skip-unreadable-parts")
    assert code == 0, err
    assert out.split() == [f"{SITE}a"]
    assert "b.xml: HTTP 500" in err and "1 unreadable part" in err
    server.routes["/other.xml"] = body(
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
         b"<sitemap><loc>https://elsewhere.example/x.xml</loc></sitemap>"
         b"</sitemapindex>")
    code, _, err = web(server.url("/other.xml"), "--follow", "-t", "text")
    assert code == 1 and "on another host" in err


def test_a_remote_part_that_cannot_be_read_stops_the_run(server: Server,
                                                         tmp_path: Path) -> None:
    server.routes["/a.xml"] = body(urlset(f"{SITE}a"))
    server.routes["/index.xml"] = body(
        ('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
         f"<sitemap><loc>{server.url('/a.xml')}</loc></sitemap>"
         f"<sitemap><loc>{server.url('/b.xml')}</loc></sitemap>"
         "</sitemapindex>").encode())
    out = tmp_path / "all.txt"
    for extra in ([], ["-q"]):
        code, stdout, err = web(server.url("/index.xml"), "--follow", "-t", "text",
                                "-o", str(out), *extra)
        assert (code, stdout) == (1, "") and not out.exists()
        assert err == (f"feed2sitemap: {server.url('/index.xml')}:1: part cannot be read: "
                       f"{server.url('/b.xml')}: HTTP 404 Not Found; nothing was written "
                       "(--skip-unreadable-parts to go on without it)\n")
    code, stdout, err = web(server.url("/index.xml"), "--follow", "-t", "text")
    assert (code, stdout) == (1, "")


def test_a_local_part_in_a_folder_needs_base_url_and_the_message_says_so(
        tmp_path: Path) -> None:
    (tmp_path / "sitemaps").mkdir()
    (tmp_path / "sitemaps" / "posts.xml").write_bytes(urlset(f"{SITE}p"))
    (tmp_path / "sitemap.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{SITE}sitemaps/posts.xml</loc></sitemap></sitemapindex>")
    index = str(tmp_path / "sitemap.xml")
    code, out, err = web(index, "--follow", "-t", "text")
    assert (code, out) == (1, "")
    assert err == (f"feed2sitemap: {index}:1: part {SITE}sitemaps/posts.xml is missing: no file "
                   f"{tmp_path / 'posts.xml'}, but there is {tmp_path / 'sitemaps/posts.xml'}: "
                   f"give --base-url {SITE} to read parts at their path under it; nothing was "
                   "written\n")
    code, out, err = web(index, "--follow", "-t", "text", "--base-url", SITE)
    assert (code, out) == (0, f"{SITE}p\n"), err
    (tmp_path / "sitemaps" / "posts.xml").unlink()
    code, out, err = web(index, "--follow", "-t", "text")
    assert code == 1 and "looked for by its name beside the index: --base-url" in err


def test_the_cache_makes_the_second_request_conditional(server: Server,
                                                         tmp_path: Path) -> None:
    data = feed_bytes(range(2))

    def cached(h: BaseHTTPRequestHandler) -> None:
        if h.headers.get("If-None-Match") == '"v1"':
            h.send_response(304)
            h.end_headers()
            return
        body(data, headers={"ETag": '"v1"'})(h)

    server.routes["/feed"] = cached
    cache = tmp_path / "var" / "cache"  # not there yet: the first run makes it, ours only
    first = web(server.url("/feed"), "-t", "text", "--cache", str(cache))
    assert first[0] == 0, first[2]
    assert cache.stat().st_mode & 0o777 == 0o700
    second = web(server.url("/feed"), "-t", "text", "--cache", str(cache))
    assert second[0] == 0
    assert first[1] == second[1] != ""
    assert "not modified since the last run" in second[2]
    assert server.requests[1][2].get("If-None-Match") == '"v1"'


def test_a_cache_directory_that_cannot_be_made_is_a_one_line_error(server: Server,
                                                                   tmp_path: Path) -> None:
    server.routes["/feed"] = body(feed_bytes(range(2)))
    (tmp_path / "file").write_text("")
    cache = tmp_path / "file" / "cache"
    code, out, err = web(server.url("/feed"), "-t", "text", "--cache", str(cache))
    assert (code, out) == (1, "")
    assert err == f"feed2sitemap: {cache}: cannot create the cache directory: Not a directory\n"
    assert server.requests == []


def test_robots_txt_as_input_reads_its_sitemaps(server: Server, tmp_path: Path) -> None:
    server.routes["/s.xml"] = body(urlset(f"{SITE}a", f"{SITE}b"))
    server.routes["/robots.txt"] = body(
        f"User-agent: *\nDisallow: /private/\nSitemap: {server.url('/s.xml')}\n".encode())
    code, out, err = web(server.url("/robots.txt"), "-t", "text")
    assert code == 0, err
    assert out.split() == [f"{SITE}a", f"{SITE}b"]
    # a local robots.txt: its sitemaps beside it, by name
    (tmp_path / "s.xml").write_bytes(urlset(f"{SITE}c"))
    (tmp_path / "robots.txt").write_text("User-agent: *\nSitemap: https://example.com/s.xml\n")
    code, out, err = web("robots.txt", "-t", "text", cwd=tmp_path)
    assert code == 0 and out.split() == [f"{SITE}c"], err


# --- robots.txt written ---------------------------------------------------------------------


def test_robots_lines_name_what_was_written_and_keep_everything_else(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("".join(f"{SITE}p/{i}\n" for i in range(4)))
    robots = tmp_path / "robots.txt"
    original = (b"User-agent: *\r\nDisallow: /tmp/\r\n"
                b"Sitemap: https://example.com/news.xml\r\n"
                b"Sitemap: https://example.com/sitemap.xml\r\n# end\r\n")
    robots.write_bytes(original)
    robots.chmod(0o640)
    args = ("urls.txt", "-o", "sitemap.xml", "--base-url", SITE, "--robots", "robots.txt")
    code, _, err = web(*args, cwd=tmp_path)
    assert code == 0, err
    assert robots.read_bytes() == original  # one file: its line was already right
    assert "already right" in err
    code, _, err = web(*args, "--max-urls", "2", "--max-bytes", "100000", cwd=tmp_path)
    assert code == 0, err
    assert robots.read_bytes() == original  # an index now, at the same URL: still right
    # limits that would need an index of indexes stop the run, robots.txt left as it was
    code, _, err = web(*args, "--max-urls", "1", cwd=tmp_path)
    assert code == 1 and "raise --max-urls" in err, err
    assert robots.read_bytes() == original
    # past the sitemaps one index may list, the index splits: the -index-N files are named
    (tmp_path / "urls.txt").write_text("".join(f"{SITE}p/{i}\n" for i in range(5)))
    convert([tmp_path / "urls.txt"], str(tmp_path / "sitemap.xml"), base_url=SITE,
            limits=Limits(profile=replace(PROFILES["sitemaps"], max_urls=2, max_sitemaps=2)),
            publish=Publish(robots=str(robots)))
    lines = robots.read_bytes().split(b"\r\n")
    assert lines[:3] == [b"User-agent: *", b"Disallow: /tmp/",
                         b"Sitemap: https://example.com/news.xml"]
    assert b"Sitemap: https://example.com/sitemap-index-1.xml\r\n" in robots.read_bytes()
    assert robots.read_bytes().endswith(b"# end\r\n")
    assert robots.stat().st_mode & 0o777 == 0o640


def test_robots_is_created_when_missing_and_needs_base_url(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(f"{SITE}a\n")
    code, _, err = web("urls.txt", "-o", "s.xml", "--robots", "robots.txt", cwd=tmp_path)
    assert code == 2 and "--base-url" in err and not (tmp_path / "s.xml").exists()
    code, _, err = web("urls.txt", "-o", "s.xml", "--base-url", SITE, "--robots", "robots.txt",
                       cwd=tmp_path)
    assert code == 0, err
    assert (tmp_path / "robots.txt").read_text() == f"Sitemap: {SITE}s.xml\n"


# --- IndexNow ---------------------------------------------------------------------------------

KEY = "0123456789abcdef0123456789abcdef"


def indexnow_answers(server: Server, statuses: list[int]) -> None:
    left = list(statuses)

    def answer(h: BaseHTTPRequestHandler) -> None:
        status = left.pop(0) if left else 200
        headers = {"Retry-After": "0"} if status == 429 else {}
        body(b"", status=status, headers=headers)(h)

    server.routes["/indexnow"] = answer


def cron(tmp_path: Path, server: Server, *extra: str) -> tuple[int, str, str]:
    return web("sitemap.xml", "feed.xml", "-o", "sitemap.xml", "--base-url", SITE,
               "--indexnow", KEY, "--indexnow-endpoint", server.url("/indexnow"), *extra,
               cwd=tmp_path)


def posted(server: Server) -> list[dict[str, object]]:
    return [json.loads(b) for m, p, _, b in server.requests if m == "POST"]


def test_indexnow_submits_what_was_added_or_updated_and_nothing_when_unchanged(
        server: Server, tmp_path: Path) -> None:
    indexnow_answers(server, [])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(3)))
    code, _, err = cron(tmp_path, server)
    assert code == 0, err
    assert posted(server) == [{"host": "example.com", "key": KEY,
                               "urlList": [f"{SITE}post/{i}" for i in range(3)]}]
    # one new item, one updated: only those two
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(1, 4), day=3))
    server.requests.clear()
    code, _, err = cron(tmp_path, server)
    assert code == 0, err
    assert posted(server)[0]["urlList"] == [f"{SITE}post/{i}" for i in (1, 2, 3)]
    server.requests.clear()
    code, _, err = cron(tmp_path, server)
    assert code == 0 and posted(server) == []
    assert "nothing submitted" in err
    assert KEY not in err


@pytest.mark.parametrize("status,cause", [(400, "bad request"), (403, "key file was not found"),
                                          (422, "not on the key's host")])
def test_indexnow_refusals_name_the_cause_and_keep_the_sitemap(
        server: Server, tmp_path: Path, status: int, cause: str) -> None:
    indexnow_answers(server, [status])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(2)))
    code, _, err = cron(tmp_path, server)
    assert code == 1
    assert f"HTTP {status}: " in err and cause in err
    assert "2 URLs were not submitted" in err and KEY not in err and KEY[:4] + "…" in err
    assert len(list(read(tmp_path / "sitemap.xml"))) == 2  # written, and not rolled back


def test_indexnow_retries_after_429(server: Server, tmp_path: Path) -> None:
    indexnow_answers(server, [429, 200])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(2)))
    code, _, err = cron(tmp_path, server)
    assert code == 0, err
    assert len(posted(server)) == 2
    indexnow_answers(server, [429] * 10)
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(3)))
    server.requests.clear()
    code, _, err = cron(tmp_path, server)
    assert code == 1 and "HTTP 429" in err and len(posted(server)) == 4  # 1 + 3 retries


def test_indexnow_key_checked_locally_and_dry_run_sends_nothing(server: Server,
                                                                tmp_path: Path) -> None:
    indexnow_answers(server, [])
    (tmp_path / "feed.xml").write_bytes(feed_bytes(range(2)))
    code, _, err = web("sitemap.xml", "feed.xml", "-o", "sitemap.xml", "--indexnow", "bad key!",
                       cwd=tmp_path)
    assert code == 2 and "8 to 128 characters" in err
    code, out, err = cron(tmp_path, server, "--dry-run")
    assert code == 0, err
    assert posted(server) == [] and not (tmp_path / "sitemap.xml").exists()
    sent = json.loads(out)
    assert sent["key"] == KEY[:4] + "…" and len(sent["urlList"]) == 2
    assert "would submit 2 URLs" in err


def test_the_whole_cron_line_twice_fetches_writes_and_submits_once(
        server: Server, tmp_path: Path) -> None:
    """Fetch the feed, grow the sitemap, update robots.txt, submit the changes; a second run
    a minute later with the feed unchanged sends nothing and rewrites nothing."""
    indexnow_answers(server, [])
    data = feed_bytes(range(3))

    def feed(h: BaseHTTPRequestHandler) -> None:
        if h.headers.get("If-None-Match") == '"f1"':
            h.send_response(304)
            h.end_headers()
            return
        body(data, headers={"ETag": '"f1"'})(h)

    server.routes["/feed"] = feed
    (tmp_path / "cache").mkdir()
    args = ("sitemap.xml", server.url("/feed"), "-o", "sitemap.xml", "--base-url", SITE,
            "--cache", "cache", "--robots", "robots.txt", "--indexnow", KEY,
            "--indexnow-endpoint", server.url("/indexnow"))
    code, _, err = web(*args, cwd=tmp_path)
    assert code == 0, err
    assert len(posted(server)) == 1
    assert (tmp_path / "robots.txt").read_text() == f"Sitemap: {SITE}sitemap.xml\n"
    files = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir() if p.is_file()}
    server.requests.clear()
    code, _, err = web(*args, cwd=tmp_path)
    assert code == 0, err
    assert posted(server) == []
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir() if p.is_file()} == files
    assert "not modified since the last run" in err
