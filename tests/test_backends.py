"""The table of fast paths (backends.TABLE) says the truth about the code: each fast path it lists
exists with about the lines it states, beside a twin, a differential test and a benchmark row;
and the choice of path is made through it, at the places it names, never elsewhere."""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

from feed2sitemap import backends

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "feed2sitemap"


def _lines(spec: str) -> int:
    module, _, name = spec.partition(":")
    obj = importlib.import_module(f"feed2sitemap.{module}")
    for part in filter(None, name.split(".")):
        obj = getattr(obj, part)
    return len(inspect.getsource(obj).splitlines())


@pytest.mark.parametrize("name", sorted(backends.TABLE))
def test_each_fast_path_is_where_the_table_says_with_about_its_lines(name: str) -> None:
    entry = backends.TABLE[name]
    lines = sum(_lines(spec) for spec in entry.fast)
    assert abs(lines - entry.lines) <= max(10, entry.lines // 5), (
        f"{name}: the table says {entry.lines} lines, the code has {lines}: update it")
    assert (ROOT / entry.test).is_file(), entry.test
    for row in entry.row.split(", "):
        assert row in _bench_rows(), f"{name}: no benchmark row {row!r}"


@functools.cache
def _bench_rows() -> set[str]:
    listed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--list"],
                            capture_output=True, text=True, check=True).stdout
    return {line.split()[0] for line in listed.splitlines() if line.strip()}


def _package_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in PACKAGE.rglob("*.py")}


def test_every_choice_of_path_names_an_entry_of_the_table() -> None:
    named = set()
    for path, text in _package_sources().items():
        for found in re.findall(r"\bfast\(\"([^\"]+)\"\)", text):
            assert found in backends.TABLE, f"{path}: fast({found!r}) is not in backends.TABLE"
            named.add(found)
    # the runs and the extension rules are chosen inside a fast path that is itself chosen
    inside = {"feed runs", "extension runs"}
    assert set(backends.TABLE) - inside <= named


def test_no_module_but_backends_reads_the_switch() -> None:
    for path, text in _package_sources().items():
        if path.endswith("backends.py"):
            continue
        assert '"FEED2SITEMAP_REFERENCE"' not in text and "backends.ENV" not in text, path
        assert not re.search(r"\breference\(\)", text), f"{path} asks reference() itself"


def test_the_switch_turns_every_fast_path_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(backends.ENV, raising=False)
    assert all(backends.fast(name) for name in backends.TABLE)
    monkeypatch.setenv(backends.ENV, "1")
    assert not any(backends.fast(name) for name in backends.TABLE)
    monkeypatch.setenv(backends.ENV, "0")
    assert all(backends.fast(name) for name in backends.TABLE)
    with pytest.raises(KeyError):
        backends.fast("no such path")
