"""Text to stdout and JSON Lines are extractions: every URL, no sitemap limits unless asked."""

from __future__ import annotations

from pathlib import Path

from .conftest import run

BASE = "https://a.example/"


def split_set(tmp_path: Path, n: int = 60_001) -> Path:
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"{BASE}p{i}\n" for i in range(n)))
    index = tmp_path / "sitemap.xml"
    result = run(str(src), "-o", str(index), "--base-url", BASE)
    assert result.returncode == 0, result.stderr
    return index


def test_text_to_stdout_gives_every_url_of_a_sitemap_set(tmp_path: Path) -> None:
    index = split_set(tmp_path)
    result = run(str(index), "--follow", "-t", "text")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 60_001


def test_explicit_limits_still_apply_to_stdout(tmp_path: Path) -> None:
    index = split_set(tmp_path, 120)
    result = run(str(index), "--follow", "-t", "text", "--max-urls", "100")
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) == 100  # the first complete file, as for XML
    assert b"100 entries" in result.stderr and b"4,611" not in result.stderr


def test_limits_stay_for_xml_to_stdout_and_text_files(tmp_path: Path) -> None:
    index = split_set(tmp_path)
    result = run(str(index), "--follow")
    assert result.returncode == 1 and result.stdout.count(b"</url>") == 50_000
    # a text sitemap written with -o is a sitemap: split, with an index
    result = run(str(index), "--follow", "-o", str(tmp_path / "urls.txt"), "--base-url", BASE)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "urls-2.txt").exists()
