"""The README's examples, run through the installed command, so that an example cannot drift
from the tool again.

An example is a line of an indented or fenced code block of README.md that runs
``feed2sitemap`` (at its start, after ``&&``, ``|`` or a CI step's ``run:``). The README's first
command is run from its first ``feed2sitemap`` on (the venv and pip part is this test's setup).
Each example runs in a fresh directory holding a copy of samples/, the samples under the names
the README gives them (STAND_INS) and ``public/``, a site's build folder (a copy of
``samples/site``), after the
examples above it in its block, as a reader types them. It must exit 0 (or its code in
EXIT_CODES), and every sitemap it writes with ``-o`` must pass our own ``feed2sitemap check``.

An example is skipped, saying why, when it is a cron line, a synopsis with placeholders, needs
the network or a secret, or reads a file that is not bundled (SKIPS, in that order).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT, command, run

README = ROOT / "README.md"
STAND_INS = {"feed.xml": "rss2.xml", "feed.json": "feed.json", "urls.txt": "urls.txt",
             "pages.tsv": "urls.tsv"}
EXIT_CODES: dict[str, int] = {}  # an example whose documented exit code is not 0
_COMMAND = re.compile(r"(?:^|&& |\| |run: )feed2sitemap(?: |$)")
_CRON = re.compile(r"^[0-9*/,-]+(?: [0-9*/,-]+){4} ")
_COMMENT = re.compile(r"\s+#.*")
_BASE_URL = re.compile(r"--base-url[ =]\S+")
SKIPS = [
    (lambda c: _CRON.match(c), "a cron line: needs the scheduler and the site's directory"),
    (lambda c: re.search(r"\[|\b[A-Z][A-Z_]{2,}\b", c), "a synopsis: placeholders"),
    (lambda c: re.search(r"\bcurl\b|https?://", _BASE_URL.sub("", c)),
     "needs the network (a URL to fetch)"),
    (lambda c: "$(" in c, "needs a secret (a command substitution)"),
    (lambda c: "s3://" in c, "needs a bucket (object storage)"),
    (lambda c: "--lastmod-from git" in c, "needs the site's git history"),
]


def examples() -> list[tuple[int, int, str]]:
    """(line number, block number, command) of every example, in README order."""
    out = []
    fenced = False
    block = 0
    for n, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            fenced = not fenced
            block += 1
            continue
        if not fenced and not line.startswith("    "):
            block += bool(line.strip())  # (a blank line does not end an indented block)
            continue
        code = _COMMENT.sub("", line.strip()).removeprefix("- run: ")
        if _COMMAND.search(code):
            if not out:  # the first command: from its feed2sitemap on
                code = code[code.index("feed2sitemap"):]
            out.append((n, block, code))
    return out


EXAMPLES = examples()


def inputs(code: str) -> list[str]:
    """The relative paths the example reads: its words with a "." or "/" that are no option,
    no option's value, and not written before by ``-o`` or ``>``."""
    words = shlex.split(code.replace("|", " | "))
    found, written = [], set()
    for before, word in zip(["", *words], words, strict=False):
        if before in ("-o", ">"):
            written.add(word)
        elif word.startswith("-") or before.startswith("--") or word in written:
            continue
        elif ("." in word or "/" in word) and not word.startswith("/"):
            found.append(word)
    return found


def skip_reason(code: str, directory: Path) -> str | None:
    for rule, why in SKIPS:
        if rule(code):
            return why
    for path in inputs(code):
        if not (directory / path).exists():
            return f"reads {path}, which is not bundled"
    return None


def shell(code: str, directory: Path) -> subprocess.CompletedProcess[bytes]:
    """The example in bash, with the installed command first on PATH."""
    env = dict(os.environ)
    env["PATH"] = str(Path(command()[0]).parent) + os.pathsep + env.get("PATH", "")
    return subprocess.run(["bash", "-o", "pipefail", "-c", code], cwd=directory, env=env,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=120)


def sitemaps_written(code: str) -> list[str]:
    words = shlex.split(code)
    return [w for before, w in zip(words, words[1:], strict=False)
            if before == "-o" and re.search(r"\.xml(\.gz)?$", w)]


def test_the_readme_has_examples_that_run() -> None:
    runnable = [code for _, _, code in EXAMPLES if not any(rule(code) for rule, _ in SKIPS)]
    assert "feed2sitemap samples/rss2.xml -o sitemap.xml && cat sitemap.xml" in runnable
    assert len(runnable) >= 5, runnable


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"README.md:{n}" for n, _, _ in EXAMPLES])
def test_readme_example(tmp_path: Path, example: tuple[int, int, str]) -> None:
    number, block, code = example
    shutil.copytree(ROOT / "samples", tmp_path / "samples")
    for name, sample in STAND_INS.items():
        shutil.copy(ROOT / "samples" / sample, tmp_path / name)
    shutil.copytree(ROOT / "samples" / "site", tmp_path / "public")  # a site's build folder
    for n, b, earlier in EXAMPLES:  # the examples above it in its block, as typed
        if b == block and n < number and skip_reason(earlier, tmp_path) is None:
            r = shell(earlier, tmp_path)
            assert r.returncode == EXIT_CODES.get(earlier, 0), (earlier, r.stderr.decode())
    why = skip_reason(code, tmp_path)
    if why is not None:
        pytest.skip(f"README.md:{number}: {why}: {code}")
    r = shell(code, tmp_path)
    assert r.returncode == EXIT_CODES.get(code, 0), f"README.md:{number}: {code}\n" + \
        r.stderr.decode()
    for sitemap in sitemaps_written(code):
        c = run("check", str(tmp_path / sitemap), cwd=tmp_path)
        assert c.returncode == 0, f"README.md:{number}: {sitemap}\n" + c.stderr.decode()
