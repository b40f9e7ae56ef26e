"""Messages a user sees around the run itself: the working directory, the terminal."""

from __future__ import annotations

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
