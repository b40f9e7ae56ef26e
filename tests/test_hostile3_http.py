"""A server is hostile input too (issue 35, the HTTP items 4, 6, 7, 8, 17, 25 and 26).

Every server here is a real one on 127.0.0.1: a raw socket server that writes the bytes a test
gives it, malformed on purpose (socketserver in a thread). Nothing else is ever reached. Every
server loop and every run is bounded: a test takes seconds.
"""

from __future__ import annotations

import base64
import os
import socket
import socketserver
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from feed2sitemap import InputError, OptionError, ReadOptions, Web, read

from .conftest import run

SITE = "https://example.com/"
OLD = b"the previous output, untouched\n"

Answer = Callable[[socket.socket, dict[str, str]], None]


class RawServer:
    """Answers each request by its path with raw bytes (or a function writing them); records
    the path and headers of every request."""

    def __init__(self) -> None:
        self.answers: dict[str, Answer] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                sock: socket.socket = self.request
                sock.settimeout(5)
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    data = sock.recv(4096)
                    if not data:
                        return
                    head += data
                lines = head.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
                server.requests.append((path, headers))
                answer = server.answers.get(path, raw(b"HTTP/1.1 404 Not Found\r\n"
                                                      b"Content-Length: 0\r\n\r\n"))
                try:
                    answer(sock, headers)
                except OSError:  # the client hung up: what a test may well expect
                    pass

        socketserver.ThreadingTCPServer.daemon_threads = True
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.tcp = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.port = self.tcp.server_address[1]
        threading.Thread(target=self.tcp.serve_forever, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def close(self) -> None:
        self.tcp.shutdown()
        self.tcp.server_close()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[RawServer]:
    for name in list(os.environ):  # the library's own requests go straight to 127.0.0.1
        if "proxy" in name.lower():
            monkeypatch.delenv(name)
    s = RawServer()
    yield s
    s.close()


def raw(data: bytes) -> Answer:
    def answer(sock: socket.socket, headers: dict[str, str]) -> None:
        sock.sendall(data)
    return answer


def ok(data: bytes, *headers: str) -> Answer:
    extra = "".join(f"{h}\r\n" for h in headers)
    return raw(f"HTTP/1.1 200 OK\r\nContent-Length: {len(data)}\r\n{extra}\r\n".encode() + data)


def dribble(head: bytes, every: float, limit: int = 600) -> Answer:
    """``head``, then a byte every ``every`` seconds (at most ``limit`` of them)."""
    def answer(sock: socket.socket, headers: dict[str, str]) -> None:
        sock.sendall(head)
        for _ in range(limit):
            time.sleep(every)
            sock.sendall(b"x")
    return answer


def urls(n: int, start: int = 0) -> bytes:
    return "".join(f"{SITE}p{i}\n" for i in range(start, start + n)).encode()


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}


def convert(tmp_path: Path, *args: str) -> tuple[int, str, bytes]:
    """The command writing tmp_path/out.txt, which holds OLD before: its code, its stderr
    and what out.txt holds after."""
    out = tmp_path / "out.txt"
    out.write_bytes(OLD)
    done = run(*args, "-t", "text", "-o", str(out), env=env(), timeout=60)
    return done.returncode, done.stderr.decode(), out.read_bytes()


def one_line_error(err: str, url: str) -> None:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith(f"feed2sitemap: {url}: "), err


# --- item 4: protocol errors are one-line messages, never tracebacks ----------------------

CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
MALFORMED = {
    "truncated chunk": (CHUNKED + b"10\r\n" + SITE.encode() + b"a", "cut short"),
    "huge chunk size": (CHUNKED + b"FFFFFFFFFFFFFFFF\r\n" + urls(2) + b"\r\n0\r\n\r\n",
                        "cut short"),
    "negative chunk size": (CHUNKED + b"-5\r\n" + urls(2) + b"\r\n0\r\n\r\n", "chunk size"),
    "chunk size not a number": (CHUNKED + b"zz\r\n" + urls(2) + b"\r\n0\r\n\r\n",
                                "chunked encoding is malformed"),
    "header line over 64 KiB": (b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n",
                                "header line"),
    "not HTTP": (b"SSH-2.0-OpenSSH_9.0\r\n\r\n", "not an HTTP answer"),
    "more than 100 headers": (b"HTTP/1.1 200 OK\r\n" + b"".join(
        b"X-%d: y\r\n" % i for i in range(120)) + b"\r\n" + urls(1), "100 headers"),
    "nothing at all": (b"", "closed the connection without an answer"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_answer_is_a_one_line_error_and_nothing_is_written(
        server: RawServer, tmp_path: Path, case: str) -> None:
    data, said = MALFORMED[case]
    server.answers["/in"] = raw(data)
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert said in err


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_the_library_raises_input_error_naming_the_url(server: RawServer, case: str) -> None:
    server.answers["/in"] = raw(MALFORMED[case][0])
    with pytest.raises(InputError) as caught:
        list(read(server.url("/in"), ReadOptions(from_format="text"), web=Web(timeout=5)))
    assert caught.value.source == server.url("/in")


def test_indexnow_answered_by_a_non_http_server_is_a_one_line_error(
        server: RawServer, tmp_path: Path) -> None:
    server.answers["/indexnow"] = raw(b"SSH-2.0-OpenSSH_9.0\r\n\r\n")
    (tmp_path / "in.txt").write_bytes(urls(2))
    done = run("sitemap.xml", "in.txt", "-o", "sitemap.xml", "--base-url", SITE, "--indexnow",
               "0123456789abcdef0123456789abcdef", "--indexnow-endpoint",
               server.url("/indexnow"), cwd=tmp_path, env=env(), timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 1 and "Traceback" not in err
    assert "IndexNow: cannot reach" in err and "2 URLs were not submitted" in err
    assert len(list(read(tmp_path / "sitemap.xml"))) == 2  # written, and not rolled back


# --- item 6: a body cut short of its Content-Length is an error, never cached --------------

def short(data: bytes, announced: int, *headers: str) -> Answer:
    extra = "".join(f"{h}\r\n" for h in headers)
    return raw(f"HTTP/1.1 200 OK\r\nContent-Length: {announced}\r\n{extra}\r\n".encode()
               + data)


def test_a_body_cut_short_of_its_content_length_is_an_error(server: RawServer,
                                                             tmp_path: Path) -> None:
    server.answers["/in"] = short(urls(3), 1000)
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert "cut short" in err and "of the 1,000 bytes" in err
    with pytest.raises(InputError, match="cut short"):
        list(read(server.url("/in"), ReadOptions(from_format="text")))


def test_a_body_cut_short_never_becomes_the_cached_copy(server: RawServer,
                                                        tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    server.answers["/in"] = ok(urls(2), 'ETag: "v1"')
    code, err, _ = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 0, err
    (body,) = cache.glob("*.body")
    assert body.read_bytes() == urls(2)
    server.answers["/in"] = short(urls(3, 10), 1000, 'ETag: "v2"')
    code, err, out = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 1 and "cut short" in err and out == OLD
    assert body.read_bytes() == urls(2)  # the earlier, complete copy
    assert not list(cache.glob("*.tmp"))
    # and a URL with no copy yet gets none
    server.answers["/new"] = short(urls(3), 1000, 'ETag: "v1"')
    code, err, _ = convert(tmp_path, server.url("/new"), "--cache", str(cache))
    assert code == 1 and len(list(cache.glob("*.body"))) == 1


# --- item 7: --cache and a 304 with no copy, or a directory it cannot write ---------------

NOT_MODIFIED = b"HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\n\r\n"


def test_a_304_with_no_cached_copy_is_a_clear_error(server: RawServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    server.answers["/in"] = raw(NOT_MODIFIED)
    code, err, out = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert "HTTP 304 Not Modified to a request that was not conditional" in err
    with pytest.raises(InputError, match="304"):
        list(read(server.url("/in"), ReadOptions(from_format="text"),
                  web=Web(cache_dir=str(cache))))


def test_a_cached_copy_gone_is_fetched_again_unconditionally(server: RawServer,
                                                             tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()

    def answer(sock: socket.socket, headers: dict[str, str]) -> None:
        sock.sendall(NOT_MODIFIED if "If-None-Match" in headers else
                     b'HTTP/1.1 200 OK\r\nETag: "v1"\r\nContent-Length: %d\r\n\r\n'
                     % len(urls(2)) + urls(2))

    server.answers["/in"] = answer
    assert convert(tmp_path, server.url("/in"), "--cache", str(cache))[0] == 0
    next(cache.glob("*.body")).unlink()
    code, err, out = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 0, err
    assert out == urls(2)
    assert "If-None-Match" not in server.requests[-1][1]


def unwritable(tmp_path: Path) -> Path:
    """A directory this process cannot create a file in (as root: /proc)."""
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o500)
    if os.access(cache, os.W_OK):
        if not os.path.isdir("/proc"):
            pytest.skip("no directory this process cannot write in")
        return Path("/proc")
    return cache


def test_a_cache_directory_that_cannot_be_written_is_a_one_line_error(
        server: RawServer, tmp_path: Path) -> None:
    cache = unwritable(tmp_path)
    server.answers["/in"] = ok(urls(2), 'ETag: "v1"')
    code, err, out = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 1 and out == OLD and "Traceback" not in err
    assert err.count("\n") == 1
    assert f"feed2sitemap: {cache}: cannot write in the cache directory" in err
    assert server.requests == []  # refused before anything was fetched
    with pytest.raises(InputError, match="cannot write in the cache directory"):
        list(read(server.url("/in"), ReadOptions(from_format="text"),
                  web=Web(cache_dir=str(cache))))


# --- item 8: an overall deadline and a size cap for every input by URL ---------------------

HEAD_200 = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + urls(2)


def test_a_server_sending_a_byte_now_and_then_is_cut_off_by_the_deadline(
        server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = dribble(HEAD_200, 0.2)
    start = time.monotonic()
    code, err, out = convert(tmp_path, server.url("/in"), "--timeout", "1", "--max-time", "2")
    assert code == 1 and out == OLD and time.monotonic() - start < 15
    one_line_error(err, server.url("/in"))
    assert "not fetched within 2 s in all (--max-time)" in err


def test_the_default_deadline_is_ten_timeouts(server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = dribble(HEAD_200, 0.1)
    start = time.monotonic()
    code, err, out = convert(tmp_path, server.url("/in"), "--timeout", "0.3")
    assert code == 1 and out == OLD and time.monotonic() - start < 15
    assert "not fetched within 3 s in all" in err


def test_a_server_dribbling_its_headers_is_cut_off_too(server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = dribble(b"HTTP/1.1 200 OK\r\nX-Slow: ", 0.1)
    start = time.monotonic()
    code, err, out = convert(tmp_path, server.url("/in"), "--timeout", "1", "--max-time", "1")
    assert code == 1 and out == OLD and time.monotonic() - start < 15
    one_line_error(err, server.url("/in"))
    assert "not fetched within 1 s in all" in err


def test_the_library_deadline(server: RawServer) -> None:
    server.answers["/in"] = dribble(HEAD_200, 0.1)
    start = time.monotonic()
    with pytest.raises(InputError, match="not fetched within 1 s in all"):
        list(read(server.url("/in"), ReadOptions(from_format="text"),
                  web=Web(timeout=1, max_time=1)))
    assert time.monotonic() - start < 10


def endless_urls(sock: socket.socket, headers: dict[str, str]) -> None:
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
    for i in range(2000):  # bounded: about 100 MB if nobody stops reading
        sock.sendall(urls(1000, i * 1000))


def test_an_endless_list_of_urls_is_capped(server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = endless_urls
    start = time.monotonic()
    code, err, out = convert(tmp_path, server.url("/in"), "--max-fetch-bytes", "1000000")
    assert code == 1 and out == OLD and time.monotonic() - start < 20
    one_line_error(err, server.url("/in"))
    assert "more than 1,000,000 bytes (--max-fetch-bytes)" in err
    with pytest.raises(InputError, match="more than 1,000,000 bytes"):
        list(read(server.url("/in"), ReadOptions(from_format="text"),
                  web=Web(max_fetch_bytes=1_000_000)))


def test_a_body_announced_over_the_cap_is_refused_before_it_is_read(
        server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = short(urls(2), 5_000_000)
    code, err, out = convert(tmp_path, server.url("/in"), "--max-fetch-bytes", "1000000")
    assert code == 1 and out == OLD
    assert "more than 1,000,000 bytes (it says 5,000,000)" in err


def test_within_the_bounds_a_slow_server_is_still_read(server: RawServer, tmp_path: Path) -> None:
    data = urls(3)

    def slow(sock: socket.socket, headers: dict[str, str]) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(data))
        for i in range(0, len(data), 30):
            time.sleep(0.05)
            sock.sendall(data[i:i + 30])

    server.answers["/in"] = slow
    code, err, out = convert(tmp_path, server.url("/in"), "--timeout", "2")
    assert code == 0, err
    assert out == data


# --- item 17: a password is never shown; the cache is the owner's, and no link is read -----

def test_a_password_in_a_url_is_sent_but_never_shown(server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = ok(urls(1))
    url = server.url("/in").replace("http://", "http://user:s3cr%40t@")
    code, err, out = convert(tmp_path, url)
    assert code == 0, err
    assert out == urls(1) and "s3cr" not in err
    auth = server.requests[-1][1]["Authorization"]
    assert base64.b64decode(auth.split()[1]) == b"user:s3cr@t"
    code, err, out = convert(tmp_path, url.replace("/in", "/gone"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/gone"))
    assert "HTTP 404" in err and "s3cr" not in err and "user" not in err
    with pytest.raises(InputError) as caught:
        list(read(url.replace("/in", "/gone"), ReadOptions(from_format="text")))
    assert "s3cr" not in str(caught.value) and caught.value.source == server.url("/gone")


@pytest.mark.parametrize("url,shown", [
    ("http://u:p@h/x", "http://h/x"), ("https://u:p%40q@h:8/x?t=1#f", "https://h:8/x?t=1#f"),
    ("http://h/x?a=b@c", "http://h/x?a=b@c"), ("http://h?a=b@c", "http://h?a=b@c"),
    ("http://a@b@h", "http://h"), ("http://h/x", "http://h/x")])
def test_redact_drops_the_user_and_password_only(url: str, shown: str) -> None:
    from feed2sitemap.web.fetch import redact

    assert redact(url) == shown


def test_a_password_is_not_sent_where_the_url_redirects(server: RawServer,
                                                        tmp_path: Path) -> None:
    server.answers["/old"] = raw(b"HTTP/1.1 301 Moved\r\nLocation: /in\r\n"
                                 b"Content-Length: 0\r\n\r\n")
    server.answers["/in"] = ok(urls(1))
    code, err, _ = convert(tmp_path, server.url("/old").replace("http://", "http://u:pw@"))
    assert code == 0, err
    assert "Authorization" in server.requests[0][1]
    assert "Authorization" not in server.requests[1][1]


def test_the_cache_is_the_owners_and_keeps_no_token(server: RawServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    server.answers["/in?token=TOPSECRET"] = ok(urls(2), 'ETag: "v1"')
    code, err, _ = convert(tmp_path, server.url("/in?token=TOPSECRET"), "--cache", str(cache))
    assert code == 0, err
    files = sorted(cache.iterdir())
    assert [f.suffix for f in files] == [".body", ".json"]
    for f in files:
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f
    assert b"TOPSECRET" not in files[1].read_bytes()


def test_a_cached_body_planted_as_a_link_is_not_read(server: RawServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_bytes(f"{SITE}secret\n".encode())

    def answer(sock: socket.socket, headers: dict[str, str]) -> None:
        sock.sendall(NOT_MODIFIED if "If-None-Match" in headers else
                     b'HTTP/1.1 200 OK\r\nETag: "v1"\r\nContent-Length: %d\r\n\r\n'
                     % len(urls(2)) + urls(2))

    server.answers["/in"] = answer
    assert convert(tmp_path, server.url("/in"), "--cache", str(cache))[0] == 0
    body = next(cache.glob("*.body"))
    body.unlink()
    body.symlink_to(secret)
    code, err, out = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 0, err
    assert out == urls(2) and b"secret" not in out
    assert "If-None-Match" not in server.requests[-1][1]  # fetched again, unconditionally
    assert secret.read_bytes() == f"{SITE}secret\n".encode()  # the link's target untouched
    assert not body.is_symlink()


# --- item 25: redirects into the machine's own network, and parts off their index's host ---

def moved(to: str) -> Answer:
    return raw(f"HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\r\n".encode())


def test_a_redirect_to_a_loopback_address_on_another_host_is_refused(
        server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = moved(server.url("/real", host="localhost"))
    server.answers["/real"] = ok(urls(2))
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert "a loopback, private or link-local address, refused (--allow-private-redirects)" \
        in err
    assert [p for p, _ in server.requests] == ["/in"]
    code, err, out = convert(tmp_path, server.url("/in"), "--allow-private-redirects")
    assert code == 0, err
    assert out == urls(2)
    with pytest.raises(InputError, match="link-local address, refused"):
        list(read(server.url("/in"), ReadOptions(from_format="text")))
    assert list(read(server.url("/in"), ReadOptions(from_format="text"),
                     web=Web(allow_private_redirects=True)))


def test_a_redirect_on_the_same_host_is_followed(server: RawServer, tmp_path: Path) -> None:
    server.answers["/in"] = moved("/real")
    server.answers["/real"] = ok(urls(2))
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 0, err
    assert out == urls(2)


def test_a_redirect_to_another_port_of_the_same_host_is_followed(server: RawServer,
                                                                 tmp_path: Path) -> None:
    other = RawServer()  # (as http to https would be: same host, another port)
    try:
        other.answers["/real"] = ok(urls(2))
        server.answers["/in"] = moved(other.url("/real"))
        code, err, out = convert(tmp_path, server.url("/in"))
    finally:
        other.close()
    assert code == 0, err
    assert out == urls(2)


@pytest.mark.parametrize("address", ["169.254.169.254", "10.0.0.1", "192.168.1.1", "127.0.0.2",
                                     "::1", "fe80::1", "::ffff:127.0.0.1", "100.64.0.1",
                                     "0.0.0.0"])
def test_addresses_of_the_machines_own_network_are_not_public(address: str) -> None:
    from feed2sitemap.web.fetch import _public

    assert not _public(address)  # (an address: nothing is resolved or reached)


def test_a_public_address_is_public() -> None:
    from feed2sitemap.web.fetch import _public

    assert _public("93.184.215.14")


def sitemap_index(*locs: str) -> bytes:
    return ('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
            + "</sitemapindex>").encode()


def urlset(*locs: str) -> bytes:
    return ('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(f"<url><loc>{loc}</loc></url>" for loc in locs) + "</urlset>").encode()


def test_a_part_that_redirects_off_its_indexs_host_is_not_followed(server: RawServer,
                                                                   tmp_path: Path) -> None:
    server.answers["/index.xml"] = ok(sitemap_index(server.url("/a.xml"), server.url("/b.xml")))
    server.answers["/a.xml"] = ok(urlset(f"{SITE}a"))
    server.answers["/b.xml"] = moved(server.url("/elsewhere.xml", host="localhost"))
    server.answers["/elsewhere.xml"] = ok(urlset(f"{SITE}elsewhere"))
    for extra in ((), ("--allow-private-redirects",)):
        code, err, out = convert(tmp_path, server.url("/index.xml"), "--follow",
                                 "--skip-unreadable-parts", *extra)
        assert code == 0, err
        assert out == f"{SITE}a\n".encode()
        assert "a part is fetched from its index's host only" in err
        assert "/elsewhere.xml" not in [p for p, _ in server.requests]
    code, err, out = convert(tmp_path, server.url("/index.xml"), "--follow",
                             "--no-scope-check", "--allow-private-redirects")
    assert code == 0, err
    assert out == f"{SITE}a\n{SITE}elsewhere\n".encode()


# --- item 26: each HTTP answer its own message ----------------------------------------------

@pytest.mark.parametrize("answer,said", [
    (NOT_MODIFIED, "HTTP 304 Not Modified to a request that was not conditional"),
    (b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n",
     "HTTP 302 Found: a redirect without a Location"),
    (b"HTTP/1.1 300 Multiple Choices\r\nContent-Length: 0\r\n\r\n",
     "HTTP 300 Multiple Choices"),
])
def test_a_3xx_answer_says_what_it_was(server: RawServer, tmp_path: Path, answer: bytes,
                                       said: str) -> None:
    server.answers["/in"] = raw(answer)
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert said in err and "redirects" not in err


def test_the_library_checks_the_bounds_when_they_are_made() -> None:
    for bad in (dict(max_time=-1), dict(max_time=float("inf")), dict(max_fetch_bytes=0)):
        with pytest.raises(OptionError) as caught:
            Web(**bad)  # type: ignore[arg-type]
        assert caught.value.parameter == next(iter(bad))
    assert Web(max_time=0).max_time == 0  # no limit, when asked for


def test_a_cache_entry_planted_as_a_link_is_replaced_not_written_through(
        server: RawServer, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    target = tmp_path / "someone-elses.json"
    target.write_bytes(b"keep me")
    server.answers["/in"] = ok(urls(2), 'ETag: "v1"')
    assert convert(tmp_path, server.url("/in"), "--cache", str(cache))[0] == 0
    entry = next(cache.glob("*.json"))
    entry.unlink()
    entry.symlink_to(target)
    code, err, out = convert(tmp_path, server.url("/in"), "--cache", str(cache))
    assert code == 0, err
    assert out == urls(2)
    assert "If-None-Match" not in server.requests[-1][1]
    assert target.read_bytes() == b"keep me"
    assert not entry.is_symlink() and stat.S_IMODE(entry.stat().st_mode) == 0o600


def test_an_indexnow_endpoint_with_a_password_is_refused_and_not_shown(tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_bytes(urls(1))
    done = run("sitemap.xml", "in.txt", "-o", "sitemap.xml", "--base-url", SITE, "--indexnow",
               "0123456789abcdef0123456789abcdef", "--indexnow-endpoint",
               "http://user:s3cret@127.0.0.1:9/indexnow", cwd=tmp_path, env=env(), timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 2 and "Traceback" not in err and "s3cret" not in err
    assert "must not hold a user or a password" in err
    assert not (tmp_path / "sitemap.xml").exists()


def test_a_url_that_does_not_parse_is_a_one_line_error(server: RawServer,
                                                       tmp_path: Path) -> None:
    code, err, out = convert(tmp_path, "http://[::1/feed")
    assert code == 1 and out == OLD
    one_line_error(err, "http://[::1/feed")
    assert "not a valid URL" in err
    server.answers["/in"] = moved("http://[::1/feed")
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert "not a valid URL" in err
    server.answers["/index.xml"] = ok(sitemap_index("http://[::1/part.xml"))
    code, err, out = convert(tmp_path, server.url("/index.xml"), "--follow")
    assert code == 1 and out == OLD and "Traceback" not in err
    assert "part http://[::1/part.xml is not a valid URL" in err


def test_what_a_server_says_is_shown_without_control_characters(server: RawServer,
                                                                tmp_path: Path) -> None:
    server.answers["/in"] = raw(b"HTTP/1.1 404 \x1b[2J\x1b]0;pwned\x07\r\n"
                                b"Content-Length: 0\r\n\r\n")
    code, err, out = convert(tmp_path, server.url("/in"))
    assert code == 1 and out == OLD
    one_line_error(err, server.url("/in"))
    assert "HTTP 404" in err and "\x1b" not in err and "\x07" not in err
