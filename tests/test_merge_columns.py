"""The merge store (merge.Store) against the plain reference (merge.ReferenceStore, taken under
FEED2SITEMAP_REFERENCE=1): the same entries, in the same order, the same counts and the same
URLs told to IndexNow, the same bytes written, on random inputs (copies, lastmod ties, missing
lastmods, other time zones, changefreq and priority, extensions, a base, a spill forced by a
tiny budget) and through the installed command."""

from __future__ import annotations

import io
import json
import os
import random
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from feed2sitemap import Report, convert
from feed2sitemap.backends import ENV
from feed2sitemap.extensions.model import Alternate, Foreign, Image
from feed2sitemap.model.batch import Batch, batched
from feed2sitemap.model.extensions import EMPTY, Extensions
from feed2sitemap.model.record import CHANGEFREQS, Record, format_lastmod, make_record
from feed2sitemap.pipeline.merging import MergeCounts
from feed2sitemap.pipeline.steps import merge

from .conftest import run

U = "https://example.com/"
ZONES = [timezone.utc, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))]


def _lastmod(rng: random.Random) -> object:
    r = rng.random()
    if r < 0.25:
        return None
    day = date(2024, 1, rng.randrange(1, 4))
    if r < 0.5:
        return day  # a date ties with the midnight UTC of a datetime
    hour = rng.choice([0, 0, 3, 22])
    return datetime(day.year, day.month, day.day, hour, tzinfo=rng.choice(ZONES))


def _extensions(rng: random.Random, i: int) -> Extensions:
    r = rng.random()
    if r < 0.6:
        return EMPTY
    if r < 0.75:
        return Extensions(images=(Image(f"{U}img/{i}.png"),))
    if r < 0.9:
        return Extensions(alternates=(Alternate("de", f"{U}de/{i}"),))
    return Extensions(foreign=(Foreign("urn:x", "tag", (), (str(i),)),))


