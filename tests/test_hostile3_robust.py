"""Issue 35, items 19-23: declared encodings, undefined entities, signals, a commit that fails
half-way, the memory a feed's entries take. Every behaviour is run through the installed
command in both modes (the fast pass and FEED2SITEMAP_REFERENCE=1) and, where it applies,
through the library."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from feed2sitemap import Report
from feed2sitemap.errors import InputError
from feed2sitemap.readers.feed import read_feed

from .conftest import run

OLD = b"the earlier, good sitemap"


@pytest.fixture(params=["fast", "reference"])
def mode_env(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """The environment of the command (and of the library calls) in each reading mode."""
    env = dict(os.environ)
    env.pop("FEED2SITEMAP_REFERENCE", None)
    if request.param == "reference":
        env["FEED2SITEMAP_REFERENCE"] = "1"
        monkeypatch.setenv("FEED2SITEMAP_REFERENCE", "1")
    else:
        monkeypatch.delenv("FEED2SITEMAP_REFERENCE", raising=False)
    return env


@pytest.fixture
def out(tmp_path: Path) -> Path:
    path = tmp_path / "out" / "sitemap.xml"
    path.parent.mkdir()
    path.write_bytes(OLD)
    return path


def untouched(out: Path) -> None:
    assert out.read_bytes() == OLD
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]


def one_line(stderr: bytes, *fragments: str) -> str:
    text = stderr.decode()
    assert "Traceback" not in text, text
    lines = text.strip().splitlines()
    assert len(lines) == 1, lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def library_links(data: bytes, *args: str) -> list[str]:
    import io

    report = Report()
    return [loc for batch in read_feed(io.BytesIO(data), "feed.xml", report)
            for loc in batch.locs]


# --- 19. a declared encoding that is unknown or unusable ------------------------------------------

def _rss(encoding: str, bom: bytes = b"") -> bytes:
    return bom + (f'<?xml version="1.0" encoding="{encoding}"?>\n<rss version="2.0"><channel>'
                  "<title>t</title><link>https://e.example/</link>"
                  "<item><link>https://e.example/a</link></item></channel></rss>\n").encode()


UNUSABLE = ["foo", "EBCDIC-US", "UTF-7", "idna", "rot13", "hex", "cp500", "utf-16", "x" * 100]


@pytest.mark.parametrize("encoding", UNUSABLE)
def test_a_feed_declaring_an_unusable_encoding_is_refused_naming_it(
        encoding: str, tmp_path: Path, out: Path, mode_env: dict[str, str]) -> None:
    # it was read silently as UTF-8 (exit 0), where sitemaps and check refuse the same name
    src = tmp_path / "enc.rss"
    src.write_bytes(_rss(encoding))
    result = run(str(src), "-o", str(out), env=mode_env)
    assert result.returncode == 1, result.stderr
    line = one_line(result.stderr, "enc.rss:1:", "encoding", repr(encoding[:64])[:-1])
    assert len(line) < 300
    untouched(out)
    with pytest.raises(InputError, match="encoding"):
        library_links(_rss(encoding))


@pytest.mark.parametrize("encoding", ["foo", "UTF-7", "rot13"])
def test_a_bom_does_not_excuse_an_unusable_declared_name(
        encoding: str, tmp_path: Path, out: Path, mode_env: dict[str, str]) -> None:
    # a sitemap with a UTF-8 BOM and "utf-7" ended in a ValueError traceback; a feed was read
    for name, data in (("bom.rss", _rss(encoding, b"\xef\xbb\xbf")),
                       ("bom.xml", b"\xef\xbb\xbf" + _sitemap(encoding))):
        src = tmp_path / name
        src.write_bytes(data)
        result = run(str(src), "-o", str(out), env=mode_env)
        assert result.returncode == 1, result.stderr
        one_line(result.stderr, f"{name}:1:", repr(encoding))
        untouched(out)


@pytest.mark.parametrize("encoding", ["Shift_JIS", "windows-1252", "latin1", "UTF-8"])
def test_a_feed_in_a_usable_encoding_is_still_read(encoding: str, tmp_path: Path,
                                                   mode_env: dict[str, str]) -> None:
    src = tmp_path / "ok.rss"
    src.write_bytes(_rss(encoding))
    result = run(str(src), "-t", "text", env=mode_env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"https://e.example/a\n"
    assert library_links(_rss(encoding)) == ["https://e.example/a"]


def _sitemap(encoding: str) -> bytes:
    return (f'<?xml version="1.0" encoding="{encoding}"?>\n<urlset xmlns="http://www.sitemaps'
            '.org/schemas/sitemap/0.9"><url><loc>https://e.example/a</loc></url></urlset>\n'
            ).encode()


@pytest.mark.parametrize("length", [65, 100, 900])
def test_check_and_sitemaps_refuse_a_long_encoding_name_in_one_line(
        length: int, tmp_path: Path, out: Path, mode_env: dict[str, str]) -> None:
    # check crashed (LookupError traceback) on a name of 100 characters: the name was longer
    # than the declaration pattern allowed, so expat looked it up itself
    for name, data in (("long.xml", _sitemap("x" * length)), ("long.rss", _rss("x" * length))):
        src = tmp_path / name
        src.write_bytes(data)
        checked = run("check", str(src), env=mode_env)
        assert checked.returncode == 1, checked.stderr
        assert b"Traceback" not in checked.stderr, checked.stderr
        assert b"error: encoding: unknown encoding 'xxxx" in checked.stdout
        assert max(len(line) for line in checked.stdout.splitlines()) < 300
        converted = run(str(src), "-o", str(out), env=mode_env)
        assert converted.returncode == 1
        one_line(converted.stderr, f"{name}:1:", "unknown encoding")
        untouched(out)


# --- 20. an undefined entity under an external DTD ------------------------------------------------

ATOM_ENTRY = ('<entry><title>a</title><id>urn:{n}</id><updated>2024-01-01T00:00:00Z</updated>'
              '<link href="{link}"/></entry>\n')


def _atom(doctype: str, link: str) -> bytes:
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + doctype + "\n"
            '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
            '<link href="https://e.example/"/><id>x</id><updated>2024-01-01T00:00:00Z</updated>\n'
            + ATOM_ENTRY.format(n=1, link=link)
            + ATOM_ENTRY.format(n=2, link="https://e.example/c") + "</feed>\n").encode()


def _rss_items(doctype: str, link: str) -> bytes:
    return ('<?xml version="1.0" encoding="utf-8"?>\n' + doctype + "\n"
            '<rss version="2.0"><channel><title>t</title><link>https://e.example/</link>\n'
            f"<item><link>{link}</link></item>\n"
            "<item><link>https://e.example/c</link></item>\n</channel></rss>\n").encode()


EXTERNAL = ['<!DOCTYPE feed SYSTEM "">', "<!DOCTYPE feed PUBLIC '' ''>",
            '<!DOCTYPE feed SYSTEM "https://e.example/feed.dtd">']
SECRET = "https://e.example/a/&secret;/b"


@pytest.mark.parametrize("kind", ["atom", "rss"])
@pytest.mark.parametrize("doctype", EXTERNAL)
def test_an_undefined_entity_in_a_link_is_kept_as_text_with_a_warning(
        kind: str, doctype: str, tmp_path: Path, out: Path, mode_env: dict[str, str]) -> None:
    # the fast pass wrote ".../a//b" with exit 0 and no warning under SYSTEM "" (an empty
    # system literal is an external DTD for expat); RSS lost the ";" in both modes
    data = (_atom if kind == "atom" else _rss_items)(doctype, SECRET)
    src = tmp_path / f"ent.{kind}"
    src.write_bytes(data)
    result = run(str(src), "-o", str(out), env=mode_env)
    assert result.returncode == 0, result.stderr
    assert b"<loc>https://e.example/a/&amp;secret;/b</loc>" in out.read_bytes()
    assert b"<loc>https://e.example/c</loc>" in out.read_bytes()
    assert b"malformed feed" in result.stderr and b"undefined entity" in result.stderr
    assert b"1 malformed feed" in result.stderr  # counted in the summary
    assert library_links(data) == [SECRET, "https://e.example/c"]
    out.write_bytes(OLD)
    strict = run(str(src), "-o", str(out), "--strict", env=mode_env)
    assert strict.returncode == 1
    one_line(strict.stderr, "undefined entity", "--strict")
    untouched(out)


def test_an_escaped_reference_in_an_rss_link_is_read_as_feedparser_reads_it(
        mode_env: dict[str, str]) -> None:
    # "&amp;b;" is well-formed text: feedparser's rewrite of "&b;" in an RSS <link> (its fix for
    # "?a=1&b;=2") stands, in both paths; only an undefined reference gets its ";" back
    data = _rss_items("", "https://e.example/q?a=1&amp;b;=2")
    assert library_links(data) == ["https://e.example/q?a=1&b=2", "https://e.example/c"]
