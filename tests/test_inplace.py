"""Keeping a live site's sitemap up to date in place: the cron line never loses data, and never
touches a file feed2sitemap did not write. Every test runs the installed command on real files."""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from feed2sitemap import read
from feed2sitemap.cli.main import convert_command

from .conftest import command, run

BASE = "https://example.com/"
SPLIT = ("--base-url", BASE, "--max-urls", "3")


def urls(n: int, start: int = 0, path: str = "p") -> bytes:
    return b"".join(f"{BASE}{path}/{i}\n".encode() for i in range(start, start + n))


def feed(items: range, day: int = 2) -> bytes:
    body = "".join(
        f"<item><title>t{i}</title><link>{BASE}new/{i}</link>"
        f"<pubDate>Mon, {day:02d} Feb 2026 10:00:00 GMT</pubDate></item>" for i in items)
    return (f'<?xml version="1.0"?><rss version="2.0"><channel><title>x</title>'
            f"<link>{BASE}</link>{body}</channel></rss>").encode()


def locs(path: Path) -> list[str]:
    return [r.loc for r in read(path)]


def site_urls(index: Path) -> list[str]:
    done = run(str(index), "--follow", "-t", "text", cwd=index.parent)
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().split()


def check_clean(index: Path) -> None:
    done = run("check", "--follow", "--base-url", BASE, str(index))
    assert done.returncode == 0 and b" 0 errors" in done.stderr, done.stdout + done.stderr


def split_site(tmp_path: Path, n: int = 7) -> Path:
    (tmp_path / "urls.txt").write_bytes(urls(n))
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    done = run("urls.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "sitemap.xml"


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir())
            if p.is_file()}


# 1. Growing a split sitemap reads its parts, without --follow


def test_growing_a_split_set_reads_its_parts_without_follow(tmp_path: Path) -> None:
    index = split_site(tmp_path, 7)
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"merged: 2 URLs added" in done.stderr
    got = site_urls(index)
    assert got == urls(7).decode().split() + [f"{BASE}new/0", f"{BASE}new/1"]
    check_clean(index)


