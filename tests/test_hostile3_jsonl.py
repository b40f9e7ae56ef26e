"""Hostile input, round 3 (issue 35), the JSON Lines, index and check items (13, 15, 16, 18 and
parts of 26): each through the installed command, and through the library where it applies.
Each case failed before its fix. The tests that depend on the mode run in both (the reference
mode: FEED2SITEMAP_REFERENCE=1).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from feed2sitemap import (
    InputError,
    OptionError,
    Record,
    Report,
    WriteOptions,
    convert,
)
from feed2sitemap.check import check
from feed2sitemap.extensions.jsonform import from_json
from feed2sitemap.model.rules import FAR_FUTURE, xsd_lastmod
from feed2sitemap.scale.indexing import read_manifest, write_index
from feed2sitemap.scale.partition import PartManifest, write_partition

from .conftest import run

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


@pytest.fixture(params=["", "1"], ids=["fast", "reference"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both modes: the environment the command inherits and the library reads at the call."""
    monkeypatch.setenv("FEED2SITEMAP_REFERENCE", request.param)
    yield request.param


# --- item 13: extension members of the wrong type ----------------------------------------------

VIDEO = {"thumbnail_loc": "https://example.com/t.jpg", "title": "T", "description": "D",
         "content_loc": "https://example.com/v.mp4"}
# (member, the line's extensions): each must be refused, naming the member
HOSTILE = [
    ("images[0]", {"images": [5]}),
    ("href", {"alternates": [{"hreflang": "de", "href": 5}]}),
    ("duration", {"videos": [{**VIDEO, "duration": True}]}),
    ("title", {"videos": [{**VIDEO, "title": ["T"]}]}),
    ("family_friendly", {"videos": [{**VIDEO, "family_friendly": [True]}]}),
    ("rating", {"videos": [{**VIDEO, "rating": "5"}]}),
    ("view_count", {"videos": [{**VIDEO, "view_count": 10 ** 20}]}),
    ("restriction", {"videos": [{**VIDEO, "restriction": "IE"}]}),
    ("restriction.countries", {"videos": [{**VIDEO, "restriction": {
        "relationship": "allow", "countries": "IE"}}]}),
    ("tags", {"videos": [{**VIDEO, "tags": [1, 2]}]}),
    ("caption", {"images": [{"loc": "https://example.com/i.jpg", "caption": 5}]}),
    ("title", {"news": [{"name": "N", "language": "en", "publication_date": "2024-01-01",
                         "title": {"a": 1}}]}),
    ("lang", {"links": [{"lang": 5, "url": "https://example.com/de"}]}),
]


def _hostile_lines() -> bytes:
    lines = [{"loc": f"https://example.com/p{i}", **ext} for i, (_, ext) in enumerate(HOSTILE)]
    lines.append({"loc": "https://example.com/good", "videos": [{**VIDEO, "duration": 60}]})
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@pytest.mark.parametrize("member, ext", HOSTILE)
def test_from_json_refuses_a_member_of_the_wrong_type_naming_it(member: str,
                                                                ext: dict[str, object]) -> None:
    value, problems = from_json({"loc": "https://example.com/", **ext})
    assert not value  # the item is left out...
    assert len(problems) == 1 and member in problems[0]  # ...and said, naming the member


def test_hostile_extension_members_are_counted_warnings_never_a_crash(
        tmp_path: Path, mode: str) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(_hostile_lines())
    out = tmp_path / "out.xml"
    done = run(str(src), "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert f"warnings: {len(HOSTILE)} bad extension".encode() in done.stderr
    text = out.read_text()
    assert text.count("<url>") == len(HOSTILE) + 1
    assert "True" not in text and "<video:duration>60</video:duration>" in text
    # what was written is what our own check accepts
    checked = run("check", str(out))
    assert checked.returncode == 0, checked.stdout
    # check of the list itself: an error per line, no crash
    listed = run("check", str(src))
    assert listed.returncode == 1 and b"Traceback" not in listed.stderr
    assert listed.stdout.count(b"extension dropped") == len(HOSTILE)


def test_hostile_extension_members_through_the_library(mode: str) -> None:
    report = Report()
    out = io.BytesIO()
    convert([io.BytesIO(_hostile_lines())], out, report=report, scope_check=False)
    assert sum(report.warnings.values()) == len(HOSTILE)
    assert b"True" not in out.getvalue() and out.getvalue().count(b"<video:video>") == 1


# --- item 15: what -t jsonl writes reads back -------------------------------------------------

def _urlset(*urls: str) -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
            f'xmlns:image="{IMAGE_NS}">\n' + "".join(u + "\n" for u in urls)
            + "</urlset>\n").encode()


