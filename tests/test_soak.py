"""The cron line, run again and again as a site owner's scheduler runs it: the site grows from its
feed, nothing is lost, nothing else is touched, and killed runs leave a consistent directory.

FEED2SITEMAP_SOAK_RUNS sets the number of scheduled runs (default 200, as the maintenance issue
asks) and FEED2SITEMAP_SOAK_KILLS the number of killed runs (default 10).
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from feed2sitemap import read

from .conftest import command, run

BASE = "https://example.com/"
START = datetime(2026, 1, 1, tzinfo=timezone.utc)
pytestmark = pytest.mark.slow  # (minutes: CI runs it as a step of its own)

RUNS = int(os.environ.get("FEED2SITEMAP_SOAK_RUNS", "200"))
KILLS = int(os.environ.get("FEED2SITEMAP_SOAK_KILLS", "10"))
CRON = ("sitemap.xml", "feed.xml", "-o", "sitemap.xml", "--base-url", BASE, "-q")


def write_feed(site: Path, run_no: int) -> dict[str, datetime]:
    """The feed on run ``run_no``: 20 items, one new each run; an item's date is the run that
    last published it (so a page still in the feed is updated on every run)."""
    items = {f"{BASE}post/{i}": START + timedelta(hours=run_no, minutes=i % 60)
             for i in range(run_no, run_no + 20)}
    body = "".join(
        f"<item><title>p</title><link>{loc}</link>"
        f"<pubDate>{when.strftime('%a, %d %b %Y %H:%M:%S GMT')}</pubDate></item>"
        for loc, when in items.items())
    (site / "feed.xml").write_text(
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>s</title><link>{BASE}</link>'
        f"{body}</channel></rss>")
    return items


def make_site(tmp_path: Path) -> tuple[Path, dict[str, tuple[bytes, int]]]:
    """60,000 pages in two parts, the index reached through a symlink, and files of the user's
    own beside them; returns the site and the user's files' bytes and mtimes."""
    site = tmp_path / "site"
    (site / "store").mkdir(parents=True)
    (site / "pages.txt").write_text("".join(f"{BASE}page/{i}\n" for i in range(60_000)))
    done = run("pages.txt", "-o", "store/sitemap.xml", "--base-url", BASE, cwd=site)
    assert done.returncode == 0, done.stderr
    # the parts were written beside store/sitemap.xml: move them to the site's directory, where
    # the index's URLs say they are served, and reach the index through a link
    for part in ("sitemap-1.xml", "sitemap-2.xml"):
        (site / "store" / part).rename(site / part)
    (site / "sitemap.xml").symlink_to("store/sitemap.xml")
    (site / "store" / "sitemap.xml").chmod(0o664)
    (site / "sitemap-1.xml").chmod(0o644)
    (site / "sitemap-2024.xml").write_bytes(b"<!-- the owner's own, hand made -->")
    (site / "robots.txt").write_bytes(b"Sitemap: https://example.com/sitemap.xml\n")
    (site / "index.html").write_bytes(b"<html></html>")
    theirs = {name: ((site / name).read_bytes(), (site / name).stat().st_mtime_ns)
              for name in ("sitemap-2024.xml", "robots.txt", "index.html", "pages.txt")}
    return site, theirs


def cron(site: Path) -> subprocess.CompletedProcess[bytes]:
    return run(*CRON, cwd=site, preexec_fn=lambda: os.umask(0o077))


def assert_consistent(site: Path) -> dict[str, object]:
    """The set passes our own check, holds each URL once, and every part the index lists is
    there; returns each URL's lastmod."""
    checked = run("check", "--follow", "--base-url", BASE, "sitemap.xml", cwd=site)
    assert checked.returncode == 0 and b" 0 errors" in checked.stderr, (
        checked.stdout[-2000:] + checked.stderr)
    got: dict[str, object] = {}
    for part in ("sitemap-1.xml", "sitemap-2.xml"):
        for r in read(site / part):
            assert r.loc not in got, f"{r.loc} twice"
            got[r.loc] = r.lastmod
    assert [r.loc for r in read(site / "sitemap.xml")] == [
        f"{BASE}sitemap-1.xml", f"{BASE}sitemap-2.xml"]
    return got


def test_two_hundred_scheduled_runs_keep_everything(tmp_path: Path) -> None:
    site, theirs = make_site(tmp_path)
    expect: dict[str, datetime | None] = {f"{BASE}page/{i}": None for i in range(60_000)}
    for run_no in range(RUNS):
        expect.update(write_feed(site, run_no))
        done = cron(site)
        assert done.returncode == 0, (run_no, done.stderr)
        assert done.stderr == b"", (run_no, done.stderr)  # -q: nothing removed, nothing to say
    assert assert_consistent(site) == expect
    assert (site / "sitemap.xml").is_symlink()
    assert stat.S_IMODE((site / "store" / "sitemap.xml").stat().st_mode) == 0o664
    assert stat.S_IMODE((site / "sitemap-1.xml").stat().st_mode) == 0o644
    for name, (data, mtime) in theirs.items():
        assert ((site / name).read_bytes(), (site / name).stat().st_mtime_ns) == (data, mtime)
    assert sorted(p.name for p in site.iterdir()) == [
        "feed.xml", "index.html", "pages.txt", "robots.txt", "sitemap-1.xml", "sitemap-2.xml",
        "sitemap-2024.xml", "sitemap.xml", "store"]


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(".tmp")


def test_killed_runs_leave_complete_files_and_the_next_run_repairs(tmp_path: Path) -> None:
    site, theirs = make_site(tmp_path)
    seen = {f"{BASE}page/{i}" for i in range(60_000)}
    rng = random.Random(20261130)
    write_feed(site, 0)
    started = time.monotonic()
    assert cron(site).returncode == 0
    duration = time.monotonic() - started
    for kill_no in range(KILLS):
        seen.update(write_feed(site, kill_no))
        proc = subprocess.Popen(command() + list(CRON), cwd=site, stdin=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, preexec_fn=lambda: os.umask(0o077))
        time.sleep(rng.uniform(0, duration * 1.2))
        proc.send_signal(rng.choice([signal.SIGTERM, signal.SIGKILL]))
        _, err = proc.communicate(timeout=60)
        assert b"Traceback" not in err, err
        # every file but a killed run's temporaries is a complete sitemap, and every part the
        # index lists is there
        for name in ("sitemap.xml", "sitemap-1.xml", "sitemap-2.xml"):
            text = (site / name).read_bytes()
            assert text.rstrip().endswith((b"</urlset>", b"</sitemapindex>")), name
        assert_consistent(site)
    last = write_feed(site, KILLS)
    done = cron(site)
    assert done.returncode == 0, done.stderr
    assert not [p.name for p in site.iterdir() if _is_temporary(p.name)]
    got = assert_consistent(site)
    # a killed run wrote nothing (its feed's news waits for a later run); what the last run
    # read is all there, with its dates, and nothing was invented
    assert {loc: got[loc] for loc in last} == last
    assert set(got) <= seen | set(last)
    assert all(f"{BASE}page/{i}" in got for i in range(60_000))
    for name, (data, mtime) in theirs.items():
        assert ((site / name).read_bytes(), (site / name).stat().st_mtime_ns) == (data, mtime)
