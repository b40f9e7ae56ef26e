"""Hostile input, round 3 (issue 35): robots.txt editing (--robots) and the URLs that part names
become. Each case through the installed command, and through the library where it applies;
each failed before its fix.
"""

from __future__ import annotations

import fcntl
import io
import os
import re
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from feed2sitemap import Limits, OutputError, Publish, convert
from feed2sitemap.files.naming import url_segment
from feed2sitemap.web.robotsfile import MAX_ROBOTS_BYTES, update_robots

from .conftest import command, run

SITE = "https://example.com/"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _urls(n: int, start: int = 0) -> bytes:
    return "".join(f"{SITE}p{i}\n" for i in range(start, start + n)).encode()


def _one_line_error(done: subprocess.CompletedProcess[bytes], *words: str) -> str:
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "urls.txt").write_bytes(_urls(3))
    return tmp_path


def _convert(site: Path, robots: Path | str, *args: str,
             timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return run("urls.txt", "-o", "sitemap.xml", "--base-url", SITE, "--robots", str(robots),
               *args, cwd=site, timeout=timeout)


# --- 9. a robots.txt larger than what is read -----------------------------------------------

@pytest.mark.parametrize("size", [MAX_ROBOTS_BYTES + 1, 17 << 20])
def test_a_robots_txt_over_the_bound_is_refused_whole_before_anything_is_written(
        site: Path, size: int) -> None:
    robots = site / "robots.txt"
    line = b"Disallow: /private/" + b"x" * 80 + b"\n"
    body = line * (size // len(line)) + b"Sitemap: https://example.com/other.xml\n"
    robots.write_bytes(body[-size:])
    before = robots.read_bytes()
    done = _convert(site, robots)
    _one_line_error(done, "robots.txt", "500 KiB", "nothing was written")
    assert robots.read_bytes() == before  # never cut
    assert not (site / "sitemap.xml").exists()


def test_a_robots_txt_just_within_the_bound_is_edited_whole(site: Path) -> None:
    robots = site / "robots.txt"
    head = b"User-agent: *\n"
    body = head + b"#" * (MAX_ROBOTS_BYTES - 200 - len(head)) + b"\n# end\n"
    robots.write_bytes(body)
    done = _convert(site, robots)
    assert done.returncode == 0, done.stderr
    assert robots.read_bytes() == body + f"Sitemap: {SITE}sitemap.xml\n".encode()


def test_the_library_refuses_a_robots_txt_over_the_bound_and_leaves_it(site: Path) -> None:
    robots = site / "robots.txt"
    body = b"# filler\n" * (2 * MAX_ROBOTS_BYTES // 9)
    robots.write_bytes(body)
    with pytest.raises(OutputError, match="500 KiB"):
        update_robots(str(robots), [f"{SITE}s.xml"], lambda url: True)
    assert robots.read_bytes() == body
    with pytest.raises(OutputError, match="nothing was written"):
        convert([io.BytesIO(_urls(3))], str(site / "s.xml"), base_url=SITE,
                publish=Publish(robots=str(robots)))
    assert not (site / "s.xml").exists() and robots.read_bytes() == body


def test_a_robots_txt_the_lines_would_push_over_the_bound_is_left_as_it_was(
        site: Path) -> None:
    robots = site / "robots.txt"
    body = b"#" * (MAX_ROBOTS_BYTES - 10) + b"\n"
    robots.write_bytes(body)
    done = _convert(site, robots)
    _one_line_error(done, "500 KiB", "robots.txt was left as it was")
    assert robots.read_bytes() == body


# --- 10. a robots.txt that is a FIFO, a device or a directory -------------------------------

def _special(kind: str, where: Path) -> Path:
    path = where / "robots.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "fifo-link":
        os.mkfifo(where / "pipe")
        path.symlink_to("pipe")
    elif kind == "device":
        try:  # a null device of our own, never the system's /dev/null
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device node needs root")
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize(("kind", "said"), [("fifo", "a FIFO"), ("fifo-link", "a FIFO"),
                                            ("device", "a character device"),
                                            ("directory", "a directory")])
def test_a_robots_path_that_is_no_regular_file_is_refused_before_any_write(
        site: Path, kind: str, said: str) -> None:
    path = _special(kind, site)
    mode = os.stat(path).st_mode
    done = _convert(site, path, timeout=30)  # a FIFO without a writer hung the run for good
    _one_line_error(done, said, "not a regular file", "nothing was written")
    assert os.stat(path).st_mode == mode  # still what it was, never replaced by a file
    assert not (site / "sitemap.xml").exists()
    assert [p.name for p in site.iterdir() if p.name.startswith(".")] == []


def test_the_library_refuses_a_fifo_without_opening_it(site: Path) -> None:
    path = _special("fifo", site)
    # in a process of its own, bounded: before the fix the open waited for a writer forever
    code = textwrap.dedent(f"""
        from feed2sitemap import OutputError
        from feed2sitemap.web.robotsfile import update_robots
        try:
            update_robots({str(path)!r}, ["{SITE}s.xml"], lambda url: True)
        except OutputError as exc:
            print(exc)
        """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert b"a FIFO, not a regular file" in done.stdout
    assert stat.S_ISFIFO(os.stat(path).st_mode)


# --- 11. two runs sharing one robots.txt ----------------------------------------------------

@pytest.mark.slow
def test_two_runs_sharing_a_robots_txt_both_keep_their_line(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / f"{name}.txt").write_bytes(
            "".join(f"{SITE}{name}/p{i}\n" for i in range(3)).encode())
    for trial in range(20):
        if trial % 2:
            robots.write_bytes(b"User-agent: *\nDisallow: /tmp/\n")
        else:
            robots.unlink(missing_ok=True)  # created by whichever run comes first
        runs = [subprocess.Popen(command() + [f"{name}.txt", "-o", f"{name}/sitemap.xml",
                                              "--base-url", f"{SITE}{name}/", "--robots",
                                              "robots.txt", "-q"],
                                 cwd=tmp_path, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for name in ("a", "b")]
        for p in runs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, err
        text = robots.read_text()
        assert f"Sitemap: {SITE}a/sitemap.xml\n" in text, (trial, text)
        assert f"Sitemap: {SITE}b/sitemap.xml\n" in text, (trial, text)
        assert text.count("Sitemap:") == 2, (trial, text)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _start(site: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command() + ["urls.txt", "-o", "sitemap.xml", "--base-url", SITE,
                                         "--robots", "robots.txt", *args],
                            cwd=site, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _wait_for(path: Path) -> None:
    for _ in range(600):  # at most 30 s
        if path.exists():
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


def test_a_run_waits_for_the_lock_on_robots_txt_and_edits_the_file_it_finds_then(
        site: Path) -> None:
    robots = site / "robots.txt"
    robots.write_bytes(b"User-agent: *\n")
    with open(robots, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another run editing it
        p = _start(site)
        try:
            _wait_for(site / "sitemap.xml")  # written before robots.txt is edited
            with pytest.raises(subprocess.TimeoutExpired):
                p.wait(timeout=1.5)
            # the other run puts its version in place, as this tool does: by a rename
            fresh = site / "fresh"
            fresh.write_bytes(b"User-agent: *\nSitemap: https://example.com/other.xml\n")
            os.replace(fresh, robots)
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert robots.read_text() == ("User-agent: *\nSitemap: https://example.com/other.xml\n"
                                  f"Sitemap: {SITE}sitemap.xml\n")


def test_a_robots_txt_locked_for_longer_than_the_lock_timeout_is_left_alone(
        site: Path) -> None:
    robots = site / "robots.txt"
    robots.write_bytes(b"User-agent: *\n")
    with open(robots, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        done = _convert(site, robots, "--lock-timeout", "0.5")
    _one_line_error(done, "robots.txt: another run is editing it (waited 0.5 s)",
                    "the sitemaps were written, robots.txt was left as it was")
    assert robots.read_bytes() == b"User-agent: *\n" and (site / "sitemap.xml").exists()


def test_library_edits_from_two_processes_are_never_lost(tmp_path: Path) -> None:
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\n")
    code = textwrap.dedent("""
        import sys
        from feed2sitemap.web.robotsfile import update_robots
        path, who = sys.argv[1], sys.argv[2]
        for i in range(40):
            url = f"https://example.com/{who}-{i}.xml"
            update_robots(path, [url], lambda u, url=url: u == url)
        """)
    runs = [subprocess.Popen([sys.executable, "-c", code, str(robots), who])
            for who in ("a", "b")]
    for p in runs:
        assert p.wait(timeout=60) == 0
    lines = robots.read_text().splitlines()
    assert sorted(lines[1:]) == sorted(f"Sitemap: {SITE}{who}-{i}.xml" for who in ("a", "b")
                                       for i in range(40))


# --- 12. file names in URLs -----------------------------------------------------------------

def test_url_segment_encodes_what_a_path_segment_may_not_hold() -> None:
    assert url_segment("sitemap-1.xml.gz") == "sitemap-1.xml.gz"
    assert url_segment("my sitemap#1-2.xml") == "my%20sitemap%231-2.xml"
    assert url_segment("a?b%c\nd\r\te.xml") == "a%3Fb%25c%0Ad%0D%09e.xml"
    assert url_segment("carte-été.xml") == "carte-%C3%A9t%C3%A9.xml"
    assert url_segment(os.fsdecode(b"bad\xff.xml")) == "bad%FF.xml"
    assert url_segment("a/b\\c") == "a%2Fb%5Cc"
    assert url_segment("!$&'()*+,;=:@~.xml") == "!$&'()*+,;=:@~.xml"


def _locs(path: Path) -> list[str]:
    return re.findall(r"<loc>(.*?)</loc>", path.read_text(), flags=re.S)


def _all_urls(directory: Path) -> set[str]:
    return {loc for p in directory.iterdir() if p.suffix == ".xml"
            and "<urlset" in p.read_text() for loc in _locs(p)}


def test_a_set_named_with_a_space_and_a_hash_grows_in_place_across_the_split(
        tmp_path: Path) -> None:
    out = tmp_path / "site" / "my sitemap#1.xml"
    out.parent.mkdir()
    robots = tmp_path / "site" / "robots.txt"
    for step in range(3):  # one file, then an index and two parts, then the parts grown
        src = tmp_path / f"new{step}.txt"
        src.write_bytes(_urls(2, 2 * step))
        inputs = [str(out)] if out.exists() else []
        done = run(*inputs, str(src), "-o", str(out), "--base-url", SITE, "--max-urls", "3",
                   "--robots", str(robots))
        assert done.returncode == 0, done.stderr
    locs = _locs(out)
    assert locs == [f"{SITE}my%20sitemap%231-1.xml", f"{SITE}my%20sitemap%231-2.xml"]
    assert robots.read_text() == f"Sitemap: {SITE}my%20sitemap%231.xml\n"
    # every URL of every run is still there: the earlier parts were found by their <loc>
    assert _all_urls(out.parent) == {f"{SITE}p{i}" for i in range(6)}
    assert sorted(p.name for p in out.parent.iterdir()) == [
        "my sitemap#1-1.xml", "my sitemap#1-2.xml", "my sitemap#1.xml", "robots.txt"]
    done = run("check", str(out), "--base-url", SITE, "--robots", str(robots))
    assert done.returncode == 0, done.stdout
    assert b"robots-unlisted" not in done.stdout and b"missing" not in done.stdout


def test_a_name_holding_a_newline_injects_no_line(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(_urls(4))
    name = "s\nDisallow: *.xml"
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nAllow: /\n")
    done = run("urls.txt", "-o", name, "--base-url", SITE, "--max-urls", "2", "--robots",
               "robots.txt", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert robots.read_text() == ("User-agent: *\nAllow: /\n"
                                  f"Sitemap: {SITE}s%0ADisallow:%20*.xml\n")
    assert _locs(tmp_path / name) == [f"{SITE}s%0ADisallow:%20*-1.xml",
                                      f"{SITE}s%0ADisallow:%20*-2.xml"]


def test_the_library_lists_parts_by_encoded_urls_that_lead_back_to_them(
        tmp_path: Path) -> None:
    out = tmp_path / "carte été?.xml"
    robots = tmp_path / "robots.txt"
    convert([io.BytesIO(_urls(9))], str(out), base_url=SITE,
            limits=Limits(max_urls=4), publish=Publish(robots=str(robots)))
    assert _locs(out) == [f"{SITE}carte%20%C3%A9t%C3%A9%3F-{k}.xml" for k in (1, 2, 3)]
    assert robots.read_text() == f"Sitemap: {SITE}carte%20%C3%A9t%C3%A9%3F.xml\n"
    # in place: the old parts are read through the index and the set grows
    convert([str(out), io.BytesIO(_urls(4, 9))], str(out), base_url=SITE,
            limits=Limits(max_urls=4), publish=Publish(robots=str(robots)))
    assert _all_urls(tmp_path) == {f"{SITE}p{i}" for i in range(13)}
    assert len(_locs(out)) == 4


# --- 24. line endings and a byte order mark -------------------------------------------------

@pytest.mark.parametrize("eol", [b"\r", b"\r\n", b"\n"])
def test_a_line_is_added_in_the_files_own_line_ending(site: Path, eol: bytes) -> None:
    robots = site / "robots.txt"
    body = eol.join([b"User-agent: *", b"Disallow: /tmp/", b""])
    robots.write_bytes(body)
    done = _convert(site, robots)
    assert done.returncode == 0, done.stderr
    assert robots.read_bytes() == body + f"Sitemap: {SITE}sitemap.xml".encode() + eol


def test_a_cr_file_without_a_last_line_ending_gets_cr(site: Path) -> None:
    robots = site / "robots.txt"
    robots.write_bytes(b"User-agent: *\rDisallow:")
    done = _convert(site, robots)
    assert done.returncode == 0, done.stderr
    assert robots.read_bytes() == f"User-agent: *\rDisallow:\rSitemap: {SITE}sitemap.xml\r".encode()


def test_a_byte_order_mark_hides_no_sitemap_line(site: Path) -> None:
    robots = site / "robots.txt"
    body = f"\ufeffSitemap: {SITE}sitemap.xml\nUser-agent: *\n".encode()
    robots.write_bytes(body)
    done = _convert(site, robots)
    assert done.returncode == 0, done.stderr
    assert b"already right" in done.stderr
    assert robots.read_bytes() == body  # no duplicate, the mark kept
    # replaced where it stood, the mark still first
    stale = f"\ufeffSitemap: {SITE}sitemap-index-1.xml\r\nUser-agent: *\r\n".encode()
    robots.write_bytes(stale)
    assert update_robots(str(robots), [f"{SITE}sitemap.xml"], lambda url: "sitemap" in url)
    assert robots.read_bytes() == f"\ufeffSitemap: {SITE}sitemap.xml\r\nUser-agent: *\r\n".encode()


def test_check_reads_a_robots_txt_behind_a_byte_order_mark(site: Path) -> None:
    done = _convert(site, site / "robots.txt")
    assert done.returncode == 0, done.stderr
    (site / "robots.txt").write_bytes(f"\ufeffSitemap: {SITE}sitemap.xml\n".encode())
    done = run("check", str(site / "sitemap.xml"), "--robots", str(site / "robots.txt"))
    assert done.returncode == 0 and b"robots-unlisted" not in done.stdout, done.stdout


@pytest.mark.parametrize("text", [
    b"\xef\xbb\xbfSitemap: https://example.com/a.xml\nSitemap: https://example.com/b.xml\n",
    b"Sitemap: https://example.com/a.xml\rSitemap: https://example.com/b.xml",
    b"\xef\xbb\xbfSitemap: https://example.com/a.xml\r\nSitemap: https://example.com/b.xml\r\n",
    b"User-agent: *\r" * 20_000 + b"Sitemap: https://example.com/a.xml\r"
    b"Sitemap: https://example.com/b.xml\r",
], ids=["bom", "cr", "bom-crlf", "cr-past-a-line-bound"])
def test_a_robots_txt_input_reads_every_sitemap_line_whatever_its_line_ending(
        tmp_path: Path, text: bytes) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.xml").write_text(
            f'<urlset xmlns="{NS}"><url><loc>{SITE}{name}-page</loc></url></urlset>')
    (tmp_path / "robots.txt").write_bytes(text)
    done = run("robots.txt", "-t", "text", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"{SITE}a-page".encode(), f"{SITE}b-page".encode()]


def test_a_robots_txt_input_line_over_the_bound_is_refused_naming_its_line(
        tmp_path: Path) -> None:
    (tmp_path / "robots.txt").write_bytes(b"User-agent: *\r" + b"#" * 70_000 + b"\r")
    done = run("robots.txt", "-t", "text", cwd=tmp_path)
    _one_line_error(done, "robots.txt:2: line longer than 65,536 bytes")


def test_the_library_reads_a_robots_txt_behind_a_byte_order_mark(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / f"{name}.xml").write_text(
            f'<urlset xmlns="{NS}"><url><loc>{SITE}{name}-page</loc></url></urlset>')
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"\xef\xbb\xbfSitemap: https://example.com/a.xml\r"
                       b"Sitemap: https://example.com/b.xml\r")
    out = tmp_path / "all.xml"
    convert([str(robots)], str(out))
    assert _locs(out) == [f"{SITE}a-page", f"{SITE}b-page"]