def _images(page: str, n: int, length: int, caption: str = "") -> str:
    images = "".join(f"<image:image><image:loc>https://example.com/i/{i:04d}/"
                     f"{'a' * (length - 30)}</image:loc>{caption}</image:image>"
                     for i in range(n))
    return f"<url><loc>{page}</loc>{images}</url>"


@pytest.mark.slow
def test_a_url_with_1000_images_round_trips_through_jsonl(tmp_path: Path, mode: str) -> None:
    sitemap = tmp_path / "in.xml"
    sitemap.write_bytes(_urlset(_images("https://example.com/a", 1000, 2000)))
    assert run(str(sitemap), "-o", str(tmp_path / "want.xml")).returncode == 0
    lines = tmp_path / "out.jsonl"
    done = run(str(sitemap), "-t", "jsonl", "-o", str(lines))
    assert done.returncode == 0, done.stderr
    assert lines.stat().st_size > 2_000_000  # one line, far past the 64 KiB of other lists
    back = run(str(lines), "-o", str(tmp_path / "back.xml"))
    assert back.returncode == 0, back.stderr
    assert (tmp_path / "back.xml").read_bytes() == (tmp_path / "want.xml").read_bytes()
    assert run("check", str(lines)).returncode == 0


def test_a_jsonl_entry_longer_than_the_reader_reads_is_skipped_and_counted(
        tmp_path: Path, mode: str) -> None:
    # 1,000 captions of 2,100 backslashes: 2.1 MB of XML, 4.2 MB of JSON (each one escaped)
    caption = "<image:caption>" + "\\" * 2100 + "</image:caption>"
    sitemap = tmp_path / "in.xml"
    sitemap.write_bytes(_urlset("<url><loc>https://example.com/a</loc></url>",
                                _images("https://example.com/b", 1000, 40, caption),
                                "<url><loc>https://example.com/c</loc></url>"))
    lines = tmp_path / "out.jsonl"
    done = run(str(sitemap), "-t", "jsonl", "-o", str(lines))
    assert done.returncode == 0, done.stderr
    assert b"in.xml:4: skipped: entry of 4,2" in done.stderr
    assert b"skipped 1: 1 entry too large" in done.stderr
    assert lines.read_text().splitlines() == ['{"loc":"https://example.com/a"}',
                                              '{"loc":"https://example.com/c"}']
    # the library: the same skip, counted
    report = Report()
    out = io.BytesIO()
    convert([str(sitemap)], out, report=report, writing=WriteOptions(to="jsonl"))
    assert out.getvalue().count(b"\n") == 2 and report.total_skipped == 1


def test_a_jsonl_first_line_past_the_sniffed_head_is_read_as_jsonl(tmp_path: Path,
                                                                    mode: str) -> None:
    images = [{"loc": f"https://example.com/i/{i}/{'a' * 1900}"} for i in range(40)]
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"loc": "https://example.com/a", "images": images}) + "\n"
                   + json.dumps({"loc": "https://example.com/b"}) + "\n")
    assert src.stat().st_size > 64 * 1024
    done = run(str(src), "-o", str(tmp_path / "out.xml"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.xml").read_text().count("<image:image>") == 40
    # a first line past the JSON Lines bound says so, not "not a JSON Feed"
    src.write_text(json.dumps({"loc": "https://example.com/a", "x": "a" * (5 << 20)}) + "\n")
    done = run(str(src), "-o", str(tmp_path / "out.xml"))
    assert done.returncode == 1
    assert done.stderr.decode().splitlines() == [
        f"feed2sitemap: {src}:1: line longer than 4,194,304 bytes; not a JSON Lines list"]


# --- item 16 (and 26): the index step ----------------------------------------------------------

BASE = "https://example.com/"


def _staged(tmp_path: Path) -> tuple[Path, list[PartManifest]]:
    """A partition's parts and their manifest file, in stage/."""
    stage = tmp_path / "stage"
    stage.mkdir()
    records = [Record(f"{BASE}p{i}", lastmod=date(2024, 1, 1 + i)) for i in range(20)]
    manifests = write_partition(records, str(stage), "sitemap", 0)
    (stage / "manifest.jsonl").write_text(
        "".join(json.dumps(m.as_dict()) + "\n" for m in manifests))
    return stage, manifests


def _index(tmp_path: Path, *sources: str) -> subprocess.CompletedProcess[bytes]:
    return run("index", *sources, "-o", str(tmp_path / "site" / "sitemap.xml"),
               "--base-url", BASE)


def _one_line(done: subprocess.CompletedProcess[bytes], name: Path, why: str) -> None:
    assert done.returncode == 1, done.stderr
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"feed2sitemap: {name}") and why in lines[0]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "site").mkdir()
    return tmp_path / "site"


