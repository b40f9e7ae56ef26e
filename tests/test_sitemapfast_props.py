"""The sitemap reader's fast path (readers/sitemapfast.py, model/lastmods.py, the known
changefreqs and priorities of fields.py) against its plain twin (FEED2SITEMAP_REFERENCE=1),
on sitemaps that hypothesis makes.

A sitemap is a few entry templates repeated past several 64 KiB chunks, so that most of it is
read by the fast path (a layout regex, or the general one when entries differ) and the
rest by expat's handlers. The templates draw from what the fast path must read exactly as
the plain reader does, or hand back to it: white space around every tag, references, CDATA,
comments, bad lastmods of many shapes, bad changefreqs and priorities, duplicates, relative
and invalid locations, long lines. Both ways must give the same records (with their lines),
the same messages (with their lines), the same error, and the command the same bytes.
"""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from feed2sitemap.backends import ENV
from feed2sitemap.cli.main import convert_command
from feed2sitemap.readers import sitemapfast

from .test_reference_readers import read_both

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
CHUNK = 1 << 16

_LOCS = st.sampled_from([
    "https://example.com/p", "https://example.com/q?a=1&amp;b=2", "https://example.com/&#233;t",
    "  https://example.com/spaced  ", "https://example.com/caf\u00e9", "", "/relative",
    "https://example.com/x y", "https://example.com/&lt;t&gt;", "HTTPS://Example.COM/Up",
    "https://example.com/a/../b", "https://example.com/%7e", "https://example.com/#frag",
    "ftp://example.com/f", "https://other.example/off-scope", "https://example.com/" + "l" * 2100,
    "<![CDATA[https://example.com/cdata?a&b]]>", "https://example.com/&#x1F600;"])
_LASTMODS = st.sampled_from([
    "2024-03-05", "2024-03-05T10:15:00+00:00", "2024-03-05T10:15:00Z", "2024-03-05T10:15:00+05:30",
    "2024-03-05T10:15:00-14:00", "2024-03-05T10:15:00+14:00", "2024-03-05T10:15:00+15:00",
    "2024-02-30", "0999-01-01", "1000-01-01T00:00:00+01:00", "9999-12-31T23:00:00-05:00",
    "2024-03-05T24:00:00Z", " 2024-03-05 ", "", "yesterday", "2024-W10-2",
    "2024-03-05 10:15:00+00:00", "2024-03-05T10:15:00.5Z", "&#50;024-03-05", "2024-03-05T10:15Z",
    "2024-03-05T10:15:00", "\u0662\u0660\u0662\u0664-03-05", "2024+03-05"])
_CHANGEFREQS = st.sampled_from(["daily", "weekly", "Weekly", "often", "", " never "])
_PRIORITIES = st.sampled_from(["0.5", "1", "1.0", ".5", "0.55", "2", "x", "-0.0", "",
                               "1.00000000000000001", "0.25"])
_SPACES = st.sampled_from(["", "", "\n", "\n  ", "\t", " ", "\r\n    "])


@st.composite
def _template(draw: st.DrawFn) -> str:
    """One <url> entry, as a template ("{i}" becomes the entry's number)."""
    ws = draw(_SPACES)
    loc = draw(_LOCS)
    if loc.startswith("https://example.com/") and draw(st.booleans()):
        loc += "/{i}"  # (else: the same URL again and again, duplicates)
    fields = [f"<loc>{loc}</loc>"]
    for name, values in (("lastmod", _LASTMODS), ("changefreq", _CHANGEFREQS),
                         ("priority", _PRIORITIES)):
        if draw(st.booleans()):
            fields.append(f"{ws}<{name}>{draw(values)}</{name}>")
    odd = draw(st.sampled_from([""] * 12 + ["comment", "reversed", "unknown", "foreign"]))
    if odd == "comment":
        fields.insert(1, "<!-- </url> <url> -->")
    elif odd == "reversed":
        fields.reverse()
    elif odd == "unknown":
        fields.append("<unknown>x</unknown>")
    elif odd == "foreign":
        return '<url xmlns="urn:other"><loc>https://example.com/foreign/{i}</loc></url>'
    return f"<url>{ws}{''.join(fields)}{ws}</url>"


