"""The list and sitemap readers' fast paths against their plain twins (backends.py's reference
mode).

With FEED2SITEMAP_REFERENCE=1 the text reader goes a line at a time (no clean-block proof), the
column and sitemap readers parse every field of every row by itself (no column-at-once lastmod
parse, no cache of distinct values), JSON Lines are parsed a line at a time, and no lastmod text
is handed to the writers ready-made. Both ways must give the same records, the same messages,
the same errors, and the same output bytes.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap import Feed2SitemapError, ReadOptions, Report
from feed2sitemap.backends import ENV
from feed2sitemap.run.reading import read_batches

from .conftest import CONFORMANCE, SAMPLES, run

# the formats whose readers this module holds to their twins (feeds have their own test)
FORMATS = ("text", "tsv", "csv", "jsonl", "sitemap", "jsonfeed")
_EXT = {".txt": "text", ".tsv": "tsv", ".csv": "csv", ".jsonl": "jsonl", ".json": "jsonfeed"}
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def read_both(data: bytes, fmt: str, monkeypatch: pytest.MonkeyPatch,
              base_url: str | None = None) -> tuple[Any, Any]:
    """What the reader gives for ``data``, fast and then in the reference mode."""
    monkeypatch.delenv(ENV, raising=False)
    fast = _outcome(data, fmt, base_url)
    monkeypatch.setenv(ENV, "1")
    plain = _outcome(data, fmt, base_url)
    monkeypatch.delenv(ENV)
    return fast, plain


def _outcome(data: bytes, fmt: str, base_url: str | None) -> Any:
    """The batches as plain values (every column, row by row), the messages, and the error."""
    messages: list[str] = []
    report = Report(on_message=messages.append)
    rows: list[tuple[Any, ...]] = []
    try:
        for batch in read_batches(io.BytesIO(data), ReadOptions(from_format=fmt),
                                  report=report, base_url=base_url, name="in"):
            rows.append(("batch", batch.is_sitemap, batch.site))
            rows += [(r.loc, r.lastmod, r.changefreq, r.priority, r.source, r.line)
                     for r in batch.records()]
    except Feed2SitemapError as exc:
        return rows, messages, str(exc)
    return rows, messages, None


def _material() -> Iterator[tuple[str, Path]]:
    """(format, file) for every sample and conformance file these readers read."""
    for path in sorted(SAMPLES.glob("*.*")):
        fmt = _EXT.get(path.suffix) or ("sitemap" if path.name.startswith("sitemap") else None)
        if fmt:
            yield fmt, path
    for folder, fmt in (("sitemap.js-mocks", None), ("schema-probes", "sitemap")):
        for path in sorted((CONFORMANCE / folder).glob("*")) if CONFORMANCE.exists() else []:
            kind = fmt or ("text" if path.suffix == ".txt" else
                           "sitemap" if path.suffix == ".xml" else None)
            if kind:
                yield kind, path


MATERIAL = list(_material())


@pytest.mark.parametrize("fmt,path", MATERIAL, ids=[p.name for _, p in MATERIAL])
def test_samples_read_the_same_both_ways(fmt: str, path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    fast, plain = read_both(path.read_bytes(), fmt, monkeypatch, "https://example.com/")
    assert fast == plain


def test_conformance_material_is_used() -> None:
    if not CONFORMANCE.exists():
        pytest.skip(f"conformance material not present: {CONFORMANCE} (../shared is optional)")
    assert sum(1 for _, p in MATERIAL if CONFORMANCE in p.parents) >= 20


# ---------------------------------------------------------------------------- generated inputs

_HOSTS = st.sampled_from(["https://example.com", "http://example.com", "https://b.example.org"])
_PATHS = st.lists(st.sampled_from(["a", "b", "café", "%41", "%zz", "x y", "..", ".", "&", "<",
                                   "?q=1", "#f", "~", "维基", "", "A"]), max_size=4)
_URLS = st.builds(lambda h, p: h + "/" + "/".join(p), _HOSTS, _PATHS)
_LINES = st.one_of(_URLS, _URLS.map(lambda u: f"  {u}\t"), st.sampled_from(
    ["", " ", "/relative", "contact.html", "a b", "\u00a0https://example.com/nbsp",
     "https://example.com/\u3000", "mailto:x@example.com"]))
_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@SETTINGS
@given(st.lists(st.tuples(_LINES, _ENDS), max_size=30), st.booleans(), st.booleans(),
       st.sampled_from([None, "https://example.com/dir/"]))
def test_generated_text_lists_read_the_same_both_ways(lines: list[tuple[str, str]], bom: bool,
                                                      last_end: bool, base: str | None) -> None:
    text = "".join(line + end for line, end in lines)
    if lines and not last_end:
        text = text[: -len(lines[-1][1])]
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    with pytest.MonkeyPatch.context() as mp:
        fast, plain = read_both(data, "text", mp, base)
    assert fast == plain


_LASTMODS = st.sampled_from([None, "2024-03-05", "2024-03-05T10:15:00+00:00",
                             "2024-03-05T10:15:00Z", "2024-03-05T10:15:00.5+02:00",
                             "2024-03-05T24:00:00+00:00", "2024-02-30", "2024", "2024-03",
                             "2024-03-05T10:15+01:00", "yesterday", " 2024-03-05 ", ""])
_FREQS = st.sampled_from([None, "daily", "Daily", "weekly ", "sometimes", ""])
_PRIORITIES = st.sampled_from([None, "0.8", "1.0", "1", "0", "1.5", "-0.1", ".5", "x", ""])
_ROWS = st.lists(st.tuples(st.one_of(_URLS, st.sampled_from(["", "/rel"])), _LASTMODS, _FREQS,
                           _PRIORITIES), max_size=25)


def _field(v: str | None) -> str:
    return "" if v is None else v


@SETTINGS
@given(_ROWS, st.sampled_from(["tsv", "csv", "jsonl", "sitemap", "index"]))
def test_generated_rows_read_the_same_both_ways(rows: list[tuple[Any, ...]], fmt: str) -> None:
    if fmt == "tsv":
        data = "".join("\t".join(map(_field, r)) + "\n" for r in rows)
    elif fmt == "csv":
        data = "loc,lastmod,changefreq,priority\n" + "".join(
            ",".join(json.dumps(_field(v)) for v in r) + "\n" for r in rows)
    elif fmt == "jsonl":
        data = "".join(json.dumps({k: (float(v) if k == "priority" and _number(v) else v)
                                   for k, v in zip(("loc", "lastmod", "changefreq", "priority"),
                                                   r, strict=True) if v is not None}) + "\n"
                       for r in rows)
    else:
        data = _sitemap(rows, index=fmt == "index")
    with pytest.MonkeyPatch.context() as mp:
        fast, plain = read_both(data.encode("utf-8"), "sitemap" if fmt == "index" else fmt, mp)
    assert fast == plain


def _number(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True


def _sitemap(rows: list[tuple[Any, ...]], index: bool) -> str:
    root, entry = ("sitemapindex", "sitemap") if index else ("urlset", "url")
    out = [f'<{root} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for row in rows:
        fields = "".join(f"<{k}>{_escape(v)}</{k}>" for k, v in zip(
            ("loc", "lastmod", "changefreq", "priority"), row, strict=True) if v is not None)
        out.append(f"<{entry}>{fields}</{entry}>")
    return "\n".join(out + [f"</{root}>", ""])


def _escape(v: str) -> str:
    return v.replace("&", "&amp;").replace("<", "&lt;")


# ---------------------------------------------------------------------------- whole runs


def _convert_both(src: Path, out_dir: Path, *extra: str) -> None:
    """feed2sitemap SRC -o OUT, fast and reference: the same exit, messages and bytes."""
    results = []
    for mode in ("0", "1"):
        out = out_dir / mode
        out.mkdir()
        env = {ENV: mode, "PATH": "/usr/bin:/bin"}
        res = run(str(src), "-o", str(out / "out.xml"), *extra, env=env)
        files = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
        results.append((res.returncode, res.stderr.replace(str(out).encode(), b"OUT"), files))
    assert results[0] == results[1]
    assert results[0][2] or results[0][0] != 0


@pytest.mark.slow
@pytest.mark.parametrize("fmt,path", MATERIAL, ids=[p.name for _, p in MATERIAL])
def test_samples_convert_to_the_same_bytes_both_ways(fmt: str, path: Path,
                                                     tmp_path: Path) -> None:
    _convert_both(path, tmp_path, "-f", fmt, "--base-url", "https://example.com/")


@pytest.mark.slow
def test_a_large_list_converts_to_the_same_bytes_both_ways(tmp_path: Path) -> None:
    """Several blocks and batches, clean and unclean lines, lastmods in every form: the fast
    paths' ground (a proven block, a column parsed at once, canonical lastmod texts)."""
    forms = ["2024-03-05", "2024-03-05T10:15:00+00:00", "2024-03-05T10:15:00Z",
             "2024-03-05T11:15:00+01:00", "", "bad"]
    tsv = tmp_path / "big.tsv"
    txt = tmp_path / "big.txt"
    with open(tsv, "w", encoding="utf-8") as t, open(txt, "w", encoding="utf-8") as u:
        for i in range(30_000):
            loc = f"https://example.com/p/{i}" + ("/café" if i % 97 == 0 else "")
            t.write(f"{loc}\t{forms[i % len(forms)]}\n")
            u.write((f" {loc} " if i % 1001 == 0 else loc) + ("\r\n" if i > 20_000 else "\n"))
    for src in (tsv, txt):
        out = tmp_path / src.suffix[1:]
        out.mkdir()
        _convert_both(src, out, "--base-url", "https://example.com/")