def test_index_refuses_a_utf7_part_in_one_line(tmp_path: Path, site: Path) -> None:
    part = site / "sitemap-0-1.xml"
    part.write_bytes(b'<?xml version="1.0" encoding="UTF-7"?>\n'
                     b'<urlset xmlns="' + NS.encode() + b'"><url><loc>' + BASE.encode()
                     + b"a</loc></url></urlset>\n")
    _one_line(_index(tmp_path, str(part)), part, "encoding 'UTF-7'")
    assert os.listdir(site) == ["sitemap-0-1.xml"]
    with pytest.raises(InputError, match="UTF-7"):
        write_index([str(part)], str(site / "sitemap.xml"), base_url=BASE)


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000,
                                  '{"name": ' + "[" * 100_000 + "]" * 100_000 + "}"])
def test_index_refuses_a_manifest_nested_too_deeply(tmp_path: Path, site: Path,
                                                    text: str) -> None:
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text(text + "\n")
    _one_line(_index(tmp_path, str(manifest)), manifest, "nested too deeply")
    with pytest.raises(InputError, match="nested too deeply"):
        read_manifest(str(manifest))


def test_index_refuses_a_nul_in_a_manifest_name(tmp_path: Path, site: Path) -> None:
    stage, manifests = _staged(tmp_path)
    row = {**manifests[0].as_dict(), "name": manifests[0].name + "\0"}
    manifest = stage / "manifest.jsonl"
    manifest.write_text(json.dumps(row) + "\n")
    _one_line(_index(tmp_path, str(manifest)), manifest, '"name" must be a file name')
    with pytest.raises(InputError, match="file name"):
        PartManifest.from_dict(row)
    # a manifest built in the library with one: refused too, in the same words as the command
    with pytest.raises(InputError, match="NUL"):
        write_index([replace(manifests[0], name=manifests[0].name + "\0")],
                    str(site / "sitemap.xml"), base_url=BASE, directory=str(stage))


@pytest.mark.slow
@pytest.mark.parametrize("field, change", [("urls", 1), ("bytes", 7), ("newest", None)])
def test_index_checks_every_number_of_a_manifest_against_its_part(
        tmp_path: Path, site: Path, field: str, change: int | None) -> None:
    stage, manifests = _staged(tmp_path)
    (site / "sitemap.xml").write_text("mine")  # an index already there: left untouched
    m = manifests[0]
    wrong = replace(m, **{field: change if change is None else getattr(m, field) + change})
    (stage / "manifest.jsonl").write_text(json.dumps(wrong.as_dict()) + "\n")
    part = stage / m.name
    _one_line(_index(tmp_path, str(stage / "manifest.jsonl")), part, "its manifest says")
    assert (site / "sitemap.xml").read_text() == "mine" and part.is_file()
    with pytest.raises(InputError, match="its manifest says"):
        write_index([wrong], str(site / "sitemap.xml"), base_url=BASE, directory=str(stage))
    # the truth is listed as before
    assert _index(tmp_path, str(part)).returncode == 0


