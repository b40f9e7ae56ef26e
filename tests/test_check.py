"""feed2sitemap check on XML sitemaps: one case per rule, the conformance material, --follow,
and the command line. (Lists: test_check_text.py, test_check_columns.py; feeds:
test_check_feed.py; the value rules against the XSD: test_rules.py.)"""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from click.testing import CliRunner

from feed2sitemap import convert
from feed2sitemap.check import CheckStats, Diagnostic, check
from feed2sitemap.cli.check import check_command
from feed2sitemap.cli.main import main
from feed2sitemap.model.limits import PROFILES, Profile
from feed2sitemap.model.options import Defaults, Limits

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CONFORMANCE = SHARED / "conformance"
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
LINE = re.compile(r"^(.+):(\d+):(\d+): (error|warning): ([a-z-]+): (.+)$")

# Rules for what the XSD cannot express: the only errors an XSD-valid file may get.
PROTOCOL_RULES = {"loc-not-http", "loc-chars", "lastmod-timezone", "too-many-urls", "too-large",
                  "loc-too-long", "dtd", "encoding"}


def urlset(*lines: str, root: str = "urlset", ns: str = NS) -> bytes:
    """A document: line 1 declaration, line 2 the root, then one line per argument."""
    xmlns = f' xmlns="{ns}"' if ns else ""
    return (HEAD + f"<{root}{xmlns}>\n" + "".join(s + "\n" for s in lines)
            + f"</{root}>\n").encode()


def run(data: bytes, **kw: Any) -> list[Diagnostic]:
    kw.setdefault("now", NOW)
    return check(io.BytesIO(data), **kw)


def found(diags: list[Diagnostic]) -> list[tuple[str, int]]:
    return [(d.rule, d.line) for d in diags]


U = "<url><loc>http://example.com/{}</loc></url>"
XSI = 'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
IMG = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
IMAGE = "<image:image><image:loc>http://example.com/i.jpg</image:loc></image:image>"

