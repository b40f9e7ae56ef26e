"""Removals (issue 34): --prune, --remove, --exclude/--include, and the mass-removal guard, through
the installed command (as root and as a plain user) and the library."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from feed2sitemap import convert
from feed2sitemap.errors import Feed2SitemapError
from feed2sitemap.model.filters import Filters

from .conftest import command, run

BASE = "https://example.com/"


def _pages(n: int) -> list[str]:
    return [f"{BASE}p/{i}" for i in range(n)]


def _write_list(path: Path, urls: list[str]) -> Path:
    path.write_text("".join(u + "\n" for u in urls))
    return path


def _listed(path: Path) -> list[str]:
    """Every URL of a sitemap or of a set (the index's parts, beside it)."""
    text = path.read_text()
    if "<sitemapindex" in text:
        return [u for loc in re.findall(r"<loc>([^<]*)</loc>", text)
                for u in _listed(path.parent / loc.rsplit("/", 1)[1])]
    return re.findall(r"<loc>([^<]*)</loc>", text)


def _snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in directory.iterdir()}


@pytest.fixture(params=["single", "split"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, list[str], list[str]]:
    """A live sitemap of 200 pages (one file, or an index of 4 parts) and the -o arguments."""
    pages = _pages(200)
    out = tmp_path / "site" / "sitemap.xml"
    out.parent.mkdir()
    extra = ["--max-urls", "50"] if request.param == "split" else []
    first = run(str(_write_list(tmp_path / "all.txt", pages)), "-o", str(out), "--base-url",
                BASE, *extra)
    assert first.returncode == 0, first.stderr
    assert sorted(_listed(out)) == sorted(pages)
    return out, pages, extra


def _in_place(out: Path, *args: str, **kw: object) -> subprocess.CompletedProcess[bytes]:
    return run(str(out), *args, "-o", str(out), "--base-url", BASE, **kw)  # type: ignore[arg-type]


def test_prune_removes_exactly_the_pages_no_input_lists(site: tuple[Path, list[str], list[str]],
                                                        tmp_path: Path) -> None:
    out, pages, extra = site
    gone = pages[::100]  # 1%
    full = _write_list(tmp_path / "full.txt", [p for p in pages if p not in gone])
    done = _in_place(out, str(full), "--prune", *extra)
    assert done.returncode == 0, done.stderr
    assert sorted(_listed(out)) == sorted(p for p in pages if p not in gone)
    assert b"0 URLs added, 0 updated, 2 removed" in done.stderr
    check = run("check", str(out), "--follow", "--base-url", BASE)
    assert check.returncode == 0, check.stdout


def test_without_prune_nothing_is_removed(site: tuple[Path, list[str], list[str]],
                                          tmp_path: Path) -> None:
    out, pages, extra = site
    feed_like = _write_list(tmp_path / "latest.txt", pages[:5] + [f"{BASE}new"])
    done = _in_place(out, str(feed_like), *extra)
    assert done.returncode == 0, done.stderr
    assert sorted(_listed(out)) == sorted(pages + [f"{BASE}new"])


def test_the_guard_refuses_a_mass_removal_and_changes_nothing(
        site: tuple[Path, list[str], list[str]], tmp_path: Path) -> None:
    out, pages, extra = site
    truncated = _write_list(tmp_path / "dump.txt", pages[:160])  # a dump cut at 80%
    before = _snapshot(out.parent)
    refused = _in_place(out, str(truncated), "--prune", *extra)
    assert refused.returncode == 1
    message = refused.stderr.decode()
    assert "refusing to remove 40 of the 200 URLs" in message
    assert "--prune" in message and "--max-removals" in message
    assert "Traceback" not in message
    assert _snapshot(out.parent) == before
    allowed = _in_place(out, str(truncated), "--prune", "--max-removals", "25%", *extra)
    assert allowed.returncode == 0, allowed.stderr
    assert sorted(_listed(out)) == sorted(pages[:160])


def test_a_new_base_url_host_is_refused_the_same_way(
        site: tuple[Path, list[str], list[str]], tmp_path: Path) -> None:
    out, pages, extra = site
    before = _snapshot(out.parent)
    feed_like = _write_list(tmp_path / "new.txt", ["http://example.com/p/new"])
    moved = run(str(out), str(feed_like), "-o", str(out), "--base-url", "http://example.com/",
                *extra)
    assert moved.returncode == 1
    assert b"refusing to remove 200 of the 200 URLs" in moved.stderr
    assert b"--base-url" in moved.stderr
    assert _snapshot(out.parent) == before


@pytest.mark.parametrize("args, kept", [
    (["--exclude", "/p/1*"], lambda u: not u.split("/p/")[1].startswith("1")),
    (["--include", "/p/2*"], lambda u: u.split("/p/")[1].startswith("2")),
    (["--exclude", "/p/*", "--include", "/p/*"], lambda u: False),
])
def test_filters_on_a_plain_conversion(tmp_path: Path, args: list[str], kept: object) -> None:
    pages = _pages(200)
    out = tmp_path / "sitemap.xml"
    src = _write_list(tmp_path / "all.txt", pages)
    done = run(str(src), "-o", str(out), "--base-url", BASE, *args)
    want = [p for p in pages if kept(p)]  # type: ignore[operator]
    if not want:
        assert done.returncode == 1 and not out.exists()  # nothing to write
        return
    assert done.returncode == 0, done.stderr
    assert _listed(out) == want
    assert f"{200 - len(want)} excluded".encode() in done.stderr


def test_remove_list_from_stdin_in_place(site: tuple[Path, list[str], list[str]]) -> None:
    out, pages, extra = site
    done = _in_place(out, "--remove", "-", "-v", *extra,
                     input=f"# retired\n{pages[3]}\n{pages[7]}\n".encode())
    assert done.returncode == 0, done.stderr
    assert sorted(_listed(out)) == sorted(p for p in pages if p not in (pages[3], pages[7]))
    assert f"removed {pages[3]}".encode() in done.stderr  # -v names each
    assert b"2 removed" in done.stderr


def test_a_removal_is_one_line_even_with_quiet(site: tuple[Path, list[str], list[str]]) -> None:
    out, pages, extra = site
    done = _in_place(out, "--exclude", "/p/19*", "-q", *extra)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.decode().splitlines()
    assert len(lines) >= 1 and any("11 removed" in line for line in lines)
    assert all(not line.startswith("removed https") for line in lines)


def test_filters_with_follow(site: tuple[Path, list[str], list[str]], tmp_path: Path) -> None:
    out, pages, extra = site
    text = tmp_path / "urls.txt"
    done = run(str(out), "--follow", "-t", "text", "-o", str(text), "--exclude", "/p/1*")
    assert done.returncode == 0, done.stderr
    assert sorted(text.read_text().split()) == sorted(
        p for p in pages if not p.split("/p/")[1].startswith("1"))


def test_library_prune_guard_and_filters(tmp_path: Path) -> None:
    pages = _pages(100)
    out = tmp_path / "sitemap.xml"
    convert([str(_write_list(tmp_path / "all.txt", pages))], str(out), base_url=BASE)
    full = _write_list(tmp_path / "full.txt", pages[:95])
    with pytest.raises(Feed2SitemapError, match="refusing to remove 5 of the 100"):
        convert([str(out), str(full)], str(out), base_url=BASE, prune=True,
                max_removals="4")
    summary = convert([str(out), str(full)], str(out), base_url=BASE, prune=True,
                      filters=Filters(exclude=("/p/9",)))
    assert summary.removals is not None and summary.removals.total == 6
    assert sorted(summary.removals.names) == sorted(pages[95:] + [pages[9]])
    assert sorted(_listed(out)) == sorted(p for p in pages[:95] if p != pages[9])


def test_partition_writer_and_filters(tmp_path: Path) -> None:
    from feed2sitemap.model.batch import batched
    from feed2sitemap.model.record import Record
    from feed2sitemap.scale.partition import write_partition

    records = [Record(u) for u in _pages(30)]
    manifest = write_partition(batched(records), str(tmp_path), "sitemap", 0,
                               filters=Filters(exclude=("/p/2*",)))
    written = [u for part in manifest for u in _listed(tmp_path / part.name)]
    assert written == [r.loc for r in records if not r.loc.split("/p/")[1].startswith("2")]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root (to run as nobody) and setpriv")
def test_prune_as_a_plain_user() -> None:
    """The cron line of a plain user: a directory and files of their own, nothing of root's."""
    home = Path(tempfile.mkdtemp(prefix="f2s-nobody-", dir="/tmp"))
    request_cleanup = shutil.rmtree
    try:
        _prune_as_nobody(home)
    finally:
        request_cleanup(home, ignore_errors=True)


def _prune_as_nobody(home: Path) -> None:
    os.chmod(home, 0o755)
    pages = _pages(120)
    _write_list(home / "all.txt", pages)
    _write_list(home / "full.txt", pages[1:])
    shutil.chown(home, "nobody", "nogroup")
    for p in home.iterdir():
        shutil.chown(p, "nobody", "nogroup")
    as_nobody = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command()]
    env = {"PATH": os.environ["PATH"], "HOME": str(home)}
    out = str(home / "sitemap.xml")
    for args in (["all.txt", "-o", out, "--base-url", BASE, "--max-urls", "50"],
                 [out, "full.txt", "-o", out, "--base-url", BASE, "--max-urls", "50",
                  "--prune"]):
        done = subprocess.run(as_nobody + args, cwd=home, env=env, capture_output=True,
                              stdin=subprocess.DEVNULL, timeout=120)
        assert done.returncode == 0, done.stderr
    assert sorted(_listed(Path(out))) == sorted(pages[1:])
    assert all(p.stat().st_uid == 65534 for p in home.iterdir())


