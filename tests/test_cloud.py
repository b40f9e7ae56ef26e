"""Sitemaps on object storage (issue 39), against a real S3 API: moto's server on 127.0.0.1,
reached only through AWS_ENDPOINT_URL, as a user's own S3-compatible endpoint would be."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple, Optional

import pytest
from click.testing import CliRunner

from feed2sitemap import convert
from feed2sitemap.cli.check import check_command
from feed2sitemap.cli.main import convert_command
from feed2sitemap.errors import OptionError, OutputError
from feed2sitemap.files import store

from .conftest import command, run

pytest.importorskip("s3fs", reason="object storage needs s3fs (the cloud extra)")
moto_server = pytest.importorskip("moto.server", reason="the S3 API is moto's server")

SECRET = "s3cr3t-NEVER-SHOWN"
KEY_ID = "AKIAEXAMPLEKEYID"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A new bucket, and the environment that reaches it (for this process and the command)."""
    for name, value in (("AWS_ENDPOINT_URL", endpoint), ("AWS_ACCESS_KEY_ID", KEY_ID),
                        ("AWS_SECRET_ACCESS_KEY", SECRET), ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    import fsspec
    import s3fs

    # a client made for another module's server is not handed out again (fsspec keeps one per
    # set of options, and the endpoint is not one of them)
    s3fs.S3FileSystem.clear_instance_cache()
    fs = fsspec.filesystem("s3", use_listings_cache=False)
    fs.bucket = "b" + uuid.uuid4().hex[:12]
    fs.mkdir(fs.bucket)
    return fs


def urls(tmp: Path, name: str, numbers: range) -> str:
    path = tmp / name
    path.write_text("".join(f"https://ex.com/p{i}\n" for i in numbers))
    return str(path)


def objects(fs: Any) -> dict[str, bytes]:
    return {p.rpartition("/")[2]: fs.cat_file(p) for p in fs.find(fs.bucket)}


class Done(NamedTuple):
    returncode: int
    stdout: bytes
    stderr: bytes


def cli(*args: str) -> Done:
    """The command run in this process (importing s3fs once, not once a run)."""
    check = args[0] == "check"
    done = CliRunner().invoke(check_command if check else convert_command,
                              list(args[1:] if check else args))
    if done.exit_code not in (0, 1, 2):
        raise done.exception or AssertionError(done.output)
    return Done(done.exit_code, done.stdout.encode(), done.stderr.encode())


def grow(fs: Any, *inputs: str, extra: tuple[str, ...] = ()) -> Done:
    out = f"s3://{fs.bucket}/sitemap.xml"
    return cli(*inputs, "-o", out, "--base-url", "https://ex.com/", "--max-urls", "10", *extra)


def test_split_output_to_a_bucket_then_check_and_follow_from_it(s3: Any, tmp: Path) -> None:
    done = grow(s3, urls(tmp, "a.txt", range(25)), extra=("--cache-control", "max-age=60"))
    assert done.returncode == 0, done.stderr
    assert f"wrote s3://{s3.bucket}/sitemap-3.xml".encode() in done.stderr
    assert sorted(objects(s3)) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml",
                                   "sitemap.xml"]
    info = s3.info(f"{s3.bucket}/sitemap-1.xml")
    assert info["ContentType"] == "application/xml"
    head = s3.call_s3("head_object", Bucket=s3.bucket, Key="sitemap-1.xml")
    assert head["CacheControl"] == "max-age=60"
    index = f"s3://{s3.bucket}/sitemap.xml"
    checked = cli("check", "--follow", index, "--base-url", "https://ex.com/")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert b"4 files checked, 25 URLs" in checked.stderr
    flat = cli(index, "--follow", "-o", str(tmp / "all.txt"))
    assert flat.returncode == 0, flat.stderr
    assert len((tmp / "all.txt").read_text().split()) == 25
    s3.rm_file(f"{s3.bucket}/sitemap-2.xml")  # a missing part is an error, not a gap
    broken = cli("check", "--follow", index, "--base-url", "https://ex.com/")
    assert broken.returncode == 1 and b"sitemap-2.xml is missing" in broken.stdout


