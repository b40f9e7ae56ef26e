"""A set's new files take its existing output's mode and group; a hard link is said, not broken
silently (issue 36, items 3 and 4). Through the installed command."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import command

BASE = "https://example.com/"
WWW_DATA = 33  # a group root is not in: what the web server reads through


def urls(n: int, start: int = 0) -> bytes:
    return b"".join(f"{BASE}p/{i}\n".encode() for i in range(start, start + n))


@pytest.fixture
def site() -> Iterator[Path]:
    """A directory under /tmp that a plain user can reach (pytest's tmp_path is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="f2s-set-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


def as_user(user: bool) -> list[str]:
    if not user:
        return []
    if os.geteuid() != 0:
        pytest.skip("needs root, to run the command as a plain user")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv is not installed")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def convert(site: Path, *args: str, prefix: list[str] | None = None,
            umask: int = 0o077) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run((prefix or []) + command() + list(args), cwd=site,
                          capture_output=True, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: os.umask(umask), timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def metadata(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid


@pytest.mark.parametrize("user", [False, True], ids=["root", "plain-user"])
def test_new_parts_take_the_mode_and_group_of_the_output_they_join(site: Path,
                                                                   user: bool) -> None:
    prefix = as_user(user)
    if os.geteuid() != 0:
        pytest.skip("needs root, to give the output a group and owner of its own")
    (site / "urls.txt").write_bytes(urls(9))
    if user:  # nobody writes the set; it may keep only its own owner and group
        import pwd

        owner = (pwd.getpwnam("nobody").pw_uid, pwd.getpwnam("nobody").pw_gid)
        os.chown(site, *owner)
    else:
        owner = (0, WWW_DATA)
    # one file first, as the web server must read it: 0640 OWNER:GROUP
    convert(site, "urls.txt", "-o", "sitemap.xml", "--base-url", BASE, prefix=prefix)
    index = site / "sitemap.xml"
    os.chown(index, *owner)
    index.chmod(0o640)
    # then the split, under umask 077: the new parts are as readable as the index, no more
    convert(site, "urls.txt", "-o", "sitemap.xml", "--base-url", BASE, "--max-urls", "4",
            prefix=prefix)
    parts = sorted(site.glob("sitemap-*.xml"))
    assert len(parts) == 3
    for path in [index, *parts]:
        assert metadata(path) == (0o640, *owner), path
    # a part added later takes them too
    (site / "urls.txt").write_bytes(urls(13))
    convert(site, "urls.txt", "-o", "sitemap.xml", "--base-url", BASE, "--max-urls", "4",
            prefix=prefix)
    assert metadata(site / "sitemap-4.xml") == (0o640, *owner)


def test_the_mode_taken_is_never_looser_than_the_outputs(site: Path) -> None:
    (site / "urls.txt").write_bytes(urls(9))
    convert(site, "urls.txt", "-o", "sitemap.xml")
    (site / "sitemap.xml").chmod(0o600)
    convert(site, "urls.txt", "-o", "sitemap.xml", "--base-url", BASE, "--max-urls", "4",
            umask=0o022)
    assert {stat.S_IMODE(p.stat().st_mode) for p in site.glob("sitemap*.xml")} == {0o600}


def test_a_first_run_follows_the_umask(site: Path) -> None:
    (site / "urls.txt").write_bytes(urls(9))
    convert(site, "urls.txt", "-o", "sitemap.xml", "--base-url", BASE, "--max-urls", "4",
            umask=0o027)
    assert {stat.S_IMODE(p.stat().st_mode) for p in site.glob("sitemap*.xml")} == {0o640}


def test_replacing_a_hard_linked_output_says_the_link_keeps_the_old_file(site: Path) -> None:
    (site / "urls.txt").write_bytes(urls(2))
    convert(site, "urls.txt", "-o", "pub.xml")
    os.link(site / "pub.xml", site / "hard.xml")
    (site / "urls.txt").write_bytes(urls(3))
    done = convert(site, "urls.txt", "-o", "pub.xml")
    err = done.stderr.decode()
    # atomic replacement is kept: pub.xml is new, hard.xml still holds the old sitemap
    assert (site / "pub.xml").read_bytes() != (site / "hard.xml").read_bytes()
    assert "pub.xml: warning: it has 2 hard links" in err, err
    assert "--no-atomic" in err and "1 hard link broken" in err, err
    # the same run without a change breaks nothing, and says nothing
    done = convert(site, "urls.txt", "-o", "pub.xml")
    assert "hard link" not in done.stderr.decode()


def test_no_atomic_writes_through_a_hard_link(site: Path) -> None:
    (site / "urls.txt").write_bytes(urls(2))
    convert(site, "urls.txt", "-o", "pub.xml")
    os.link(site / "pub.xml", site / "hard.xml")
    (site / "urls.txt").write_bytes(urls(3))
    done = convert(site, "urls.txt", "-o", "pub.xml", "--no-atomic")
    assert (site / "pub.xml").samefile(site / "hard.xml")
    assert b"p/2" in (site / "hard.xml").read_bytes()
    assert b"hard link" not in done.stderr


def test_a_plain_user_does_not_take_over_another_users_output(site: Path) -> None:
    """Replacing root's sitemap would hand it to the plain user: refused before anything
    changes, saying how to write through it instead (new-user hunt)."""
    prefix = as_user(True)
    import pwd

    nobody = pwd.getpwnam("nobody")
    os.chown(site, nobody.pw_uid, nobody.pw_gid)  # the user may write in the directory
    (site / "urls.txt").write_bytes(urls(3))
    convert(site, "urls.txt", "-o", "sitemap.xml", umask=0o022)  # root's first run, readable
    index = site / "sitemap.xml"
    before = index.read_bytes(), index.stat()
    (site / "urls.txt").write_bytes(urls(4))
    done = subprocess.run(prefix + command() + ["sitemap.xml", "urls.txt", "-o", "sitemap.xml"],
                          cwd=site, capture_output=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 1, done.stderr
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "sitemap.xml: cannot write: it belongs to root" in err, err
    assert "--no-atomic" in err and "nothing was changed" in err, err
    after = index.stat()
    assert index.read_bytes() == before[0]
    assert (after.st_ino, after.st_uid, after.st_gid) == (before[1].st_ino, 0, 0)
    assert sorted(p.name for p in site.iterdir()) == ["sitemap.xml", "urls.txt"]