def test_parts_in_subfolders_are_found_by_their_path_under_base_url(tmp_path: Path) -> None:
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "a.xml").write_bytes(
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>https://example.com/a</loc></url></urlset>")
    (tmp_path / "sitemap.xml").write_bytes(
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sitemap><loc>https://example.com/parts/a.xml</loc></sitemap></sitemapindex>")
    (tmp_path / "feed.xml").write_bytes(feed(range(1)))
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", "--base-url", BASE,
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert locs(tmp_path / "sitemap.xml") == [f"{BASE}a", f"{BASE}new/0"]
    # the hand-made part is the user's: kept, and said to be no longer listed
    assert (tmp_path / "parts" / "a.xml").exists()
    assert b"kept " in done.stderr and b"parts/a.xml" in done.stderr


def test_a_part_that_cannot_be_read_fails_the_run_and_changes_nothing(tmp_path: Path) -> None:
    split_site(tmp_path, 7)
    (tmp_path / "sitemap-2.xml").unlink()
    before = snapshot(tmp_path)
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 1
    assert b"sitemap-2.xml is missing" in done.stderr
    assert snapshot(tmp_path) == before


# 2. An index mixed with pages


def test_an_index_mixed_with_pages_is_an_error_that_says_follow(tmp_path: Path) -> None:
    split_site(tmp_path, 7)
    (tmp_path / "pages.txt").write_bytes(urls(1, 100))
    done = run("sitemap.xml", "pages.txt", "-o", "out.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 1
    assert b"--follow" in done.stderr and b"added" not in done.stderr
    assert not (tmp_path / "out.xml").exists()


# 3. Only the tool's own parts are ever removed


def test_hand_made_files_with_part_like_names_are_never_removed(tmp_path: Path) -> None:
    (tmp_path / "sitemap-2024.xml").write_bytes(b"hand made")
    (tmp_path / "sitemap-3.xml").write_bytes(b"also hand made")
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    done = run("feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "sitemap-2024.xml").read_bytes() == b"hand made"
    assert (tmp_path / "sitemap-3.xml").read_bytes() == b"also hand made"
    assert b"removed" not in done.stderr


def test_a_foreign_file_in_the_way_of_a_new_part_stops_the_run(tmp_path: Path) -> None:
    (tmp_path / "sitemap-2.xml").write_bytes(b"hand made")
    (tmp_path / "urls.txt").write_bytes(urls(5))
    done = run("urls.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 1
    assert b"sitemap-2.xml: exists, and the index at" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sitemap-2.xml", "urls.txt"]
    assert (tmp_path / "sitemap-2.xml").read_bytes() == b"hand made"


def test_parts_the_replaced_index_listed_are_removed_and_named_even_with_q(
        tmp_path: Path) -> None:
    split_site(tmp_path, 7)  # sitemap-1..3.xml
    (tmp_path / "sitemap-9.xml").write_bytes(b"hand made, not listed")
    (tmp_path / "few.txt").write_bytes(urls(4))
    done = run("few.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"removed {tmp_path / 'sitemap-3.xml'}".encode() in done.stderr
    assert not (tmp_path / "sitemap-3.xml").exists()
    assert (tmp_path / "sitemap-9.xml").exists()
    (tmp_path / "one.txt").write_bytes(urls(1))
    quiet = run("one.txt", "-o", "sitemap.xml", "-q", cwd=tmp_path)
    assert quiet.returncode == 0
    assert quiet.stderr.decode().strip() == (
        "feed2sitemap: removed 2 files of the earlier output that this run no longer writes: "
        "sitemap-1.xml, sitemap-2.xml")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "feed.xml", "few.txt", "one.txt", "sitemap-9.xml", "sitemap.xml", "urls.txt"]


# 4. Special files are written through


def test_a_null_device_stays_a_device_and_gets_no_parts(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(urls(5))
    # As root, a device node of our own, the same as /dev/null: were the fix ever lost, the
    # test would replace that one, not the system's.
    null = tmp_path / "null"
    if os.geteuid() == 0:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    else:
        null = Path("/dev/null")  # a plain user could not rename over it anyway
    assert run("urls.txt", "-o", str(null), cwd=tmp_path).returncode == 0
    assert stat.S_ISCHR(os.stat(null).st_mode)
    split = run("urls.txt", "-o", str(null), *SPLIT, cwd=tmp_path)
    assert split.returncode == 1 and f"{null} got the first complete sitemap".encode() in (
        split.stderr)
    assert not any(p.startswith("null-") for p in os.listdir(null.parent))
    assert stat.S_ISCHR(os.stat(null).st_mode)


def test_dev_stdout_is_written_through(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(urls(2))
    # a link of our own with /dev/stdout's target: were the fix lost, the test would replace
    # this link, not the system's
    (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
    done = run("urls.txt", "-o", str(tmp_path / "stdout"), "-t", "text", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == urls(2)


def test_a_fifo_is_written_through_and_stays_a_fifo(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(urls(3))
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    done = run("urls.txt", "-o", str(fifo), "-t", "text", cwd=tmp_path)
    reader.join(10)
    assert done.returncode == 0, done.stderr
    assert got == [urls(3)]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "urls.txt"]


# 5. Mode, owner and links are kept


def test_replacement_keeps_mode_group_and_symlink(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    real = tmp_path / "real.xml"
    real.write_bytes(b"")
    assert run("feed.xml", "-o", str(real), cwd=tmp_path).returncode == 0
    real.chmod(0o664)
    # a group other than the process's own, where we may set one (root: any)
    groups = [g for g in ([33] if os.geteuid() == 0 else os.getgroups()) if g != os.getegid()]
    if groups:
        os.chown(real, -1, groups[0])
    before = real.stat()
    link = tmp_path / "sitemap.xml"
    link.symlink_to("real.xml")
    (tmp_path / "feed.xml").write_bytes(feed(range(3)))
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", cwd=tmp_path,
               preexec_fn=lambda: os.umask(0o077))
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == "real.xml"
    after = real.stat()
    assert stat.S_IMODE(after.st_mode) == 0o664
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert len(locs(real)) == 3


def test_new_files_follow_the_umask(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(urls(5))
    done = run("urls.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path,
               preexec_fn=lambda: os.umask(0o027))
    assert done.returncode == 0
    assert {stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob("sitemap*")} == {0o640}


# 6. Unchanged output is not rewritten


def test_unchanged_files_keep_their_mtime_and_only_changed_parts_are_rewritten(
        tmp_path: Path) -> None:
    split_site(tmp_path, 7)  # parts of 3, 3, 1 URLs
    past = time.time() - 3600
    for p in tmp_path.glob("sitemap*"):
        os.utime(p, (past, past))
    before = snapshot(tmp_path)
    again = run("sitemap.xml", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert snapshot(tmp_path) == before
    assert b"unchanged: 7 URLs in 3 files and 1 index file" in again.stderr
    # one more URL changes only the last part and the index
    (tmp_path / "more.txt").write_bytes(urls(1, 100))
    grown = run("sitemap.xml", "more.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert grown.returncode == 0, grown.stderr
    after = snapshot(tmp_path)
    changed = {n for n in after if after[n] != before.get(n)}
    assert changed == {"sitemap-3.xml", "more.txt"}  # (no lastmods: the index is the same)
    assert b"3 of the 4 files unchanged" in grown.stderr


def test_the_index_keeps_its_lastmod_for_parts_that_did_not_change(tmp_path: Path) -> None:
    index = split_site(tmp_path, 7)
    text = index.read_text()
    # a lastmod the earlier index gave part 1 (say, from another tool): kept while it is
    # unchanged
    index.write_text(text.replace("sitemap-1.xml</loc>",
                                  "sitemap-1.xml</loc><lastmod>2020-01-01</lastmod>"))
    (tmp_path / "more.txt").write_bytes(urls(1, 100))
    done = run("sitemap.xml", "more.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "sitemap-1.xml</loc><lastmod>2020-01-01</lastmod>" in index.read_text()
    assert len(site_urls(index)) == 8


# 7. The first scheduled run


def test_the_first_run_creates_the_output_it_also_reads(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"sitemap.xml: note: not there yet" in done.stderr
    assert len(locs(tmp_path / "sitemap.xml")) == 2
    other = run("missing.xml", "feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert other.returncode == 1 and b"missing.xml: cannot open" in other.stderr


# 8. Nothing to write is an error


def test_zero_urls_written_is_an_error_and_leaves_the_output(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    assert run("feed.xml", "-o", "sitemap.xml", cwd=tmp_path).returncode == 0
    before = snapshot(tmp_path)
    done = run("feed.xml", "-o", "sitemap.xml", "--max-bytes", "150", cwd=tmp_path)
    assert done.returncode == 1
    assert b"no URLs to write (2 skipped)" in done.stderr
    assert snapshot(tmp_path) == before


# 9. Messages that are true


def test_a_stale_part_that_cannot_be_removed_is_named_after_the_new_files_are_in_place(
        tmp_path: Path) -> None:
    split_site(tmp_path, 7)
    (tmp_path / "sitemap-3.xml").unlink()
    (tmp_path / "sitemap-3.xml").mkdir()
    (tmp_path / "few.txt").write_bytes(urls(4, 50))
    done = run("few.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"could not remove" in done.stderr and b"sitemap-3.xml" in done.stderr
    assert b"nothing was" not in done.stderr
    assert site_urls(tmp_path / "sitemap.xml") == urls(4, 50).decode().split()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("chattr") is None,
                    reason="needs root and chattr to make a file that cannot be replaced")
def test_a_failure_part_way_names_what_was_replaced_and_what_was_not(tmp_path: Path) -> None:
    split_site(tmp_path, 7)
    # (a lastmod: the index's entry for the last part changes)
    (tmp_path / "more.txt").write_bytes(urls(2, 100).replace(b"\n", b"\t2024-01-01\n"))
    index = tmp_path / "sitemap.xml"
    if subprocess.run(["chattr", "+i", str(index)], capture_output=True).returncode:
        pytest.skip("this file system has no immutable flag")
    try:
        done = run("sitemap.xml", "more.txt", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    finally:
        subprocess.run(["chattr", "-i", str(index)], check=True)
    assert done.returncode == 1
    message = done.stderr.decode()
    # (issue 35, item 22: found before the first rename, so no part is replaced)
    assert f"{index}: cannot write: it is immutable" in message
    assert "nothing was changed" in message
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_closed_pipe_ends_the_command_quietly(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(urls(50_000))
    done = subprocess.run(
        ["bash", "-c", 'set -o pipefail; "$0" urls.txt -t text | head -1', *command()],
        cwd=tmp_path, capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    assert done.stdout == f"{BASE}p/0\n".encode()
    assert done.stderr == b""
    assert done.returncode == 141


# 10. A directory the user may not write


def _lock_directory(directory: Path) -> None:
    if os.geteuid() == 0:
        if shutil.which("chattr") is None or subprocess.run(
                ["chattr", "+i", str(directory)], capture_output=True).returncode:
            pytest.skip("as root, a directory without write access needs chattr +i")
    else:
        directory.chmod(0o555)


def _unlock_directory(directory: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(directory)], check=True)
    else:
        directory.chmod(0o755)


def test_a_file_in_a_directory_we_may_not_write_names_both_and_no_atomic_works(
        tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    out = site / "sitemap.xml"
    assert run(str(tmp_path / "feed.xml"), "-o", str(out)).returncode == 0
    inode = out.stat().st_ino
    (tmp_path / "feed.xml").write_bytes(feed(range(3)))
    _lock_directory(site)
    try:
        refused = run(str(tmp_path / "feed.xml"), "-o", str(out))
        done = run(str(tmp_path / "feed.xml"), "-o", str(out), "--no-atomic")
    finally:
        _unlock_directory(site)
    assert refused.returncode == 1
    assert f"{out}: cannot write: no temporary file can be made in {site}".encode() in (
        refused.stderr)
    assert b"--no-atomic" in refused.stderr
    assert done.returncode == 0, done.stderr
    assert out.stat().st_ino == inode and len(locs(out)) == 3


# Interrupted and concurrent runs


def test_leftover_temporaries_of_an_interrupted_run_are_removed(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    (tmp_path / ".sitemap.xml.ab_cd123.tmp").write_bytes(b"half written")
    (tmp_path / ".other.xml.ab_cd123.tmp").write_bytes(b"not ours")
    done = run("feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert done.returncode == 0
    assert b"a temporary of an interrupted run" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".other.xml.ab_cd123.tmp", "feed.xml", "sitemap.xml"]


def test_temporaries_are_private_new_files_that_a_later_run_recognises(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # make_temp replaces tempfile.mkstemp (start-up time): the same promises, checked here
    from feed2sitemap.files.naming import temp_pattern, temp_prefix
    from feed2sitemap.files.safety import make_temp

    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    made = {make_temp(str(tmp_path), temp_prefix("sitemap.xml")) for _ in range(200)}
    assert len(made) == 200
    for path in made:
        st = os.lstat(path)
        assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        assert st.st_size == 0 and os.path.isabs(path)
        assert temp_pattern("sitemap.xml").fullmatch(os.path.basename(path))
    # a name that exists (here a planted link to the victim) is never opened: the next is taken
    names = iter([b"\x00" * 8, b"\x01" * 8])
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    (tmp_path / (temp_prefix("x.xml") + "a" * 8 + ".tmp")).symlink_to(victim)
    path = make_temp(str(tmp_path), temp_prefix("x.xml"))
    assert os.path.basename(path) == temp_prefix("x.xml") + "b" * 8 + ".tmp"
    assert victim.read_bytes() == b"keep"


def test_parts_an_interrupted_run_put_in_place_are_read_back(tmp_path: Path) -> None:
    split_site(tmp_path, 6)  # two full parts
    # as a run killed between putting sitemap-3.xml in place and replacing the index leaves it
    (tmp_path / "sitemap-3.xml").write_bytes(
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<url><loc>https://example.com/late</loc></url></urlset>")
    (tmp_path / ".sitemap.xml.pending").write_bytes(b"sitemap-3.xml\n../evil.xml\n")
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", *SPLIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    got = site_urls(tmp_path / "sitemap.xml")
    assert f"{BASE}late" in got and len(got) == len(set(got)) == 9
    assert not (tmp_path / ".sitemap.xml.pending").exists()


def test_a_second_run_waits_for_the_first_then_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a run in progress holds it
    try:
        start = time.monotonic()
        done = run("feed.xml", "-o", "sitemap.xml", "--lock-timeout", "0.5", cwd=tmp_path)
        waited = time.monotonic() - start
    finally:
        os.close(fd)
    assert done.returncode == 1 and waited >= 0.5
    assert b"another run is writing in" in done.stderr
    assert not (tmp_path / "sitemap.xml").exists()
    assert run("feed.xml", "-o", "sitemap.xml", cwd=tmp_path).returncode == 0


def test_an_empty_output_name_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "feed.xml").write_bytes(feed(range(1)))
    done = run("feed.xml", "-o", "", cwd=tmp_path)
    assert done.returncode == 2 and b"Traceback" not in done.stderr
    result = CliRunner().invoke(convert_command, [str(tmp_path / "feed.xml"), "-o", ""])
    assert result.exit_code == 2 and "--output: the file name is empty" in result.output


def _interrupted_before_our_code(err: bytes) -> bool:
    """Python's own start-up, or the console script's one import line, was interrupted: no
    code of the package had run yet (a window of a few milliseconds that no program can
    close; the command's handler takes over at its first line)."""
    if (b"Fatal Python error: init_" in err
            or b"Exception ignored in: <function _get_module_lock" in err):
        return True
    frames = re.findall(rb'File "([^"]+)"', err)
    return bool(frames) and not any(b"/feed2sitemap/" in f for f in frames)


@pytest.mark.slow
def test_ctrl_c_at_any_moment_of_start_up_gives_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(urls(200_000))
    for delay in (0.01, 0.03, 0.06, 0.1, 0.2, 0.4):
        proc = subprocess.Popen(command() + ["urls.txt", "-o", "s.xml", *SPLIT[:2]],
                                cwd=tmp_path, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        if _interrupted_before_our_code(err):
            continue
        # once a line of the package runs (its imports of click and feedparser included),
        # Ctrl-C is a message and exit 130, never a traceback
        assert b"Traceback" not in err, (delay, err)
        # 130, or killed by SIGINT itself before Python's own handler is in place (the shell
        # shows both as 130)
        assert proc.returncode in (0, 130, -signal.SIGINT), (delay, proc.returncode, err)
        if proc.returncode == 130:
            assert re.search(rb"interrupted(; nothing was written| after the output)", err)


def test_cli_runner_grows_a_split_set_too(tmp_path: Path) -> None:
    split_site(tmp_path, 4)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(convert_command, [
            "sitemap.xml", "feed.xml", "-o", "sitemap.xml", *SPLIT])
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    assert len(site_urls(tmp_path / "sitemap.xml")) == 6


if sys.platform != "linux":  # flock on a directory, FIFOs and /dev paths are Linux here
    pytestmark = pytest.mark.skip(reason="these tests use Linux file semantics")


def test_running_the_command_in_process_leaves_sigpipe_alone(tmp_path: Path) -> None:
    # SIGPIPE's default action would kill a host program (or this test run) on any write to a
    # closed socket; only the console script's own process takes it, when stdout is gone.
    from feed2sitemap.cli.main import main

    (tmp_path / "urls.txt").write_bytes(urls(2))
    before = signal.getsignal(signal.SIGPIPE)
    with pytest.raises(SystemExit):
        main([str(tmp_path / "urls.txt"), "-o", str(tmp_path / "s.xml"), "-q"])
    assert signal.getsignal(signal.SIGPIPE) == before


# issue 36, item 8: an in-place rewrite keeps the file's stylesheet instruction


STYLE = '<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>'


def test_a_stylesheet_instruction_is_kept_when_the_sitemap_grows_in_place(
        tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n{STYLE}\n<!-- by hand -->\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="'
        'http://www.sitemaps.org/schemas/sitemap/0.9 '
        'http://www.sitemaps.org/schemas/sitemap/0.9/sitemap.xsd">\n'
        f"<url><loc>{BASE}a</loc></url>\n</urlset>\n")
    (tmp_path / "feed.xml").write_bytes(feed(range(2)))
    done = run("sitemap.xml", "feed.xml", "-o", "sitemap.xml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"not kept from the earlier file: comments, xsi:schemaLocation" in done.stderr
    assert (tmp_path / "sitemap.xml").read_text().splitlines()[1] == STYLE
    check_clean(tmp_path / "sitemap.xml")
    # split in place under a byte limit: every file keeps it, and the sizes stay exact
    (tmp_path / "more.txt").write_bytes(urls(40))
    done = run("sitemap.xml", "more.txt", "-o", "sitemap.xml", "--base-url", BASE,
               "--max-bytes", "1000", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("sitemap*.xml"))
    assert len(files) > 3
    for path in files:
        data = path.read_bytes()
        assert data.decode().splitlines()[1] == STYLE and len(data) <= 1000
        said = re.search(rf"/{re.escape(path.name)}: \d+ \w+, ([\d,]+) bytes", done.stderr.decode())
        assert said and int(said[1].replace(",", "")) == len(data), done.stderr
    check_clean(tmp_path / "sitemap.xml")
    assert len(site_urls(tmp_path / "sitemap.xml")) == 43
