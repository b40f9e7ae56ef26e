"""The merging rows (issue 18): two URL lists merged, and the cron job (a sitemap set grown in
place from a feed), each beside a dict-based merge program as its floor.

merge-lists takes two plain text lists: it is the job the issue measured (and the one whose
--keep-first twin runs at the floor), and with no lastmod to compare every cost left is the
merge's own: remembering each URL, its first-seen place, and counting. The lastmod rules (newest
wins, changefreq and priority from the newest copy) are exercised by the cron row, whose
sitemap entries all carry the three fields and whose feed moves lastmods on.
"""

from __future__ import annotations

import email.utils
import json
import random
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

from .datasets import Data
from .running import Runner, Scenario, Side
from .words import (
    BASE_URL,
    CHANGEFREQ,
    EPOCH,
    SEED,
    SITEMAP_PARTS,
    SPAN,
    URL_SAFE,
    Chunked,
    make_path,
    when,
    xml_escape,
)

GEN_VERSION = 1
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def gen_second_list(path: Path, first: Path, n: int) -> None:
    """The second list: the first list's last half, each line after a URL the first list does
    not have (so 1.5 n distinct URLs, and half of the second list's lines fold into earlier
    copies)."""
    with open(first, encoding="utf-8") as f:
        lines = f.readlines()[n - n // 2:]
    with open(path, "w", encoding="utf-8") as f:
        w = Chunked(f)
        for line in lines:
            w.add(line.replace(BASE_URL, BASE_URL + "v2/", 1))
            w.add(line)
        w.flush()


def gen_cron_set(directory: Path, n: int, items: int) -> None:
    """sitemap.xml (an index) + SITEMAP_PARTS parts sitemap-K.xml, as an earlier run of the cron
    line left them, and feed.xml: ``items`` entries, 70% of them pages of the set with a newer
    date, the rest new pages."""
    rng = random.Random(f"{SEED}-cron")
    directory.mkdir(parents=True, exist_ok=True)
    per = -(-n // SITEMAP_PARTS)
    known: list[str] = []
    step = max(1, n // items)
    i = 0
    for part in range(1, SITEMAP_PARTS + 1):
        with open(directory / f"sitemap-{part}.xml", "w", encoding="utf-8") as f:
            w = Chunked(f)
            w.add(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n')
            for _ in range(min(per, n - i)):
                i += 1
                loc = quote(make_path(rng, i, True), safe=URL_SAFE)
                if i % step == 0:
                    known.append(loc)
                dt = when(rng)
                lastmod = dt.date().isoformat() if rng.random() < 0.3 else dt.isoformat()
                w.add(f"<url><loc>{xml_escape(loc)}</loc><lastmod>{lastmod}</lastmod>"
                      f"<changefreq>{rng.choice(CHANGEFREQ)}</changefreq>"
                      f"<priority>{rng.randrange(1, 11) / 10:.1f}</priority></url>\n")
            w.add("</urlset>\n")
            w.flush()
    with open(directory / "sitemap.xml", "w", encoding="utf-8") as f:
        f.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {NS}>\n')
        for part in range(1, SITEMAP_PARTS + 1):
            f.write(f"<sitemap><loc>{BASE_URL}sitemap-{part}.xml</loc></sitemap>\n")
        f.write("</sitemapindex>\n")
    gen_cron_feed(directory.with_name(directory.name + "-feed.xml"), rng, known, n, items)


def gen_cron_feed(path: Path, rng: random.Random, known: list[str], n: int, items: int) -> None:
    later = EPOCH + timedelta(seconds=SPAN)
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n'
                "<title>Example</title>\n<link>https://example.com/</link>\n"
                "<description>Cron benchmark feed</description>\n")
        for j in range(items):
            link = (known[j * len(known) // items] if j % 10 < 7
                    else quote(make_path(rng, n + j + 1, False), safe=URL_SAFE))
            dt = later + timedelta(seconds=rng.randrange(86400 * 30))
            f.write(f"<item><title>Post {j}</title><link>{xml_escape(link)}</link>"
                    f"<pubDate>{email.utils.format_datetime(dt)}</pubDate></item>\n")
        f.write("</channel>\n</rss>\n")


def ensure_merge_data(d: Data, log: Callable[[str], None]) -> tuple[Path, Path, Path, int]:
    """(the second list, the cron set's directory, its feed, the feed's items), made once per
    size (data/merge-manifest.json, beside the shared data's own manifest)."""
    data_dir = d.urls_ascii.parent
    items = min(1000, d.n_sitemap // 100)
    second = data_dir / f"urls-second-{d.n_urls}.txt"
    cron = data_dir / f"cron-{d.n_sitemap}"
    feed = cron.with_name(cron.name + "-feed.xml")
    manifest_path = data_dir / "merge-manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    jobs: list[tuple[Path, int, Callable[[Path], None]]] = [
        (second, d.n_urls, lambda p: gen_second_list(p, d.urls_ascii, d.n_urls)),
        (cron, d.n_sitemap, lambda p: gen_cron_set(p, d.n_sitemap, items))]
    for path, count, make in jobs:
        want = {"seed": SEED, "version": GEN_VERSION, "count": count}
        if manifest.get(path.name) == want and path.exists():
            continue
        make(path)
        manifest[path.name] = want
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        log(f"  made {path.name}")
    return second, cron, feed, items


def merge_scenarios(cmd: list[str], fpy: str, d: Data, out: Path, r: Runner,
                    big: bool = False) -> list[Scenario]:
    """merge-lists, cron and merge-lastmods, each with its floor (a dict-based merge program);
    ``big``: merge-lastmods-10m too (ten times the size: opt-in, it takes minutes)."""
    listing = str(d.urls_ascii) == "-"  # --list: names only, no data
    if listing:
        second, cron, feed, items = Path("-"), Path("-"), Path("-"), min(1000, d.n_sitemap // 100)
    else:
        second, cron, feed, items = ensure_merge_data(d, print)
    for name, src in (("floor_merge_lists.py", FLOOR_MERGE_LISTS),
                      ("floor_cron.py", FLOOR_CRON), ("in_place.py", IN_PLACE),
                      ("floor_merge_lastmods.py", FLOOR_MERGE_LASTMODS)):
        (r.work / name).write_text(src)
    sizes = [("merge-lastmods", d.n_urls)]
    if big or listing:
        sizes.append(("merge-lastmods-10m", 10 * d.n_urls))
    return [merge_lists(cmd, fpy, d, second, out, r),
            cron_job(cmd, fpy, d, cron, feed, items, out, r),
            *(merge_lastmods(name, n, cmd, fpy, d, out, r, listing) for name, n in sizes)]


def merge_lists(cmd: list[str], fpy: str, d: Data, second: Path, out: Path,
                r: Runner) -> Scenario:
    name = "merge-lists"
    od, fd = out / name / "ours", out / name / "floor"
    distinct = d.n_urls + d.n_urls // 2
    return Scenario(
        name, f"two URL lists ({d.n_urls:,} each, {distinct:,} distinct) merged -> split "
        "sitemap + index", distinct,
        Side("ours", [*cmd, str(d.urls_ascii), str(second), "--base-url", BASE_URL, "-o",
                      str(od / "sitemap.xml"), "-q"], od, "xml"),
        [Side("floor", [fpy, r.script("floor_merge_lists.py"), str(fd), BASE_URL,
                        str(d.urls_ascii), str(second)], fd, "xml")])


def gen_lastmod_lists(first: Path, second: Path, n: int) -> None:
    """Two TSV lists of ``n`` rows ``URL<TAB>lastmod`` (30% dates, the rest UTC datetimes to
    the second): the second holds the first's last half, each copy after a URL the first list
    does not have, its lastmod newer or older at random (1.5 n distinct URLs; half the second
    list's rows fold into earlier copies, half of those moving the lastmod on)."""
    rng = random.Random(f"{SEED}-lastmods-{n}")

    def lastmod() -> str:
        dt = when(rng)
        return dt.date().isoformat() if rng.random() < 0.3 else dt.isoformat()

    with open(first, "w", encoding="utf-8") as f:
        w = Chunked(f)
        for i in range(1, n + 1):
            w.add(f"{make_path(rng, i, False)}\t{lastmod()}\n")
        w.flush()
    with open(first, encoding="utf-8") as f, open(second, "w", encoding="utf-8") as out:
        w = Chunked(out)
        for i, line in enumerate(f):
            if i >= n - n // 2:
                loc = line.split("\t", 1)[0]
                w.add(f"{loc.replace(BASE_URL, BASE_URL + 'v2/', 1)}\t{lastmod()}\n")
                w.add(f"{loc}\t{lastmod()}\n")
        w.flush()


def merge_lastmods(name: str, n: int, cmd: list[str], fpy: str, d: Data, out: Path,
                   r: Runner, listing: bool) -> Scenario:
    """Two TSV lists with a lastmod a row merged, newest wins (the cron line's own work)."""
    data_dir = d.urls_ascii.parent
    first, second = data_dir / f"lastmods-a-{n}.tsv", data_dir / f"lastmods-b-{n}.tsv"
    if not listing:
        manifest_path = data_dir / "merge-manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text())
        except (OSError, ValueError):
            manifest = {}
        want = {"seed": SEED, "version": GEN_VERSION, "count": n}
        if manifest.get(second.name) != want or not first.exists() or not second.exists():
            gen_lastmod_lists(first, second, n)
            manifest[second.name] = want
            manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
            print(f"  made {first.name} and {second.name}")
    od, fd = out / name / "ours", out / name / "floor"
    distinct = n + n // 2
    return Scenario(
        name, f"two TSV lists with lastmods ({n:,} rows each, {distinct:,} distinct) merged, "
        "newest wins -> split sitemap + index", distinct,
        Side("ours", [*cmd, str(first), str(second), "--base-url", BASE_URL, "-o",
                      str(od / "sitemap.xml"), "-q"], od, "xml"),
        [Side("floor", [fpy, r.script("floor_merge_lastmods.py"), str(fd), BASE_URL,
                        str(first), str(second)], fd, "xml")])


def cron_job(cmd: list[str], fpy: str, d: Data, cron: Path, feed: Path, items: int,
             out: Path, r: Runner) -> Scenario:
    name = "cron"
    od, fd = out / name / "ours", out / name / "floor"
    per = -(-d.n_sitemap // SITEMAP_PARTS)
    new = items - items * 7 // 10  # (see gen_cron_feed: 7 in 10 items are known pages)
    place = [fpy, r.script("in_place.py"), str(cron)]
    return Scenario(
        name, f"the cron line: a sitemap set ({d.n_sitemap:,} URLs, index + {SITEMAP_PARTS} "
        f"parts) grown in place from a {items:,}-item RSS feed", d.n_sitemap + new,
        Side("ours", [*place, str(od), *cmd, str(od / "sitemap.xml"), str(feed), "-o",
                      str(od / "sitemap.xml"), "--base-url", BASE_URL, "--max-urls", str(per),
                      "-q"], od, "xml"),
        [Side("floor", [*place, str(fd), fpy, r.script("floor_cron.py"),
                        str(fd / "sitemap.xml"), str(feed), BASE_URL, str(per)], fd, "xml")])


# Puts the set in the (emptied) output folder as hard links, then becomes the command: a run
# replaces files by renaming new ones over them, so the data set itself is never changed.
IN_PLACE = r'''
import os, sys
src, dst = sys.argv[1:3]
for name in os.listdir(src):
    os.link(os.path.join(src, name), os.path.join(dst, name))
os.execvp(sys.argv[3], sys.argv[3:])
'''

# Two or more text lists merged with a dict (first-seen order), written as FLOOR_TEXT does.
FLOOR_MERGE_LISTS = r'''
import os, sys
outdir, base = sys.argv[1:3]
PER_FILE = 50000
seen = {}
for src in sys.argv[3:]:
    with open(src, encoding="utf-8") as f:
        for line in f:
            url = line.strip()
            if url and url not in seen:
                seen[url] = None
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
n = part = 0
out = None
for url in seen:
    url = (url.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
           .replace("'", "&apos;").replace('"', "&quot;"))
    if n % PER_FILE == 0:
        if out:
            out.write("</urlset>\n")
            out.close()
        part += 1
        out = open(os.path.join(outdir, "sitemap-%d.xml" % part), "w", encoding="utf-8")
        out.write(HEAD)
    out.write("<url><loc>" + url + "</loc></url>\n")
    n += 1
if out:
    out.write("</urlset>\n")
    out.close()
with open(os.path.join(outdir, "sitemap.xml"), "w", encoding="utf-8") as idx:
    idx.write('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for k in range(1, part + 1):
        idx.write("<sitemap><loc>%ssitemap-%d.xml</loc></sitemap>\n" % (base, k))
    idx.write("</sitemapindex>\n")
'''

# Two or more TSV lists URL<TAB>lastmod merged with a dict from URL to its newest lastmod's
# text (first-seen order; a date is its midnight UTC, a tie keeps the earlier copy), written
# as FLOOR_MERGE_LISTS writes, with the lastmod. The data's datetimes are all in UTC, to the
# second: as text they compare as instants.
FLOOR_MERGE_LASTMODS = r'''
import os, sys
outdir, base = sys.argv[1:3]
PER_FILE = 50000
seen = {}
for src in sys.argv[3:]:
    with open(src, encoding="utf-8") as f:
        for line in f:
            url, _, lastmod = line.rstrip("\n").partition("\t")
            old = seen.get(url)
            if old is None:
                seen[url] = lastmod
            elif ((lastmod + "T00:00:00+00:00") if len(lastmod) == 10 else lastmod) > (
                    (old + "T00:00:00+00:00") if len(old) == 10 else old):
                seen[url] = lastmod
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
n = part = 0
out = None
for url, lastmod in seen.items():
    url = (url.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
           .replace("'", "&apos;").replace('"', "&quot;"))
    if n % PER_FILE == 0:
        if out:
            out.write("</urlset>\n")
            out.close()
        part += 1
        out = open(os.path.join(outdir, "sitemap-%d.xml" % part), "w", encoding="utf-8")
        out.write(HEAD)
    out.write("<url><loc>" + url + "</loc><lastmod>" + lastmod + "</lastmod></url>\n")
    n += 1
if out:
    out.write("</urlset>\n")
    out.close()
with open(os.path.join(outdir, "sitemap.xml"), "w", encoding="utf-8") as idx:
    idx.write('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for k in range(1, part + 1):
        idx.write("<sitemap><loc>%ssitemap-%d.xml</loc></sitemap>\n" % (base, k))
    idx.write("</sitemapindex>\n")
'''

# The cron job with a dict: the index's parts read with ElementTree iterparse (the sitemap-set
# row's floor), the feed's items folded in (a later date wins), the parts and the index
# written back as temporaries renamed over the old files.
FLOOR_CRON = r'''
import os, sys
from email.utils import parsedate_to_datetime
from datetime import timezone
import xml.etree.ElementTree as ET
index, feed, base, per = sys.argv[1:5]
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
link = pub = None
for _, el in ET.iterparse(feed):
    if el.tag == "link": link = el.text
    elif el.tag == "pubDate":
        pub = parsedate_to_datetime(el.text).astimezone(timezone.utc).isoformat()
    elif el.tag == "item":
        old = seen.get(link)
        if old is None: seen[link] = [pub, None, None]
        elif pub > old[0]: old[0] = pub
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
for loc, (lastmod, cf, pr) in seen.items():
    rows.append("<url><loc>%s</loc>%s%s%s</url>\n" % (
        esc(loc), lastmod and "<lastmod>%s</lastmod>" % lastmod or "",
        cf and "<changefreq>%s</changefreq>" % cf or "",
        pr and "<priority>%s</priority>" % pr or ""))
    if len(rows) == per:
        flush()
if rows:
    flush()
write("sitemap.xml", '<?xml version="1.0" encoding="UTF-8"?>\n'
      '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
      + "".join("<sitemap><loc>%s%s</loc></sitemap>\n" % (base, n) for n in names)
      + "</sitemapindex>\n")
'''