def _sitemap(templates: list[str], sep: str, size: int) -> bytes:
    """The templates repeated until the sitemap passes ``size`` bytes."""
    entries, total, i = [], 0, 0
    while total < size:
        entry = templates[i % len(templates)].replace("{i}", str(i))
        entries.append(entry)
        total += len(entry) + len(sep)
        i += 1
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">{sep}'
            f"{sep.join(entries)}{sep}</urlset>\n").encode()


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(_template(), min_size=1, max_size=6), st.sampled_from(["\n", "", "\r\n", "\n  "]))
def test_generated_sitemaps_read_the_same_both_ways(templates: list[str], sep: str) -> None:
    data = _sitemap(templates, sep, 3 * CHUNK)
    with pytest.MonkeyPatch.context() as mp:
        fast, plain = read_both(data, "sitemap", mp, "https://example.com/")
    assert fast == plain


@settings(max_examples=25, deadline=None)
@pytest.mark.slow  # (seconds of CPU: the default run's budget)
@given(st.lists(_template(), min_size=1, max_size=4), st.integers(0, 10_000),
       st.sampled_from([b"<bad", b"&undefined;", b"\x01", b"]]>", b"\xff", b"a\rb", b"&#1;",
                        b"</urlset>", b"<!DOCTYPE x>", b"&amp"]))
def test_damage_anywhere_fails_the_same_both_ways(templates: list[str], seed: int,
                                                  damage: bytes) -> None:
    """Damage at any byte of a sitemap read mostly by the fast path: the same error at the
    same line, after the same messages."""
    data = _sitemap(templates, "\n", 3 * CHUNK)
    at = random.Random(seed).randrange(len(data) // 4, len(data))
    with pytest.MonkeyPatch.context() as mp:
        fast, plain = read_both(data[:at] + damage + data[at:], "sitemap", mp,
                                "https://example.com/")
    assert fast == plain


def test_messages_name_the_lines_of_the_entries_they_are_about(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines are counted only for the entries a message is about: they must still be right,
    in a run the fast path read, on a one-line sitemap as on an indented one."""
    taken: list[bool] = []
    scan = sitemapfast.scan

    def spy(region: bytes, line: int) -> object:
        found = scan(region, line)
        taken.append(found is not None)
        return found

    for sep, per in (("\n", 1), ("", 0)):
        entries = [f"<url><loc>https://example.com/{i}</loc><lastmod>2024-03-05</lastmod></url>"
                   for i in range(3_000)]
        entries[1_234] = entries[1_234].replace("2024-03-05", "2024-02-30")
        data = f'<urlset xmlns="{SM}">{sep}{sep.join(entries)}{sep}</urlset>'.encode()
        taken.clear()
        monkeypatch.setattr("feed2sitemap.readers.sitemap.scan", spy)
        fast, plain = read_both(data, "sitemap", monkeypatch)
        monkeypatch.undo()
        assert fast == plain and any(taken)
        lines = {m.split(":")[1] for m in fast[1] if "lastmod dropped" in m}
        assert lines == {str(1 + per * (1_234 + 1))}, fast[1]


@settings(max_examples=12, deadline=None)
@given(st.lists(_template(), min_size=1, max_size=4))
def test_the_command_writes_the_same_bytes_both_ways(templates: list[str]) -> None:
    data = _sitemap(templates, "\n", 2 * CHUNK)
    outputs = []
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("0", "1"):
            folder = Path(tmp, mode)
            folder.mkdir()
            (folder / "in.xml").write_bytes(data)
            result = CliRunner().invoke(
                convert_command, [str(folder / "in.xml"), "-o", str(folder / "out.xml"),
                                  "--base-url", "https://example.com/"],
                env={**os.environ, ENV: mode})
            out = folder / "out.xml"
            outputs.append((result.exit_code, out.read_bytes() if out.exists() else None,
                            result.output.replace(str(folder), "D")))
    assert outputs[0] == outputs[1]