def test_index_says_what_a_fifo_or_a_directory_is(tmp_path: Path, site: Path) -> None:
    fifo = site / "sitemap-0-1.xml"
    os.mkfifo(fifo)
    _one_line(_index(tmp_path, str(fifo)), fifo, "is a FIFO")  # (it waited for a writer)
    folder = site / "sitemap-0-2.xml"
    folder.mkdir()
    _one_line(_index(tmp_path, str(folder)), folder, "is a directory")
    _one_line(_index(tmp_path, str(site / "gone.xml")), site / "gone.xml", "no such file")
    # the library too (in a process of its own: before the fix it waited for ever)
    code = ("import sys; from feed2sitemap import PROFILES, InputError;"
            "from feed2sitemap.scale.indexing import read_part\n"
            "try: read_part(sys.argv[1], PROFILES['sitemaps'])\n"
            "except InputError as exc: print(exc)")
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True,
                          timeout=20, stdin=subprocess.DEVNULL)
    assert b"is a FIFO" in done.stdout


@pytest.mark.parametrize("stem", ["sitemap\0", "", "..", "a/b", "site\nmap"])
def test_write_partition_refuses_a_bad_stem_with_option_error(tmp_path: Path,
                                                              stem: str) -> None:
    with pytest.raises(OptionError, match="stem|file name"):
        write_partition([Record(BASE + "a")], str(tmp_path), stem, 0)
    assert os.listdir(tmp_path) == []


# --- item 18: a lastmod year of absurd length ---------------------------------------------------

LONG_YEAR = "1" * 5000 + "-01-01"


@pytest.mark.slow
@pytest.mark.parametrize("name, data", [
    ("in.xml", _urlset(f"<url><loc>{BASE}a</loc><lastmod>{LONG_YEAR}</lastmod></url>")),
    ("in.txt", f"{BASE}a\t{LONG_YEAR}\n".encode()),
    ("in.jsonl", json.dumps({"loc": BASE + "a", "lastmod": LONG_YEAR}).encode() + b"\n"),
])
def test_check_calls_a_lastmod_year_of_5000_digits_invalid(tmp_path: Path, mode: str,
                                                           name: str, data: bytes) -> None:
    src = tmp_path / name
    src.write_bytes(data)
    done = run("check", str(src))
    assert done.returncode == 1 and b"Traceback" not in done.stderr
    diagnostics = done.stdout.decode().splitlines()
    assert len(diagnostics) == 1 and ": error: lastmod-format: " in diagnostics[0]
    assert "a year of 5,000 digits" in diagnostics[0]
    # the library: the same verdict; the XSD's own reading places it past 9999, no crash
    [found] = check(io.BytesIO(data), name=name)
    assert (found.severity, found.rule) == ("error", "lastmod-format")
    assert xsd_lastmod(LONG_YEAR) == (None, False, FAR_FUTURE)
    assert xsd_lastmod("1" * 5000 + "-02-30")[0] is not None  # (a bad day is still bad)


# --- item 26: check on a directory, check --site beside a FIFO ----------------------------------

def test_check_reports_a_directory_as_unreadable(tmp_path: Path) -> None:
    (tmp_path / "sitemaps").mkdir()
    good = tmp_path / "good.xml"
    good.write_bytes(_urlset(f"<url><loc>{BASE}a</loc></url>"))
    done = run("check", str(tmp_path / "sitemaps"), str(good))
    assert done.returncode == 1  # bad data, like any unreadable file: not a usage error (2)
    assert done.stdout.decode().splitlines() == [
        f"{tmp_path / 'sitemaps'}:1:1: error: unreadable: cannot read: Is a directory"]
    assert b"2 files checked, 1 URL, 1 error" in done.stderr
    [found] = check(str(tmp_path / "sitemaps"))
    assert found.rule == "unreadable"


def test_check_site_never_opens_a_fifo(tmp_path: Path, mode: str) -> None:
    public = tmp_path / "public"
    public.mkdir()
    (public / "index.html").write_text("<html><head></head><body>home</body></html>")
    os.mkfifo(public / "trap.html")  # opening it waits for a writer that never comes
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_bytes(_urlset(f"<url><loc>{BASE}</loc></url>"))
    done = run("check", str(sitemap), "--site", str(public), "--base-url", BASE, timeout=30)
    assert done.returncode == 0, done.stdout
    assert done.stdout.decode().splitlines() == [
        f"{public}:1:1: warning: site-not-regular: 1 *.html name of the site not read: not "
        "regular files (a FIFO, a socket or a device): trap.html"]
    assert b"1 warning" in done.stderr
