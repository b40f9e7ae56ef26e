"""`feed2sitemap diff`: the sets it reports and the gates' exit codes (issue 34)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from feed2sitemap import convert
from feed2sitemap.cli.diff import diff_command
from feed2sitemap.run.diff import diff

from .conftest import run


def _sitemap(path: Path, rows: list[tuple[str, str]], **kw: object) -> Path:
    src = path.with_suffix(".tsv")
    src.write_text("".join(f"{loc}\t{lastmod}\n" if lastmod else f"{loc}\n"
                           for loc, lastmod in rows))
    convert([str(src)], str(path), **kw)  # type: ignore[arg-type]
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    old = _sitemap(tmp_path / "old.xml", [("https://e.com/a", "2024-01-01"),
                                          ("https://e.com/b", "2024-01-01"),
                                          ("https://e.com/c", "2024-01-01"),
                                          ("https://e.com/same", "2024-01-01")])
    new = _sitemap(tmp_path / "new.xml", [("https://e.com/a", "2024-02-01"),
                                          ("https://e.com/b", "2023-06-01"),
                                          ("https://e.com/d", ""),
                                          ("https://e.com/same", "2024-01-01")])
    return old, new


def test_library_gives_each_set(pair: tuple[Path, Path]) -> None:
    result = diff(str(pair[0]), str(pair[1]))
    assert result.examples["added"] == ["https://e.com/d"]
    assert result.examples["removed"] == ["https://e.com/c"]
    assert result.examples["newer"] == ["https://e.com/a"]
    assert result.examples["older"] == ["https://e.com/b"]
    assert result.unchanged == 1
    assert (result.old.urls, result.new.urls, result.changed) == (4, 4, 4)


def test_urls_compare_normalised_and_a_second_copy_counts_once(tmp_path: Path) -> None:
    old = tmp_path / "old.txt"
    new = tmp_path / "new.txt"
    old.write_text("HTTPS://E.com/a\nhttps://e.com/b\n")
    new.write_text("https://e.com/a\nhttps://e.com/a\nhttps://e.com/x\nhttps://e.com/x\n")
    result = diff(str(old), str(new))
    assert dict(result.counts) == {"added": 1, "removed": 1}
    assert result.unchanged == 1


def test_extensions_changed(tmp_path: Path) -> None:
    def page(image: str) -> str:
        return ('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/'
                'schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/'
                f'1.1"><url><loc>https://e.com/p</loc><image:image><image:loc>{image}'
                '</image:loc></image:image></url></urlset>')
    (tmp_path / "a.xml").write_text(page("https://e.com/1.jpg"))
    (tmp_path / "b.xml").write_text(page("https://e.com/2.jpg"))
    assert diff(str(tmp_path / "a.xml"), str(tmp_path / "b.xml")).counts["extensions"] == 1
    assert diff(str(tmp_path / "a.xml"), str(tmp_path / "a.xml")).changed == 0


def test_split_sets_counted_per_part(tmp_path: Path) -> None:
    rows = [(f"https://e.com/p{i}", "2024-01-01") for i in range(10)]
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = _sitemap(tmp_path / "old" / "sitemap.xml", rows,
                   base_url="https://e.com/", limits=_limits(4))
    new = _sitemap(tmp_path / "new" / "sitemap.xml", rows[:3] + rows[4:],
                   base_url="https://e.com/", limits=_limits(4))
    runner = CliRunner()
    got = runner.invoke(diff_command, [str(old), str(new), "--follow", "--format", "json"])
    assert got.exit_code == 0, got.output
    data = json.loads(got.output)
    assert data["counts"]["removed"] == 1 and data["counts"]["unchanged"] == 9
    assert data["old"]["urls"] == 10 and len(data["old"]["files"]) == 3
    assert data["per_file"] == {next(f for f in data["old"]["files"] if "-1." in f):
                                {"removed": 1}}


def _limits(n: int) -> object:
    from feed2sitemap.model.options import Limits

    return Limits(max_urls=n)


@pytest.mark.parametrize("args, code", [
    ([], 0),
    (["--fail-on-removed", "0"], 1),
    (["--fail-on-removed", "1"], 0),
    (["--fail-on-removed", "25%"], 0),   # 1 of 4 is 25%: not more
    (["--fail-on-changed", "3"], 1),
    (["--fail-on-changed", "100%"], 0),
    (["--fail-on-changed", "lots"], 2),
])
def test_gates(pair: tuple[Path, Path], args: list[str], code: int) -> None:
    got = CliRunner().invoke(diff_command, [str(pair[0]), str(pair[1]), *args])
    assert got.exit_code == code, got.output


def test_markdown_and_text_name_the_changes(pair: tuple[Path, Path]) -> None:
    md = CliRunner().invoke(diff_command, [str(pair[0]), str(pair[1]), "--format", "markdown"])
    assert "| removed | 1 |" in md.output and "- `https://e.com/c`" in md.output
    text = CliRunner().invoke(diff_command, [str(pair[0]), str(pair[1]), "--show", "0"])
    assert "1 added, 1 removed, 1 lastmod newer, 1 lastmod older" in text.output
    assert "https://e.com/c" not in text.output


def test_installed_command(pair: tuple[Path, Path], tmp_path: Path) -> None:
    gated = run("diff", str(pair[0]), str(pair[1]), "--fail-on-removed", "0")
    assert gated.returncode == 1
    assert b"1 URL removed; --fail-on-removed 0 allows 0" in gated.stderr
    assert b"https://e.com/c" in gated.stdout
    missing = run("diff", str(tmp_path / "nope.xml"), str(pair[1]))
    assert missing.returncode == 1 and b"Traceback" not in missing.stderr
    assert b"nope.xml" in missing.stderr
