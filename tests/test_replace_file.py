"""files/safety.replace_file, the one whole-file atomic replacement (the report's output, the
robots.txt edit, the lastmod state): mode and owner kept, never loosened, links and special
files refused; and `report -o` through it keeps a link and the replaced file's mode."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from feed2sitemap.files.safety import replace_file

from .conftest import run


def test_replacing_keeps_the_mode_and_a_new_file_follows_the_umask(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    old.write_bytes(b"before")
    old.chmod(0o600)
    replace_file(str(old), b"after")
    assert old.read_bytes() == b"after" and stat.S_IMODE(old.stat().st_mode) == 0o600
    mask = os.umask(0o027)
    try:
        replace_file(str(tmp_path / "new.txt"), b"new")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.txt", "old.txt"]


def test_a_link_a_directory_and_a_fifo_are_refused_untouched(tmp_path: Path) -> None:
    target = tmp_path / "target.txt"
    target.write_bytes(b"mine")
    (tmp_path / "link").symlink_to(target)
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "fifo")
    for name, code in (("link", errno.ELOOP), ("dir", errno.EISDIR), ("fifo", errno.EINVAL)):
        with pytest.raises(OSError) as exc:
            replace_file(str(tmp_path / name), b"theirs")
        assert exc.value.errno == code
    assert (tmp_path / "link").is_symlink() and target.read_bytes() == b"mine"
    assert stat.S_ISFIFO((tmp_path / "fifo").lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "fifo", "link", "target.txt"]


def test_report_output_keeps_its_link_and_mode(tmp_path: Path) -> None:
    sitemap = tmp_path / "s.xml"
    sitemap.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
                       '"http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                       "<url><loc>https://e.example/a</loc></url>\n</urlset>\n")
    real = tmp_path / "real.json"
    real.write_text("{}")
    real.chmod(0o640)
    (tmp_path / "r.json").symlink_to(real)
    result = run("report", str(sitemap), "-o", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "r.json").is_symlink() and '"files"' in real.read_text()
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    (tmp_path / "dir").mkdir()
    busy = run("report", str(sitemap), "-o", str(tmp_path / "dir"))
    assert busy.returncode == 1
    assert b"dir: cannot write: Is a directory; nothing was written" in busy.stderr
