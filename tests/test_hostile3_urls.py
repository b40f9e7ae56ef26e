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
from feed2sitemap.urls import BadURL, normalize_url

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
