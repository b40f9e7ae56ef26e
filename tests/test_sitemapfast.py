"""The sitemap reader's fast path (readers/sitemapfast.py) against its plain twin.

The fast path lets expat check runs of plain <url> entries with no Python handler and takes
their values from one regular expression; FEED2SITEMAP_REFERENCE=1 reads every element through
the handlers. Both must give the same batches, records, lines, messages and errors, on
generated sitemaps full of what the fast path must hand back to the handlers (comments, CDATA,
references, prefixes, CRLF, bad values, broken XML), over several 64 KiB chunks, and on the
conformance sitemaps.
"""

from __future__ import annotations

import gzip
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

from feed2sitemap.backends import ENV
from feed2sitemap.readers import sitemapfast

from .conftest import CONFORMANCE, run
from .test_reference_readers import _outcome, read_both

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
_LOCS = ["https://example.com/a", "https://example.com/q?a=1&amp;b=2", "https://example.com/&#233;t&#xE9;",
         "  https://example.com/spaced  ", "https://example.com/caf\u00e9", "", "/relative",
         "https://example.com/x y", "https://example.com/&lt;tag&gt;"]
_LASTMODS = ["2024-03-05", "2024-03-05T10:15:00+00:00", "2024-02-30", "yesterday", " 2024-03-05 "]


def _entry(rng: random.Random, i: int) -> str:
    """One <url>, plain most of the time, else one of the forms the fast path must refuse."""
    loc = rng.choice(_LOCS) or ""
    if loc.startswith("https") and rng.random() < 0.7:
        loc = f"{loc}/{i}"
    ws = rng.choice(["", "", "\n  ", "\t", "\r\n    "])
    fields = [f"<loc>{loc}</loc>"]
    if rng.random() < 0.8:
        fields.append(f"{ws}<lastmod>{rng.choice(_LASTMODS)}</lastmod>")
    if rng.random() < 0.5:
        fields.append(f"{ws}<changefreq>{rng.choice(['daily', 'Weekly', 'often'])}</changefreq>")
    if rng.random() < 0.5:
        fields.append(f"{ws}<priority>{rng.choice(['0.5', '1.0', '2', 'x'])}</priority>")
    odd = rng.random()
    if odd < 0.03:
        fields.insert(0, "<!-- a comment </url> <url><loc>https://example.com/c</loc></url> -->")
    elif odd < 0.05:
        fields[0] = f"<loc><![CDATA[https://example.com/cdata/{i}?a&b]]></loc>"
    elif odd < 0.07:
        fields.reverse()
    elif odd < 0.08:
        fields.append("<lastmod></lastmod>")
    elif odd < 0.09:
        return f'<url xmlns="urn:other"><loc>https://example.com/foreign/{i}</loc></url>'
    elif odd < 0.10:
        fields.append("<unknown>x</unknown>")
    elif odd < 0.11:
        return f"<url>{''.join(fields)}</url >"
    return f"<url>{ws}{''.join(fields)}{ws}</url>"


