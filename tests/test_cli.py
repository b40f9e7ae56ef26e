"""The command as users run it: click's CliRunner and the installed command in a subprocess."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from feed2sitemap import read
from feed2sitemap.cli.check import check_command
from feed2sitemap.cli.main import convert_command

from .conftest import SAMPLES, run

URLS = b"https://e.example/a\nhttps://e.example/b\n"


def invoke(*args: str, input: bytes | None = None) -> tuple[int, str, str]:
    """Run the convert command under CliRunner."""
    result = CliRunner().invoke(convert_command, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


# --- CliRunner ---------------------------------------------------------------------------------

def test_every_option_of_every_command_has_help() -> None:
    for command in (convert_command, check_command):
        assert command.help
        for param in command.params:
            if param.param_type_name == "option":
                assert getattr(param, "help", None), f"{command.name} {param.name} has no help"


def test_a_one_feed_run_loads_only_what_it_uses(tmp: Path) -> None:
    # The most common run (one feed -> sitemap.xml) is mostly start-up: the merge stores, the
    # robots.txt reader, IndexNow, feedparser and urllib.parse (a clean feed's URLs need no
    # splitting) are imported by the runs that use them only (feedparser reads every feed in
    # the reference mode).
    unused = ("() if reference() else ('feedparser', 'sqlite3', 'urllib.request', "
              "'urllib.parse', 'ipaddress')")
    # (An editable install's import hook has loaded urllib.parse before the first line runs:
    # forgotten here, it is back after the run only if the run imported it.)
    code = ("import sys; [sys.modules.pop(m, None) for m in ('urllib.parse', 'ipaddress')]\n"
            "from feed2sitemap.cli.main import main; from feed2sitemap.backends import reference\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.split('.')[-1] in ("
            f"'robots', 'indexnow', 'robotsfile') or m.startswith({unused})))")
    out = tmp / "sitemap.xml"
    done = subprocess.run([sys.executable, "-c", code, str(SAMPLES / "rss2.xml"), "-o", str(out)],
                          capture_output=True, check=True)
    assert done.stdout.strip() == b"[]"
    assert read(out) and out.stat().st_size > 0


def test_help_and_version() -> None:
    result = CliRunner().invoke(convert_command, ["--help"])
    assert result.exit_code == 0 and "--base-url" in result.output
    result = CliRunner().invoke(convert_command, ["--version"])
    assert result.exit_code == 0 and "feed2sitemap" in result.output


def test_stdin_to_stdout_text() -> None:
    code, out, err = invoke("-", "-t", "text", input=URLS)
    assert code == 0
    assert out == URLS.decode()
    assert "wrote 2 URLs" in err


def test_no_input_argument_reads_stdin() -> None:
    code, out, _ = invoke("-t", "text", "-q", input=URLS)
    assert code == 0 and out == URLS.decode()


def test_quiet_prints_nothing_on_success() -> None:
    code, _, err = invoke("-q", "-t", "text", input=URLS + b"bad\n")
    assert code == 0 and err == ""


def test_bad_line_is_reported_with_file_and_line() -> None:
    code, out, err = invoke("-", "-t", "text", input=b"https://e.example/a\n\nnot-a-url\n")
    assert code == 0
    assert "feed2sitemap: <stdin>:3: skipped: not an absolute URL: 'not-a-url'" in err
    assert "skipped 1: 1 invalid URL" in err


def test_strict_turns_a_skipped_line_into_an_error_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_bytes(URLS + b"ftp://e.example/x\n")
    out = tmp_path / "out.xml"
    code, _, err = invoke(str(src), "-o", str(out), "--strict")
    assert code == 1
    assert f"{src}:3:" in err and "--strict" in err
    assert not out.exists()


@pytest.mark.parametrize("args", [
    ["--priority", "2"], ["--changefreq", "sometimes"], ["--to", "pdf"], ["--bogus"],
    ["--max-urls", "60000"], ["--max-bytes", "0"], ["--base-url", "not-a-url"],
    ["--index", "always"], ["-", "-"], ["--gzip-level", "11"], ["--profile", "bing"],
])
def test_bad_usage_exits_2(args: list[str]) -> None:
    code, _, err = invoke(*args, input=URLS)
    assert code == 2, err
    assert "Traceback" not in err


@pytest.mark.parametrize("base", ["https://e.example/?q=1", "https://e.example/blog/#frag"])
def test_base_url_with_query_or_fragment_is_refused(tmp_path: Path, base: str) -> None:
    out = tmp_path / "s.xml"
    result = run("-", "-o", str(out), "--base-url", base, input=URLS)
    err = result.stderr.decode()
    assert result.returncode == 2 and err.count("\n") == 1, err
    assert "--base-url" in err and "query or fragment" in err
    assert not out.exists()


def test_changefreq_in_another_case_is_lower_cased_with_a_warning() -> None:
    data = b"loc,changefreq\nhttps://e.example/a,Daily\nhttps://e.example/b,sometimes\n"
    result = run("-", input=data)
    out, err = result.stdout.decode(), result.stderr.decode()
    assert result.returncode == 0, err
    assert out.count("<changefreq>daily</changefreq>") == 1 and out.count("<changefreq>") == 1
    assert "<stdin>:2: warning: changefreq 'Daily' lower-cased to 'daily'" in err
    assert "warnings: 2 bad changefreq" in err


def test_nothing_to_write_exits_1() -> None:
    code, out, err = invoke("-", input=b"\n\nnope\n")
    assert code == 1 and out == ""
    assert "no URLs to write" in err


def test_defaults_apply_to_urls_without_values() -> None:
    code, out, _ = invoke("-", "--changefreq", "weekly", "--priority", "0.4", "-q", input=URLS)
    assert code == 0
    assert out.count("<changefreq>weekly</changefreq><priority>0.4</priority>") == 2


def test_off_scope_summary_names_the_hosts() -> None:
    data = URLS + b"https://other.example/x\nhttps://other.example/y\nhttp://e.example/z\n"
    code, _, err = invoke("-", input=data)
    assert code == 0
    assert "3 off scope (2 https://other.example, 1 http://e.example)" in err


def test_no_scope_check_keeps_other_hosts() -> None:
    code, out, _ = invoke("-", "-t", "text", "--no-scope-check", "-q",
                          input=URLS + b"https://other.example/x\n")
    assert code == 0 and "https://other.example/x" in out


def test_base_url_limits_to_its_directory() -> None:
    code, out, _ = invoke("-", "-t", "text", "-q", "--base-url", "https://e.example/blog/",
                          input=b"https://e.example/blog/1\nhttps://e.example/shop/2\n")
    assert code == 0 and out == "https://e.example/blog/1\n"


# --- the installed command -------------------------------------------------------------------

def test_installed_command_pipes_stdin_to_stdout() -> None:
    result = run("-", "-t", "text", input=(SAMPLES / "rss2.xml").read_bytes())
    assert result.returncode == 0
    assert result.stdout.decode().splitlines()[0] == \
        "https://blog.example.com/2024/03/migrating-sitemap/"


def test_python_dash_m_works() -> None:
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "feed2sitemap", "--version"],
                            capture_output=True)
    assert result.returncode == 0 and b"feed2sitemap" in result.stdout


def test_installed_command_reads_gzip_from_stdin_and_writes_gzip(tmp_path: Path) -> None:
    out = tmp_path / "sitemap.xml.gz"
    result = run("-o", str(out), input=gzip.compress((SAMPLES / "sitemap.xml").read_bytes()))
    assert result.returncode == 0, result.stderr
    assert gzip.decompress(out.read_bytes()) == (SAMPLES / "expected" / "sitemap.xml").read_bytes()


def test_failed_run_leaves_existing_output_untouched_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "sitemap.xml"
    out.write_bytes(b"precious")
    bad = tmp_path / "bad.xml"
    bad.write_bytes(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                    b"<url><loc>https://e.example/</loc></url>\n<url><loc>x&y</loc></url>")
    result = run(str(bad), "-o", str(out))
    assert result.returncode == 1
    err = result.stderr.decode()
    assert err.startswith(f"feed2sitemap: {bad}:3:") and "Traceback" not in err
    assert out.read_bytes() == b"precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.xml", "sitemap.xml"]


def test_reading_and_writing_the_same_file_in_one_run(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"
    path.write_bytes((SAMPLES / "sitemap.xml").read_bytes())
    result = run(str(path), "-o", str(path), "--changefreq", "yearly")
    assert result.returncode == 0, result.stderr
    assert [r.loc for r in read(path)] == [r.loc for r in read(SAMPLES / "sitemap.xml")]


def test_missing_input_file_is_a_clear_error(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.xml"))
    assert result.returncode == 1
    assert result.stderr.decode().startswith(f"feed2sitemap: {tmp_path / 'nope.xml'}: cannot open")


def test_stdout_overflow_gives_a_complete_first_sitemap_and_exits_1() -> None:
    data = b"".join(b"https://e.example/%d\n" % i for i in range(7))
    result = run("-", "--max-urls", "3", input=data)
    assert result.returncode == 1
    out = result.stdout.decode()
    assert out.count("<url>") == 3 and out.endswith("</urlset>\n")
    assert "-o" in result.stderr.decode() and "--base-url" in result.stderr.decode()


def test_split_summary_names_each_file(tmp_path: Path) -> None:
    data = b"".join(b"https://e.example/%d\n" % i for i in range(7))
    result = run("-", "-o", str(tmp_path / "s.xml"), "--max-urls", "3", "--base-url",
                 "https://e.example/", input=data)
    assert result.returncode == 0, result.stderr
    err = result.stderr.decode()
    for name, count in [("s-1.xml", 3), ("s-2.xml", 3), ("s-3.xml", 1)]:
        assert f"wrote {tmp_path / name}: {count} URL{'s' if count > 1 else ''}, " in err
    assert f"wrote {tmp_path / 's.xml'}: 3 sitemaps" in err
    assert "wrote 7 URLs in 3 files and 1 index file" in err


def test_output_file_gets_normal_permissions(tmp_path: Path) -> None:
    out = tmp_path / "s.xml"
    old = os.umask(0o022)
    try:
        assert run("-", "-o", str(out), input=URLS).returncode == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644


def test_split_without_base_url_writes_nothing(tmp_path: Path) -> None:
    data = b"".join(b"https://e.example/%d\n" % i for i in range(5))
    result = run("-", "-o", str(tmp_path / "s.xml"), "--max-urls", "2", input=data)
    assert result.returncode == 1
    assert "--base-url" in result.stderr.decode()
    assert list(tmp_path.iterdir()) == []


def _run_on_a_terminal(args: list[str], env_extra: dict[str, str]) -> tuple[int, bytes]:
    """Run the installed command with stderr (and stdout) on a pseudo-terminal."""
    import pty
    import subprocess

    from .conftest import command

    leader, follower = pty.openpty()
    env = dict(os.environ, **env_extra)
    proc = subprocess.Popen(command() + args, stdout=follower, stderr=follower,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closes when the command ends
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return proc.wait(timeout=60), b"".join(chunks)


def test_progress_shows_on_a_terminal_and_is_cleared(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"https://e.example/%d\n" % i for i in range(20000)))
    code, screen = _run_on_a_terminal([str(src), "-o", str(tmp_path / "s.xml")],
                                      {"FEED2SITEMAP_PROGRESS_DELAY": "0"})
    assert code == 0
    assert b"URLs read, " in screen and b"URLs/s" in screen
    # cleared before the summary: the last progress line is wiped by "\r\x1b[K"
    last = screen.rindex(b"URLs/s")
    assert b"\r\x1b[K" in screen[last:]
    assert screen.rstrip().endswith(b"skipped none")


def test_no_progress_when_quiet_or_not_a_terminal(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"https://e.example/%d\n" % i for i in range(20000)))
    code, screen = _run_on_a_terminal([str(src), "-o", str(tmp_path / "s.xml"), "-q"],
                                      {"FEED2SITEMAP_PROGRESS_DELAY": "0"})
    assert code == 0 and screen == b""
    result = run(str(src), "-o", str(tmp_path / "s.xml"), env=dict(
        os.environ, FEED2SITEMAP_PROGRESS_DELAY="0"))
    assert b"URLs read" not in result.stderr


def test_a_signal_while_a_class_is_made_ends_as_the_signal_does() -> None:
    """Python 3.11 wraps what a descriptor's __set_name__ raises (a Ctrl-C while a dataclass of
    a lazily imported module is being made) in a RuntimeError: the command still ends with its
    one-line message and exit 130, not a traceback."""
    import click

    from feed2sitemap.cli.common import Command, Interrupted, unwrapped_signal

    class Interrupting:
        def __set_name__(self, owner: type, name: str) -> None:
            raise Interrupted

    def make_class() -> None:
        type("Made", (), {"field": Interrupting()})

    try:
        make_class()
    except RuntimeError as exc:
        assert isinstance(unwrapped_signal(exc), Interrupted)
    else:  # Python 3.12 and later raise it as it is
        pass

    @click.command(cls=Command)
    def cmd() -> None:
        make_class()

    result = CliRunner().invoke(cmd, [])
    assert result.exit_code == 130, result.output
    assert "interrupted; nothing was written" in result.output
    assert "Traceback" not in result.output
