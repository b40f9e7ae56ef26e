"""Hostile input, round 3 (issue 35): each attack through the installed command, and through
the library where it applies. Each case failed before its fix.
"""

from __future__ import annotations

import http.server
import io
import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from feed2sitemap import InputError, ReadOptions, Report, WriteOptions, convert

from .conftest import run

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
PASSWD = b"root:x:0:0:root:/root:/bin/bash\nsecret:x:1000:1000::/home/secret:/bin/sh\n"


def _urls(n: int, start: int = 0) -> bytes:
    return "".join(f"https://example.com/p{i}\n" for i in range(start, start + n)).encode()


@pytest.fixture
def split_set(tmp_path: Path) -> Path:
    """A live set of two parts and an index in site/, as the cron line leaves it."""
    src = tmp_path / "urls.txt"
    src.write_bytes(_urls(50_010))
    index = tmp_path / "site" / "sitemap.xml"
    index.parent.mkdir()
    done = run(str(src), "-o", str(index), "--base-url", "https://example.com/", "-q")
    assert done.returncode == 0, done.stderr
    assert (index.parent / "sitemap-2.xml").is_file()
    return index


# --- 1. a part planted as a symlink out of the output's directory -----------------------------

@pytest.mark.slow
def test_a_part_linked_out_of_the_directory_is_neither_read_nor_overwritten(
        split_set: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "etc" / "passwd"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(PASSWD)
    part = split_set.parent / "sitemap-2.xml"
    part.unlink()
    part.symlink_to(elsewhere)
    index_before = split_set.read_bytes()
    feed = tmp_path / "feed.txt"
    feed.write_bytes(b"https://example.com/new\n")
    done = run(str(split_set), str(feed), "-o", str(split_set),
               "--base-url", "https://example.com/")
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert "symbolic link out of" in err and "Traceback" not in err
    assert "secret" not in err  # the linked file's lines are never echoed
    assert elsewhere.read_bytes() == PASSWD
    assert part.is_symlink() and split_set.read_bytes() == index_before
    # reading the set (no output there) and check refuse it the same way
    done = run(str(split_set), "--follow", "-t", "text")
    assert done.returncode == 1 and b"symbolic link out of" in done.stderr
    done = run("check", str(split_set), "--follow")
    assert done.returncode == 1 and b"symbolic link out of" in done.stdout


def test_a_part_linked_within_the_directory_is_still_followed(split_set: Path) -> None:
    directory = split_set.parent
    (directory / "real-2.xml").write_bytes((directory / "sitemap-2.xml").read_bytes())
    (directory / "sitemap-2.xml").unlink()
    (directory / "sitemap-2.xml").symlink_to("real-2.xml")
    done = run(str(split_set), "--follow", "-t", "text")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"\n") == 50_010


def test_the_writer_refuses_to_replace_a_listed_part_linked_out(split_set: Path,
                                                               tmp_path: Path) -> None:
    """Even when nothing reads it first (a library run that does not update in place), a
    part name that links out of the directory is not written through."""
    elsewhere = tmp_path / "victim"
    elsewhere.write_bytes(PASSWD)
    part = split_set.parent / "sitemap-2.xml"
    part.unlink()
    part.symlink_to(elsewhere)
    with pytest.raises(Exception) as caught:
        convert([io.BytesIO(_urls(50_020))], str(split_set),
                base_url="https://example.com/")
    assert "symbolic link out of" in str(caught.value)
    assert elsewhere.read_bytes() == PASSWD


# --- 2. an index that names one part many times --------------------------------------------------

def _index(locs: list[str]) -> bytes:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n{body}'
            "</sitemapindex>\n").encode()


def _urlset(n: int) -> bytes:
    body = "".join(f"<url><loc>https://example.com/u{i}</loc></url>\n" for i in range(n))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}'
            "</urlset>\n").encode()