def _sitemap(seed: int, n: int, plain_root: bool = False) -> bytes:
    rng = random.Random(seed)
    root = rng.choice([f'<urlset xmlns="{SM}">', f'<sm:urlset xmlns:sm="{SM}">',
                       f'<urlset xmlns="{SM}" xmlns:image="urn:image">', '<urlset>'])
    if plain_root:
        root = f'<urlset xmlns="{SM}">'
    close = "</sm:urlset>" if "sm:" in root else "</urlset>"
    sep = rng.choice(["\n", "", "\r\n"])
    body = sep.join(_entry(rng, i) for i in range(n))
    if "sm:" in root:
        body = re.sub(r"<(/?)(url|loc|lastmod|changefreq|priority)\b", r"<\1sm:\2", body)
    text = f'<?xml version="1.0" encoding="UTF-8"?>{sep}{root}{sep}{body}{sep}{close}\n'
    data = text.encode("utf-8")
    if seed % 5 == 0:
        data = b"\xef\xbb\xbf" + data
    return data


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(24))
def test_generated_sitemaps_read_the_same_both_ways(seed: int,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 to 3,000 entries: the larger ones span several 64 KiB chunks (heads and tails)
    data = _sitemap(seed, 300 + 120 * seed)
    fast, plain = read_both(data, "sitemap", monkeypatch, "https://example.com/")
    assert fast == plain
    assert fast[0], "the generated sitemap gave no entries at all"


@pytest.mark.parametrize("damage", [
    b"<bad", b"</urlset>", b"&undefined;", b"<url><loc>x</loc>", b"\xff\xfe", b"]]>",
    b'<!DOCTYPE x [<!ENTITY a "b">]>'])
def test_broken_sitemaps_fail_the_same_both_ways(damage: bytes,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = _sitemap(1, 2_000, plain_root=True)  # several chunks; the damage in a middle
    at = data.index(b"</url>", len(data) // 2) + 6
    fast, plain = read_both(data[:at] + damage + data[at:], "sitemap", monkeypatch)
    assert fast == plain
    assert fast[2] is not None  # an error, with its line, both ways


@pytest.mark.parametrize("damage", [
    b"&#1;", b"&#xFFFE;", b"&#99999999999;", b"]]>", b"\x01", b"\xef\xbf\xbe", b"&nbsp;",
    b"&amp", b"a\rb", b"\xc3", b"&#233;&lt;&#x1F600;"])
def test_values_expat_would_refuse_fail_the_same_both_ways(
        damage: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a <loc> of a run the fast path reads without expat seeing it: its own checks
    must refuse what expat refuses (and take what it takes: a lone CR is a line end, and
    references to allowed characters are no damage)."""
    data = _sitemap(1, 2_000, plain_root=True)
    at = data.index(b"</loc>", len(data) // 2)
    fast, plain = read_both(data[:at] + damage + data[at:], "sitemap", monkeypatch)
    assert fast == plain
    assert (fast[2] is None) == (damage in (b"a\rb", b"&#233;&lt;&#x1F600;"))


def test_gzip_and_crlf_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    data = gzip.compress(_sitemap(2, 1_500, plain_root=True).replace(b"\n", b"\r\n"))
    fast, plain = read_both(data, "sitemap", monkeypatch)
    assert fast == plain and fast[0]


def test_plain_sitemaps_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is really taken (else the tests above would compare the plain reader
    with itself), and never in the reference mode."""
    taken: list[bool] = []
    scan = sitemapfast.scan

    def spy(region: bytes, line: int) -> Any:
        found = scan(region, line)
        taken.append(found is not None)
        return found

    monkeypatch.setattr("feed2sitemap.readers.sitemap.scan", spy)
    entries = "\n".join(f"<url><loc>https://example.com/{i}</loc><lastmod>2024-03-05</lastmod>"
                        "</url>" for i in range(3_000))
    data = f'<urlset xmlns="{SM}">\n{entries}\n</urlset>'.encode()
    fast, plain = read_both(data, "sitemap", monkeypatch)
    assert fast == plain
    assert taken and all(taken)
    taken.clear()
    monkeypatch.setenv(ENV, "1")
    _outcome(data, "sitemap", None)
    assert not taken


def test_conformance_sitemaps_read_the_same_both_ways(monkeypatch: pytest.MonkeyPatch) -> None:
    if not CONFORMANCE.exists():
        pytest.skip(f"conformance material not present: {CONFORMANCE} (../shared is optional)")
    paths = [p for p in sorted(CONFORMANCE.rglob("*.xml"))
             if b"sitemaps.org" in p.read_bytes()[:4096]]
    assert len(paths) >= 10
    for path in paths:
        fast, plain = read_both(path.read_bytes(), "sitemap", monkeypatch)
        assert fast == plain, path


def test_command_writes_the_same_bytes_both_ways(tmp_path: Path) -> None:
    src = tmp_path / "in.xml"
    src.write_bytes(_sitemap(3, 2_500, plain_root=True))
    outputs = []
    for mode in ("0", "1"):
        (tmp_path / mode).mkdir()
        r = run(str(src), "-o", "sitemap.xml", cwd=tmp_path / mode, env={**os.environ, ENV: mode})
        assert r.returncode == 0, r.stderr
        # (the summary names the output by its absolute path)
        outputs.append(((tmp_path / mode / "sitemap.xml").read_bytes(),
                        r.stderr.replace(str(tmp_path / mode).encode(), b"OUT")))
    assert outputs[0] == outputs[1]
