"""check: hreflang alternates must list themselves (ext-alternates) and be reciprocal within the
files of one run (hreflang-reciprocal, a warning after the last file, naming A's entry and B)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from click.testing import CliRunner

from feed2sitemap.check import CheckStats, check, hreflang_diagnostics, iter_check
from feed2sitemap.check.diagnostics import HreflangLinks
from feed2sitemap.cli.check import check_command

from .conftest import run

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        '        xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')
E = "https://example.com/"


def _url(page: str, *alternates: tuple[str, str]) -> str:
    links = "".join(f'\n  <xhtml:link rel="alternate" hreflang="{lang}" href="{E}{href}"/>'
                    for lang, href in alternates)
    return f"<url>\n  <loc>{E}{page}</loc>{links}\n</url>\n"


def _write(path: Path, *urls: str) -> Path:
    path.write_text(HEAD + "".join(urls) + "</urlset>\n")
    return path


def _rules(diags: list) -> list[tuple[str, int, str]]:
    return [(d.rule, d.line, Path(d.file).name) for d in diags]


def test_reciprocal_alternates_pass(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.xml", _url("en/", ("en", "en/"), ("de", "de/")),
                  _url("de/", ("en", "en/"), ("de", "de/")))
    assert check(path, now=NOW) == []


def test_an_alternate_that_does_not_list_back_is_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.xml", _url("en/", ("en", "en/"), ("de", "de/")),  # lines 4-8
                  _url("de/", ("de", "de/")))  # line 9: de/ lists only itself
    diags = check(path, now=NOW)
    assert _rules(diags) == [("hreflang-reciprocal", 7, "s.xml")]
    d = diags[0]
    assert d.severity == "warning"
    assert f"{E}en/ lists {E}de/ as its 'de' version" in d.message
    assert "s.xml:10" in d.message  # where de/ is listed


def test_a_page_checked_without_alternates_does_not_list_back(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.xml", _url("en/", ("en", "en/"), ("fr", "fr/")), _url("fr/"))
    assert _rules(check(path, now=NOW)) == [("hreflang-reciprocal", 7, "s.xml")]


def test_an_alternate_no_file_lists_says_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.xml", _url("en/", ("en", "en/"), ("ja", "ja/")))
    assert check(path, now=NOW) == []


def test_a_page_missing_from_its_own_alternates_is_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.xml", _url("en/", ("de", "de/")), _url("de/", ("de", "de/"),
                                                                       ("en", "en/")))
    diags = check(path, now=NOW)
    assert [(d.rule, d.severity) for d in diags] == [("ext-alternates", "warning")]
    assert "not among its own alternates" in diags[0].message


def test_reciprocity_across_the_parts_of_an_index(tmp_path: Path) -> None:
    _write(tmp_path / "en.xml", _url("en/a", ("en", "en/a"), ("de", "de/a")),
           _url("en/b", ("en", "en/b"), ("de", "de/b")))
    _write(tmp_path / "de.xml", _url("de/a", ("en", "en/a"), ("de", "de/a")),
           _url("de/b", ("de", "de/b")))
    (tmp_path / "index.xml").write_text(
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{E}en.xml</loc></sitemap><sitemap><loc>{E}de.xml</loc></sitemap>"
        "</sitemapindex>")
    diags = check(tmp_path / "index.xml", follow=True, now=NOW)
    assert _rules(diags) == [("hreflang-reciprocal", 12, "en.xml")]
    assert "de.xml:10" in diags[0].message
    # without --follow the parts are not read: nothing to compare
    assert check(tmp_path / "en.xml", now=NOW) == []


def test_shared_stats_wait_for_the_last_file(tmp_path: Path) -> None:
    en = _write(tmp_path / "en.xml", _url("en/", ("en", "en/"), ("de", "de/")))
    de = _write(tmp_path / "de.xml", _url("de/", ("de", "de/")))
    stats = CheckStats()
    assert list(iter_check(en, stats=stats, now=NOW)) == []
    assert list(iter_check(de, stats=stats, now=NOW)) == []
    assert _rules(list(hreflang_diagnostics(stats))) == [("hreflang-reciprocal", 7, "en.xml")]
    assert stats.warnings == 1


def test_command_across_files(tmp_path: Path) -> None:
    en = _write(tmp_path / "en.xml", _url("en/", ("en", "en/"), ("de", "de/")))
    de = _write(tmp_path / "de.xml", _url("de/", ("de", "de/")))
    res = run("check", str(en), str(de))
    assert res.returncode == 0, res.stderr
    assert res.stdout.decode().splitlines() == [
        f"{en}:7:1: warning: hreflang-reciprocal: {E}en/ lists {E}de/ as its 'de' version, "
        f"but that page ({de}:5) does not list it back; Google ignores alternates that are "
        "not reciprocal"]
    assert b"1 warning" in res.stderr
    assert run("check", "--fail-on", "warning", str(en), str(de)).returncode == 1
    assert run("check", str(en)).stdout == b""  # de.xml not checked: nothing to say


def test_cli_runner_json(tmp_path: Path) -> None:
    en = _write(tmp_path / "en.xml", _url("en/", ("en", "en/"), ("de", "de/")))
    de = _write(tmp_path / "de.xml", _url("de/", ("de", "de/")))
    res = CliRunner().invoke(check_command, ["--format", "json", str(en), str(de)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output[:res.output.rindex("]") + 1])
    assert [(d["rule"], d["line"], d["file"]) for d in out] == \
        [("hreflang-reciprocal", 7, str(en))]


def test_memory_is_bounded_and_the_limit_is_said(tmp_path: Path) -> None:
    links = HreflangLinks(limit=3)
    assert links.add(E + "a", [("en", E + "a", 1), ("de", E + "b", 2), ("fr", E + "c", 3)],
                     0, 1)
    assert links.add(E + "b", [("de", E + "b", 5), ("en", E + "a", 6)], 0, 1)
    assert not links.add(E + "c", [("fr", E + "c", 8), ("en", E + "a", 9), ("de", E + "b", 9)],
                         0, 1)
    assert len(links.links) == 3


def test_no_alternates_keep_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.xml", *(_url(f"p{i}") for i in range(100)))
    stats = CheckStats()
    assert list(iter_check(path, stats=stats, now=NOW)) == []
    assert stats.hreflang.pages == {} and stats.hreflang.links == []
