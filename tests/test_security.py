"""Hostile and broken input, run through the installed command as users meet it.

Every case: exit 1, one clear message naming the input (and line where there is one), no
traceback, nothing written or replaced, done in seconds, peak memory under 200 MB.
"""

from __future__ import annotations

import gzip
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import command

MAX_RSS_MB = 200
NS = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
OLD = b"the earlier, good sitemap"


@dataclass
class Result:
    code: int
    stdout: bytes
    stderr: str
    peak_mb: float
    seconds: float  # CPU seconds (user + system) of the command


# Linux starts a child's peak RSS (ru_maxrss) at the size of the process that forked it, and
# pytest grows to hundreds of MB over a run. So the command is started by a small launcher
# (a bare interpreter, about 10 MB), which reports the command's own peak from wait4.
LAUNCHER = """
import os, resource, subprocess, sys
limit = int(sys.argv[2])
def pre():
    if limit:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
child = subprocess.Popen(sys.argv[3:], preexec_fn=pre)
_, status, usage = os.wait4(child.pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} "
            f"{usage.ru_utime + usage.ru_stime}")
"""


def run_measured(args: list[str], stdin: object = None, timeout: float = 60,
                 file_limit: int = 0) -> Result:
    """Run the installed command; measure its own peak RSS and CPU time (user + system: the
    bounds of these tests are on work done, which a busy machine does not stretch as it
    stretches wall time)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile("r") as report:
        launcher = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", LAUNCHER, report.name, str(file_limit),
             *command(), *args],
            stdin=stdin if stdin is not None else subprocess.DEVNULL, stdout=out, stderr=err)
        try:
            launcher.wait(timeout)
        except subprocess.TimeoutExpired:
            launcher.kill()
            pytest.fail(f"{args} did not finish in {timeout} s")
        fields = report.read().split()
        code, maxrss_kb, cpu = int(fields[0]), int(fields[1]), float(fields[2])
        out.seek(0)
        err.seek(0)
        return Result(code, out.read(), err.read().decode("utf-8", "replace"),
                      maxrss_kb / 1024, cpu)


def assert_refused(result: Result, *fragments: str) -> None:
    assert result.code == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("feed2sitemap: ")
    for fragment in fragments:
        assert fragment in lines[0]
    assert result.peak_mb < MAX_RSS_MB
    assert result.seconds < 30


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """An output file that already holds a good sitemap, which no failed run may touch."""
    path = tmp_path / "out" / "sitemap.xml"
    path.parent.mkdir()
    path.write_bytes(OLD)
    return path


def untouched(out: Path) -> None:
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in out.parent.iterdir()) == ["sitemap.xml"]


def convert_file(tmp_path: Path, out: Path, name: str, data: bytes, *args: str) -> Result:
    src = tmp_path / name
    src.write_bytes(data)
    return run_measured([str(src), "-o", str(out), *args])


# --- entities -----------------------------------------------------------------------------------

XXE_SITEMAP = (b'<?xml version="1.0"?>\n<!DOCTYPE urlset [\n'
               b'<!ENTITY secret SYSTEM "file:///etc/passwd">\n]>\n' + NS +
               b"<url><loc>https://e.example/&secret;</loc></url></urlset>")
XXE_FEED = (b'<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">'
            b']>\n<rss version="2.0"><channel><item><link>https://e.example/&secret;</link>'
            b"</item></channel></rss>")
LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
          + b"".join(b' <!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else
                                                       b"&lol;") * 10) for i in range(1, 10))
          + b"]>\n" + NS + b"<url><loc>https://e.example/&lol9;</loc></url></urlset>")
LAUGHS_FEED = LAUGHS.replace(NS, b'<rss version="2.0"><channel><item><link>').replace(
    b"</loc></url></urlset>", b"</link></item></channel></rss>").replace(
    b"<url><loc>", b"")


@pytest.mark.parametrize("name,data", [("xxe.xml", XXE_SITEMAP), ("xxe-feed.xml", XXE_FEED),
                                       ("laughs.xml", LAUGHS), ("laughs-feed.xml", LAUGHS_FEED)])
def test_entity_declarations_are_refused(name: str, data: bytes, tmp_path: Path,
                                         out: Path) -> None:
    result = convert_file(tmp_path, out, name, data)
    assert_refused(result, name, "entities")
    assert b"root:" not in result.stdout and "root:" not in result.stderr
    untouched(out)


def test_xxe_content_never_reaches_stdout(tmp_path: Path) -> None:
    src = tmp_path / "xxe.xml"
    src.write_bytes(XXE_SITEMAP)
    result = run_measured([str(src), "-t", "text"])
    assert result.code == 1 and result.stdout == b""


# --- not a sitemap, feed or text list ----------------------------------------------------------

@pytest.mark.parametrize("name,data,fragments", [
    ("binary.bin", b"\x00\x01\x02\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, ["binary data"]),
    ("latin1.txt", b"https://e.example/a\nhttps://e.example/caf\xe9\n", [":2:", "byte offset 41"]),
    ("page.html", b"<!DOCTYPE html>\n<html><body>hi</body></html>", ["<html>"]),
    ("empty.xml", b"", ["empty"]),
    ("broken.xml", NS + b"\n<url><loc>https://e.example/a</loc></url>\n<url><loc>https://e.exa"
     b"mple/b</url>\n</urlset>", [":3:", "not well-formed"]),
])
def test_not_an_input_we_read(name: str, data: bytes, fragments: list[str], tmp_path: Path,
                              out: Path) -> None:
    assert_refused(convert_file(tmp_path, out, name, data), name, *fragments)
    untouched(out)


def test_bad_field_values_are_dropped_with_a_warning_and_strict_refuses(tmp_path: Path,
                                                                        out: Path) -> None:
    doc = (NS + b"\n<url><loc>https://e.example/a</loc><lastmod>last week</lastmod>"
           b"<changefreq>often</changefreq><priority>7</priority></url>\n</urlset>")
    result = convert_file(tmp_path, out, "fields.xml", doc)
    assert result.code == 0
    assert result.stderr.count("fields.xml:2: warning:") == 3
    assert out.read_bytes().count(b"<url><loc>https://e.example/a</loc></url>") == 1
    out.write_bytes(OLD)
    assert_refused(convert_file(tmp_path, out, "fields.xml", doc, "--strict"), "fields.xml:2:")
    untouched(out)


# --- size ---------------------------------------------------------------------------------------

def test_gzip_bomb_is_stopped_early_not_held(tmp_path: Path, out: Path) -> None:
    # 300 MB of whitespace (and a comment every 64 KiB) inside a urlset, compressed to a few
    # hundred KB: streamed, and stopped at the first run of white space over 64 KiB
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [z.compress(NS)]
    block = (b" " * (1 << 16 - 8) + b"<!-- -->") * 16
    parts += [z.compress(block) for _ in range(300)]
    parts.append(z.compress(b"</urlset>") + z.flush())
    result = convert_file(tmp_path, out, "bomb.xml.gz", b"".join(parts))
    assert_refused(result, "bomb.xml.gz:1:", "white space longer than 65,536")
    assert result.seconds < 5
    untouched(out)


def test_feed_over_the_size_limit_is_refused_without_reading_it_all(tmp_path: Path,
                                                                    out: Path) -> None:
    item = b"<item><link>https://e.example/p</link></item>\n"
    feed = b'<rss version="2.0"><channel>' + item * 30000 + b"</channel></rss>"
    result = convert_file(tmp_path, out, "big-feed.xml", feed, "--max-feed-bytes", "1000000")
    assert_refused(result, "big-feed.xml", "larger than 1,000,000 bytes", "--max-feed-bytes")
    untouched(out)


def _pipe_from(code: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def test_300_mb_text_line_is_refused_without_holding_it(out: Path) -> None:
    gen = _pipe_from("import sys\nw = sys.stdout.buffer.write\nw(b'https://e.example/')\n"
                     "try:\n    [w(b'a' * (1 << 20)) for _ in range(300)]\nexcept "
                     "BrokenPipeError:\n    pass\n")
    result = run_measured(["-", "-o", str(out)], stdin=gen.stdout)
    gen.stdout.close()  # type: ignore[union-attr]
    gen.wait()
    assert_refused(result, "<stdin>:1:", "longer than 65,536 bytes")
    untouched(out)


@pytest.mark.parametrize("where", ["value", "attribute"])
def test_300_mb_xml_value_is_refused_without_holding_it(where: str, out: Path) -> None:
    head = (NS.decode() + ("<url><loc>https://e.example/" if where == "value"
                           else '<url><loc x="'))
    gen = _pipe_from(f"import sys\nw = sys.stdout.buffer.write\nw({head.encode()!r})\n"
                     "try:\n    [w(b'a' * (1 << 20)) for _ in range(300)]\nexcept "
                     "BrokenPipeError:\n    pass\n")
    result = run_measured(["-", "-o", str(out)], stdin=gen.stdout)
    gen.stdout.close()  # type: ignore[union-attr]
    gen.wait()
    assert_refused(result, "<stdin>:1:")
    untouched(out)


# --- output faults ------------------------------------------------------------------------------

URLS = b"".join(b"https://e.example/page/%d\n" % i for i in range(20000))


def test_output_directory_missing(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(URLS)
    result = run_measured([str(src), "-o", str(tmp_path / "nope" / "sitemap.xml")])
    assert_refused(result, "cannot write", "nope does not exist")
    assert not (tmp_path / "nope").exists()


def test_output_directory_not_writable(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(URLS)
    # /proc refuses new files even to root, as a read-only or full file system would
    result = run_measured([str(src), "-o", "/proc/sitemap.xml"])
    assert_refused(result, "/proc", "cannot write")


def test_file_size_limit_is_a_clear_error_and_leaves_no_temporary(tmp_path: Path,
                                                                   out: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(URLS)

    # `ulimit -f 64` (KiB): writes past it fail with EFBIG
    result = run_measured([str(src), "-o", str(out)], file_limit=64 * 1024)
    assert_refused(result, "cannot write", "too large")
    untouched(out)


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_run_removes_temporaries_and_keeps_the_old_output(sig: int, code: int,
                                                                      out: Path) -> None:
    proc = subprocess.Popen(command() + ["-", "-o", str(out)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None
    proc.stdin.write(URLS)
    proc.stdin.flush()
    deadline = time.monotonic() + 20
    while len(list(out.parent.iterdir())) < 2:  # wait for the temporary to appear
        assert time.monotonic() < deadline, "no temporary appeared"
        time.sleep(0.02)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == code
    assert "Traceback" not in err.decode()
    assert ("interrupted" if sig == signal.SIGINT else "terminated") in err.decode()
    untouched(out)


def test_gzip_truncated_is_a_clear_error(tmp_path: Path, out: Path) -> None:
    data = gzip.compress(URLS)[:-100]
    assert_refused(convert_file(tmp_path, out, "cut.txt.gz", data), "cut.txt.gz", "truncated")
    untouched(out)