XML_CASES: list[tuple[str, bytes, list[tuple[str, int]]]] = [
    ("valid", urlset(U.format("a"), U.format("b")), []),
    ("valid with all fields and CDATA",
     urlset("<url><loc><![CDATA[http://example.com/?a=1&b=2]]></loc>"
            "<lastmod>2005-01-01T12:00:00+01:00</lastmod><changefreq>daily</changefreq>"
            "<priority>0.5</priority></url>"), [("changefreq-priority", 3)]),
    ("entities decode before judging", urlset(U.format("?a=1&amp;b=2")), []),
    ("not well-formed", urlset(U.format("a"), U.format("?a=1&b=2")), [("not-well-formed", 4)]),
    ("missing namespace", urlset(U.format("a"), ns=""), [("namespace", 2)]),
    ("old namespace", urlset(U.format("a"), ns="http://www.google.com/schemas/sitemap/0.84"),
     [("namespace", 2)]),
    ("wrong root", urlset(U.format("a"), root="pages"), [("root", 2)]),
    ("unknown element", urlset("<url><loc>http://example.com/</loc>", "<foo/></url>"),
     [("unknown-element", 4)]),
    ("element without namespace", urlset('<url><loc>http://example.com/</loc><x xmlns=""/>'
                                         "</url>"), [("unknown-element", 3)]),
    ("loc directly in urlset", urlset("<loc>http://example.com/</loc>", U.format("a")),
     [("unexpected-element", 3)]),
    ("element inside loc", urlset("<url><loc>http://example.com/<b/></loc></url>"),
     [("unexpected-element", 3)]),
    ("order", urlset("<url><loc>http://example.com/</loc><priority>0.5</priority>",
                     "<lastmod>2005-01-01</lastmod></url>"),
     [("order", 4), ("changefreq-priority", 3)]),
    ("loc after lastmod", urlset("<url><lastmod>2005-01-01</lastmod>",
                                 "<loc>http://example.com/</loc></url>"), [("order", 4)]),
    ("duplicate element", urlset("<url><loc>http://example.com/</loc>",
                                 "<loc>http://example.com/b</loc></url>"),
     [("duplicate-element", 4)]),
    ("missing loc", urlset(U.format("a"), "<url><lastmod>2005-01-01</lastmod></url>"),
     [("missing-loc", 4)]),
    ("empty urlset", urlset(), [("empty-set", 2)]),
    ("empty index", urlset(root="sitemapindex"), [("empty-set", 2)]),
    ("text in url", urlset("<url>oops<loc>http://example.com/</loc></url>"),
     [("text-content", 3)]),
    ("text in urlset", urlset(U.format("a"), "stray"), [("text-content", 4)]),
    ("attribute", urlset('<url id="1"><loc>http://example.com/</loc></url>'),
     [("attribute", 3)]),
    ("xsi:schemaLocation is allowed",
     (HEAD + f'<urlset xmlns="{NS}" {XSI} xsi:schemaLocation="{NS} x.xsd">' + U.format("a")
      + "</urlset>").encode(), []),
    ("extensions after the fields", urlset(f"<url {IMG}><loc>http://example.com/</loc>"
                                           f"<priority>1</priority>{IMAGE}</url>"),
     [("changefreq-priority", 3)]),
    ("extension before a field", urlset(f"<url {IMG}><loc>http://example.com/</loc>{IMAGE}",
                                        "<priority>1</priority></url>"),
     [("order", 4), ("changefreq-priority", 4)]),
    ("extension after the first url", urlset(U.format("a"), f"<image:x {IMG}/>"),
     [("order", 4)]),
    ("changefreq in an index", urlset("<sitemap><loc>http://example.com/s.xml</loc>",
                                      "<changefreq>daily</changefreq></sitemap>",
                                      root="sitemapindex"), [("unexpected-element", 4)]),
    ("url in an index", urlset(U.format("a"), root="sitemapindex"),
     [("unexpected-element", 3), ("empty-set", 2)]),
    ("loc of 11 characters", urlset("<url><loc>http://a.b/</loc></url>"), [("loc-length", 3)]),
    ("empty loc", urlset("<url><loc></loc></url>"), [("loc-length", 3)]),
    ("loc of 2,049 characters", urlset(U.format("a" * 2030)), [("loc-length", 3)]),
    ("loc of 2,048 characters", urlset(U.format("a" * 2029)), [("loc-too-long", 3)]),
    ("relative loc", urlset("<url><loc>/relative/page.html</loc></url>"),
     [("loc-not-http", 3)]),
    ("ftp loc", urlset("<url><loc>ftp://example.com/a</loc></url>"), [("loc-not-http", 3)]),
    ("space", urlset(U.format("a b")), [("loc-chars", 3)]),
    ("whitespace around loc is collapsed", urlset("<url><loc>\n  http://example.com/\n</loc>"
                                                  "</url>"), []),
    ("escaped <", urlset(U.format("a&lt;b")), [("loc-chars", 3)]),
    ("quote", urlset(U.format('a"b')), [("loc-chars", 3)]),
    ("backslash", urlset(U.format("a\\b")), [("loc-chars", 3)]),
    ("caret", urlset(U.format("a^b")), [("loc-chars", 3)]),
    ("backtick", urlset(U.format("a`b")), [("loc-chars", 3)]),
    ("braces", urlset(U.format("{a}")), [("loc-chars", 3)]),
    ("pipe", urlset(U.format("a|b")), [("loc-chars", 3)]),
    ("DEL", urlset(U.format("a&#x7F;b")), [("loc-chars", 3)]),
    ("lone percent", urlset(U.format("100%")), [("loc-chars", 3)]),
    ("percent escape", urlset(U.format("a%20b")), []),
    ("bad host characters", urlset("<url><loc>http://example.com&lt;/</loc></url>"),
     [("loc-chars", 3)]),
    ("IRI", urlset(U.format("été")), [("loc-iri", 3)]),
    ("lastmod not W3C", urlset("<url><loc>http://example.com/</loc>",
                               "<lastmod>01/02/2005</lastmod></url>"), [("lastmod-format", 4)]),
    ("lastmod without seconds",
     urlset("<url><loc>http://example.com/</loc><lastmod>2005-01-01T12:00Z</lastmod></url>"),
     [("lastmod-format", 3)]),
    ("lastmod without zone",
     urlset("<url><loc>http://example.com/</loc><lastmod>2005-01-01T12:00:00</lastmod></url>"),
     [("lastmod-timezone", 3)]),
    ("lastmod in the future",
     urlset("<url><loc>http://example.com/</loc><lastmod>2027-01-01</lastmod></url>"),
     [("lastmod-future", 3)]),
    ("changefreq case", urlset("<url><loc>http://example.com/</loc>"
                               "<changefreq>Daily</changefreq></url>"),
     [("changefreq", 3), ("changefreq-priority", 3)]),
    ("changefreq spaces", urlset("<url><loc>http://example.com/</loc>"
                                 "<changefreq> daily</changefreq></url>"),
     [("changefreq", 3), ("changefreq-priority", 3)]),
    ("priority too high", urlset("<url><loc>http://example.com/</loc>"
                                 "<priority>1.1</priority></url>"),
     [("priority", 3), ("changefreq-priority", 3)]),
    ("priority not a number", urlset("<url><loc>http://example.com/</loc>"
                                      "<priority>high</priority></url>"),
     [("priority", 3), ("changefreq-priority", 3)]),
    ("priority with exponent", urlset("<url><loc>http://example.com/</loc>"
                                      "<priority>1e-1</priority></url>"),
     [("priority", 3), ("changefreq-priority", 3)]),
    ("duplicate loc", urlset(U.format("a"), U.format("b"), U.format("a")),
     [("duplicate-loc", 5)]),
    ("duplicate after normalisation", urlset(U.format("a"), "<url><loc>HTTP://EXAMPLE.com/a"
                                             "</loc></url>"), [("duplicate-loc", 4)]),
    ("another host", urlset(U.format("a"), "<url><loc>http://other.org/</loc></url>"),
     [("scope", 4)]),
    ("index entry on another host",
     urlset("<sitemap><loc>http://example.com/s1.xml</loc></sitemap>",
            "<sitemap><loc>http://other.org/s2.xml</loc></sitemap>", root="sitemapindex"),
     [("index-host", 4)]),
    ("DOCTYPE", HEAD.encode() + b"<!DOCTYPE urlset>\n" + urlset(U.format("a"))[len(HEAD):],
     [("dtd", 2)]),
    ("entity declaration",
     HEAD.encode() + b'<!DOCTYPE urlset [<!ENTITY e "x">]>\n' + urlset(U.format("a"))[len(HEAD):],
     [("dtd", 2)]),
    ("declared Latin-1", urlset(U.format("a")).replace(b"UTF-8", b"ISO-8859-1"),
     [("encoding", 1)]),
    ("bytes that are not UTF-8", urlset(U.format("a"), U.format("caf\xe9")).replace(
        "é".encode(), b"\xe9"), [("encoding", 4)]),
    ("UTF-16", urlset(U.format("a")).decode().replace("UTF-8", "UTF-16").encode("utf-16"),
     [("encoding", 1)]),
]


