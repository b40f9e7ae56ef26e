"""The scenarios: our command beside its floor (and references) for each job."""

from __future__ import annotations

import sys
from pathlib import Path

from .checkbench import check_scenarios
from .datasets import Data
from .extbench import ext_scenario
from .merging import merge_scenarios
from .peers import NODE_MODULES, peers_note, read_sides, write_sides
from .removals import removal_scenarios
from .running import Runner, Scenario, Side
from .words import BASE_URL, SITEMAP_PARTS
from .yardsticks import missing_note, yardstick_sides

FULL = {"urls": 1_000_000, "feed_items": 50_000, "sitemap_urls": 1_000_000, "repeat": 5}
QUICK = {"urls": 100_000, "feed_items": 5_000, "sitemap_urls": 100_000, "repeat": 3}


def build_scenarios(cmd: list[str], fpy: str, d: Data, out: Path, r: Runner,
                    yardstick: bool = True, big: bool = False,
                    node_modules: Path = NODE_MODULES) -> list[Scenario]:
    """Every scenario; ``yardstick``: ask whether the other feed parsers and the sitemap peers
    are installed; ``big``: the opt-in merge-lastmods-10m too; ``node_modules``: where
    sitemap.js is."""
    def ours(name: str, args: list[str], output: str, sub: str) -> Side:
        od = out / name / "ours"
        return Side("ours", [*cmd, *args, "-o", str(od / sub), "-q"], od, output)

    def floor_to_file(name: str, label: str, script: str, src: Path) -> Side:
        od = out / name / label
        return Side(label, [fpy, r.script(script), str(src), str(od / "records.txt")], od, "text")

    def text_xml(name: str, what: str, src: Path, floor_mode: str, extra: tuple[str, ...] = (),
                 level: int = 0, fmt: str = "text") -> Scenario:
        sub = "sitemap.xml.gz" if level else "sitemap.xml"
        args = [str(src), "-f", fmt, "--base-url", BASE_URL, *extra]
        return Scenario(
            name, what, d.n_urls, ours(name, args, "xml", sub),
            [Side("floor", [fpy, r.script("floor_text.py"), str(src),
                            str(out / name / "floor"), BASE_URL, floor_mode, str(level)],
                  out / name / "floor", "xml")])

    ascii_list = text_xml("text-ascii", "ASCII URL list -> split sitemap + index", d.urls_ascii,
                          "plain")
    peers = write_sides("text-ascii", d.urls_ascii, out, r, node_modules, BASE_URL, yardstick)
    ascii_list.baselines += peers
    ascii_list.note = peers_note(peers, fpy, node_modules) if yardstick else ""
    sc = [
        ascii_list,
        text_xml("text-nonascii", "URL list, 5% non-ASCII -> split sitemap + index (IRIs "
                 "percent-encoded)", d.urls_mixed, "quote"),
        text_xml("text-nodedupe", "ASCII URL list with --no-dedupe (cost of the dedupe set)",
                 d.urls_ascii, "plain", extra=("--no-dedupe",)),
    ]
    for level in (1, 6, 9):
        sc.append(text_xml(f"gzip-{level}", f"ASCII URL list -> gzipped split sitemap, level "
                           f"{level}", d.urls_ascii, "plain",
                           extra=("--gzip-level", str(level)), level=level))
    # JSON Lines (loc and lastmod per line) against the floor, and against our own command on
    # the plain list of the same URLs: the target is at most 2x that.
    for name, src, what in (("jsonl", d.urls_jsonl, "with a lastmod each"),
                            ("jsonl-loc", d.urls_jsonl_loc, "URLs alone")):
        sc.append(text_xml(name, f"JSON Lines list, {what} -> split sitemap + index", src,
                           "jsonl", fmt="jsonl"))
        plain = text_xml(name, "", d.urls_ascii, "plain").ours
        plain.label = "plain list"
        plain.outdir = out / name / "plain"
        plain.argv[plain.argv.index("-o") + 1] = str(plain.outdir / "sitemap.xml")
        sc[-1].baselines.append(plain)
    for name, src in (("rss", d.rss), ("atom", d.atom)):
        yardsticks = yardstick_sides(name, src, fpy, out, r) if yardstick else []
        sc.append(Scenario(
            name, f"{name.upper()} feed of {d.n_items:,} items -> URL records (-t text)",
            d.n_items, ours(name, [str(src), "-f", "feed", "-t", "text"], "text", "urls.txt"),
            [floor_to_file(name, "floor", "floor_expat.py", src),
             floor_to_file(name, "feedparser", "floor_feedparser.py", src), *yardsticks],
            note=missing_note(yardsticks)))
    index = d.sitemaps / "index.xml"
    parts = sorted(str(p) for p in d.sitemaps.glob("part-*.xml"))
    name = "sitemap-set"
    s = Scenario(
        name, f"sitemap index + {SITEMAP_PARTS} parts ({d.n_sitemap:,} URLs) -> URL records",
        # --base-url: text sitemaps have the 50,000 limit too, so 1M URLs need parts + index.
        d.n_sitemap, ours(name, [str(index), "--follow", "-f", "sitemap", "-t", "text",
                                 "--base-url", BASE_URL], "text", "urls.txt"),
        [floor_to_file(name, "floor", "floor_sitemap.py", index)])
    peers = read_sides(name, index, fpy, out, r, node_modules, yardstick)
    s.baselines += peers
    s.note = peers_note(peers, fpy, node_modules) if yardstick else ""
    od = out / name / "ours"
    s.fallback = [*cmd, *parts, "-f", "sitemap", "-t", "text", "--base-url", BASE_URL,
                  "-o", str(od / "urls.txt"), "-q"]
    sc.append(s)
    sc.append(ext_scenario(cmd, fpy, d.sitemaps.parent, out, r,
                           quick=d.n_sitemap == QUICK["sitemap_urls"]))
    sc += check_scenarios(cmd, d, out, r, yardstick)
    sc.extend(merge_scenarios(cmd, fpy, d, out, r, big))  # (merging.py: the merge rows)
    sc.extend(removal_scenarios(cmd, fpy, d, out, r))  # (removals.py: prune and diff)
    return sc


def select(scenarios: list[Scenario], only: list[str]) -> list[Scenario]:
    """--only takes names or prefixes: `text` runs every text-* scenario, `gzip` all levels."""
    if not only:
        return scenarios
    wanted = [w.strip() for o in only for w in o.split(",") if w.strip()]
    chosen = [s for s in scenarios if any(s.name == w or s.name.startswith(w) for w in wanted)]
    if not chosen:
        sys.exit(f"--only matched nothing; scenarios: {', '.join(s.name for s in scenarios)}")
    return chosen

