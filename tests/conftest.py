"""Shared test helpers: the installed command, the conformance material, sample paths."""

from __future__ import annotations

import compileall
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests assert behaviour, not speed: on a shared 2-core machine one example can take
# ten times its usual time, and a deadline would fail the run for that alone.
settings.register_profile("feed2sitemap", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("feed2sitemap")

ROOT = Path(__file__).resolve().parents[1]

# The tests start the installed command some 700 times. Where PYTHONDONTWRITEBYTECODE is set
# (CI's machine sets it), an editable install compiles the package from source at every start,
# 0.1 s each; compile it once here (Python reads these files whatever that variable says).
compileall.compile_dir(str(ROOT / "feed2sitemap"), quiet=2)

SAMPLES = ROOT / "samples"
# In CI the repository is cloned with shared/ beside it (a sibling folder, not part of the repo).
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"


def conformance(*parts: str) -> Path:
    path = CONFORMANCE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"conformance material not present: {path} (../shared is optional)")
    return path


def command() -> list[str]:
    """The installed console script (next to this interpreter), as a user would run it."""
    exe = Path(sys.executable).parent / "feed2sitemap"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("feed2sitemap")
    if found is None:
        pytest.fail("the feed2sitemap command is not installed; run pip install -e '.[test]'")
    return [found]


def run(*args: str, input: bytes | None = None, cwd: Path | None = None,
        timeout: float = 120, env: dict[str, str] | None = None,
        **kw: object) -> subprocess.CompletedProcess[bytes]:
    """Run the installed command in a subprocess and capture its output."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONHASHSEED", None)
    if input is None:  # CI runs with no standard input at all: never inherit it
        kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(command() + list(args), input=input, capture_output=True, cwd=cwd,
                          timeout=timeout, env=env, **kw)  # type: ignore[call-overload]


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    return tmp_path
