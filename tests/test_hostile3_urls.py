"""Hostile URLs (issue 35, items 5 and 14; issue 33, item 7): through the installed command, in
both modes where the converter reads them, and through the library. Each case failed before
its fix. Every request goes to a server on 127.0.0.1; the URLs that are refused are refused
before any connection (a test of them never reaches the network).
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from feed2sitemap import InputError, Report, convert, read
from feed2sitemap.backends import ENV
from feed2sitemap.check import check
from feed2sitemap.errors import OptionError
from feed2sitemap.model.urls import BadURL, normalize_locs, normalize_url, request_url

from .conftest import run

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
KEY = "0123456789abcdef0123456789abcdef"


def _env(reference: bool = False) -> dict[str, str]:
    """No proxy (requests go straight to 127.0.0.1), and the mode asked for."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env[ENV] = "1" if reference else ""
    return env


def _both(*args: str, cwd: Path | None = None) -> tuple[int, str, bytes]:
    """Run the command in the fast and the reference mode: the same exit code and output bytes
    (``-o -``) in both; returns them, with the messages of both (a feed's line numbers are the
    fast pass's alone, so the two are not compared)."""
    done = [run(*args, cwd=cwd, env=_env(ref), timeout=60) for ref in (False, True)]
    fast, ref = done
    assert (fast.returncode, fast.stdout) == (ref.returncode, ref.stdout)
    return fast.returncode, fast.stderr.decode() + ref.stderr.decode(), fast.stdout


def _one_line(err: str) -> str:
    assert "Traceback" not in err and err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith("feed2sitemap: ")
    return err


def _urlset(*locs: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
            + "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
            + "</urlset>\n").encode()


