"""`feed2sitemap check` beside `xmllint --schema` (issue 18's yardstick for check): one urlset
of the sitemap set (50,000 URLs in the full run), and the whole set with --follow.

xmllint is Debian's libxml2-utils; the schemas are sitemaps.org's, from ../shared/conformance
(see its README). Where either is missing the yardstick row is marked "not installed" and
skipped. Neither side writes output: a side's figure is the time to read and judge its input.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from .datasets import Data
from .running import Runner, Scenario, Side
from .words import SITEMAP_PARTS

SCHEMAS = Path(__file__).resolve().parents[3] / "shared" / "conformance" / "schemas"


def xmllint_sides(name: str, out: Path, steps: list[tuple[str, list[Path]]]) -> list[Side]:
    """The yardstick: xmllint --noout --schema XSD FILES... for each (XSD, files) step, all in
    one shell so the figure is their sum; "not installed" when xmllint or an XSD is absent."""
    xmllint = shutil.which("xmllint")
    missing = [xsd for xsd, _ in steps if not (SCHEMAS / xsd).is_file()]
    script = " && ".join(
        shlex.join([xmllint or "xmllint", "--noout", "--schema", str(SCHEMAS / xsd),
                    *map(str, files)]) for xsd, files in steps)
    side = Side("xmllint", ["sh", "-c", script], out / name / "xmllint", "none")
    if xmllint is None or missing:
        side.status = "not installed"
    return [side]


def missing_xmllint(sides: list[Side]) -> str:
    if all(s.status != "not installed" for s in sides):
        return ""
    where = "xmllint (apt install libxml2-utils)" if shutil.which("xmllint") is None \
        else f"the sitemaps.org XSDs in {SCHEMAS}"
    return f"{where} not found: xmllint row skipped"


def check_scenarios(cmd: list[str], d: Data, out: Path, r: Runner,
                    yardstick: bool = True) -> list[Scenario]:
    """check-50k (one part of the set), check-set (the index with --follow), and report-set
    (the report of the set, check --follow its floor)."""
    del r  # (no floor script: xmllint is the yardstick, and check has no no-checks floor)
    index = d.sitemaps / "index.xml"
    parts = sorted(d.sitemaps.glob("part-*.xml"))
    one = d.sitemaps / "part-01.xml"
    per = -(-d.n_sitemap // SITEMAP_PARTS)  # (the data may not be made yet: --list)
    sc = []
    for name, what, n, args, steps in (
            ("check-50k", f"check one urlset of {per:,} URLs", per, [str(one)],
             [("sitemap.xsd", [one])]),
            ("check-set", f"check --follow: index + {SITEMAP_PARTS} parts "
             f"({d.n_sitemap:,} URLs)", d.n_sitemap, ["--follow", str(index)],
             [("siteindex.xsd", [index]), ("sitemap.xsd", parts)])):
        yard = xmllint_sides(name, out, steps) if yardstick else []
        ours = Side("ours", [*cmd, "check", "-q", *args], out / name / "ours", "none")
        sc.append(Scenario(name, what, n, ours, yard, note=missing_xmllint(yard)))
    # the report is made in check's own pass: check --follow is its floor (issue 38: 1.5x)
    ours = Side("ours", [*cmd, "report", "--follow", str(index), "-o",
                         str(out / "report-set" / "ours" / "report.html")],
                out / "report-set" / "ours", "none")
    floor = Side("check --follow", [*cmd, "check", "-q", "--follow", str(index)],
                 out / "report-set" / "check", "none")
    sc.append(Scenario("report-set", f"report --follow -o report.html: index + "
                       f"{SITEMAP_PARTS} parts ({d.n_sitemap:,} URLs), beside check --follow",
                       d.n_sitemap, ours, [floor]))
    return sc
