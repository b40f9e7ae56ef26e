"""Every sample converts to exactly its expected output, through the library and the command."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from feed2sitemap import convert
from feed2sitemap.model.options import WriteOptions

from .conftest import SAMPLES, run

# (input sample, extra arguments, expected output file under samples/expected/)
GOLDEN = [
    ("rss2.xml", [], "rss2.xml"),
    ("atom1.xml", [], "atom1.xml"),
    ("atom03.xml", [], "atom03.xml"),
    ("urls.txt", [], "urls.xml"),
    ("urls.txt", ["-t", "text"], "urls.txt"),
    ("sitemap.xml", [], "sitemap.xml"),
    ("sitemap-index.xml", [], "sitemap-index.xml"),
    ("feed.json", [], "feed-json.xml"),
    ("urls.tsv", [], "urls-tsv.xml"),
    ("urls.csv", [], "urls-csv.xml"),
    ("urls.jsonl", [], "urls-jsonl.xml"),
    ("sitemap.xml", ["-t", "jsonl"], "sitemap.jsonl"),
    ("expected/sitemap.jsonl", [], "sitemap.xml"),  # the JSON Lines read back: lossless
]


@pytest.mark.slow
@pytest.mark.parametrize("sample,args,expected", GOLDEN, ids=[f"{g[0]}{g[1]}" for g in GOLDEN])
def test_command_output_matches_expected(sample: str, args: list[str], expected: str,
                                         tmp_path: Path) -> None:
    out = tmp_path / ("out.txt" if "text" in args else "out.xml")
    result = run(str(SAMPLES / sample), "-o", str(out), *args)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == (SAMPLES / "expected" / expected).read_bytes()


@pytest.mark.parametrize("sample,args,expected", GOLDEN, ids=[f"{g[0]}{g[1]}" for g in GOLDEN])
def test_library_output_matches_expected(sample: str, args: list[str], expected: str) -> None:
    buf = io.BytesIO()
    convert([SAMPLES / sample], buf,
            writing=WriteOptions(to=args[args.index("-t") + 1] if "-t" in args else None))
    assert buf.getvalue() == (SAMPLES / "expected" / expected).read_bytes()
