"""Other feed parsers as reference rows beside the RSS and Atom scenarios (issue 18's
yardsticks): fastfeedparser and feedparser-rs, when the floors' interpreter can import them.
They are not dependencies: a yardstick that is not installed is a row marked so, with a note.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from .floors import YARDSTICK_SCRIPT
from .running import Runner, Side

# label → the module to import (the distribution names differ from the module names)
YARDSTICKS = {"fastfeedparser": "fastfeedparser", "feedparser-rs": "feedparser_rs"}


_installed: dict[tuple[str, str], bool] = {}


def installed(fpy: str, module: str) -> bool:
    """Whether ``fpy`` can import ``module`` (asked once per run)."""
    key = (fpy, module)
    if key not in _installed:
        try:
            res = subprocess.run([fpy, "-c", f"import {module}"], capture_output=True,
                                 timeout=60)
            _installed[key] = res.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _installed[key] = False
    return _installed[key]


def yardstick_sides(name: str, src: Path, fpy: str, out: Path, r: Runner) -> list[Side]:
    """A side per yardstick for the feed scenario ``name``; "not installed" ones are not run."""
    sides = []
    for label, module in YARDSTICKS.items():
        od = out / name / label
        side = Side(label, [fpy, r.script(YARDSTICK_SCRIPT), module, str(src),
                            str(od / "records.txt")], od, "text")
        if not installed(fpy, module):
            side.status = "not installed"
        sides.append(side)
    return sides


def missing_note(sides: list[Side]) -> str:
    """The note for a scenario whose yardsticks are not all installed ("" when they are)."""
    absent = [s.label for s in sides if s.status == "not installed"]
    if not absent:
        return ""
    return (f"{' and '.join(absent)} not installed where the floors run: "
            f"{'row' if len(absent) == 1 else 'rows'} skipped (pip install {' '.join(absent)})")