class _Counting(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    hits: dict[str, int] = {}

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = self.files.get(self.path)
        self.hits[self.path] = self.hits.get(self.path, 0) + 1
        if body is None:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Counting]]]:
    handler = type("Handler", (_Counting,), {"files": {}, "hits": {}})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_a_part_listed_2000_times_is_read_once_and_the_repeats_reported(tmp_path: Path) -> None:
    (tmp_path / "part.xml").write_bytes(_urlset(1000))
    index = tmp_path / "index.xml"
    index.write_bytes(_index(["https://example.com/part.xml"] * 2000))
    done = run(str(index), "--follow", "-t", "text", timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert done.stdout.count(b"\n") == 1000
    assert "1,999 repeated part" in err and "listed again" in err
    report = Report()
    out = io.BytesIO()
    summary = convert([str(index)], out, report=report, reading=ReadOptions(follow=True),
                      writing=WriteOptions(to="text"))
    assert sum(p.count for p in summary.parts) == 1000
    assert out.getvalue().count(b"\n") == 1000 and report.warnings["repeated part"] == 1999


def test_a_part_listed_again_by_url_is_fetched_once(server: tuple[str, type[_Counting]]) -> None:
    base, handler = server
    handler.files["/part.xml"] = _urlset(10).replace(b"https://example.com", base.encode())
    handler.files["/index.xml"] = _index([f"{base}/part.xml"] * 50)
    done = run(f"{base}/index.xml", "--follow", "-t", "text")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(b"\n") == 10
    assert handler.hits["/part.xml"] == 1
    assert b"49 repeated part" in done.stderr


# --- 3. JSON Lines foreign elements write only XML names -----------------------------------------

INJECTION = ("x/></url><url><loc>https://evil.example.org/i</loc></url>"
             "<url><loc>https://example.com/b")


@pytest.mark.slow
@pytest.mark.parametrize("foreign", [
    {"namespace": "urn:x", "name": INJECTION},
    {"namespace": "urn:x", "name": "ok", "attributes": [['a" b="c', "v"]]},
    {"namespace": "urn:x", "name": "ok", "attributes": [["a", "1"], ["a", "2"]]},
    {"namespace": "urn:x", "name": "ok", "attributes": [["xmlns", "urn:evil"]]},
    {"namespace": NS, "name": "url"},
    {"namespace": "urn:x", "name": "a:b"},
    {"namespace": "urn:x", "name": "ok", "children": [{"namespace": "urn:x", "name": "<i>"}]},
    {"namespace": "urn:x", "name": 5},
    {"namespace": "urn:x", "name": "ok", "attributes": [[1, 2]]},
    {"namespace": "urn:x", "name": "ok", "attributes": {"a": "b"}},
    {"namespace": "", "name": "plain"},  # the schema's ##other: never no namespace
])
def test_a_foreign_element_with_a_name_that_is_not_xml_is_dropped_with_a_warning(
        foreign: dict[str, object], tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    lines = [{"loc": "https://example.com/a", "foreign": [foreign]},
             {"loc": "https://example.com/c"}]
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out = tmp_path / "sitemap.xml"
    done = run(str(src), "-o", str(out), "--base-url", "https://example.com/")
    err = done.stderr.decode()
    assert done.returncode == 0, err
    assert "warnings: 1 bad extension" in err and "Traceback" not in err
    written = out.read_bytes()
    assert b"evil" not in written
    assert written.count(b"<url>") == 2
    assert run("check", str(out)).returncode == 0


def test_foreign_values_are_escaped_and_the_file_checks(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    foreign = {"namespace": 'urn:x?"<&', "name": "ok", "attributes": [["a", 'v<&"\'']],
               "children": ["t<&>]]>", {"namespace": "", "name": "inner"}]}
    src.write_text(json.dumps({"loc": "https://example.com/a", "foreign": [foreign]}) + "\n")
    out = tmp_path / "sitemap.xml"
    done = run(str(src), "-o", str(out), "--base-url", "https://example.com/")
    assert done.returncode == 0, done.stderr
    import xml.etree.ElementTree as ET

    url = ET.parse(out).getroot()[0]
    element = url[1]
    assert element.tag == '{urn:x?"<&}ok' and element.get("a") == 'v<&"\''
    assert element.text == "t<&>]]>" and element[0].tag == "inner"


def test_the_library_writer_refuses_a_foreign_name_it_would_write_raw() -> None:
    from feed2sitemap import Record, write
    from feed2sitemap.extensions.model import Foreign
    from feed2sitemap.model.extensions import Extensions

    record = Record("https://example.com/a",
                    extensions=Extensions(foreign=(Foreign("urn:x", "a><b"),)))
    with pytest.raises(ValueError, match="not an XML name"):
        write([record], io.BytesIO())


def test_an_error_from_read_names_the_file_for_the_linked_part(split_set: Path,
                                                               tmp_path: Path) -> None:
    target = tmp_path / "outside.xml"
    target.write_bytes(_urlset(3))
    part = split_set.parent / "sitemap-1.xml"
    part.unlink()
    part.symlink_to(target)
    with pytest.raises(InputError) as caught:
        convert([str(split_set)], io.BytesIO(), reading=ReadOptions(follow=True))
    assert "sitemap.xml" in str(caught.value) and "symbolic link out of" in str(caught.value)


def test_a_foreign_element_may_hold_children_of_no_namespace(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    foreign = {"namespace": "urn:x", "name": "ok", "children": [{"namespace": "",
                                                                 "name": "inner"}]}
    src.write_text(json.dumps({"loc": "https://example.com/a", "foreign": [foreign]}) + "\n")
    out = tmp_path / "sitemap.xml"
    done = run(str(src), "-o", str(out), "--base-url", "https://example.com/")
    assert done.returncode == 0 and b"warning" not in done.stderr, done.stderr
    assert b'<inner xmlns=""/>' in out.read_bytes()
    assert run("check", str(out)).returncode == 0


def test_a_json_line_with_half_a_surrogate_pair_is_skipped_naming_its_line(
        tmp_path: Path) -> None:
    """json reads "\\ud800" as a lone surrogate, which no writer can encode as UTF-8: the
    JSON Lines output crashed on it. A proper pair (an emoji) is read."""
    src = tmp_path / "in.jsonl"
    src.write_text('{"loc": "https://example.com/a", "images": [{"loc": '
                   '"https://example.com/i.jpg", "caption": "x\\udfff"}]}\n'
                   '{"loc": "https://example.com/b\\ud83d\\ude00"}\n')
    for fmt in ("jsonl", "xml"):
        done = run(str(src), "-t", fmt)
        err = done.stderr.decode()
        assert done.returncode == 0, err
        assert "in.jsonl:1: skipped: a \\uD800-\\uDFFF escape" in err and "Traceback" not in err
        assert b"example.com/b%F0%9F%98%80" in done.stdout and b"/a" not in done.stdout


def test_a_signal_raised_inside_a_finalizer_is_not_lost() -> None:
    """Python cannot let an exception out of a finalizer (a generator the collector closes, a
    __del__): a signal whose handler raised there was printed as a traceback and the run went
    on as if none had come (seen once in issue 35's signal test). It is sent again."""
    code = (
        "import os, signal, sys, time\n"
        "from feed2sitemap.cli import common as cli_common\n"
        "cli_common.start_run((signal.SIGTERM,))\n"
        "class Late:\n"
        "    def __del__(self):\n"
        "        os.kill(os.getpid(), signal.SIGTERM)\n"
        "        for _ in range(1000): time.sleep(0.001)\n"
        "try:\n"
        "    Late()\n"
        "    for _ in range(2000): time.sleep(0.001)\n"
        "    print('not stopped')\n"
        "except cli_common.Terminated as exc:\n"
        "    print('stopped', exc.signum)\n")
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert done.stdout == b"stopped 15\n", done
    assert b"Exception ignored" not in done.stderr and b"Traceback" not in done.stderr


@pytest.mark.parametrize("mode", ["fast", "reference"])
def test_a_namespace_declared_inside_an_entry_is_read_not_dropped(tmp_path: Path,
                                                                  mode: str) -> None:
    """Our writer declares a namespace met after the first batch on the element itself; the
    reader lost such an entry's extensions without a word (found by fuzz_outputs.py's round
    trip), so an in-place run dropped them from the live sitemap."""
    env = dict(os.environ, FEED2SITEMAP_REFERENCE="1" if mode == "reference" else "0")
    lines = [{"loc": f"https://example.com/p{i}"} for i in range(3000)]
    lines.append({"loc": "https://example.com/pic",
                  "images": [{"loc": "https://example.com/pic.jpg"}]})
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first = tmp_path / "first.xml"
    assert run(str(src), "-o", str(first), "-q", env=env).returncode == 0
    assert b'<image:image xmlns:image="' in first.read_bytes()  # declared on the element
    again = tmp_path / "again.jsonl"
    done = run(str(first), "-o", str(again), env=env)
    assert done.returncode == 0 and b"warning" not in done.stderr, done.stderr
    last = json.loads(again.read_text().splitlines()[-1])
    assert last["images"] == [{"loc": "https://example.com/pic.jpg"}]
