"""A new user's first day (session 17's hunt): the command's messages name the option the user
typed, and the library's entry points refuse a wrong value with the library's own error."""

from __future__ import annotations

import contextlib
import fcntl
import http.server
import os
import resource
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from feed2sitemap import Channel, Filters, Publish, Record, Report, Web, convert, diff, read, write
from feed2sitemap.check.run import check
from feed2sitemap.errors import OptionError

from .conftest import SAMPLES, command, run

BASE = "https://example.com/"
SAMPLE = str(SAMPLES / "sitemap.xml")


def test_an_unreadable_remove_list_is_named_by_its_option(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n")
    done = run("urls.txt", "--remove", "gone.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (b"feed2sitemap: --remove: cannot read gone.txt: "
                           b"No such file or directory\n")


@pytest.mark.parametrize("parameter, value", [
    ("defaults", {"changefreq": "daily"}), ("writing", {"gzip_level": 9}), ("limits", 1000),
    ("report", "x"), ("publish", None), ("reading", None), ("web", {"timeout": 3}),
    ("news", "The Times"), ("progress", "x"), ("channel", "x")])
def test_convert_refuses_an_option_group_of_the_wrong_type(tmp_path: Path, parameter: str,
                                                           value: object) -> None:
    """A dict or a string where an option group goes is the library's OptionError naming the
    parameter, before anything is read or written: not an AttributeError from deep inside,
    and not a run that reads `news="The Times"` as a News sitemap and writes nothing."""
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n")
    with pytest.raises(OptionError) as caught:
        convert([str(tmp_path / "urls.txt")], str(tmp_path / "out.xml"), **{parameter: value})
    assert caught.value.parameter == parameter
    assert f"`{parameter}`: must be a " in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["urls.txt"]


@pytest.mark.parametrize("call", [
    lambda out: convert(None, out),  # type: ignore[arg-type]
    lambda out: write(None, out),  # type: ignore[arg-type]
    lambda out: write(Record(BASE), out),  # type: ignore[arg-type]
    lambda out: write([Record(BASE)], out, limits=5000),  # type: ignore[arg-type]
    lambda out: write([Record(BASE)], out, writing={"gzip": True}),  # type: ignore[arg-type]
], ids=["convert-None", "write-None", "write-one-Record", "write-limits", "write-writing"])
def test_write_and_convert_refuse_what_is_not_a_sequence_or_a_group(
        tmp_path: Path, call: Callable[[str], object]) -> None:
    with pytest.raises(OptionError, match="must be a"):
        call(str(tmp_path / "out.xml"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_output_to_a_descriptor_writes_through_the_shells_file(tmp_path: Path,
                                                               target: str) -> None:
    """`-o /dev/stdout >> log` appends to the log the shell opened: the file is neither renamed
    over (its earlier lines lost) nor needs a temporary in /dev (which a plain user may not
    write)."""
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n")
    log = tmp_path / "log.txt"
    log.write_bytes(b"earlier line\n")
    inode = log.stat().st_ino
    with log.open("ab") as out:
        done = subprocess.run(command() + ["urls.txt", "-o", target, "-q"], cwd=tmp_path,
                              stdout=out, stderr=subprocess.PIPE, timeout=60)
    assert done.returncode == 0, done.stderr
    assert log.stat().st_ino == inode
    text = log.read_text()
    assert text.startswith("earlier line\n<?xml") and text.endswith("</urlset>\n"), text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt", "urls.txt"]


def _list(tmp_path: Path, n: int) -> None:
    (tmp_path / "urls.txt").write_text("".join(f"{BASE}page/{i}\n" for i in range(n)))


def test_a_closed_pipe_ends_an_unbuffered_run_with_sigpipe(tmp_path: Path) -> None:
    """Under PYTHONUNBUFFERED (set in many container images) stdout takes a write in part when
    its reader goes: the rest is written again, so the run ends by SIGPIPE, as documented,
    rather than with exit 0 after output it never gave."""
    _list(tmp_path, 10_000)  # under 1 MiB: one write
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    done = subprocess.run(
        ["bash", "-c", 'set -o pipefail; "$0" urls.txt -t text | head -1', *command()],
        cwd=tmp_path, capture_output=True, stdin=subprocess.DEVNULL, timeout=60, env=env)
    assert done.stdout == f"{BASE}page/0\n".encode()
    assert (done.returncode, done.stderr) == (141, b"")


@pytest.mark.parametrize("args", [["urls.txt", "-t", "text"], ["diff", "empty.txt", "urls.txt",
                                                                "--show", "10000"]],
                         ids=["convert", "diff"])
@pytest.mark.parametrize("unbuffered", ["1", pytest.param("", marks=pytest.mark.slow)],
                         ids=["unbuffered", "buffered"])
def test_a_non_blocking_stdout_gets_the_whole_output(tmp_path: Path, args: list[str],
                                                     unbuffered: str) -> None:
    """A stdout another program left non-blocking (a terminal after some tools, an event
    loop's pipe) took the first 64 KiB and dropped the rest with exit 0 (unbuffered), or ended
    in a BlockingIOError with exit 120: the command now waits for its reader."""
    _list(tmp_path, 10_000)
    (tmp_path / "empty.txt").write_text(f"{BASE}page/0\n")
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    proc = subprocess.Popen(command() + args, cwd=tmp_path, stdout=write_end,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    os.close(write_end)
    while proc.poll() is None and _waiting(read_end) < 65536:  # until the pipe is full
        time.sleep(0.02)
    with contextlib.suppress(subprocess.TimeoutExpired):  # (a run that drops output ends)
        proc.wait(timeout=1)
    with open(read_end, "rb") as f:
        out = f.read()
    assert proc.wait(timeout=60) == 0
    assert out.count(b"/page/") >= 9_999 and out.endswith(b"\n"), len(out)


def _waiting(fd: int) -> int:
    """The bytes in a pipe not yet read (FIONREAD)."""
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def test_a_part_linked_out_of_a_relative_index_names_the_directory(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _list(site, 25)
    assert run("urls.txt", "-o", "sitemap.xml", "--base-url", BASE, "--max-urls", "10",
               cwd=site).returncode == 0
    (site / "sitemap-3.xml").rename(tmp_path / "sitemap-3.xml")
    (site / "sitemap-3.xml").symlink_to(tmp_path / "sitemap-3.xml")
    done = run("sitemap.xml", "urls.txt", "-o", "sitemap.xml", "--base-url", BASE,
               "--max-urls", "10", cwd=site)
    assert done.returncode == 1
    assert done.stderr == (
        f"feed2sitemap: sitemap.xml:5: part sitemap-3.xml is a symbolic link out of {site} (to "
        f"{tmp_path}/sitemap-3.xml): refused, as a part is read and replaced in its index's "
        "directory; nothing was written\n").encode()


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX ACL as the kernel stores it (system.posix_acl_access): version 2, then each
    entry's tag, permissions and id."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def test_an_update_in_place_keeps_the_files_acl_and_attributes(tmp_path: Path) -> None:
    """A rename drops what the old file carried beyond its mode: an ACL that denies one user
    what the mode gives others would be lost, opening the file to that user."""
    _list(tmp_path, 3)
    assert run("urls.txt", "-o", "sitemap.xml", cwd=tmp_path).returncode == 0
    index = tmp_path / "sitemap.xml"
    anyone = 0xFFFFFFFF
    # rw- for the owner, nothing for uid 65534 (nobody), r-- for the group and others
    acl = _acl((1, 6, anyone), (2, 0, 65534), (4, 4, anyone), (0x10, 4, anyone),
               (0x20, 4, anyone))
    try:
        os.setxattr(index, "system.posix_acl_access", acl)
        os.setxattr(index, "user.mime_type", b"application/xml")
    except OSError as exc:
        pytest.skip(f"this file system keeps no ACL or user attributes: {exc}")
    _list(tmp_path, 25)
    done = run("sitemap.xml", "urls.txt", "-o", "sitemap.xml", "--base-url", BASE,
               "--max-urls", "10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in ["sitemap.xml", "sitemap-1.xml", "sitemap-3.xml"]:
        path = tmp_path / name
        assert os.getxattr(path, "system.posix_acl_access") == acl, name
        assert os.getxattr(path, "user.mime_type") == b"application/xml", name


def test_a_full_temporary_directory_is_named_when_stdout_cannot_be_prepared(
        tmp_path: Path) -> None:
    """stdout is spooled in TMPDIR first: when that fills, the message says so, rather than
    blaming stdout (which may be a pipe with all the room in the world)."""
    _list(tmp_path, 10_000)  # about 300 KB of text
    spool = tmp_path / "spool"
    spool.mkdir()
    done = subprocess.run(
        command() + ["urls.txt", "-t", "text"], cwd=tmp_path, capture_output=True,
        stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, "TMPDIR": str(spool)},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000)))
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr == (
        f"feed2sitemap: <stdout>: cannot write: File too large (the output is prepared in "
        f"{spool} first; TMPDIR chooses another directory); nothing was replaced\n").encode()


@pytest.mark.parametrize("make, parameter", [
    (lambda: Web(timeout=0), "timeout"),
    (lambda: Web(timeout="3"), "timeout"),  # type: ignore[arg-type]
    (lambda: Web(cache_dir=5), "cache_dir"),  # type: ignore[arg-type]
    (lambda: Web(max_parts=0), "max_parts"),
    (lambda: Publish(robots=1), "robots"),  # type: ignore[arg-type]  # (stdout's descriptor)
    (lambda: Publish(indexnow="abcdef0123456789"), "indexnow"),  # type: ignore[arg-type]
    (lambda: list(read(SAMPLE, report="x")), "report"),  # type: ignore[arg-type]
    (lambda: list(read(SAMPLE, web={"timeout": 1})), "web"),  # type: ignore[arg-type]
    (lambda: list(read(SAMPLE, base_url=5)), "base_url"),  # type: ignore[arg-type]
    (lambda: diff(SAMPLE, SAMPLE, show=-1), "show"),
    (lambda: diff(SAMPLE, SAMPLE, web={}), "web"),  # type: ignore[arg-type]
    (lambda: Filters(exclude="/drafts/**"), "exclude"),  # type: ignore[arg-type]
    (lambda: Channel(title=5), "title"),  # type: ignore[arg-type]
    (lambda: Report(on_problem="x"), "on_problem"),  # type: ignore[arg-type]
    (lambda: check(5), "source"),  # type: ignore[arg-type]
], ids=["timeout-0", "timeout-str", "cache-int", "max-parts-0", "robots-fd", "indexnow-str",
        "read-report", "read-web", "read-base-url", "diff-show", "diff-web", "exclude-str",
        "channel-title", "report-hook", "check-int"])
def test_web_publish_read_and_diff_refuse_a_wrong_value(make: Callable[[], object],
                                                        parameter: str) -> None:
    """Each was a TypeError or AttributeError from inside a fetch or a reader, or worse:
    `Publish(robots=1)` read and wrote robots.txt through file descriptor 1, and
    `Filters(exclude="/drafts/**")` took each character for a pattern (`*` left out every URL)."""
    with pytest.raises(OptionError) as caught:
        make()
    assert caught.value.parameter == parameter


def test_diff_names_no_option_it_does_not_have(tmp_path: Path) -> None:
    """diff reads an index's parts as the converter does, but has no --base-url: the hint
    that names it (`base_url` in backticks, as the library spells it) is left out."""
    (tmp_path / "index.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap>'
        f"<loc>{BASE}part.xml</loc></sitemap></sitemapindex>")
    _list(tmp_path, 2)
    done = run("diff", "index.xml", "urls.txt", "--follow", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == (b"feed2sitemap: index.xml:1: part https://example.com/part.xml is "
                           b"missing: no file part.xml; nothing was written\n")


def test_check_names_no_option_it_does_not_have(tmp_path: Path) -> None:
    """A redirect into a private network is refused when check fetches too; the converter's
    --allow-private-redirects, which check has not, is not offered (nor its library name)."""

    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(302)
            self.send_header("Location", f"http://localhost:{self.server.server_port}/x.xml")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/sitemap.xml"
        done = run("check", url, cwd=tmp_path)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 1
    assert done.stdout.decode() == (
        f"{url}:1:1: error: unreadable: redirected to http://localhost:{server.server_port}"
        "/x.xml: a loopback, private or link-local address, refused\n")


def test_a_limit_above_the_profile_is_named_once(tmp_path: Path) -> None:
    """It read `--profile: --max-urls: must be ...`: the profile's own error wrapped the
    limit's."""
    done = run(str(SAMPLES / "urls.txt"), "--max-urls", "99999999", "-o",
               str(tmp_path / "sitemap.xml"))
    assert done.returncode == 2
    assert done.stderr == (b"feed2sitemap: --max-urls: must be between 1 and 50,000 for "
                           b"profile sitemaps\n")
    assert not (tmp_path / "sitemap.xml").exists()
