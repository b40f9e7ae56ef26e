"""The removal rows (issue 34), each beside a dict-based program as its floor:

- prune: the cron row's sitemap set (1M URLs, index + parts) updated in place from the site's
  full list, 1% of the pages gone, with --prune;
- diff: `feed2sitemap diff` of the merge-lastmods row's two TSV lists (1M rows each: half the
  URLs removed, half added, the rest with their lastmod moved), the same sets a dict computes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .datasets import Data
from .merging import IN_PLACE, ensure_merge_data, gen_lastmod_lists
from .running import Runner, Scenario, Side
from .words import BASE_URL, SEED, SITEMAP_PARTS

GEN_VERSION = 1


def gen_full_list(cron: Path, path: Path) -> int:
    """The cron set's URLs less every 100th, one a line; returns how many were left out."""
    dropped = 0
    with open(path, "w", encoding="utf-8") as out:
        i = 0
        for part in range(1, SITEMAP_PARTS + 1):
            text = (cron / f"sitemap-{part}.xml").read_text(encoding="utf-8")
            for loc in re.findall(r"<loc>([^<]*)</loc>", text):
                i += 1
                if i % 100 == 0:
                    dropped += 1
                    continue
                out.write(loc.replace("&amp;", "&") + "\n")
    return dropped