def test_a_removal_rewrites_only_the_part_it_leaves(tmp_path: Path) -> None:
    """Parts after the one that loses a URL keep their URLs and bytes (not rewritten); new
    pages go after the last part."""
    pages = _pages(200)
    out = tmp_path / "site" / "sitemap.xml"
    out.parent.mkdir()
    assert run(str(_write_list(tmp_path / "all.txt", pages)), "-o", str(out), "--base-url",
               BASE, "--max-urls", "50").returncode == 0
    before = _snapshot(out.parent)
    feed_like = _write_list(tmp_path / "new.txt", [f"{BASE}new"])
    done = _in_place(out, str(feed_like), "--remove", "-", "--max-urls", "50",
                     input=f"{pages[10]}\n".encode())
    assert done.returncode == 0, done.stderr
    after = _snapshot(out.parent)
    assert after["sitemap-2.xml"] == before["sitemap-2.xml"]
    assert after["sitemap-3.xml"] == before["sitemap-3.xml"]
    assert after["sitemap-4.xml"] == before["sitemap-4.xml"]
    part1 = re.findall(r"<loc>([^<]*)</loc>", (out.parent / "sitemap-1.xml").read_text())
    assert part1 == [p for p in pages[:50] if p != pages[10]]
    assert _listed(out) == [p for p in pages if p != pages[10]] + [f"{BASE}new"]
    assert run("check", str(out), "--follow", "--base-url", BASE).returncode == 0
