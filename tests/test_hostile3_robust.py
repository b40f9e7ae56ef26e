"""Issue 35, items 19-23: declared encodings, undefined entities, signals, a commit that fails
half-way, the memory a feed's entries take. Every behaviour is run through the installed
command in both modes (the fast pass and FEED2SITEMAP_REFERENCE=1) and, where it applies,
through the library."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from feed2sitemap import Report
from feed2sitemap.errors import InputError
from feed2sitemap.readers.feed.reader import read_feed

from .conftest import command, run

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


def _feed(n: int) -> bytes:
    items = "".join(f"<item><link>https://e.example/p/{i}</link>"
                    f"<pubDate>Tue, 05 Mar 2024 10:15:00 GMT</pubDate></item>\n"
                    for i in range(n))
    return ('<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>t'
            f"</title><link>https://e.example/</link>\n{items}</channel></rss>\n").encode()


# --- 19. a declared encoding that is unknown or unusable ------------------------------------------

def _rss(encoding: str, bom: bytes = b"") -> bytes:
    return bom + (f'<?xml version="1.0" encoding="{encoding}"?>\n<rss version="2.0"><channel>'
                  "<title>t</title><link>https://e.example/</link>"
                  "<item><link>https://e.example/a</link></item></channel></rss>\n").encode()


UNUSABLE = ["foo", "EBCDIC-US", "UTF-7", "idna", "rot13", "hex", "cp500", "utf-16", "x" * 100]


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


# --- 21. signals at any moment of a run -----------------------------------------------------------

_STARTED = "import 'feed2sitemap.cli.entry'"  # (PYTHONVERBOSE's line once the module has run)


def _signalled_run(args: list[str], env: dict[str, str], signum: int, delay: float
                   ) -> tuple[int, list[str]]:
    """Run the command, and send ``signum`` ``delay`` seconds after our code has started
    running (Python's verbose import trace says when: before that moment a signal meets
    Python's own start-up). The command's own stderr lines, without the trace."""
    lines: list[str] = []
    started = threading.Event()
    with subprocess.Popen(command() + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env={**env, "PYTHONVERBOSE": "1"}) as proc:

        def drain() -> None:
            assert proc.stderr is not None
            for raw in proc.stderr:
                line = raw.decode(errors="replace")
                lines.append(line)
                if line.startswith(_STARTED):
                    started.set()
            started.set()

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        assert started.wait(30), "the command never started"
        time.sleep(delay)
        proc.send_signal(signum)
        code = proc.wait(60)
        reader.join(30)
    # the command's own lines (one written as the process ends may follow a line of the
    # import trace that was not ended yet), and any traceback
    ours = [line[line.find("feed2sitemap: "):].rstrip("\n") if "feed2sitemap: " in line
            else line for line in lines if "feed2sitemap: " in line or "Traceback" in line
            or "Error" in line or "Interrupt" in line]
    return code, ours


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_at_any_moment_ends_cleanly(signum: int, tmp_path: Path, out: Path,
                                             mode_env: dict[str, str]) -> None:
    # Ctrl-C at start-up gave a KeyboardInterrupt traceback and exit 1; SIGHUP killed without
    # cleanup; a late SIGTERM left an empty temporary behind
    src = tmp_path / "in.rss"
    src.write_bytes(_feed(3_000))
    more = ["--max-urls", "1000", "--base-url", "https://e.example/"]  # an index, 3 parts
    args = [str(src), "-o", str(out), *more]
    new = tmp_path / "new" / "sitemap.xml"
    new.parent.mkdir()
    done = run(str(src), "-o", str(new), *more, env=mode_env)
    assert done.returncode == 0, done.stderr
    expected = {p.name: p.read_bytes() for p in new.parent.iterdir()}
    parts = sorted(expected)
    assert len(parts) == 4
    how = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated",
           signal.SIGHUP: "hung up"}[signum]
    rng = random.Random(signum)
    span = 0.0
    for attempt in range(7):
        for p in out.parent.iterdir():
            p.unlink()
        out.write_bytes(OLD)
        delay = 0.0 if attempt == 0 else rng.uniform(0, max(span, 0.05) * 1.2)
        started = time.monotonic()
        code, err = _signalled_run(args, mode_env, signum, delay)
        span = max(span, time.monotonic() - started)
        assert not [line for line in err if "Traceback" in line], (delay, err)
        names = sorted(p.name for p in out.parent.iterdir())
        assert not [n for n in names if n.endswith(".tmp")], (delay, names)
        if code in (0, -signum):  # the signal came once the run was over (its last moments:
            # Python's shutdown puts the default actions back, the shell reports 128 + n)
            assert names == parts
            assert {n: (out.parent / n).read_bytes() for n in names} == expected
            continue
        assert code == 128 + signum, (delay, code, err)
        assert err and err[-1].startswith(f"feed2sitemap: {how}"), err
        if "after the output was written" in err[-1]:
            assert {n: (out.parent / n).read_bytes() for n in names} == expected
        else:
            assert names == ["sitemap.xml"] and out.read_bytes() == OLD, (delay, names)


# --- 22. a rename that fails half-way through a commit ------------------------------------------

SPLIT = ["--max-urls", "1000", "--base-url", "https://e.example/"]


def _urls(tmp_path: Path, name: str, version: int) -> Path:
    path = tmp_path / name
    path.write_text("".join(f"https://e.example/p/{i}?v={version}\n" for i in range(3000)))
    return path


def _first_set(tmp_path: Path, env: dict[str, str]) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "set" / "sitemap.xml"
    out.parent.mkdir()
    first = run(str(_urls(tmp_path, "a.txt", 1)), "-o", str(out), *SPLIT, env=env)
    assert first.returncode == 0, first.stderr
    files = {p.name: p.read_bytes() for p in out.parent.iterdir()}
    assert sorted(files) == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml", "sitemap.xml"]
    return out, files


def _as_it_was(out: Path, files: dict[str, bytes]) -> None:
    assert {p.name: p.read_bytes() for p in out.parent.iterdir()} == files


def _root_tool(*args: str) -> bool:
    try:
        return subprocess.run(args, capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def test_an_immutable_part_is_found_before_the_first_rename(tmp_path: Path,
                                                           mode_env: dict[str, str]) -> None:
    # the rename of part 3 failed after parts 1 and 2 had been replaced
    out, files = _first_set(tmp_path, mode_env)
    part = out.parent / "sitemap-3.xml"
    if not _root_tool("chattr", "+i", str(part)):
        pytest.skip("chattr +i needs root and a file system with inode flags")
    try:
        result = run(str(_urls(tmp_path, "b.txt", 2)), "-o", str(out), *SPLIT, env=mode_env)
    finally:
        _root_tool("chattr", "-i", str(part))
    assert result.returncode == 1
    one_line(result.stderr, "sitemap-3.xml: cannot write: it is immutable",
             "nothing was changed")
    _as_it_was(out, files)


def test_a_rename_that_fails_half_way_is_rolled_back(tmp_path: Path,
                                                     mode_env: dict[str, str]) -> None:
    # a file mounted over part 2 (EBUSY on rename): a failure no check before the commit sees
    out, files = _first_set(tmp_path, mode_env)
    part = out.parent / "sitemap-2.xml"
    blocker = tmp_path / "blocker"
    blocker.write_bytes(files["sitemap-2.xml"])
    if not _root_tool("mount", "--bind", str(blocker), str(part)):
        pytest.skip("a bind mount needs root")
    try:
        result = run(str(_urls(tmp_path, "b.txt", 2)), "-o", str(out), *SPLIT, env=mode_env)
        library = _library_write(out)
    finally:
        _root_tool("umount", str(part))
    assert result.returncode == 1
    one_line(result.stderr, "sitemap-2.xml: cannot write:", "nothing was changed")
    assert "nothing was changed" in library
    _as_it_was(out, files)  # part 1 put back, no temporary or backup left, no journal


def _library_write(out: Path) -> str:
    from feed2sitemap import Limits, Record, write
    from feed2sitemap.errors import OutputError

    records = [Record(f"https://e.example/p/{i}?v=3") for i in range(3000)]
    with pytest.raises(OutputError) as caught:
        write(records, str(out), base_url="https://e.example/", limits=Limits(max_urls=1000))
    return str(caught.value)


# --- 23. the memory a feed's entries take ---------------------------------------------------------

CAP = 64 * 1024 * 1024


def _over_the_cap(kind: str) -> bytes:
    """A feed just past 64 MiB that reads quickly: few entries, each with a long text."""
    text = "x" * 60_000
    if kind == "json":
        items = ",".join(f'{{"id": "{i}", "url": "https://e.example/p/{i}", '
                         f'"content_text": "{text}"}}' for i in range(1130))
        return ('{"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": ['
                + items + "]}").encode()
    items = "".join(f"<item><link>https://e.example/p/{i}</link><description>{text}"
                    "</description></item>\n" for i in range(1130))
    return ('<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title>\n' + items
            + "</channel></rss>\n").encode()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rss", "json"])
def test_a_feed_past_the_default_cap_is_refused_in_bounded_memory(
        kind: str, tmp_path: Path, out: Path, mode_env: dict[str, str]) -> None:
    # at the former 256 MiB default a feed of bare items took 918 MB, a JSON Feed 2 GB: the
    # default is 64 MiB (the densest RSS at the cap: 278 MB; a JSON Feed: 569 MB)
    from feed2sitemap.readers.feed.reader import DEFAULT_MAX_FEED_BYTES

    from .test_security import run_measured

    assert DEFAULT_MAX_FEED_BYTES == CAP
    data = _over_the_cap(kind)
    assert CAP < len(data) < CAP + (2 << 20)
    src = tmp_path / f"big.{kind}"
    src.write_bytes(data)
    # (run_measured starts the command in this process's environment: mode_env's mode)
    result = run_measured([str(src), "-o", str(out)])
    assert result.code == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "larger than 67,108,864 bytes" in lines[0], lines
    assert "--max-feed-bytes" in lines[0]
    assert result.peak_mb < 200
    untouched(out)
    taken = run(str(src), "-t", "text", "--max-feed-bytes", str(len(data)), env=mode_env)
    assert taken.returncode == 0, taken.stderr
    assert taken.stdout.count(b"\n") == 1130
