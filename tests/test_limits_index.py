"""--max-urls and --max-bytes hold for the index too; --base-url names a directory (issue 36,
item 11). Through the installed command."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import run

BASE = "https://e.example/"


def _urls(tmp_path: Path, n: int) -> Path:
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"%sp/%d\n" % (BASE.encode(), i) for i in range(n)))
    return src


def test_the_index_obeys_max_urls_and_a_set_that_needs_more_stops(tmp_path: Path) -> None:
    src = _urls(tmp_path, 150)
    out = tmp_path / "sitemap.xml"
    out.write_bytes(b"the user's earlier file\n")
    # 15 parts of 10 would need an index of 15 entries: refused, nothing touched
    done = run(str(src), "-o", str(out), "--base-url", BASE, "--max-urls", "10")
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1, err
    assert "15 sitemap files need an index of 15 entries" in err
    assert "--max-urls (10)" in err and "raise --max-urls to at least 13" in err
    assert out.read_bytes() == b"the user's earlier file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sitemap.xml", "urls.txt"]
    # the least value it names works: 12 parts, an index of 12 entries, within 13
    done = run(str(src), "-o", str(out), "--base-url", BASE, "--max-urls", "13")
    assert done.returncode == 0, done.stderr
    assert len(re.findall(r"<sitemap>", out.read_text())) == 12
    assert len(list(tmp_path.glob("sitemap-*.xml"))) == 12


def test_an_index_larger_than_max_bytes_stops_the_run(tmp_path: Path) -> None:
    src = _urls(tmp_path, 150)
    out = tmp_path / "sitemap.xml"
    done = run(str(src), "-o", str(out), "--base-url", BASE, "--max-urls", "20",
               "--max-bytes", "700")
    err = done.stderr.decode()
    assert done.returncode == 1 and err.count("\n") == 1, err
    assert "index listing the 12 sitemap files" in err and "raise --max-bytes" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["urls.txt"]


@pytest.mark.parametrize("base", [BASE + "?q=/a/", BASE + "#top"])
def test_index_and_check_refuse_a_base_url_with_a_query_or_fragment(tmp_path: Path,
                                                                    base: str) -> None:
    src = _urls(tmp_path, 3)
    assert run(str(src), "-o", str(tmp_path / "s-1.xml")).returncode == 0
    for args in (["index", str(tmp_path / "s-1.xml"), "-o", str(tmp_path / "s.xml")],
                 ["check", str(tmp_path / "s-1.xml")]):
        done = run(*args, "--base-url", base)
        err = done.stderr.decode()
        assert done.returncode == 2 and err.count("\n") == 1, err
        assert "--base-url" in err and "without a query or fragment" in err
    assert not (tmp_path / "s.xml").exists()
