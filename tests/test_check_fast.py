"""check's fast path for plain <url> entries (check/xmlfast.py) against its reference twin
(FEED2SITEMAP_REFERENCE=1: every element through expat's handlers): the same diagnostics, at the
same lines and columns, and the same exit status, on generated good and bad sitemaps."""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from feed2sitemap.backends import ENV
from feed2sitemap.check import Diagnostic, check
from feed2sitemap.check.locs import judge_lastmod
from feed2sitemap.check.xmlfast import lastmods_fine
from feed2sitemap.cli.check import check_command

from .conftest import conformance, run

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"

GOOD_LOCS = ["https://example.com/a/{i}", "https://example.com/q?x={i}&amp;y=2",
             "https://example.com/p-{i}--x/", "https://EXAMPLE.com/{i}/../b{i}",
             "https://example.com/%7e{i}", "https://example.com/{i}.html"]
BAD_LOCS = ["https://example.com/a b{i}", "https://example.com/é{i}", "ftp://example.com/{i}",
            "https://example.com/{i}#frag", "/relative/{i}", "", "https://other.org/{i}",
            "https://example.com/&lt;{i}", "http://a.c", "https://example.com/&#x41;{i}",
            "https://example.com/%zz{i}", "https://example.com/" + "x" * 2100,
            "https://example.com/a/0", " https://example.com/sp{i} "]
LASTMODS = ["2024-03-05", "2024-03-05T10:15:00+01:00", "2024-03-05T10:15:00Z",
            "2024-02-30", "2024-03-05T10:15:00", "0001-01-01", "2026-06-02",
            "2026-05-31T23:00:00-13:00", "2024-03-05T24:00:00Z", "2024-03-05T10:15:00.5Z",
            "2024-13-01", "2024-03-05T10:15:00+14:30", "1000-01-01T00:00:00+01:00", "yesterday",
            "2026-05-30T12:00:00+00:00", " 2024-03-05 "]
CHANGEFREQS = ["daily", "weekly", "Daily", "sometimes", ""]
PRIORITIES = ["0.5", "1.0", "1.5", "-0.1", "abc", "0.50"]


def _entry(rng: random.Random, i: int, bad: float) -> str:
    def pick(good: list[str], wrong: list[str]) -> str:
        return rng.choice(wrong if rng.random() < bad else good)

    loc = pick(GOOD_LOCS, BAD_LOCS).format(i=i)
    fields = [f"<loc>{loc}</loc>"]
    if rng.random() < 0.8:
        fields.append(f"<lastmod>{pick(LASTMODS[:3], LASTMODS)}</lastmod>")
    if rng.random() < 0.6:
        fields.append(f"<changefreq>{pick(CHANGEFREQS[:2], CHANGEFREQS)}</changefreq>")
    if rng.random() < 0.6:
        fields.append(f"<priority>{pick(PRIORITIES[:2], PRIORITIES)}</priority>")
    if rng.random() < bad / 2:  # a schema problem: order, duplicate, unknown, extension
        odd = rng.choice(["swap", "dup", "unknown", "ext", "attr", "text", "comment", "drop"])
        if odd == "swap" and len(fields) > 1:
            fields[0], fields[1] = fields[1], fields[0]
        elif odd == "dup":
            fields.append(fields[0])
        elif odd == "unknown":
            fields.insert(1, "<foo>x</foo>")
        elif odd == "ext":
            fields.append('<image:image><image:loc>https://example.com/i.png</image:loc>'
                          '</image:image>')
        elif odd == "attr":
            fields[0] = fields[0].replace("<loc>", '<loc id="x">')
        elif odd == "text":
            fields.insert(1, "stray")
        elif odd == "comment":
            fields.insert(1, "<!-- a -- comment? no: -->".replace("--", "-"))
        else:
            fields = fields[1:]
    sep = rng.choice(["", "", "", "\n", "\n  ", " "])
    return f"<url>{sep}{sep.join(fields)}{sep}</url>"


