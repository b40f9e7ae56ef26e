"""The check package's shape: its public names, and no import cycle between its modules (each
concern imports what it needs, never the package that runs it)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import feed2sitemap.check

PACKAGE = Path(feed2sitemap.check.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def test_the_public_names_stay_where_users_import_them() -> None:
    from feed2sitemap.check import (  # noqa: F401
        CheckStats,
        Diagnostic,
        FileCheck,
        check,
        iter_check,
        site_diagnostics,
    )

    assert {"CheckStats", "Diagnostic", "FileCheck", "check", "iter_check",
            "site_diagnostics"} <= set(feed2sitemap.check.__all__)


def _imports(module: str) -> set[str]:
    """The sibling modules ``module`` imports at module level, for typing too (an import
    under TYPE_CHECKING is a dependency all the same: the two could not be read apart)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = set()
    nodes = list(tree.body)
    for node in nodes:  # module level only: a function's import runs late, by design
        if isinstance(node, ast.If):
            nodes.extend(node.body)
        elif isinstance(node, ast.ImportFrom) and node.level == 1:
            found.add((node.module or "").split(".")[0])
    return found & set(MODULES)


def test_no_import_cycle_between_the_modules() -> None:
    graph = {m: _imports(m) for m in MODULES}
    done: set[str] = set()

    def visit(m: str, path: tuple[str, ...]) -> None:
        assert m not in path, f"import cycle: {' -> '.join((*path, m))}"
        if m in done:
            return
        for dep in graph[m]:
            visit(dep, (*path, m))
        done.add(m)

    for m in MODULES:
        visit(m, ())


@pytest.mark.slow
@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_on_its_own(module: str) -> None:
    result = subprocess.run([sys.executable, "-c", f"import feed2sitemap.check.{module}"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