class _Server:
    """A local server answering a GET with the body set for its path, else a URL list;
    it records the paths asked for."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.bodies: dict[str, bytes] = {}
        paths, bodies = self.paths, self.bodies

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                paths.append(self.path)
                data = bodies.get(self.path, b"https://example.com/from-the-server\n")
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[_Server]:
    s = _Server()
    yield s
    s.close()


# --- issue 33, item 7: IDNA 2008 with UTS #46 -------------------------------------------------

@pytest.mark.parametrize("raw,want", [
    ("https://faß.de/", "https://xn--fa-hia.de/"),  # not fass.de: the host a browser visits
    ("https://FAß.DE/x", "https://xn--fa-hia.de/x"),
    ("https://faß.de./", "https://xn--fa-hia.de./"),  # a trailing dot is kept, as in ASCII
    ("https://my_shop.faß.de/", "https://my_shop.xn--fa-hia.de/"),  # "_" labels as given
    ("https://ＥＸＡＭＰＬＥ.com/", "https://example.com/"),  # UTS #46 maps full-width forms
    ("https://bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe"),
    ("https://xn--fa-hia.de/", "https://xn--fa-hia.de/"),  # ASCII hosts: never through IDNA
])
def test_non_ascii_hosts_are_encoded_as_browsers_do(raw: str, want: str) -> None:
    assert normalize_url(raw) == want


@pytest.mark.parametrize("raw,why", [
    ("https://ex\u200dample.de/", "U+200D"),  # a zero-width joiner is refused, not dropped
    ("https://ex€.com/", "U+20AC"),  # a symbol: IDNA 2008 allows none
    ("https://-é.de/", "hyphen"),
    ("https://" + "é" * 64 + ".com/", "too long"),
])
def test_hosts_idna_refuses_are_a_bad_host(raw: str, why: str) -> None:
    with pytest.raises(BadURL) as err:
        normalize_url(raw)
    assert err.value.kind == "bad host" and why in str(err.value)


def test_the_converter_writes_the_browsers_host_and_counts_refused_ones(tmp_path: Path) -> None:
    src = tmp_path / "list.txt"
    src.write_text("https://faß.de/a\nhttps://faß.de/ex\u200dample\n"
                   "https://ex\u200dample.de/b\nhttps://ex€.com/c\n", encoding="utf-8")
    code, err, out = _both(str(src), "-o", "-", "--no-scope-check")
    assert code == 0, err
    assert b"<loc>https://xn--fa-hia.de/a</loc>" in out and b"fass.de" not in out
    assert b"<loc>https://xn--fa-hia.de/ex%E2%80%8Dample</loc>" in out  # (a path: encoded)
    assert out.count(b"<loc>") == 2
    assert f"{src}:3: skipped: bad host 'ex\\u200dample.de'" in err
    assert "skipped 2: 2 bad host" in err
    # the library counts them the same way
    report = Report()
    buf = io.BytesIO()
    convert([src], buf, scope_check=False, report=report)
    assert report.skipped["bad host"] == 2


def test_check_reports_a_host_idna_refuses_as_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "sitemap.xml"
    bad.write_bytes(_urlset("https://ex€.com/a"))
    done = run("check", str(bad))
    assert done.returncode == 1
    assert "error: loc-host: bad host 'ex€.com'" in done.stdout.decode()
    assert [d.rule for d in check(bad) if d.severity == "error"] == ["loc-host"]
    good = tmp_path / "good.xml"
    good.write_bytes(_urlset("https://xn--fa-hia.de/a"))
    assert run("check", str(good)).returncode == 0


# --- issue 35, item 14: "[" and "]" outside an IPv6 host ---------------------------------------

@pytest.mark.parametrize("raw,want", [
    ("https://example.com/p?q=x[]=1", "https://example.com/p?q=x%5B%5D=1"),
    ("https://example.com/[a]/b", "https://example.com/%5Ba%5D/b"),
    ("HTTPS://EXAMPLE.COM/a[0]", "https://example.com/a%5B0%5D"),  # the slow path alike
    ("http://[::1]:8080/a[b]", "http://[::1]:8080/a%5Bb%5D"),  # the IPv6 host keeps its own
])
def test_brackets_are_percent_encoded_outside_an_ipv6_host(raw: str, want: str) -> None:
    assert normalize_url(raw) == want


def test_a_block_of_clean_urls_with_brackets_is_encoded_by_the_batch_path() -> None:
    locs = [f"https://example.com/p{i}" for i in range(2000)] + ["https://example.com/q?a[]=1"]
    got = normalize_locs(locs)
    assert got.clean.locs[-1] == "https://example.com/q?a%5B%5D=1" and not got.bad
    assert list(got.clean.locs[:-1]) == locs[:-1]


@pytest.mark.parametrize("n", [1, 3000])  # one line, and a block the fast paths prove at once
def test_the_converter_writes_no_raw_bracket_and_check_accepts_it(tmp_path: Path,
                                                                  n: int) -> None:
    src = tmp_path / "list.txt"
    lines = [f"https://example.com/p{i}?q=x[]={i}" for i in range(n)]
    src.write_text("".join(line + "\n" for line in lines))
    code, err, out = _both(str(src), "-o", "-")
    assert code == 0, err
    assert b"[" not in out and b"]" not in out
    assert b"<loc>https://example.com/p0?q=x%5B%5D=0</loc>" in out
    written = tmp_path / "sitemap.xml"
    written.write_bytes(out)
    done = run("check", str(written))
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("n", [1, 3000])
def test_check_flags_a_raw_bracket_in_a_loc(tmp_path: Path, n: int) -> None:
    path = tmp_path / "sitemap.xml"
    locs = [f"https://example.com/p{i}" for i in range(n - 1)] + ["https://example.com/q?a[]=1"]
    path.write_bytes(_urlset(*locs, "http://[::1]/ipv6-is-fine"))
    done = run("check", str(path))
    assert done.returncode == 1
    lines = [line for line in done.stdout.decode().splitlines() if ": error: " in line]
    assert len(lines) == 1 and "loc-chars: '[' at character 24" in lines[0], lines
    assert "%5B" in lines[0]
    listed = tmp_path / "list.txt"
    listed.write_text("https://example.com/a]\n")
    assert [d.rule for d in check(listed)] == ["loc-chars"]


# --- issue 35, item 5: URLs http.client or IDNA refuse -----------------------------------------

_REFUSED = [
    "http://127.0.0.1:abc/list.txt",  # a port that is no number
    "http://[::1/list.txt",  # an IPv6 literal never closed
    "http://[::1]x/list.txt",
    "http://127.0.0.1 x/list.txt",  # a space in the host
    "http://127.0.0.1:1/a\r\nHost: x",  # CR/LF: a header smuggled in the path
    "http://127.0.0.1:1/a\tb",
    "http://a..invalid/list.txt",  # an empty label
    "http://" + "a" * 64 + ".invalid/list.txt",  # a 64-character label
    "http://ex€.invalid/list.txt",  # a host IDNA refuses (and not Latin-1)
]
# credentials: an input's are sent as Basic authorization (test_hostile3_http); an IndexNow
# endpoint or a robots.txt to check may not have them
_CREDENTIALS = "http://user:secret@127.0.0.1:1/list.txt"


@pytest.mark.parametrize("url", _REFUSED)
def test_an_input_url_no_request_can_carry_is_one_line_and_exit_1(tmp_path: Path,
                                                                  url: str) -> None:
    out = tmp_path / "sitemap.xml"
    done = run(url, "-o", str(out), env=_env(), timeout=30)
    err = _one_line(done.stderr.decode())
    assert done.returncode == 1 and "cannot be fetched" in err, err
    assert "secret" not in err
    assert not out.exists()
    with pytest.raises(InputError):
        list(read(url))


@pytest.mark.slow
@pytest.mark.parametrize("url", [*_REFUSED, _CREDENTIALS])
def test_check_robots_url_no_request_can_carry_is_bad_usage(tmp_path: Path, url: str) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(_urlset("https://example.com/a"))
    done = run("check", str(path), "--robots", url, env=_env(), timeout=30)
    err = _one_line(done.stderr.decode())
    assert done.returncode == 2 and err.startswith("feed2sitemap: --robots: cannot be fetched")
    assert "secret" not in err


@pytest.mark.slow
@pytest.mark.parametrize("url", [*_REFUSED, _CREDENTIALS])
def test_an_indexnow_endpoint_no_request_can_carry_is_bad_usage(tmp_path: Path,
                                                                url: str) -> None:
    (tmp_path / "list.txt").write_text("https://example.com/a\nhttps://example.com/b\n")
    out = tmp_path / "sitemap.xml"
    out.write_bytes(_urlset("https://example.com/a"))
    before = out.read_bytes()
    done = run("sitemap.xml", "list.txt", "-o", "sitemap.xml", "--indexnow", KEY,
               "--indexnow-endpoint", url, cwd=tmp_path, env=_env(), timeout=30)
    err = _one_line(done.stderr.decode())
    assert done.returncode == 2, err
    assert ("IndexNow endpoint cannot take a request" in err
            or "IndexNow endpoint must not hold a user or a password" in err), err
    assert "secret" not in err
    assert out.read_bytes() == before  # refused before anything is written
    from feed2sitemap.web.indexnow import IndexNow

    with pytest.raises(OptionError):
        IndexNow(KEY, url)


def test_a_space_or_an_iri_in_an_input_urls_path_is_sent_encoded(server: _Server) -> None:
    """As a browser sends them (urls.request_url): the page is fetched, not refused."""
    for path, sent in [("/a b.txt", "/a%20b.txt"), ("/café.txt", "/caf%C3%A9.txt"),
                       ("/q?a[]=1", "/q?a%5B%5D=1")]:
        done = run(server.base + path, "-o", "-", env=_env(), timeout=30)
        assert done.returncode == 0, done.stderr
        assert b"<loc>https://example.com/from-the-server</loc>" in done.stdout
        assert server.paths[-1] == sent


def test_a_remote_index_part_urllib_cannot_split_is_one_line_and_exit_1(
        server: _Server) -> None:
    server.bodies["/index.xml"] = (
        f'<?xml version="1.0"?><sitemapindex xmlns="{NS}">'
        f"<sitemap><loc>{server.base}/good.xml</loc></sitemap>"
        "<sitemap><loc>http://[127.0.0.1/p.xml</loc></sitemap></sitemapindex>").encode()
    server.bodies["/good.xml"] = _urlset(server.base + "/a")
    done = run(server.base + "/index.xml", "--follow", "-o", "-", env=_env(), timeout=30)
    err = _one_line(done.stderr.decode())
    assert done.returncode == 1 and done.stdout == b""
    assert "part http://[127.0.0.1/p.xml is not a valid URL: Invalid IPv6 URL" in err
    assert "/p.xml" not in "".join(server.paths)


def test_a_local_index_part_urllib_cannot_split_is_one_line_and_exit_1(tmp_path: Path) -> None:
    index = tmp_path / "sitemap.xml"
    index.write_text(f'<?xml version="1.0"?><sitemapindex xmlns="{NS}">'
                     "<sitemap><loc>http://[x/s.xml</loc></sitemap></sitemapindex>")
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nSitemap: http://[x/s.xml\n")
    for args in ([str(index), "--follow"], [str(robots)]):
        for reference in (False, True):
            done = run(*args, "-o", "-", env=_env(reference), timeout=30)
            err = _one_line(done.stderr.decode())
            assert done.returncode == 1 and "http://[x/s.xml names no file" in err, err


def test_request_url_says_why() -> None:
    assert request_url("http://Example.com./a b#x") == "http://example.com./a%20b"
    for url, kind in [("http://a..b.com/", "bad host"), ("http://ex€.com/", "bad host"),
                      ("http://x.com/\n/", "invalid URL"), ("http://x.com:99999/", "invalid URL")]:
        with pytest.raises(BadURL) as err:
            request_url(url)
        assert err.value.kind == kind


# --- issue 35, item 5: "[" in a feed's site link or a JSON Feed's home_page_url ---------------

def test_a_bracket_in_a_feeds_site_link_is_a_counted_warning(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_text('<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
                    "<link>http://[example.com/</link><description>d</description>"
                    "<item><link>https://example.com/a</link></item>"
                    "<item><link>b</link></item><item><link>//[x/</link></item>"
                    "</channel></rss>")
    code, err, out = _both(str(feed), "-o", "-")
    assert code == 0 and "Traceback" not in err, err
    assert out.count(b"<loc>") == 1 and b"<loc>https://example.com/a</loc>" in out
    assert "the feed's site link 'http://[example.com/' is not a URL (Invalid IPv6 URL)" in err
    assert "warnings: 1 bad site URL" in err and "skipped 2: 2 invalid URL" in err
    report = Report()
    assert [r.loc for r in read(feed, report=report)] == ["https://example.com/a", "b", "//[x/"]
    assert report.warnings["bad site URL"] == 1


def test_a_bracket_in_a_json_feeds_home_page_url_is_a_counted_warning(tmp_path: Path) -> None:
    feed = tmp_path / "feed.json"
    feed.write_text(json.dumps({
        "version": "https://jsonfeed.org/version/1.1", "title": "t",
        "home_page_url": "http://[example.com/",
        "items": [{"id": "1", "url": "https://example.com/a"}, {"id": "2", "url": "b"}]}))
    code, err, out = _both(str(feed), "-o", "-")
    assert code == 0 and "Traceback" not in err, err
    assert out.count(b"<loc>") == 1 and b"<loc>https://example.com/a</loc>" in out
    assert "home_page_url 'http://[example.com/' is not a URL (Invalid IPv6 URL); ignored" in err
    assert "warnings: 1 bad home_page_url" in err
    done = run("check", str(feed))
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    assert b"home_page_url 'http://[example.com/' is not a URL" in done.stdout


def test_a_json_feed_item_url_urllib_cannot_split_is_skipped(tmp_path: Path) -> None:
    feed = tmp_path / "feed.json"
    feed.write_text(json.dumps({
        "version": "https://jsonfeed.org/version/1.1", "title": "t",
        "home_page_url": "https://example.com/",
        "items": [{"id": "1", "url": "https://example.com/a"}, {"id": "2", "url": "//[x/"}]}))
    code, err, out = _both(str(feed), "-o", "-")
    assert code == 0 and "Traceback" not in err, err
    assert out.count(b"<loc>") == 1 and "skipped 1: 1 invalid URL" in err