def removal_scenarios(cmd: list[str], fpy: str, d: Data, out: Path, r: Runner) -> list[Scenario]:
    listing = str(d.urls_ascii) == "-"  # --list: names only, no data
    data_dir = d.urls_ascii.parent
    full = data_dir / f"full-list-{d.n_sitemap}.txt"
    first, second = data_dir / f"lastmods-a-{d.n_urls}.tsv", data_dir / f"lastmods-b-{d.n_urls}.tsv"
    cron = data_dir / f"cron-{d.n_sitemap}"
    if not listing:
        _, cron, _, _ = ensure_merge_data(d, print)
        manifest_path = data_dir / "merge-manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError):
            manifest = {}
        want = {"seed": SEED, "version": GEN_VERSION, "count": d.n_sitemap}
        if manifest.get(full.name) != want or not full.exists():
            gen_full_list(cron, full)
            manifest[full.name] = want
            print(f"  made {full.name}")
        lists = {"seed": SEED, "version": 1, "count": d.n_urls}  # (merging.py's version)
        if manifest.get(second.name) != lists or not first.exists() or not second.exists():
            gen_lastmod_lists(first, second, d.n_urls)
            manifest[second.name] = lists
            print(f"  made {first.name} and {second.name}")
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    for name, src in (("in_place.py", IN_PLACE), ("floor_prune.py", FLOOR_PRUNE),
                      ("floor_diff.py", FLOOR_DIFF)):
        (r.work / name).write_text(src)
    per = -(-d.n_sitemap // SITEMAP_PARTS)
    od, fd = out / "prune" / "ours", out / "prune" / "floor"
    place = [fpy, r.script("in_place.py"), str(cron)]
    prune = Scenario(
        "prune", f"the cron line with --prune: a sitemap set ({d.n_sitemap:,} URLs) updated in "
        "place from the site's full list, 1% of its pages gone", d.n_sitemap - d.n_sitemap // 100,
        Side("ours", [*place, str(od), *cmd, str(od / "sitemap.xml"), str(full), "-o",
                      str(od / "sitemap.xml"), "--base-url", BASE_URL, "--max-urls", str(per),
                      "--prune", "-q"], od, "xml"),
        [Side("floor", [*place, str(fd), fpy, r.script("floor_prune.py"),
                        str(fd / "sitemap.xml"), str(full), BASE_URL, str(per)], fd, "xml")])
    od, fd = out / "diff" / "ours", out / "diff" / "floor"
    diff = Scenario(
        "diff", f"diff of two TSV lists with lastmods ({d.n_urls:,} rows each): added, "
        "removed, lastmod moved", d.n_urls,
        Side("ours", [*cmd, "diff", str(first), str(second), "--format", "json", "--show",
                      "0"], od, "none"),
        [Side("floor", [fpy, r.script("floor_diff.py"), str(first), str(second)], fd, "none")])
    return [prune, diff]


# The cron set read as FLOOR_CRON reads it (merging.py), kept where the full list has the URL,
# the list's new URLs added, the parts and the index written back.
FLOOR_PRUNE = r'''
import os, sys
import xml.etree.ElementTree as ET
index, full, base, per = sys.argv[1:5]
per = int(per)
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
LOC, LASTMOD, CF, PR, URL = (NS + t for t in ("loc", "lastmod", "changefreq", "priority", "url"))
here = os.path.dirname(index)
parts = [os.path.join(here, el.text.strip().rsplit("/", 1)[-1])
         for _, el in ET.iterparse(index) if el.tag == LOC]
seen = {}
for part in parts:
    loc = lastmod = cf = pr = None
    for _, el in ET.iterparse(part):
        tag = el.tag
        if tag == LOC: loc = el.text
        elif tag == LASTMOD: lastmod = el.text
        elif tag == CF: cf = el.text
        elif tag == PR: pr = el.text
        elif tag == URL:
            seen[loc] = [lastmod, cf, pr]
            el.clear()
            loc = lastmod = cf = pr = None
with open(full, encoding="utf-8") as f:
    listed = {line.strip() for line in f}
kept = {loc: row for loc, row in seen.items() if loc in listed}
for loc in listed:
    kept.setdefault(loc, [None, None, None])
def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
def write(name, text):
    tmp = os.path.join(here, "." + name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(here, name))
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
rows, names = [], []
def flush():
    names.append("sitemap-%d.xml" % (len(names) + 1))
    write(names[-1], HEAD + "".join(rows) + "</urlset>\n")
    rows.clear()
for loc, (lastmod, cf, pr) in kept.items():
    rows.append("<url><loc>%s</loc>%s%s%s</url>\n" % (
        esc(loc), lastmod and "<lastmod>%s</lastmod>" % lastmod or "",
        cf and "<changefreq>%s</changefreq>" % cf or "",
        pr and "<priority>%s</priority>" % pr or ""))
    if len(rows) == per:
        flush()
if rows:
    flush()
for stale in range(len(names) + 1, len(parts) + 1):
    os.remove(os.path.join(here, "sitemap-%d.xml" % stale))
write("sitemap.xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
      '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
      + "".join("<sitemap><loc>%s%s</loc></sitemap>\n" % (base, n) for n in names)
      + "</sitemapindex>\n")
'''

# OLD into a dict from URL to its lastmod's text, NEW streamed against it (a date is its
# midnight UTC; the data's datetimes are UTC to the second, so as text they compare as
# instants): the counts `diff --format json` gives.
FLOOR_DIFF = r'''
import json, sys
old, new = sys.argv[1:3]
def key(t):
    return t + "T00:00:00+00:00" if len(t) == 10 else t
earlier = {}
with open(old, encoding="utf-8") as f:
    for line in f:
        url, _, lastmod = line.rstrip("\n").partition("\t")
        earlier[url] = key(lastmod)
counts = dict.fromkeys(("added", "removed", "newer", "older", "unchanged"), 0)
SEEN = object()
with open(new, encoding="utf-8") as f:
    for line in f:
        url, _, lastmod = line.rstrip("\n").partition("\t")
        was = earlier.get(url)
        earlier[url] = SEEN
        if was is SEEN:
            continue
        if was is None:
            counts["added"] += 1
            continue
        now = key(lastmod)
        counts["unchanged" if now == was else "newer" if now > was else "older"] += 1
counts["removed"] = sum(1 for v in earlier.values() if v is not SEEN)
print(json.dumps(counts))
'''
