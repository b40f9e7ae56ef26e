"""The feed fast path against its plain twin: FEED2SITEMAP_REFERENCE=1 reads every feed with
feedparser (backends.py). Both must give the same records, the same scope, the same warnings and
the same refusals, and the command the same bytes.

Where the two may differ, by design:
- a record's line: feedparser gives no positions, so the reference's records have none (the
  sitemap has no lines; only messages about an entry can differ, in their line number);
- a feed that is not well-formed with the text "<!ENTITY" in it: where expat stops, a
  declaration cannot be told from text, so feedparser's path refuses it
  (xmlutil.forbid_entities_in), where the fast pass may have read the entries before;
- time: a feed with hundreds of namespace declarations and many element names costs feedparser
  quadratic time (23 s where the fast pass takes 2: tests/test_hostile.py, linear time).
Neither occurs in the material below; the generated feeds avoid them. The bounds on hostile
XML (xmlutil.MarkupGuard) refuse the same documents at the same lines both ways.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap.backends import ENV
from feed2sitemap.errors import InputError
from feed2sitemap.model.options import ReadOptions
from feed2sitemap.model.report import Report
from feed2sitemap.run.reading import read

from .conftest import run
from .test_feedstream import BASE, FP, atom_feed, corpus_base_url, rss_feed

ROOT = Path(__file__).resolve().parents[1]
MEDIA = ROOT.parent / "shared" / "conformance" / "media-feeds"
SAMPLES = sorted(p for p in (ROOT / "samples").glob("*.xml")
                 if p.read_bytes()[:300].find(b"<urlset") == -1
                 and p.read_bytes()[:300].find(b"<sitemapindex") == -1)


def outcome(data: bytes, base_url: str | None, reference: bool,
            monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    """What reading ``data`` as a feed gives: the records, scope, warnings and skips; or the
    refusal."""
    if reference:
        monkeypatch.setenv(ENV, "1")
    else:
        monkeypatch.delenv(ENV, raising=False)
    report = Report()
    try:
        records = list(read(io.BytesIO(data), ReadOptions(from_format="feed"),
                            report=report, base_url=base_url,
                            name="feed.xml"))
    except InputError as exc:
        return ("refused", exc.reason)
    finally:
        monkeypatch.delenv(ENV, raising=False)
    return ("read", [(r.loc, r.lastmod) for r in records], report.site, dict(report.warnings),
            dict(report.skipped))


def assert_same_both_ways(data: bytes, base_url: str | None,
                          monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    fast = outcome(data, base_url, False, monkeypatch)
    assert outcome(data, base_url, True, monkeypatch) == fast
    return fast


def test_reference_mode_reads_with_feedparser(monkeypatch: pytest.MonkeyPatch) -> None:
    # a feed the fast pass reads with lines; the reference has none: proof it took the other path
    data = (ROOT / "samples" / "rss2.xml").read_bytes()
    lines = {}
    monkeypatch.delenv(ENV, raising=False)
    for reference in (False, True):
        if reference:
            monkeypatch.setenv(ENV, "1")
        lines[reference] = [r.line for r in read(io.BytesIO(data), ReadOptions(from_format="feed"),
                                                 name="f.xml")]
    assert all(lines[False]) and not any(lines[True])


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_samples_read_the_same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = assert_same_both_ways(path.read_bytes(), None, monkeypatch)
    assert got[0] == "read" and got[1]


def test_conformance_feeds_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    if not FP.is_dir():
        pytest.skip(f"feedparser corpus not found at {FP}")
    import json

    expect = {}
    for line in (FP / "feed_expect.jsonl").read_text().splitlines():
        record = json.loads(line)
        expect[record["file"]] = record
    kinds: dict[str, int] = {}
    for path in sorted((FP / "tests").rglob("*.xml")):
        rel = path.relative_to(FP / "tests").as_posix()
        data = path.read_bytes()
        got = assert_same_both_ways(data, corpus_base_url(rel, data, expect), monkeypatch)
        kinds[str(got[0])] = kinds.get(str(got[0]), 0) + 1
    assert kinds["read"] >= 100, kinds


def media_feeds() -> list[Path]:
    return sorted(MEDIA.glob("*.xml")) if MEDIA.is_dir() else []


def test_media_feeds_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    if not media_feeds():
        pytest.skip(f"media feeds not found at {MEDIA}")
    for path in media_feeds():
        for base_url in (None, "https://example.com/feed.xml"):
            assert_same_both_ways(path.read_bytes(), base_url, monkeypatch)


HOSTILE = {
    "attributes": b"<x " + b" ".join(b'a%d=""' % i for i in range(1500)) + b"/>",
    "element name": b"<" + b"n" * 2000 + b"/>",
    "namespace URI": b'<x xmlns="urn:' + b"n" * 2000 + b'"/>',
    # deep where a chunk of 64 KiB ends (the depth is checked there)
    "depth": b"<x>" * 1100 + b"a" * 70_000 + b"</x>" * 1100,
}


@pytest.mark.parametrize("what", sorted(HOSTILE))
@pytest.mark.parametrize("declined", [False, True])
def test_hostile_feeds_are_refused_the_same_both_ways(what: str, declined: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # declined: the fast pass gives up at once (a CDF item), so feedparser's path must refuse
    # the document itself, as it now does in the reference mode too
    item = b'<item href="https://e.example/a">' if declined else b"<item>"
    data = b"<rss><channel>\n" + item + b"<link>https://e.example/a</link>" + HOSTILE[what] + \
        b"</item></channel></rss>"
    got = assert_same_both_ways(data, None, monkeypatch)
    assert got[0] == "refused", got


@pytest.mark.parametrize("where", ["comment", "cdata"])
@pytest.mark.parametrize("enclosure", [False, True], ids=["plain", "enclosure"])
def test_entity_text_in_a_well_formed_feed_is_read_the_same_both_ways(
        where: str, enclosure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # feedparser's path refused "<!ENTITY" anywhere in the bytes: a comment or CDATA section
    # of a well-formed feed read with feedparser (the reference mode, or a feed with an
    # enclosure) was refused where the fast pass read it. The guard's own expat pass, which
    # refuses every declaration, now proves such a feed holds none.
    text = {"comment": b"<!-- <!ENTITY x 'y'> -->",
            "cdata": b"<description><![CDATA[<!ENTITY x 'y'>]]></description>"}[where]
    media = b'<enclosure url="https://e.example/i.jpg" type="image/jpeg"/>' if enclosure else b""
    data = (b'<rss version="2.0"><channel><link>https://e.example/</link>' + text
            + b"<item><link>https://e.example/a</link>" + media + b"</item></channel></rss>")
    assert assert_same_both_ways(data, None, monkeypatch)[:2] == (
        "read", [("https://e.example/a", None)])
    # not well-formed: declarations cannot be told from text, and both refuse
    broken = data.replace(b"<item>", b"<item>&")
    assert assert_same_both_ways(broken, None, monkeypatch)[0] == "refused"
    # a declaration is refused both ways, wherever it is
    declared = b"<!DOCTYPE rss [<!ENTITY x 'y'>]>" + data
    assert assert_same_both_ways(declared, None, monkeypatch)[0] == "refused"


# Generated feeds per CI run; set higher by hand after changing the fast path.
FEED_EXAMPLES = int(os.environ.get("FEED2SITEMAP_FEED_EXAMPLES", "200"))


@pytest.mark.slow
def test_generated_feeds_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    @settings(max_examples=FEED_EXAMPLES, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.one_of(rss_feed(), atom_feed()), BASE, st.sampled_from(["utf-8", "iso-8859-1", None]))
    def check(text: str, base_url: str | None, enc: str | None) -> None:
        if enc is not None:
            text = f'<?xml version="1.0" encoding="{enc}"?>\n{text}'
        assert_same_both_ways(text.encode(enc or "utf-8", "xmlcharrefreplace"), base_url,
                              monkeypatch)

    check()


# --------------------------------------------------------------------------- the command


def converted(feed: Path, out: Path, reference: bool, *extra: str) -> bytes:
    env = dict(os.environ)
    env.pop(ENV, None)
    if reference:
        env[ENV] = "1"
    result = run(str(feed), "-o", str(out), "-q", *extra, env=env)
    assert result.returncode == 0, result.stderr.decode()
    return out.read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize("path", [*SAMPLES, *media_feeds()], ids=lambda p: p.name)
def test_the_command_writes_the_same_bytes_both_ways(path: Path, tmp_path: Path) -> None:
    # every sample and media feed holds absolute links: no --base-url needed
    fast = converted(path, tmp_path / "fast.xml", False)
    assert fast.count(b"<url>") > 0
    assert converted(path, tmp_path / "reference.xml", True) == fast


@pytest.mark.parametrize("path", [*SAMPLES, *media_feeds()], ids=lambda p: p.name)
def test_check_says_the_same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `check` reads feeds by the same policy; an entry's column may differ (the fast pass
    # gives the line of the entry, check's own expat pass the column of its start tag)
    from datetime import datetime, timezone

    from feed2sitemap.check import check

    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    said = []
    for reference in (False, True):
        if reference:
            monkeypatch.setenv(ENV, "1")
        said.append([(d.rule, d.line, d.message) for d in check(path, now=now)])
    assert said[0] == said[1]
