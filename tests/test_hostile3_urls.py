"""Hostile URLs (issue 35, items 5 and 14; issue 33, item 7): through the installed command, in
both modes where the converter reads them, and through the library. Each case failed before
its fix. Every request goes to a server on 127.0.0.1; the URLs that are refused are refused
before any connection (a test of them never reaches the network).
"""

from __future__ import annotations

import io
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from feed2sitemap import Report, convert
from feed2sitemap.check import check
from feed2sitemap.mode import ENV
from feed2sitemap.urls import BadURL, normalize_locs, normalize_url

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
    """A local server answering every GET with a URL list, recording the paths asked for."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        paths = self.paths

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802  (http.server's name)
                paths.append(self.path)
                data = b"https://example.com/from-the-server\n"
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
    assert got.clean.locs[:-1] == locs[:-1]


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