def test_the_cron_line_grows_the_live_set_and_leaves_unchanged_objects(s3: Any,
                                                                       tmp: Path) -> None:
    out = f"s3://{s3.bucket}/sitemap.xml"
    assert grow(s3, urls(tmp, "a.txt", range(25))).returncode == 0
    before = s3.info(f"{s3.bucket}/sitemap-1.xml")["LastModified"]
    # the cron line, through the installed command
    done = run(out, urls(tmp, "b.txt", range(25, 32)), "-o", out, "--base-url",
               "https://ex.com/", "--max-urls", "10")
    assert done.returncode == 0, done.stderr
    assert b"7 URLs added" in done.stderr and b"/tmp" not in done.stderr
    assert f"unchanged s3://{s3.bucket}/sitemap-1.xml".encode() in done.stderr
    assert s3.info(f"{s3.bucket}/sitemap-1.xml")["LastModified"] == before
    assert sorted(objects(s3)) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml",
                                   "sitemap-4.xml", "sitemap.xml"]
    assert b"<loc>https://ex.com/sitemap-4.xml</loc>" in objects(s3)["sitemap.xml"]
    # fewer URLs: the parts the new index no longer lists go, after it is in place
    done = grow(s3, urls(tmp, "c.txt", range(5)))
    assert done.returncode == 0, done.stderr
    assert sorted(objects(s3)) == ["sitemap.xml"]
    assert b"<urlset" in objects(s3)["sitemap.xml"]


def test_objects_the_index_does_not_list_are_never_replaced(s3: Any, tmp: Path) -> None:
    s3.pipe_file(f"{s3.bucket}/sitemap-2.xml", b"the user's")
    done = grow(s3, urls(tmp, "a.txt", range(25)))
    assert done.returncode == 1
    assert b"sitemap-2.xml: exists, and the index" in done.stderr
    assert objects(s3) == {"sitemap-2.xml": b"the user's"}