@pytest.mark.parametrize("data, expected", [c[1:] for c in XML_CASES],
                         ids=[c[0] for c in XML_CASES])
def test_xml_rules(data: bytes, expected: list[tuple[str, int]]) -> None:
    assert sorted(found(run(data))) == sorted(expected)


def test_duplicate_names_the_first_line() -> None:
    d = run(urlset(U.format("a"), U.format("b"), U.format("a")))[0]
    assert "line 3" in d.message and d.severity == "warning"


def test_columns_point_at_the_element() -> None:
    d = run(urlset("<url><loc>http://example.com/</loc>  <priority>2</priority></url>"))[0]
    assert (d.line, d.column) == (3, 38)


def test_diagnostics_are_sorted_by_position() -> None:
    data = urlset("<url><loc>http://a.b/</loc><priority>2</priority></url>",
                  "<url><lastmod>x</lastmod></url>", U.format("a b"))
    diags = run(data)
    problems = [d for d in diags if d.severity != "info"]
    assert [(d.line, d.column) for d in problems] == sorted((d.line, d.column) for d in problems)
    assert len(problems) == 6  # a.b is the scope: example.com is outside
    # the file's notes come after its problems, each at its first place
    assert [(d.rule, d.line) for d in diags[6:]] == [("changefreq-priority", 3)]


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(PROFILES, "tiny", Profile("tiny", max_urls=2, max_bytes=400, max_loc=30))
    return "tiny"


