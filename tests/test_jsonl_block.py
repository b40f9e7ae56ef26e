"""JSON Lines at the block path whatever the escaping (issue 33, item 4): lines written by
json.dumps (``\\u00e9``) or PHP (``\\/``) are parsed a block at a time like raw UTF-8, and the
block path still refuses exactly the lines the per-line path refuses, with the same messages.
The differential cases run in both modes (the reference mode: FEED2SITEMAP_REFERENCE=1).
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from feed2sitemap import ReadOptions, Record, Report, read
from feed2sitemap.readers.jsonl import _load_block

from .conftest import run

N = 3000  # more than one block (BATCH), so the hostile line sits in a later block


def _raw(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _php(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False).replace("/", "\\/")


WRITERS: dict[str, Callable[[object], str]] = {"raw": _raw, "ascii": json.dumps, "php": _php}


def lines(write: Callable[[object], str], n: int = N) -> list[str]:
    return [write({"loc": f"https://a.example/caf\u00e9/{i}", "lastmod": "2024-01-01"})
            for i in range(n)]


@pytest.mark.parametrize("how", sorted(WRITERS))
def test_escaped_blocks_take_the_block_path(how: str) -> None:
    # the point of the item: one backslash no longer sends all 2,048 lines to the per-line parse
    block = lines(WRITERS[how], 2048)
    loaded = _load_block(block)
    assert loaded is not None and loaded[0][7]["loc"] == "https://a.example/caf\u00e9/7"


@pytest.mark.parametrize("line", [
    '{"loc": "https://a.example/x", "\\u006coc": "https://a.example/y"}',  # a key spelled
    '{"loc": "https://a.example/\\ud800"}',  # half a surrogate pair
])
def test_an_escape_that_could_hide_a_problem_sends_the_block_line_by_line(line: str) -> None:
    block = lines(_php, 100)
    block[50] = line
    assert _load_block(block) is None


HOSTILE = [
    # a field named twice, spelled with escapes, so that counting '"loc"' cannot see it
    '{"loc": "https://a.example/a", "\\u006coc": "https://a.example/b"}',
    '{"lastmod": "2024-01-01", "loc": "https:\\/\\/a.example\\/c", "lastmo\\u0064": "2024-01-02"}',
    '{"\\u0075rl": "https://a.example/d", "url": "https://a.example/e"}',
    # both loc and url, one of them spelled with an escape
    '{"loc": "https://a.example/f", "\\u0075rl": "https://a.example/g"}',
    # half a surrogate pair, and a whole one (which is a character, kept)
    '{"loc": "https://a.example/\\ud800x"}',
    '{"loc": "https://a.example/\\udc00"}',
    '{"loc": "https://a.example/\\ud83d\\ude00"}',
    # escaped quotes and backslashes around a field's name, in a value
    '{"loc": "https://a.example/h", "x": "\\"loc\\": 1, \\\\\\"loc\\""}',
    '{"loc": "https://a.example/i\\"loc\\""}',
    # NaN, a field named twice plainly, a syntax error after an escape
    '{"loc": "https:\\/\\/a.example\\/j", "priority": NaN}',
    '{"loc": "https:\\/\\/a.example\\/k", "loc": "https:\\/\\/a.example\\/l"}',
    '{"loc": "https:\\/\\/a.example\\/m\\q"}',
    '{"loc": null, "url": "https:\\/\\/a.example\\/n"}',
]


def read_both(data: bytes, monkeypatch: pytest.MonkeyPatch
              ) -> list[tuple[list[Record], list[str], int]]:
    out = []
    for mode in ("0", "1"):
        monkeypatch.setenv("FEED2SITEMAP_REFERENCE", mode)
        got: list[str] = []
        report = Report(on_message=got.append)
        records = list(read(io.BytesIO(data), ReadOptions(from_format="jsonl"),
                            report=report, name="in"))
        out.append((records, got, report.total_skipped))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("how", sorted(WRITERS))
@pytest.mark.parametrize("hostile", HOSTILE)
def test_the_block_path_refuses_what_the_per_line_path_refuses(
        how: str, hostile: str, monkeypatch: pytest.MonkeyPatch) -> None:
    block = lines(WRITERS[how])
    block[2500] = hostile
    fast, plain = read_both(("\n".join(block) + "\n").encode(), monkeypatch)
    assert fast == plain
    assert len(fast[0]) >= N - 1


@pytest.mark.parametrize("how", sorted(WRITERS))
def test_every_writer_reads_the_same_urls(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, plain = read_both(("\n".join(lines(WRITERS[how])) + "\n").encode(), monkeypatch)
    assert fast == plain and fast[2] == 0
    assert [r.loc for r in fast[0]][:2] == ["https://a.example/caf\u00e9/0",
                                            "https://a.example/caf\u00e9/1"]


@pytest.mark.parametrize("how", sorted(WRITERS))
def test_the_command_writes_the_same_sitemap_in_both_modes(tmp_path: Path, how: str) -> None:
    block = lines(WRITERS[how])
    block[2500] = '{"loc": "https://a.example/a", "\\u006coc": "https://a.example/b"}'
    src = tmp_path / "urls.jsonl"
    src.write_text("\n".join(block) + "\n", encoding="utf-8")
    outs = []
    for mode in ("0", "1"):
        out = tmp_path / f"out{mode}.xml"
        result = run(str(src), "-o", str(out), env={**os.environ, "FEED2SITEMAP_REFERENCE": mode})
        assert result.returncode == 0, result.stderr
        assert b"urls.jsonl:2501: skipped: field 'loc' appears twice in the object" \
            in result.stderr
        outs.append((out.read_bytes(), result.stderr.replace(b"out1", b"out0")))
    assert outs[0] == outs[1]