def _sitemap(seed: int, n: int, bad: float) -> bytes:
    rng = random.Random(seed)
    head = rng.choice(['<?xml version="1.0" encoding="UTF-8"?>\n', "", "\ufeff"])
    root = rng.choice([f'<urlset xmlns="{NS}" '
                       'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
                       f'<urlset xmlns="{NS}">', f'<s:urlset xmlns:s="{NS}">',
                       '<urlset xmlns="http://example.com/other">'] if bad else
                      [f'<urlset xmlns="{NS}" '
                       'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'])
    if root.startswith("<s:"):
        entries = [_entry(rng, i, bad).replace("<", "<s:").replace("<s:/", "</s:")
                   for i in range(n)]
    else:
        entries = [_entry(rng, i, bad) for i in range(n)]
    between = rng.choice(["\n", "", "\r\n", "\n\n  "])
    tail = "\n</s:urlset>\n" if root.startswith("<s:") else "\n</urlset>\n"
    if bad and rng.random() < 0.1:
        tail = "\n<url><loc>https://example.com/cut"  # not well-formed: ends early
    if bad and rng.random() < 0.1:
        between = "\r"  # a lone CR: a line break for expat
    if bad and rng.random() < 0.1:  # a bare "&" somewhere: expat stops there
        k = rng.randrange(n)
        entries[k] = entries[k].replace("</loc>", "&x</loc>", 1)
    return (head + root + "\n" + between.join(entries) + tail).encode("utf-8")


def _both(path: Path, monkeypatch: pytest.MonkeyPatch,
          **kw: object) -> tuple[list[Diagnostic], list[Diagnostic]]:
    monkeypatch.delenv(ENV, raising=False)
    fast = check(path, now=NOW, **kw)  # type: ignore[arg-type]
    monkeypatch.setenv(ENV, "1")
    plain = check(path, now=NOW, **kw)  # type: ignore[arg-type]
    monkeypatch.delenv(ENV)
    return fast, plain


@pytest.mark.slow
@pytest.mark.parametrize("bad", [0.0, 0.05, 0.3])
@pytest.mark.parametrize("seed", range(12))
def test_fast_and_plain_paths_give_the_same_diagnostics(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, bad: float) -> None:
    # 3,000 entries: several 64 KiB chunks, entries cut at chunk boundaries
    path = tmp_path / "sitemap.xml"
    path.write_bytes(_sitemap(seed, 3000 if seed % 3 == 0 else 300, bad))
    fast, plain = _both(path, monkeypatch)
    assert fast == plain
    if not bad:  # (notes are no problem: changefreq and priority are noted)
        assert [d for d in fast if d.severity != "info"] == []