def random_records(seed: int, n: int, urls: int, *, fields: bool = True,
                   extensions: bool = False, sources: int = 3,
                   sites: tuple[str, ...] = (U,)) -> list[Record]:
    """``n`` copies of ``urls`` URLs from ``sources`` inputs, some sitemaps of an index; the
    first third of the first site, the rest of any of ``sites``."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        site = sites[0] if i < n // 3 else rng.choice(sites)
        loc = f"{site}p{rng.randrange(urls)}"
        plain = not fields or rng.random() < 0.3
        out.append(make_record(
            loc, None if plain else _lastmod(rng),  # type: ignore[arg-type]
            None if plain or rng.random() < 0.5 else rng.choice(CHANGEFREQS),
            None if plain or rng.random() < 0.5 else rng.choice([0.1, 0.5, 0.5, 1.0]),
            source=f"in{min(i * sources // n, sources - 1)}.xml",
            line=None if rng.random() < 0.05 else i + 1,
            extensions=_extensions(rng, i) if extensions else None,
            is_sitemap=rng.random() < 0.02))
    return out


def outcome(monkeypatch: pytest.MonkeyPatch, mode: str, records: list[Record],
            size: int, **options: Any) -> tuple[object, ...]:
    """Every merged entry, field by field (a lastmod as written), the counts, the URLs told."""
    monkeypatch.setenv(ENV, mode)
    told: list[str] = []
    counts = MergeCounts(on_change=told.append)
    rows = []
    for batch in merge(batched(records, size), counts, **options):
        assert isinstance(batch, Batch)
        for r in batch.records():
            rows.append((r.loc, r.is_sitemap, r.source, r.line, r.changefreq, r.priority,
                         None if r.lastmod is None else format_lastmod(r.lastmod),
                         r.extensions))
    return rows, (counts.urls, counts.added, counts.updated, counts.copies), told


def both(monkeypatch: pytest.MonkeyPatch, records: list[Record], size: int,
         **options: Any) -> tuple[object, ...]:
    fast = outcome(monkeypatch, "", records, size, **options)
    assert fast == outcome(monkeypatch, "1", records, size, **options)
    return fast


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("memory_limit", [1 << 30, 1500, 0], ids=["memory", "spill", "all"])
def test_random_copies_merge_as_the_reference_does(monkeypatch: pytest.MonkeyPatch, seed: int,
                                                   memory_limit: int) -> None:
    rng = random.Random(seed)
    records = random_records(seed, rng.randrange(1, 400), rng.randrange(1, 120),
                             fields=seed % 4 != 0, extensions=seed % 3 == 0)
    # the base first (the cron line), or after other inputs' copies
    base = None if seed % 3 == 0 else {f"in{seed % 2}.xml"}
    rows, counts, told = both(monkeypatch, records, rng.choice([1, 7, 64, 2048]),
                              memory_limit=memory_limit, base=base)
    assert counts[0] == len({r.loc for r in records}) == len(rows)
    assert bool(told) == bool(base is not None and (counts[1] or counts[2]))


@pytest.mark.parametrize("seed", range(8))
def test_urls_of_several_sites_merge_as_the_reference_does(monkeypatch: pytest.MonkeyPatch,
                                                          seed: int) -> None:
    # URLs of two sites, the second also spelt as a path of the first
    # (https://example.com/https://other.example/p1, which must stay apart from
    # https://other.example/p1).
    rng = random.Random(seed)
    sites = (U, "https://other.example/", f"{U}https://other.example/")
    records = random_records(seed, rng.randrange(30, 400), rng.randrange(5, 60),
                             fields=seed % 4 != 0, extensions=seed % 3 == 0, sites=sites)
    base = None if seed % 2 else {"in0.xml"}
    rows, counts, _ = both(monkeypatch, records, rng.choice([1, 7, 64]), base=base)
    assert counts[0] == len({r.loc for r in records}) == len(rows)
    assert [r[0] for r in rows] == list(dict.fromkeys(r.loc for r in records))


def test_plain_lists_fold_in_the_batch_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # a second list of the first's URLs and new ones: the all-new batches go in at once, the
    # copies (no fields) change nothing; with a base they still count
    first = [make_record(f"{U}a{i}", source="one.txt", line=i + 1) for i in range(300)]
    second = [make_record(f"{U}{'ab'[i % 2]}{i}", source="two.txt", line=i + 1)
              for i in range(300)]
    rows, counts, _ = both(monkeypatch, first + second, 64)
    assert counts == (450, 450, 0, 150)
    assert [r[0] for r in rows] == [r.loc for r in first] + [
        r.loc for r in second if "/b" in r.loc]
    _, counts, told = both(monkeypatch, first + second, 64, base={"one.txt"})
    assert counts == (450, 150, 0, 150) and len(told) == 150
    # the base last: its plain copies make the URLs they repeat not added
    _, counts, told = both(monkeypatch, first + second, 64, base={"two.txt"})
    assert counts == (450, 150, 0, 150) and len(told) == 150


def test_a_later_copy_moves_the_lastmod_on_and_keeps_first_fields(
        monkeypatch: pytest.MonkeyPatch) -> None:
    old = make_record(f"{U}a", date(2024, 1, 1), "daily", 0.5, source="sitemap.xml", line=3)
    new = make_record(f"{U}a", datetime(2024, 1, 1, 1, tzinfo=ZONES[1]), source="feed.xml")
    later = make_record(f"{U}a", datetime(2024, 1, 1, tzinfo=timezone.utc), "never",
                        source="feed.xml")
    rows, counts, told = both(monkeypatch, [old, new, later], 2048, base={"sitemap.xml"})
    # 01:00+02:00 is 23:00 UTC the day before: older than the date; the tie keeps the date
    assert rows == [(f"{U}a", False, "sitemap.xml", 3, "daily", 0.5, "2024-01-01", EMPTY)]
    assert counts == (1, 0, 0, 2) and told == []


def _write(tmp_path: Path, seed: int) -> list[Path]:
    """Two JSON Lines inputs of random copies (jsonl carries every field)."""
    records = random_records(seed, 3000, 1200)
    paths = []
    for k, part in enumerate((records[:1700], records[1700:])):
        path = tmp_path / f"in{k}.jsonl"
        lines = []
        for r in part:
            fields: dict[str, object] = {"loc": r.loc}
            if r.lastmod is not None:
                fields["lastmod"] = r.lastmod.isoformat()
            if r.changefreq is not None:
                fields["changefreq"] = r.changefreq
            if r.priority is not None:
                fields["priority"] = r.priority
            lines.append(json.dumps(fields))
        path.write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


@pytest.mark.slow
@pytest.mark.parametrize("budget", ["", "20000"], ids=["memory", "spilled"])
def test_the_command_writes_identical_files_both_ways(tmp_path: Path, budget: str) -> None:
    inputs = _write(tmp_path, 7)
    outs = []
    for mode in ("", "1"):
        out = tmp_path / f"out{mode or 0}"
        out.mkdir()
        result = run(*map(str, inputs), "--base-url", U, "--max-urls", "500",
                     "-o", str(out / "sitemap.xml"),
                     env={**os.environ, ENV: mode, "FEED2SITEMAP_MERGE_MEMORY": budget})
        assert result.returncode == 0, result.stderr
        outs.append(({p.name: p.read_bytes() for p in sorted(out.iterdir())},
                     result.stdout, result.stderr.replace(bytes(out), b"OUT")))
    assert outs[0] == outs[1]
    assert len(outs[0][0]) == 4  # 1200 URLs at most 500 a file, and the index


def test_report_and_bytes_of_convert_are_the_same_both_ways(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    inputs = _write(tmp_path, 11)
    seen = []
    for mode in ("", "1"):
        monkeypatch.setenv(ENV, mode)
        out, report = io.BytesIO(), Report()
        summary = convert([str(p) for p in inputs], out, report=report)
        seen.append((out.getvalue(), dict(report.skipped), dict(report.warnings),
                     summary.merge.urls if summary.merge else None,
                     summary.merge.copies if summary.merge else None))
    assert seen[0] == seen[1]
