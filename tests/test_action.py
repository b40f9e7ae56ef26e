"""The GitHub Action (action.yml): its script run as the runner runs it, with
GITHUB_OUTPUT and GITHUB_STEP_SUMMARY pointing at temporary files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "action" / "run.py"
INPUTS = ["site-dir", "sitemap", "base-url", "output", "lastmod-from", "source", "state",
          "strict", "diff-against", "indexnow-key"]
OUTPUTS = ["url-count", "added", "removed", "problems"]


def sitemap(path: Path, *entries: str) -> Path:
    urls = "".join(f"<url><loc>{loc}</loc>{f'<lastmod>{lastmod}</lastmod>' if lastmod else ''}"
                   f"</url>\n" for loc, _, lastmod in (e.partition(" ") for e in entries))
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns='
                    f'"http://www.sitemaps.org/schemas/sitemap/0.9">\n{urls}</urlset>\n')
    return path


def action(tmp: Path, **inputs: str) -> tuple[int, dict[str, str], str, str]:
    """Run the script: its exit status, outputs, summary and log."""
    out, summary = tmp / "github_output", tmp / "step_summary"
    out.write_text("")
    summary.write_text("# earlier step\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("INPUT_")}
    env.update(GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary))
    env.update({"INPUT_" + k.upper(): v for k, v in inputs.items()})
    done = subprocess.run([sys.executable, str(SCRIPT)], env=env, cwd=tmp, capture_output=True,
                          text=True, timeout=120)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines())
    text = summary.read_text()
    assert text.startswith("# earlier step\n")  # appended to, not replaced
    return done.returncode, outputs, text, done.stdout + done.stderr


def test_a_sitemap_checked_and_compared_with_the_deployed_one(tmp_path: Path) -> None:
    new = sitemap(tmp_path / "sitemap.xml", "https://example.com/ 2024-02-01",
                  "https://example.com/a", "https://example.com/b")
    deployed = sitemap(tmp_path / "deployed.xml", "https://example.com/ 2024-01-01",
                       "https://example.com/gone")
    code, outputs, summary, log = action(tmp_path, sitemap=str(new),
                                         diff_against=str(deployed))
    assert code == 0, log
    assert outputs == {"url-count": "3", "problems": "0", "added": "2", "removed": "1"}
    assert "| URLs | 3 |" in summary and "| errors | 0 |" in summary
    assert f"| added since {deployed} | 2 |" in summary
    assert f"| removed since {deployed} | 1 |" in summary
    assert f"| newer since {deployed} | 1 |" in summary
    assert "Problems" not in summary


def test_problems_are_counted_listed_and_fail_the_step_as_asked(tmp_path: Path) -> None:
    warned = sitemap(tmp_path / "warned.xml", "https://example.com/a", "https://example.com/a")
    code, outputs, summary, log = action(tmp_path, sitemap=str(warned))
    assert code == 0, log
    assert outputs == {"url-count": "2", "problems": "1", "added": "", "removed": ""}
    assert "| warnings | 1 |" in summary and "warned.xml:4:6: warning: duplicate-loc" in summary
    assert "::warning file=" in log
    code, _, _, log = action(tmp_path, sitemap=str(warned), strict="true")
    assert code == 1 and "errors: 0, warnings: 1" in log
    broken = sitemap(tmp_path / "broken.xml", "/relative")
    code, outputs, summary, log = action(tmp_path, sitemap=str(broken))
    assert code == 1 and outputs["problems"] != "0" and "::error file=" in log
    assert "| errors | 2 |" in summary  # its length, its scheme


def test_bad_inputs_and_an_unreadable_deployed_sitemap(tmp_path: Path) -> None:
    new = sitemap(tmp_path / "sitemap.xml", "https://example.com/")
    code, outputs, _, log = action(tmp_path)
    assert (code, outputs) == (2, {}) and "give one of site-dir" in log
    code, _, _, log = action(tmp_path, sitemap=str(new), indexnow_key="0123456789abcdef")
    assert code == 2 and "indexnow-key needs diff-against" in log
    code, outputs, _, log = action(tmp_path, sitemap=str(new),
                                   diff_against=str(tmp_path / "missing.xml"))
    assert code == 0 and (outputs["added"], outputs["removed"]) == ("", "")
    assert "::warning::no diff" in log
    code, _, summary, log = action(tmp_path, sitemap=str(new), diff_against=str(new),
                                   indexnow_key="not a key")
    assert code == 1 and "IndexNow: failed" in summary


def test_a_build_that_fails_is_said_in_the_summary(tmp_path: Path) -> None:
    code, outputs, summary, log = action(tmp_path, site_dir=str(tmp_path / "missing"),
                                         base_url="https://example.com/")
    assert code == 1 and outputs == {}
    assert "could not be built" in summary and "missing" in summary.split("```text")[1]
    assert "::error::the sitemap could not be built" in log


def test_a_site_directory_built_checked_and_counted(tmp_path: Path) -> None:
    site = tmp_path / "public"
    (site / "about").mkdir(parents=True)
    for page in ["index.html", "about/index.html"]:
        (site / page).write_text("<!doctype html><html lang=en><title>t</title>"
                                 "<main>hello</main></html>")
    probe = subprocess.run([sys.executable, "-m", "feed2sitemap", str(site), "-o",
                            str(tmp_path / "probe.xml"), "--base-url", "https://example.com/"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"feed2sitemap takes no site directory as input yet: {probe.stderr.strip()}")
    code, outputs, summary, log = action(tmp_path, site_dir=str(site),
                                         base_url="https://example.com/")
    assert code == 0, log
    assert (site / "sitemap.xml").is_file()
    assert outputs["url-count"] == "2" and "| URLs | 2 |" in summary


def test_action_yml_declares_what_the_script_reads(tmp_path: Path) -> None:
    text = (ROOT / "action.yml").read_text()
    try:
        import yaml
    except ImportError:  # (no YAML parser is a dependency: then the text's shape)
        assert re.search(r"^runs:\n  using: composite$", text, re.M)
        declared = re.findall(r"^  ([a-z-]+):$", text.split("\noutputs:")[0], re.M)
        assert set(declared) == set(INPUTS)
    else:
        data = yaml.safe_load(text)
        assert data["runs"]["using"] == "composite"
        assert set(data["inputs"]) == set(INPUTS) and set(data["outputs"]) == set(OUTPUTS)
    for name in INPUTS:
        env = "INPUT_" + name.upper().replace("-", "_")
        assert f"{env}: ${{{{ inputs.{name} }}}}" in text
    for name in OUTPUTS:
        assert f"${{{{ steps.run.outputs.{name} }}}}" in text
    assert '"$GITHUB_ACTION_PATH"' in text  # installed from its own checkout
