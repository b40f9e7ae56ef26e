"""The README's PySpark example, run as written (only its paths and its input replaced) on a
local Spark: where pyspark and a Java runtime are installed; skipped, saying which is missing,
elsewhere (neither is a dependency of the project or of its tests)."""

from __future__ import annotations

import os
import re
import shutil
import sys
from datetime import date
from pathlib import Path

import pytest

from feed2sitemap import read

from .conftest import ROOT

BASE = "https://example.com/"


def _example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- spark-example[^>]*-->\n```python\n(.*?)```", text, re.S)
    assert m, "README.md has no spark-example block"
    return m.group(1)


def _java() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return os.path.join(home, "bin", "java")
    return shutil.which("java")


def test_readme_spark_example_writes_a_valid_sitemap_set(tmp_path: Path) -> None:
    code = _example()  # the block exists even where Spark cannot run
    pytest.importorskip("pyspark", reason="pyspark is not installed (optional)")
    if _java() is None:
        pytest.skip("no Java runtime (java on PATH or JAVA_HOME): Spark needs one")
    staging, out = tmp_path / "staging", tmp_path / "www"
    staging.mkdir()
    out.mkdir()
    replaced = {
        '"/mnt/shared/sitemap-staging"': repr(str(staging)),
        '"/var/www/example.com/sitemap.xml"': repr(str(out / "sitemap.xml")),
        'spark.read.parquet("/lake/pages")': "spark.createDataFrame(ROWS, 'loc string, "
                                             "lastmod date')",
        "N = 64": "N = 3",
        "SparkSession.builder.getOrCreate()": "SparkSession.builder.master('local[2]')"
                                              ".config('spark.ui.enabled', 'false')"
                                              ".getOrCreate()",
    }
    for old, new in replaced.items():
        assert old in code, f"the README example changed: {old} not found"
        code = code.replace(old, new)
    # copies of a URL in other input partitions, one newer; an off-scope URL to skip
    rows = [(f"{BASE}p/{i % 400}", date(2024, 1, 1 + i % 28)) for i in range(500)]
    rows += [(f"{BASE}p/7", date(2025, 6, 1)), ("https://other.example/x", None)]
    os.environ["PYSPARK_PYTHON"] = sys.executable
    scope: dict[str, object] = {"ROWS": rows}
    try:
        exec(compile(code, "README.md:spark-example", "exec"), scope)
    finally:
        spark = scope.get("spark")
        if spark is not None:
            spark.stop()  # type: ignore[attr-defined]
    listed = [r.loc for r in read(out / "sitemap.xml")]
    parts = sorted(p for p in os.listdir(out) if p != "sitemap.xml")
    assert sorted(listed) == [BASE + p for p in parts]
    assert all(re.fullmatch(r"sitemap-[0-2]-1\.xml", p) for p in parts)
    got = [r for p in parts for r in read(out / p)]
    assert len(got) == len({r.loc for r in got}) == 400
    assert {r.loc: r.lastmod for r in got}[f"{BASE}p/7"] == date(2025, 6, 1)
    assert os.listdir(staging) == []