def test_profile_limits(tiny: str) -> None:
    data = urlset(U.format("a"), U.format("b"), U.format("c"), U.format("d" * 20),
                  *[U.format(n) for n in range(5, 12)])
    assert found(run(data, profile=tiny)) == [
        ("too-many-urls", 5), ("loc-too-long", 6), ("too-large", 9)]


def test_baidu_profile_loc_limit() -> None:
    assert found(run(urlset(U.format("a" * 240)), profile="baidu")) == [("loc-too-long", 3)]


def test_scope_from_base_url() -> None:
    data = urlset(U.format("blog/a"), U.format("shop/b"), "<url><loc>http://example.com/blog"
                  "</loc></url>")
    assert found(run(data, base_url="http://example.com/blog/")) == [("scope", 4)]


def test_gzip_is_read() -> None:
    assert found(run(gzip.compress(urlset(U.format("a b"))))) == [("loc-chars", 3)]


def test_truncated_gzip() -> None:
    data = gzip.compress(urlset(*[U.format(n) for n in range(3000)]))
    assert [d.rule for d in run(data[: len(data) // 2])] == ["input"]


# --- the conformance probes and sitemap.js's mocks --------------------------------------------

def _verdicts() -> list[dict[str, Any]]:
    path = CONFORMANCE / "schema-probes" / "verdicts.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.skipif(not CONFORMANCE.exists(), reason="shared/conformance is not beside the repo")
@pytest.mark.parametrize("verdict", _verdicts(), ids=lambda v: v["file"])
def test_schema_probes(verdict: dict[str, Any]) -> None:
    path = CONFORMANCE / "schema-probes" / verdict["file"]
    valid = verdict["xmlschema"] == "valid"
    assert valid == (verdict["xmllint"] == "valid")
    # Confirm the recorded verdict with xmlschema here (ext_image_news needs Google's
    # extension schemas, which are not included: its recorded verdict is taken as it is).
    if verdict["schema"] in ("sitemap.xsd", "siteindex.xsd"):
        schema = xmlschema.XMLSchema(str(CONFORMANCE / "schemas" / verdict["schema"]))
        try:
            ok = schema.is_valid(str(path))
        except xmlschema.XMLResourceError:
            ok = False
        assert ok == valid
    diags = check(path, now=NOW)
    errors = {d.rule for d in diags if d.severity == "error"}
    if valid:
        assert errors <= PROTOCOL_RULES
    else:
        assert errors, "check passes a file the XSD rejects"
        assert not errors <= PROTOCOL_RULES - {"encoding", "dtd"}


MOCKS = CONFORMANCE / "sitemap.js-mocks"


@pytest.mark.skipif(not MOCKS.exists(), reason="shared/conformance is not beside the repo")
@pytest.mark.parametrize("name, expected", [
    ("bad-tag-sitemap.xml", {("unknown-element", 3), ("loc-chars", 115)}),
    ("bad-tag-index.xml", {("unknown-element", 5)}),
    ("unescaped-lt.xml", {("loc-chars", 4), ("not-well-formed", 6)}),
    ("index-unescaped-lt.xml", {("not-well-formed", 11)}),
    # alltags.xml is XSD-valid; its last <loc> decodes to "http://example.com/&><'\"/", whose
    # < > " no URI may hold (RFC 3986), so that one protocol error is expected.
    ("alltags.xml", {("loc-chars", 113)}),
    ("alltags-index.xml", set()),
    ("video.xml", set()),
    ("cli-urls.json.xml", set()),
    ("cli-urls.txt", set()),
    ("cli-urls-2.txt", set()),
    ("short-list.txt", set()),
])
def test_sitemap_js_mocks(name: str, expected: set[tuple[str, int]]) -> None:
    diags = check(MOCKS / name, now=NOW)
    errors = {(d.rule, d.line) for d in diags if d.severity == "error"}
    assert expected <= errors
    assert {r for r, _ in errors} == {r for r, _ in expected}


# --- the converter's output, and --follow -----------------------------------------------------

def test_converter_output_checks_clean() -> None:
    urls = "".join(f"https://example.com/p/{n}?q=a&b={n}\n" for n in range(200))
    out = io.BytesIO()
    convert([io.BytesIO(urls.encode())], out, defaults=Defaults(changefreq="daily", priority=0.3))
    stats = CheckStats()
    found = check(io.BytesIO(out.getvalue()), stats=stats)
    # no problem; a note on the changefreq and priority the user asked for
    assert [(d.severity, d.rule) for d in found] == [("info", "changefreq-priority")]
    assert "200 with <changefreq>, 200 with <priority>" in found[0].message
    assert stats.urls == 200 and stats.errors == stats.warnings == 0


def test_a_lastmod_the_converter_keeps_without_a_word_checks_clean(exe: str,
                                                                   tmp_path: Path) -> None:
    # the converter lets a lastmod up to a day ahead pass (a zone ahead, a clock's skew):
    # check says nothing of it either; further ahead, both say it
    now = datetime.now(timezone.utc)
    for hours, said in ((12, False), (72, True)):
        when = (now + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")
        src, out = tmp_path / f"{hours}.tsv", tmp_path / f"{hours}.xml"
        src.write_text(f"https://example.com/a\t{when}\n")
        made = subprocess.run([exe, str(src), "-o", str(out)], capture_output=True, text=True)
        checked = subprocess.run([exe, "check", str(out)], capture_output=True, text=True)
        assert made.returncode == checked.returncode == 0, made.stderr + checked.stdout
        assert ("in the future" in made.stderr) is said, made.stderr
        assert ("lastmod-future" in checked.stdout) is said, checked.stdout


def test_split_output_checks_clean_with_follow(tmp_path: Path) -> None:
    urls = "".join(f"https://example.com/s/{n}\n" for n in range(25))
    convert([io.BytesIO(urls.encode())], tmp_path / "sitemap.xml",
            base_url="https://example.com/s/", limits=Limits(max_urls=10))
    stats = CheckStats()
    assert check(tmp_path / "sitemap.xml", follow=True, stats=stats) == []
    assert stats.files == 4  # the index and its three parts


def _index(tmp_path: Path, *locs: str) -> Path:
    path = tmp_path / "index.xml"
    path.write_bytes(urlset(*[f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs],
                            root="sitemapindex"))
    return path


def test_follow_checks_parts_beside_the_index(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(urlset(U.format("s/a b")))
    (tmp_path / "n.xml").write_bytes(urlset("<sitemap><loc>http://example.com/x.xml</loc>"
                                            "</sitemap>", root="sitemapindex"))
    index = _index(tmp_path, "http://example.com/s/a.xml", "http://example.com/s/gone.xml",
                   "http://example.com/other/b.xml", "http://example.com/s/n.xml")
    diags = check(index, follow=True, base_url="http://example.com/s/")
    assert [(Path(d.file).name, d.rule, d.line) for d in diags] == [
        ("index.xml", "follow-missing", 4), ("index.xml", "follow-outside", 5),
        ("a.xml", "loc-chars", 3), ("n.xml", "nested-index", 2)]


def test_without_follow_parts_are_not_read(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(b"not xml")
    assert check(_index(tmp_path, "http://example.com/a.xml")) == []


# --- the command line ---------------------------------------------------------------------------

@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "good": urlset(U.format("a")),
        "bad": urlset(U.format("a"), "<url><loc>/relative/page</loc></url>"),
        "warn": urlset(U.format("a"), U.format("a")),
    }
    out = {}
    for name, data in paths.items():
        out[name] = tmp_path / f"{name}.xml"
        out[name].write_bytes(data)
    out["gz"] = tmp_path / "bad.xml.gz"
    out["gz"].write_bytes(gzip.compress(paths["bad"]))
    return out


def test_cli_exit_codes_and_text_format(files: dict[str, Path]) -> None:
    runner = CliRunner()
    assert runner.invoke(check_command, [str(files["good"])]).exit_code == 0
    assert runner.invoke(check_command, [str(files["warn"])]).exit_code == 0
    result = runner.invoke(check_command, [str(files["good"]), str(files["bad"])])
    assert result.exit_code == 1
    # the same URL in two files checked in one run is a warning naming the first place
    assert result.stdout == f"{files['bad']}:3:6: warning: duplicate-across-files: " \
                            f"http://example.com/a is already listed in {files['good']} on " \
                            "line 3\n" \
                            f"{files['bad']}:4:6: error: loc-not-http: not an absolute URL: " \
                            "'/relative/page'; a sitemap lists absolute http(s) URLs only\n"
    assert result.stderr == "feed2sitemap check: 2 files checked, 3 URLs, 1 error, 1 warning\n"


def test_cli_usage_errors_exit_2(files: dict[str, Path]) -> None:
    runner = CliRunner()
    assert runner.invoke(check_command, []).exit_code == 2
    assert runner.invoke(check_command, ["--profile", "nope", str(files["good"])]).exit_code == 2
    assert runner.invoke(check_command, ["-", "-"], input=b"").exit_code == 2


def test_cli_json_and_stdin(files: dict[str, Path]) -> None:
    result = CliRunner().invoke(check_command, ["--format", "json", "-"],
                                input=files["warn"].read_bytes())
    assert result.exit_code == 0
    assert json.loads(result.stdout) == [{
        "file": "<stdin>", "line": 4, "column": 6, "severity": "warning",
        "rule": "duplicate-loc", "message": "http://example.com/a is already listed on line 3"}]
    empty = CliRunner().invoke(check_command, ["--format", "json", str(files["good"])])
    assert json.loads(empty.stdout) == []


def test_main_dispatches_check_and_converts_a_file_named_check(
        files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", str(files["bad"])])
    assert exc.value.code == 1
    assert "loc-not-http" in capsys.readouterr().out
    monkeypatch.chdir(tmp_path)
    (tmp_path / "check").write_text("https://example.com/a\n")
    with pytest.raises(SystemExit) as exc:
        main(["./check", "-o", "out.xml"])
    assert exc.value.code == 0
    assert check(tmp_path / "out.xml") == []


@pytest.fixture(scope="module")
def exe() -> str:
    found_exe = shutil.which("feed2sitemap", path=str(Path(sys.executable).parent))
    if found_exe is None:
        pytest.skip("the feed2sitemap command is not installed next to this Python")
    return found_exe


def test_installed_command(exe: str, files: dict[str, Path]) -> None:
    ok = subprocess.run([exe, "check", str(files["good"])], capture_output=True, text=True)
    assert (ok.returncode, ok.stdout) == (0, "")
    assert ok.stderr.endswith("1 file checked, 1 URL, 0 errors, 0 warnings\n")
    bad = subprocess.run([exe, "check", str(files["gz"])], capture_output=True, text=True)
    assert bad.returncode == 1
    m = LINE.match(bad.stdout.strip())
    assert m is not None and m.group(1, 2, 4, 5) == (str(files["gz"]), "4", "error",
                                                      "loc-not-http")
    piped = subprocess.run([exe, "check", "--format", "json", "-"], capture_output=True,
                           input=files["gz"].read_bytes())
    assert piped.returncode == 1
    assert [d["rule"] for d in json.loads(piped.stdout)] == ["loc-not-http"]
    usage = subprocess.run([exe, "check", "--format", "xml", str(files["good"])],
                           capture_output=True)
    assert usage.returncode == 2