def test_a_failed_upload_leaves_the_earlier_set_as_it_was(s3: Any, tmp: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    out = f"s3://{s3.bucket}/sitemap.xml"
    convert([urls(tmp, "a.txt", range(25))], out, base_url="https://ex.com/",
            limits=_limits())
    earlier = objects(s3)
    real = s3.put_file
    calls = []

    def failing(lpath: str, rpath: str, **kw: Any) -> Any:
        calls.append(rpath)
        if len(calls) == 3:  # the store refuses the third object, mid-run
            raise PermissionError("Access Denied")
        return real(lpath, rpath, **kw)

    # (fsspec hands every caller with these options this one client: the run's too)
    monkeypatch.setattr(s3, "put_file", failing)
    with pytest.raises(OutputError, match="cannot upload: access denied; nothing was changed"):
        convert([urls(tmp, "b.txt", range(100, 140))], out, base_url="https://ex.com/",
                limits=_limits())
    assert len(calls) > 3  # (the two replaced parts were put back)
    monkeypatch.undo()
    assert objects(s3) == earlier


def test_an_index_another_writer_changed_meanwhile_is_not_overwritten(
        s3: Any, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = f"s3://{s3.bucket}/sitemap.xml"
    convert([urls(tmp, "a.txt", range(25))], out, base_url="https://ex.com/", limits=_limits())
    earlier = objects(s3)
    real = s3.put_file

    def racing(lpath: str, rpath: str, **kw: Any) -> Any:
        if rpath.endswith("/sitemap-1.xml"):  # a deploy script rewrites the index meanwhile
            s3.pipe_file(f"{s3.bucket}/sitemap.xml", b"theirs")
        return real(lpath, rpath, **kw)

    monkeypatch.setattr(s3, "put_file", racing)
    with pytest.raises(OutputError, match="another writer changed it since this run read it; "
                                          "nothing was changed"):
        convert([urls(tmp, "b.txt", range(100, 140))], out, base_url="https://ex.com/",
                limits=_limits())
    monkeypatch.undo()
    assert objects(s3) == {**earlier, "sitemap.xml": b"theirs"}


def _limits() -> Any:
    from feed2sitemap.model.options import Limits

    return Limits(max_urls=10)


@pytest.mark.slow  # (two commands at once, ~3 s of CPU: the held lock is the default's check)
def test_two_runs_at_once_take_turns(s3: Any, tmp: Path) -> None:
    out = f"s3://{s3.bucket}/sitemap.xml"
    assert grow(s3, urls(tmp, "a.txt", range(25))).returncode == 0
    args = ["-o", out, "--base-url", "https://ex.com/", "--max-urls", "10"]
    runs = [subprocess.Popen(command() + [out, urls(tmp, f"{n}.txt", range(n, n + 30)), *args],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL) for n in (1000, 2000)]
    for p in runs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
    flat = cli(out, "--follow", "-o", str(tmp / "all.txt"))
    assert flat.returncode == 0, flat.stderr
    assert len(set((tmp / "all.txt").read_text().split())) == 25 + 60  # neither run lost


def test_a_held_lock_makes_a_run_wait_then_fail_clearly(s3: Any, tmp: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    s3.pipe_file(f"{s3.bucket}/.sitemap.xml.lock", b"another run")
    done = grow(s3, urls(tmp, "a.txt", range(5)), extra=("--lock-timeout", "0.5"))
    assert done.returncode == 1
    assert b"another run is writing there (waited 0.5 s for its lock" in done.stderr
    assert sorted(objects(s3)) == [".sitemap.xml.lock"]
    monkeypatch.setattr(store, "STALE_LOCK", 0.0)  # a dead run's lock is taken over
    convert([urls(tmp, "a.txt", range(5))], f"s3://{s3.bucket}/sitemap.xml")
    assert sorted(objects(s3)) == ["sitemap.xml"]


def test_messages_never_show_credentials(s3: Any, tmp: Path) -> None:
    source = urls(tmp, "a.txt", range(5))
    for args in ([source, "-o", "s3://no-such-bucket-x/sitemap.xml"],
                 [f"s3://{s3.bucket}/missing.txt?X-Amz-Signature=abc", "-o", "-"],
                 ["check", f"s3://no-such-bucket-x/sitemap.xml?token={SECRET}"]):
        done = cli(*args)
        text = done.stdout + done.stderr
        assert done.returncode == 1, text
        assert SECRET.encode() not in text and KEY_ID.encode() not in text
        assert b"Traceback" not in text and b"X-Amz-Signature" not in text
        assert len(done.stderr.splitlines()) == 1 or args[0] == "check"
    assert cli(source, "-o", "s3://no-such-bucket-x/sitemap.xml").stderr == (
        b"feed2sitemap: s3://no-such-bucket-x/sitemap.xml: cannot write: no such bucket\n")


def test_without_the_extra_an_s3_url_names_it(tmp: Path) -> None:
    code = ("import sys; sys.modules['fsspec'] = None; sys.argv = ['feed2sitemap', "
            f"{str(tmp / 'a.txt')!r}, '-o', 's3://b/sitemap.xml']\n"
            "from feed2sitemap.cli.entry import main; main()")
    Path(urls(tmp, "a.txt", range(3)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          env={**os.environ, "AWS_ENDPOINT_URL": "http://127.0.0.1:9"})
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        b"feed2sitemap: s3://b/sitemap.xml: object storage needs the cloud extra: "
        b"pip install 'feed2sitemap[cloud]'"]


def test_writers_that_cannot_publish_to_a_bucket_refuse_it() -> None:
    from feed2sitemap import write
    from feed2sitemap.model.record import Record

    with pytest.raises(OptionError, match="written by convert"):
        write([Record("https://ex.com/a")], "s3://b/sitemap.xml")
    with pytest.raises(OptionError, match="s3:// only"):
        convert(["https://ex.com/a"], "gs://b/sitemap.xml")


def test_the_cache_in_a_bucket_makes_the_second_request_conditional(s3: Any, tmp: Path) -> None:
    asked: list[Optional[str]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.headers.get("If-None-Match"))
            if asked[-1] == '"v1"':
                self.send_response(304)
                self.end_headers()
                return
            data = b"https://ex.com/a\nhttps://ex.com/b\n"
            self.send_response(200)
            self.send_header("ETag", '"v1"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url, cache = f"http://127.0.0.1:{server.server_port}/list.txt", f"s3://{s3.bucket}/cache"
    try:
        first = cli(url, "-t", "text", "-o", str(tmp / "one.txt"), "--cache", cache)
        assert first.returncode == 0, first.stderr
        assert sorted(n.rpartition(".")[2] for n in objects(s3)) == ["body", "json"]
        second = cli(url, "-t", "text", "-o", str(tmp / "two.txt"), "--cache", cache)
    finally:
        server.shutdown()
        server.server_close()
    assert second.returncode == 0, second.stderr
    assert asked == [None, '"v1"'] and b"the cached copy was read" in second.stderr
    assert (tmp / "two.txt").read_text() == (tmp / "one.txt").read_text()


def test_report_remove_lists_and_robots_txt_in_a_bucket(s3: Any, tmp: Path) -> None:
    assert grow(s3, urls(tmp, "a.txt", range(5))).returncode == 0
    s3.pipe_file(f"{s3.bucket}/gone.txt", b"# gone\nhttps://ex.com/p3\n")
    s3.pipe_file(f"{s3.bucket}/robots.txt", b"User-agent: *\nDisallow: /p4\n")
    done = cli(urls(tmp, "b.txt", range(5)), "-o", str(tmp / "out.txt"), "-t", "text",
               "--remove", f"s3://{s3.bucket}/gone.txt")
    assert done.returncode == 0, done.stderr
    assert "https://ex.com/p3" not in (tmp / "out.txt").read_text()
    checked = cli("check", f"s3://{s3.bucket}/sitemap.xml", "--robots",
                  f"s3://{s3.bucket}/robots.txt")
    assert b"https://ex.com/p4 is disallowed" in checked.stdout
    made = run("report", f"s3://{s3.bucket}/sitemap.xml", "-o", f"s3://{s3.bucket}/r.html")
    assert made.returncode == 0, made.stderr
    assert made.stderr.endswith(f"; written to s3://{s3.bucket}/r.html\n".encode())
    assert s3.info(f"{s3.bucket}/r.html")["ContentType"] == "text/html; charset=utf-8"
    assert b"Made by feed2sitemap report" in s3.cat_file(f"{s3.bucket}/r.html")


@pytest.mark.parametrize("args", [
    ("index", "s3://b/sitemap-1-1.xml", "-o", "index.xml", "--base-url", "https://ex.com/"),
    ("index", "LIST", "-o", "s3://b/sitemap.xml", "--base-url", "https://ex.com/"),
    ("check", "--site", "s3://b/site", "LIST", "--base-url", "https://ex.com/"),
    ("LIST", "-o", "out.xml", "--lastmod-from", "content", "--state", "s3://b/state.json"),
    ("LIST", "-o", "out.xml", "--base-url", "https://ex.com/", "--robots", "s3://b/robots.txt"),
])
def test_paths_that_stay_on_disk_refuse_a_bucket_in_one_line(args: tuple[str, ...],
                                                             tmp: Path) -> None:
    listed = urls(tmp, "a.txt", range(3))
    done = run(*(listed if a == "LIST" else a for a in args), cwd=tmp)
    url = next(a for a in args if a.startswith("s3://")).encode()
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()] and url in done.stderr
    assert b"disk" in done.stderr and sorted(os.listdir(tmp)) == ["a.txt"]