def test_the_generated_bad_sitemaps_do_find_problems(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # (so that the differential test above compares something)
    path = tmp_path / "sitemap.xml"
    rules: set[str] = set()
    for seed in range(12):
        path.write_bytes(_sitemap(seed, 3000 if seed % 3 == 0 else 300, 0.3))
        fast, _ = _both(path, monkeypatch)
        rules |= {d.rule for d in fast}
    assert {"loc-chars", "lastmod-format", "changefreq", "priority", "order"} <= rules


def test_positions_after_a_run_of_plain_entries(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    plain_entries = "".join(f"<url><loc>https://example.com/{i}</loc></url>" for i in range(500))
    path = tmp_path / "s.xml"
    path.write_text(f'<urlset xmlns="{NS}">\n{plain_entries}<url><loc>x</loc></url>\n'
                    f'{plain_entries.replace("/1<", "/1#f<")}</urlset>\n<after/>')
    fast, plain = _both(path, monkeypatch)
    assert fast == plain
    assert [(d.rule, d.line) for d in fast][:2] == [("loc-length", 2), ("loc-not-http", 2)]
    assert fast[-1].rule == "not-well-formed" and fast[-1].line == 4


def test_sitemap_set_with_follow_same_both_ways(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for k in range(3):
        (tmp_path / f"part-{k}.xml").write_bytes(_sitemap(100 + k, 400, 0.02))
    (tmp_path / "index.xml").write_text(
        f'<sitemapindex xmlns="{NS}">' + "".join(
            f"<sitemap><loc>https://example.com/part-{k}.xml</loc></sitemap>"
            for k in range(3)) + "</sitemapindex>")
    fast, plain = _both(tmp_path / "index.xml", monkeypatch, follow=True)
    assert fast == plain
    assert any(d.rule == "duplicate-across-files" for d in fast)


@pytest.mark.parametrize("seed", [0, 2])
def test_command_same_output_and_exit_status_both_ways(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(_sitemap(seed, 2000, 0.05 * seed))
    fast = run("check", str(path))
    plain = run("check", str(path), env={**__import__("os").environ, ENV: "1"})
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (plain.returncode, plain.stdout, plain.stderr)
    assert fast.returncode == (1 if seed else 0)


def test_cli_runner_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes(_sitemap(5, 1000, 0.1))
    monkeypatch.delenv(ENV, raising=False)
    fast = CliRunner().invoke(check_command, ["--format", "json", str(path)])
    monkeypatch.setenv(ENV, "1")
    plain = CliRunner().invoke(check_command, ["--format", "json", str(path)])
    assert (fast.exit_code, fast.output) == (plain.exit_code, plain.output)
    assert fast.exit_code == 1


def test_real_sitemaps_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    mocks = conformance("sitemap.js-mocks")
    for path in sorted(mocks.rglob("*.xml")):
        fast, plain = _both(path, monkeypatch)
        assert fast == plain, path


class _F:
    """The FileCheck of the value judges, recording what they say."""

    def __init__(self) -> None:
        self.now = NOW
        self.lastmod_verdicts: dict[str, object] = {}
        self.lastmod_days: dict[str, bool] = {}
        self.said: list[tuple[str, str]] = []
        self.notes = self  # (a note is said too: notes.add)

    def error(self, rule: str, line: int, col: int, message: str) -> None:
        self.said.append((rule, message))

    warn = error

    def add(self, rule: str, key: str, line: int, col: int, message: str) -> None:
        self.said.append((rule, message))


_DAYS = st.one_of(st.dates(min_value=date(990, 1, 1), max_value=date(9999, 12, 31)),
                  st.sampled_from([date(1000, 1, 1), date(1000, 1, 2), date(1001, 1, 1),
                                   date(9999, 12, 31), date(999, 12, 31)]))
_TIMES = st.one_of(st.times(), st.sampled_from([time(0, 0), time(23, 59, 59), time(12, 0)]))


@settings(max_examples=400, deadline=None)
@given(day=_DAYS, t=_TIMES, zone=st.sampled_from(["", "Z", "+00:00", "-13:59", "+14:00",
                                                    "+13:00", "-05:30"]),
       date_only=st.booleans(), near=st.sampled_from([None, None, None, -3, -2, -1, 0, 1]))
def test_plain_lastmod_shortcut_agrees_with_the_full_judge(day: date, t: time, zone: str,
                                                          date_only: bool,
                                                          near: int | None) -> None:
    if near is not None:  # near "now": where the future check matters
        day = NOW.date() + timedelta(days=near)
    text = day.isoformat()
    if not date_only:
        text += "T" + t.strftime("%H:%M:%S") + zone
    _same_verdict(text)


@pytest.mark.parametrize("text", [
    "1000-01-01T00:00:00+01:00", "1000-01-01", "1001-01-01T00:00:00+14:00", "0999-12-31",
    "2026-05-31T23:59:59-13:59", "2026-05-30T23:59:59-13:59", "2026-05-30", "2026-05-31",
    "2026-06-01", "2026-06-02", "9999-12-31T23:00:00-05:00", "2024-02-29", "2023-02-29",
    "2024-04-31", "2024-03-05T10:15:00+13:59", "2024-03-05T10:15:00+14:00",
    # placeholders: noted, so never proven fine
    "1970-01-01", "1970-01-01T00:00:00Z", "1969-12-31T19:00:00-05:00", "1900-01-01"])
def test_plain_lastmod_shortcut_at_the_edges(text: str) -> None:
    _same_verdict(text)


def _same_verdict(text: str) -> None:
    # the column proof says "fine" only where the full judge has nothing to say
    slow = _F()
    judge_lastmod(slow, text, 1, 1)  # type: ignore[arg-type]
    if lastmods_fine(_F(), [text]):  # type: ignore[arg-type]
        assert slow.said == []


def test_profile_limits_same_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the URL limit, the loc limit and the byte limit crossed inside runs of plain entries
    from feed2sitemap.model.limits import PROFILES, Profile

    monkeypatch.setitem(PROFILES, "tiny", Profile("tiny", max_urls=700, max_bytes=30_000,
                                                  max_loc=26))
    path = tmp_path / "sitemap.xml"
    path.write_bytes(_sitemap(0, 3000, 0.0))
    fast, plain = _both(path, monkeypatch, profile="tiny")
    assert fast == plain
    assert {"too-many-urls", "too-large", "loc-too-long"} <= {d.rule for d in fast}
