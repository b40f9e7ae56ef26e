"""Messages a user sees around the run itself: the working directory, the terminal."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
from pathlib import Path

import pytest

from .conftest import command

_URL = b"https://example.com/a\n"


@pytest.mark.parametrize("args", [["-o", "out.xml"], ["check", "x.xml"]])
def test_a_run_in_a_deleted_working_directory_ends_in_one_line(args: list[str],
                                                               tmp_path: Path) -> None:
    # It ended in a FileNotFoundError traceback from os.path.abspath.
    argv = " ".join([*command(), *args])
    done = subprocess.run(["sh", "-c", f"mkdir d; cd d; rmdir ../d; exec {argv}"], input=_URL,
                          capture_output=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 1, done.stderr
    assert done.stderr.decode().splitlines() == [
        "feed2sitemap: the working directory no longer exists; cd to one that does and run "
        "again; nothing was written"]


def test_stdin_to_stdout_still_works_in_a_deleted_working_directory(tmp_path: Path) -> None:
    argv = " ".join(command())
    done = subprocess.run(["sh", "-c", f"mkdir d; cd d; rmdir ../d; exec {argv} -q"], input=_URL,
                          capture_output=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert b"<loc>https://example.com/a</loc>" in done.stdout


def _on_a_terminal(*args: str) -> tuple[int, str]:
    """Run the command with a terminal as stdin and stderr; type a URL and Ctrl-D."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the terminal is its stdin, stdout and stderr
        os.execv(command()[0], [*command(), *args])
    os.write(fd, b"https://example.com/a\n\x04")
    seen = b""
    with contextlib.suppress(OSError):  # EIO once the child has gone
        # (it waited for two more Ctrl-D: the readers read again after the end)
        while select.select([fd], [], [], 30)[0] and (chunk := os.read(fd, 4096)):
            seen += chunk
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)  # (still waiting: the assertions say so)
    return os.waitpid(pid, 0)[1], seen.decode()


@pytest.mark.parametrize("args", [[], ["-"], ["-", "--remove", "none.txt"]])
def test_a_terminal_on_stdin_is_told_what_the_command_waits_for(args: list[str],
                                                                tmp_path: Path) -> None:
    (tmp_path / "none.txt").write_text("")
    os.chdir(tmp_path)
    status, seen = _on_a_terminal(*args)
    assert status == 0, seen
    assert seen.count("reading URLs or a feed from standard input (Ctrl-D to end; "
                      "feed2sitemap --help for inputs)") == 1
    assert "<loc>https://example.com/a</loc>" in seen


@pytest.mark.parametrize("args", [["-q"], ["none.txt"]])
def test_no_hint_under_quiet_or_when_stdin_is_not_read(args: list[str], tmp_path: Path) -> None:
    (tmp_path / "none.txt").write_text("https://example.com/a\n")
    os.chdir(tmp_path)
    status, seen = _on_a_terminal(*args)
    assert status == 0, seen
    assert "standard input" not in seen


def test_a_closed_stdin_is_named_in_one_line() -> None:
    # It ended in an AttributeError traceback ('NoneType' object has no attribute 'buffer').
    done = subprocess.run(["sh", "-c", f"exec {' '.join(command())} <&-"], capture_output=True,
                          timeout=60)
    assert done.returncode == 2
    assert done.stderr.decode().splitlines()[-1] == "Error: stdin (-) is closed: name an INPUT"
