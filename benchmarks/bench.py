#!/usr/bin/env python3
"""Benchmark the installed ``feed2sitemap`` command against minimal "floor" programs.

Every measurement is a whole child process: wall time plus the child's peak RSS
(``ru_maxrss`` from ``wait4``).  Beside each run of our command we run, in the same
session and measured the same way, the smallest Python loop that does the same job
(the floor), so the ratio ours/floor says how much our checks and structure cost.

Standard library only, and it never imports feed2sitemap: it shells out to the
command, so it measures what a user runs.  See benchmarks/README.md.

    python benchmarks/bench.py --quick
    python benchmarks/bench.py --only text,gzip --repeat 3 --json out.json
    python benchmarks/bench.py --cmd "python -m feed2sitemap"
"""

from __future__ import annotations

import argparse
import email.utils
import gzip
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_dask import dask_scenario  # noqa: E402  (opt-in: --only dask)

BASE_URL = "https://example.com/"
SEED = 20240601
# Bump when a generator below changes, so data made by an older version is remade.
GEN_VERSION = 2

FULL = {"urls": 1_000_000, "feed_items": 50_000, "sitemap_urls": 1_000_000, "repeat": 5}
QUICK = {"urls": 100_000, "feed_items": 5_000, "sitemap_urls": 100_000, "repeat": 3}
SITEMAP_PARTS = 20
NOISY = 0.25  # a spread of wall times beyond this fraction of the median is flagged
PER_FILE = 50_000  # sitemaps.org limit of URLs per file; the floors split at it too

# Characters RFC 3986 allows unescaped in a URL (plus '%' so existing escapes survive);
# the non-ASCII floor percent-encodes everything else, as our command must.
URL_SAFE = "/:?#[]@!$&'()*+,;=%~"


# --------------------------------------------------------------------------- data

WORDS = (
    "about access account action active actual address advice agency album alpha amazing "
    "analysis angle animal annual answer apple april archive area argument art article "
    "audio august author autumn average award backup balance band bank basic battery beach "
    "bench best beta better bike black blog blue board boat book border bottle brand bread "
    "bridge bright budget build business button cable cache camera campaign camp career case "
    "castle cat center chain change chapter chart cheap check chess city class classic clean "
    "client climate cloud club coast code coffee color column comment company compare config "
    "contact content cookie corner cotton country course cover craft create credit culture "
    "cycle daily data debug deep delta design desk detail device diet digital dinner direct "
    "doctor dog domain download draft dream drive early earth easy edge editor energy engine "
    "event expert fabric family farm fast feature field film final finance fire fish flight "
    "floor flower focus food forest format forum frame free fresh friend fruit future galaxy "
    "game garden gear gift global gold golf green grid group growth guide guitar habit hair "
    "health heart history holiday home hotel house idea image index island jacket journal "
    "kitchen label lake language laptop learn legal lemon letter light linux list local "
    "lunch magic market media menu metal method mobile model money month motor mountain "
    "movie music nature network news night north note ocean office online open orange "
    "order paper park party pattern people photo piano plan planet plant player pocket "
    "policy portal power press price print product project python queen quick radio rain "
    "recipe release report review river road rocket room route rule safety sale salt sample "
    "school science screen search season secret security server service shadow share shop "
    "silver simple sky smart snow social software solar sound space speed sport spring "
    "square stack star station stone story street studio style summer sunset support system "
    "table team tech test theory ticket time tool tower town track trade travel tree trend "
    "update user valley video village vision voice water weather web week wind window winter "
    "wood work world yellow young zero zone"
).split()
# Non-ASCII path segments seen on real sites: accented Latin, CJK, Cyrillic, Greek.
NON_ASCII = (
    "café", "crème-brûlée", "über-uns", "straße", "naïve", "résumé", "niño", "jalapeño",
    "维基", "百科全书", "新闻", "東京", "日本語", "новости", "статьи", "Ελλάδα", "smörgåsbord",
)
SECTIONS = ("blog", "news", "products", "docs", "tags", "users", "events", "help")
CATEGORIES = ("shoes", "books", "garden", "kitchen", "toys", "music", "sports", "tools")
CHANGEFREQ = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
EPOCH = datetime(2015, 1, 1, tzinfo=timezone.utc)
SPAN = 10 * 365 * 86400  # dates spread over ten years


def make_path(rng: random.Random, i: int, non_ascii: bool) -> str:
    """A realistic, unique URL on example.com; ``i`` in every path keeps the URLs distinct
    (so dedupe never drops any and the output count must equal the input count)."""
    slug = "-".join(rng.choice(WORDS) for _ in range(rng.randrange(2, 6)))
    y, m, d = rng.randrange(2015, 2025), rng.randrange(1, 13), rng.randrange(1, 29)
    t = rng.randrange(8)
    if t == 0:
        path = f"blog/{y}/{m:02d}/{slug}-{i}"
    elif t == 1:
        path = f"products/{rng.choice(CATEGORIES)}/{slug}-{i}.html"
    elif t == 2:
        path = f"docs/v{rng.randrange(1, 6)}/{rng.choice(WORDS)}/{slug}-{i}"
    elif t == 3:
        path = f"news/{y}-{m:02d}-{d:02d}/{slug}-{i}"
    elif t == 4:
        path = f"users/{rng.choice(WORDS)}{i}/posts/{rng.randrange(1, 500)}"
    elif t == 5:
        path = f"tags/{rng.choice(WORDS)}/{slug}-{i}"
    elif t == 6:
        path = f"{rng.choice(SECTIONS)}/{slug}-{i}/"
    else:
        path = f"events/{y}/{rng.choice(WORDS)}-{i}"
    if non_ascii and rng.random() < 0.05:
        word = rng.choice(NON_ASCII)
        path = f"blog/{word}-{slug}-{i}" if rng.random() < 0.5 else f"{word}/{slug}-{i}"
    q = rng.random()
    if q < 0.03:  # ~3% with '&' in the query, which every XML writer must escape
        path += f"?utm_source={rng.choice(WORDS)}&utm_medium=email&page={rng.randrange(1, 50)}"
    elif q < 0.10:
        path += f"?page={rng.randrange(2, 40)}"
    return BASE_URL + path


def when(rng: random.Random) -> datetime:
    return EPOCH + timedelta(seconds=rng.randrange(SPAN))


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def xml_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def blurb(rng: random.Random) -> str:
    """A description as feeds carry it: plain text or a little HTML (which the XML then
    escapes, so entities like &amp;amp; appear).  Kept short so the RSS lands near 16 MB."""
    text = sentence(rng, rng.randrange(4, 10)) + "."
    r = rng.random()
    if r < 0.5:
        return text
    if r < 0.8:
        return f"<p>{text}</p>"
    return f'<p>{text} <a href="/more">More</a> &amp; <em>{rng.choice(WORDS)}</em></p>'


class Chunked:
    """Buffered writer: joining ~10k pieces per write keeps generation fast."""

    def __init__(self, f) -> None:
        self.f, self.buf = f, []

    def add(self, s: str) -> None:
        self.buf.append(s)
        if len(self.buf) >= 10_000:
            self.flush()

    def flush(self) -> None:
        self.f.write("".join(self.buf))
        self.buf.clear()


def gen_url_list(path: Path, n: int, non_ascii: bool) -> None:
    rng = random.Random(f"{SEED}-urls-{non_ascii}")
    with open(path, "w", encoding="utf-8") as f:
        w = Chunked(f)
        for i in range(1, n + 1):
            w.add(make_path(rng, i, non_ascii) + "\n")
        w.flush()


def gen_jsonl_list(path: Path, n: int, lastmods: bool) -> None:
    """The ASCII list's URLs (same seed) as JSON Lines, as a script exporting a database would
    write them (json.dumps), each with a lastmod (a UTC datetime to the second) if asked."""
    rng = random.Random(f"{SEED}-urls-False")
    dates = random.Random(f"{SEED}-jsonl-dates")
    with open(path, "w", encoding="utf-8") as f:
        w = Chunked(f)
        for i in range(1, n + 1):
            rec = {"loc": make_path(rng, i, False)}
            if lastmods:
                rec["lastmod"] = when(dates).strftime("%Y-%m-%dT%H:%M:%S+00:00")
            w.add(json.dumps(rec) + "\n")
        w.flush()


def gen_rss(path: Path, n: int) -> None:
    rng = random.Random(f"{SEED}-rss")
    with open(path, "w", encoding="utf-8") as f:
        w = Chunked(f)
        w.add('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0">\n<channel>\n'
              "<title>Example Blog</title>\n<link>https://example.com/</link>\n"
              "<description>Benchmark feed</description>\n"
              f"<lastBuildDate>{email.utils.format_datetime(EPOCH + timedelta(seconds=SPAN))}"
              "</lastBuildDate>\n")
        for i in range(1, n + 1):
            link = make_path(rng, i, True)
            title = sentence(rng, rng.randrange(3, 9))
            if rng.random() < 0.1:
                title += " & more"
            # Real feeds use numeric offsets as well as GMT; both parse as RFC 822.
            dt = when(rng).astimezone(timezone(timedelta(hours=rng.choice((0, 0, 1, -5, 8)))))
            desc = blurb(rng)
            desc = f"<![CDATA[{desc}]]>" if rng.random() < 0.1 else xml_escape(desc)
            w.add(f"<item>\n<title>{xml_escape(title)}</title>\n<link>{xml_escape(link)}</link>\n"
                  f'<guid isPermaLink="false">post-{i}</guid>\n'
                  f"<pubDate>{email.utils.format_datetime(dt)}</pubDate>\n"
                  f"<description>{desc}</description>\n</item>\n")
        w.add("</channel>\n</rss>\n")
        w.flush()


def gen_atom(path: Path, n: int) -> None:
    rng = random.Random(f"{SEED}-atom")
    with open(path, "w", encoding="utf-8") as f:
        w = Chunked(f)
        w.add('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
              "<title>Example Blog</title>\n<id>tag:example.com,2015:blog</id>\n"
              f"<updated>{(EPOCH + timedelta(seconds=SPAN)).isoformat()}</updated>\n"
              '<link rel="self" href="https://example.com/atom.xml"/>\n'
              '<link rel="alternate" href="https://example.com/"/>\n'
              "<author><name>Example</name></author>\n")
        for i in range(1, n + 1):
            link = make_path(rng, i, True)
            title = sentence(rng, rng.randrange(3, 9))
            updated = when(rng).strftime("%Y-%m-%dT%H:%M:%SZ")
            w.add(f"<entry>\n<title>{xml_escape(title)}</title>\n"
                  f'<link rel="alternate" type="text/html" href="{xml_escape(link)}"/>\n'
                  f"<id>tag:example.com,2015:post-{i}</id>\n<updated>{updated}</updated>\n"
                  f'<summary type="html">{xml_escape(blurb(rng))}</summary>\n'
                  "</entry>\n")
        w.add("</feed>\n")
        w.flush()


def gen_sitemap_set(directory: Path, n: int) -> None:
    """index.xml + SITEMAP_PARTS urlsets.  Index <loc>s are absolute URLs as on a real site;
    the files sit beside the index under the same basenames."""
    rng = random.Random(f"{SEED}-sitemaps")
    directory.mkdir(parents=True, exist_ok=True)
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    per = -(-n // SITEMAP_PARTS)
    names = []
    i = 0
    for part in range(1, SITEMAP_PARTS + 1):
        name = f"part-{part:02d}.xml"
        names.append(name)
        with open(directory / name, "w", encoding="utf-8") as f:
            w = Chunked(f)
            w.add(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {ns}>\n')
            for _ in range(min(per, n - i)):
                i += 1
                # A valid sitemap carries ASCII URLs: IRIs are already percent-encoded.
                loc = quote(make_path(rng, i, True), safe=URL_SAFE)
                dt = when(rng)
                lastmod = dt.strftime("%Y-%m-%d") if rng.random() < 0.3 else dt.isoformat()
                w.add(f"<url><loc>{xml_escape(loc)}</loc><lastmod>{lastmod}</lastmod>"
                      f"<changefreq>{rng.choice(CHANGEFREQ)}</changefreq>"
                      f"<priority>{rng.randrange(1, 11) / 10:.1f}</priority></url>\n")
            w.add("</urlset>\n")
            w.flush()
    with open(directory / "index.xml", "w", encoding="utf-8") as f:
        f.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {ns}>\n')
        for name in names:
            f.write(f"<sitemap><loc>{BASE_URL}sitemaps/{name}</loc>"
                    f"<lastmod>{EPOCH.date().isoformat()}</lastmod></sitemap>\n")
        f.write("</sitemapindex>\n")


@dataclass
class Data:
    urls_ascii: Path
    urls_mixed: Path
    rss: Path
    atom: Path
    sitemaps: Path  # directory holding index.xml and the parts
    urls_jsonl: Path  # the ASCII list's URLs as JSON Lines with a lastmod each
    urls_jsonl_loc: Path  # the same with the URL alone
    n_urls: int
    n_items: int
    n_sitemap: int


def ensure_data(data_dir: Path, sizes: dict, log: Callable[[str], None]) -> Data:
    """Make each data set unless the manifest says one with the same parameters exists.
    Each is written under a temporary name and renamed, so an interrupted run never
    leaves a half-made file that a later run would trust."""
    data_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = data_dir / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    n, items, sm = sizes["urls"], sizes["feed_items"], sizes["sitemap_urls"]
    d = Data(data_dir / f"urls-ascii-{n}.txt", data_dir / f"urls-mixed-{n}.txt",
             data_dir / f"rss-{items}.xml", data_dir / f"atom-{items}.xml",
             data_dir / f"sitemaps-{sm}", data_dir / f"urls-{n}.jsonl",
             data_dir / f"urls-loc-{n}.jsonl", n, items, sm)
    jobs = [
        (d.urls_ascii, n, lambda p: gen_url_list(p, n, False)),
        (d.urls_mixed, n, lambda p: gen_url_list(p, n, True)),
        (d.rss, items, lambda p: gen_rss(p, items)),
        (d.atom, items, lambda p: gen_atom(p, items)),
        (d.sitemaps, sm, lambda p: gen_sitemap_set(p, sm)),
        (d.urls_jsonl, n, lambda p: gen_jsonl_list(p, n, True)),
        (d.urls_jsonl_loc, n, lambda p: gen_jsonl_list(p, n, False)),
    ]
    for path, count, make in jobs:
        want = {"seed": SEED, "version": GEN_VERSION, "count": count}
        if manifest.get(path.name) == want and path.exists():
            continue
        t0 = time.perf_counter()
        tmp = path.with_name(path.name + ".tmp")
        if tmp.is_dir():
            shutil.rmtree(tmp)
        tmp.unlink(missing_ok=True)
        make(tmp)
        if path.is_dir():
            shutil.rmtree(path)
        os.replace(tmp, path)
        manifest[path.name] = want
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        log(f"  made {path.name} ({size_of(path) / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f}s")
    return d


# --------------------------------------------------------------------------- floors
# Each floor is the least a Python program can do for the job, with no checks at all.
# They are written to a temp dir and run as separate processes, like our command.

FLOOR_TEXT = r'''
import os, sys
src, outdir, base, mode, level = sys.argv[1:6]
level = int(level)
PER_FILE = 50000
if mode == "quote":
    from urllib.parse import quote
if mode == "jsonl":
    import json
if level:
    import gzip
ext = ".xml.gz" if level else ".xml"

def open_out(name):
    path = os.path.join(outdir, name)
    if level:
        return gzip.open(path, "wt", encoding="utf-8", compresslevel=level)
    return open(path, "w", encoding="utf-8")

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
n = part = 0
out = None
with open(src, encoding="utf-8") as f:
    for line in f:
        url = line.strip()
        if not url:
            continue
        lastmod = ""
        if mode == "jsonl":
            rec = json.loads(url)
            url = rec["loc"]
            if "lastmod" in rec:
                lastmod = "<lastmod>" + rec["lastmod"] + "</lastmod>"
        if mode == "quote" and not url.isascii():
            url = quote(url, safe="/:?#[]@!$&'()*+,;=%~")
        url = (url.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
               .replace("'", "&apos;").replace('"', "&quot;"))
        if n % PER_FILE == 0:
            if out:
                out.write("</urlset>\n")
                out.close()
            part += 1
            out = open_out("sitemap-%d%s" % (part, ext))
            out.write(HEAD)
        out.write("<url><loc>" + url + "</loc>" + lastmod + "</url>\n")
        n += 1
if out:
    out.write("</urlset>\n")
    out.close()
with open_out("sitemap" + ext) as idx:
    idx.write('<?xml version="1.0" encoding="UTF-8"?>\n'
              '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for k in range(1, part + 1):
        idx.write("<sitemap><loc>%ssitemap-%d%s</loc></sitemap>\n" % (base, k, ext))
    idx.write("</sitemapindex>\n")
'''

# Raw pyexpat, no namespaces: RSS <item><link>/<pubDate>, Atom <entry><link href>/<updated>.
FLOOR_EXPAT = r'''
import sys
from xml.parsers import expat
src, dst = sys.argv[1:3]
out = open(dst, "w", encoding="utf-8")
st = {"in": False, "cap": None, "buf": [], "link": None, "date": None}
ITEM = ("item", "entry")
WANT = ("link", "pubDate", "updated", "published")

def start(name, attrs):
    if name in ITEM:
        st["in"] = True
        st["link"] = st["date"] = None
    elif st["in"]:
        if name == "link" and "href" in attrs:
            if attrs.get("rel", "alternate") == "alternate":
                st["link"] = attrs["href"]
        elif name in WANT:
            st["cap"] = name
            st["buf"] = []

def text(data):
    if st["cap"]:
        st["buf"].append(data)

def end(name):
    if name == st["cap"]:
        value = "".join(st["buf"]).strip()
        if name == "link":
            st["link"] = value
        elif not st["date"] or name != "published":
            st["date"] = value
        st["cap"] = None
    elif name in ITEM:
        st["in"] = False
        out.write("%s\t%s\n" % (st["link"], st["date"]))

p = expat.ParserCreate()
p.buffer_text = True
p.StartElementHandler, p.CharacterDataHandler, p.EndElementHandler = start, text, end
with open(src, "rb") as f:
    p.ParseFile(f)
out.close()
'''

# The library everyone would reach for; a reference rather than a floor.
FLOOR_FEEDPARSER = r'''
import sys
import feedparser
src, dst = sys.argv[1:3]
with open(src, "rb") as f:
    d = feedparser.parse(f.read())
with open(dst, "w", encoding="utf-8") as out:
    for e in d.entries:
        out.write("%s\t%s\n" % (e.get("link"), e.get("updated") or e.get("published")))
'''

# ElementTree.iterparse over the index, then each part it lists (by basename, beside it).
FLOOR_SITEMAP = r'''
import os, sys
import xml.etree.ElementTree as ET
index, dst = sys.argv[1:3]
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
LOC, LASTMOD, URL = NS + "loc", NS + "lastmod", NS + "url"
here = os.path.dirname(index)
parts = []
for _, el in ET.iterparse(index):
    if el.tag == LOC:
        parts.append(os.path.join(here, el.text.strip().rsplit("/", 1)[-1]))
with open(dst, "w", encoding="utf-8") as out:
    for part in parts:
        loc = lastmod = None
        for _, el in ET.iterparse(part):
            tag = el.tag
            if tag == LOC:
                loc = el.text
            elif tag == LASTMOD:
                lastmod = el.text
            elif tag == URL:
                out.write("%s\t%s\n" % (loc, lastmod))
                el.clear()
                loc = lastmod = None
'''

# Runs one command and reports its wall time and peak RSS.  Why a launcher: on Linux a
# child's ru_maxrss starts at the RSS high-water mark of the process that forked it
# (vfork/posix_spawn even copy the parent's *peak*), so spawning straight from this
# script would floor every figure at this script's size.  The launcher is a bare
# `python -I -S`, ~8 MB, below any Python child we measure.
LAUNCHER = r'''
import os, sys, time
out, err = sys.argv[1:3]
argv = sys.argv[3:]
W = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
fa = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
      (os.POSIX_SPAWN_OPEN, 1, out, W, 0o644),
      (os.POSIX_SPAWN_OPEN, 2, err, W, 0o644)]
t0 = time.perf_counter()
try:
    pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=fa)
except OSError as e:
    with open(err, "a") as f:
        f.write("cannot start %s: %s\n" % (argv[0], e))
    print(127, 0.0, 0, 0.0)
    sys.exit()
_, status, ru = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print(os.waitstatus_to_exitcode(status), repr(wall), ru.ru_maxrss, repr(ru.ru_utime + ru.ru_stime))
'''


# --------------------------------------------------------------------------- running

@dataclass
class Run:
    rc: int
    wall: float  # seconds
    rss_kib: int
    cpu: float  # user + system seconds: less swayed than wall time by a busy machine
    stderr: str


class Runner:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.launcher = work / "launcher.py"
        self.launcher.write_text(LAUNCHER)
        for name, src in (("floor_text.py", FLOOR_TEXT), ("floor_expat.py", FLOOR_EXPAT),
                          ("floor_feedparser.py", FLOOR_FEEDPARSER),
                          ("floor_sitemap.py", FLOOR_SITEMAP)):
            (work / name).write_text(src)

    def script(self, name: str) -> str:
        return str(self.work / name)

    def run(self, argv: list[str], outdir: Path) -> Run:
        # A clean output dir each time, so no run is helped or hurt by the one before.
        shutil.rmtree(outdir, ignore_errors=True)
        outdir.mkdir(parents=True)
        so, se = self.work / "child.out", self.work / "child.err"
        res = subprocess.run(
            [sys.executable, "-I", "-S", str(self.launcher), str(so), str(se), *argv],
            capture_output=True, text=True, check=True)
        rc, wall, rss, cpu = res.stdout.split()
        err = se.read_text(errors="replace")
        return Run(int(rc), float(wall), int(rss), float(cpu), err)


def is_usage_error(run: Run) -> bool:
    """Click exits 2 with "No such option" for an option the command does not know yet."""
    low = run.stderr.lower()
    return run.rc == 2 and ("no such option" in low or "usage:" in low)


# --------------------------------------------------------------------------- scenarios

@dataclass
class Side:
    label: str
    argv: list[str]
    outdir: Path
    output: str  # "xml" (sitemap files), "text" (one record per line)
    runs: list[Run] = field(default_factory=list)
    status: str = "ok"  # ok | unsupported | failed: ...
    out_urls: int | None = None
    out_bytes: int | None = None

    @property
    def wall(self) -> float | None:
        ok = [r.wall for r in self.runs if r.rc == 0]
        return statistics.median(ok) if ok else None

    @property
    def cpu(self) -> float | None:
        ok = [r.cpu for r in self.runs if r.rc == 0]
        return statistics.median(ok) if ok else None

    @property
    def spread(self) -> float | None:
        """(max - min) / median of the wall times: how far to trust the median."""
        ok = [r.wall for r in self.runs if r.rc == 0]
        return (max(ok) - min(ok)) / statistics.median(ok) if len(ok) > 1 else None

    @property
    def rss_mb(self) -> float | None:
        ok = [r.rss_kib for r in self.runs if r.rc == 0]
        return statistics.median(ok) / 1024 if ok else None


@dataclass
class Scenario:
    name: str
    what: str
    n: int  # input URLs / items, for URLs/s and to check the output count
    ours: Side
    baselines: list[Side]  # first one is the floor; the rest are references
    fallback: list[str] | None = None  # our argv to use if the first is unsupported
    note: str = ""


def build_scenarios(cmd: list[str], fpy: str, d: Data, out: Path, r: Runner) -> list[Scenario]:
    def ours(name: str, args: list[str], output: str, sub: str) -> Side:
        od = out / name / "ours"
        return Side("ours", [*cmd, *args, "-o", str(od / sub), "-q"], od, output)

    def floor_to_file(name: str, label: str, script: str, src: Path) -> Side:
        od = out / name / label
        return Side(label, [fpy, r.script(script), str(src), str(od / "records.txt")], od, "text")

    def text_xml(name, what, src, floor_mode, extra=(), level=0, fmt="text"):
        sub = "sitemap.xml.gz" if level else "sitemap.xml"
        args = [str(src), "-f", fmt, "--base-url", BASE_URL, *extra]
        return Scenario(
            name, what, d.n_urls, ours(name, args, "xml", sub),
            [Side("floor", [fpy, r.script("floor_text.py"), str(src),
                            str(out / name / "floor"), BASE_URL, floor_mode, str(level)],
                  out / name / "floor", "xml")])

    sc = [
        text_xml("text-ascii", "ASCII URL list -> split sitemap + index", d.urls_ascii, "plain"),
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
    # the plain list of the same URLs: the issue's target is at most 2x that.
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
        sc.append(Scenario(
            name, f"{name.upper()} feed of {d.n_items:,} items -> URL records (-t text)",
            d.n_items, ours(name, [str(src), "-f", "feed", "-t", "text"], "text", "urls.txt"),
            [floor_to_file(name, "floor", "floor_expat.py", src),
             floor_to_file(name, "feedparser", "floor_feedparser.py", src)]))
    index = d.sitemaps / "index.xml"
    parts = sorted(str(p) for p in d.sitemaps.glob("part-*.xml"))
    name = "sitemap-set"
    s = Scenario(
        name, f"sitemap index + {SITEMAP_PARTS} parts ({d.n_sitemap:,} URLs) -> URL records",
        # --base-url: text sitemaps have the 50,000 limit too, so 1M URLs need parts + index.
        d.n_sitemap, ours(name, [str(index), "--follow", "-f", "sitemap", "-t", "text",
                                 "--base-url", BASE_URL], "text", "urls.txt"),
        [floor_to_file(name, "floor", "floor_sitemap.py", index)])
    od = out / name / "ours"
    s.fallback = [*cmd, *parts, "-f", "sitemap", "-t", "text", "--base-url", BASE_URL,
                  "-o", str(od / "urls.txt"), "-q"]
    sc.append(s)
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


# --------------------------------------------------------------------------- checks

def size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size


def count_output(side: Side) -> tuple[int, int, int]:
    """(URLs written, bytes on disk, files) for one side's last run; not timed.
    Index files are skipped (a split text output still gets an XML index)."""
    urls = files = 0
    for p in sorted(side.outdir.rglob("*")):
        if not p.is_file():
            continue
        files += 1
        raw = p.read_bytes()
        if p.suffix == ".gz":
            raw = gzip.decompress(raw)
        if b"<sitemapindex" in raw[:500]:
            continue
        if side.output == "xml":
            urls += raw.count(b"</url>")
        else:
            urls += sum(1 for line in raw.splitlines() if line.strip())
    return urls, size_of(side.outdir), files


# --------------------------------------------------------------------------- main

def run_scenario(s: Scenario, r: Runner, repeat: int, log: Callable[[str], None]) -> None:
    log(f"\n## {s.name}: {s.what}")
    sides = [s.ours, *s.baselines]
    for i in range(repeat):
        # Interleave ours and the floors so drift (thermal, noisy neighbours) hits both.
        for side in sides:
            if side.status != "ok":
                continue
            run = r.run(side.argv, side.outdir)
            if side is s.ours and i == 0 and is_usage_error(run) and s.fallback:
                s.note = "option unsupported; ran the fallback form"
                log(f"  ours: {run.stderr.strip().splitlines()[-1]}; trying fallback form")
                side.argv = s.fallback
                run = r.run(side.argv, side.outdir)
            if run.rc != 0:
                last = (run.stderr.strip().splitlines() or ["(no stderr)"])[-1]
                side.status = "unsupported" if is_usage_error(run) else f"failed rc={run.rc}"
                log(f"  {side.label}: {side.status}: {last[:200]}")
                continue
            side.runs.append(run)
            log(f"  {side.label:<10} run {i + 1}/{repeat}: {run.wall:7.2f}s "
                f"(cpu {run.cpu:6.2f}s) {run.rss_kib / 1024:7.1f} MB")
    for side in sides:
        if side.status == "ok" and side.runs:
            side.out_urls, side.out_bytes, files = count_output(side)
            flag = "" if side.out_urls == s.n else f"  <-- expected {s.n:,}"
            log(f"  {side.label:<10} median {side.wall:.2f}s (cpu {side.cpu:.2f}s), "
                f"{side.rss_mb:.1f} MB; wrote "
                f"{side.out_urls:,} URLs in {files} file(s), {side.out_bytes / 1e6:.1f} MB{flag}")


def fmt(x: float | None, spec: str) -> str:
    return format(x, spec) if x is not None else "-"


def table(scenarios: list[Scenario]) -> str:
    # "cpu ratio" (user + system time) is the one to read when the machine was busy.
    rows = ["| scenario | ours wall | floor wall | ratio | URLs/s | ours peak MB | floor peak MB "
            "| cpu ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scenarios:
        o = s.ours
        for b in s.baselines:
            label = s.name if b.label == "floor" else f"{s.name} vs {b.label}"
            ow = o.wall if o.status == "ok" else None
            ratio = ow / b.wall if ow and b.wall else None
            cpu = o.cpu / b.cpu if ow and o.cpu and b.cpu else None
            rows.append(
                f"| {label} | {fmt(ow, '.2f') + 's' if ow else o.status} | "
                f"{fmt(b.wall, '.2f') + 's' if b.wall else b.status} | "
                f"{fmt(ratio, '.2f') + 'x' if ratio else '-'} | "
                f"{fmt(s.n / ow if ow else None, ',.0f')} | "
                f"{fmt(o.rss_mb if ow else None, '.1f')} | "
                f"{fmt(b.rss_mb, '.1f')} | {fmt(cpu, '.2f') + 'x' if cpu else '-'} |")
    return "\n".join(rows)


def gzip_table(scenarios: list[Scenario], plain: Scenario | None) -> str:
    rows = ["| gzip level | ours wall | ours size MB | floor wall | floor size MB |",
            "|---|---:|---:|---:|---:|"]
    def mb(side: Side) -> str:
        return fmt(side.out_bytes / 1e6 if side.out_bytes else None, ".1f")

    def wall(side: Side) -> str:
        return fmt(side.wall, ".2f") + "s" if side.wall else side.status

    for level, s in ([("none", plain)] if plain else []) + [(x.name[5:], x) for x in scenarios]:
        o, f = s.ours, s.baselines[0]
        rows.append(f"| {level} | {wall(o)} | {mb(o)} | {wall(f)} | {mb(f)} |")
    return "\n".join(rows)


def machine(cmd: list[str], fpy: str) -> dict:
    cpu = "unknown"
    try:
        m = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M)
        cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass

    def ask(argv: list[str]) -> str:
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            if res.returncode != 0:
                return "?"
            return (res.stdout.strip() or res.stderr.strip()).splitlines()[-1]
        except (OSError, subprocess.SubprocessError, IndexError):
            return "?"

    return {
        "nproc": os.cpu_count(),
        # Other work on the machine skews wall times; recorded so a reader can judge.
        "load_start": os.getloadavg()[0],
        "usable_cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu": cpu,
        "platform": platform.platform(),
        "bench_python": platform.python_version(),
        "floor_python": ask([fpy, "-c", "import platform; print(platform.python_version())"]),
        "feedparser": ask([fpy, "-c", "import feedparser; print(feedparser.__version__)"]),
        "command": " ".join(cmd),
        "command_version": ask([*cmd, "--version"]),
    }


def python_of(cmd: list[str]) -> str:
    """The interpreter our command runs on, so the floors run on the same one: the
    `python` in `--cmd "python -m feed2sitemap"`, or a console script's shebang."""
    if "python" in Path(cmd[0]).name:
        return shutil.which(cmd[0]) or cmd[0]
    exe = shutil.which(cmd[0])
    if exe:
        try:
            with open(exe, "rb") as f:
                first = f.readline(500).decode("utf-8", "replace")
            if first.startswith("#!") and "python" in first:
                interp = first[2:].split()
                if interp and Path(interp[0]).exists():
                    return interp[0]
        except OSError:
            pass
    return sys.executable


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cmd", default="feed2sitemap",
                    help='our command, e.g. "python -m feed2sitemap" (default: on PATH)')
    ap.add_argument("--python", help="interpreter for the floors (default: the command's own)")
    ap.add_argument("--quick", action="store_true",
                    help="small data (100k URLs, 5k items), 3 repeats: under a minute")
    ap.add_argument("--repeat", type=int, help="runs per measurement; medians are reported")
    ap.add_argument("--only", action="append", default=[],
                    help="scenario names or prefixes, comma-separated (repeatable); `dask` "
                         "(20M URLs, command vs Dask workers) runs only when named")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--data-dir", type=Path, default=HERE / "data")
    ap.add_argument("--out-dir", type=Path, default=HERE / "out",
                    help="where outputs go (emptied before each run)")
    ap.add_argument("--json", type=Path, help="also write every run's figures here")
    ap.add_argument("--keep-output", action="store_true", help="leave --out-dir behind")
    a = ap.parse_args(argv)

    sizes = dict(QUICK if a.quick else FULL)
    repeat = a.repeat or sizes["repeat"]
    cmd = shlex.split(a.cmd)
    fpy = a.python or python_of(cmd)
    log = lambda msg: print(msg, flush=True)  # noqa: E731

    with tempfile.TemporaryDirectory(prefix="f2s-bench-") as tmp:
        r = Runner(Path(tmp))
        if a.list:
            d = Data(*(Path("-"),) * 5, sizes["urls"], sizes["feed_items"], sizes["sitemap_urls"])
            for s in build_scenarios(cmd, fpy, d, a.out_dir, r):
                print(f"{s.name:<14} {s.what}")
            return 0
        t0 = time.perf_counter()
        mach = machine(cmd, fpy)
        log(f"# feed2sitemap benchmark ({'quick' if a.quick else 'full'}, {repeat} repeats)")
        log(f"command: {a.cmd}  ({mach['command_version']});  floors on {fpy}")
        log(f"data: {a.data_dir}")
        words = [w.strip() for o in a.only for w in o.split(",") if w.strip()]
        only = [w for w in words if w != "dask"]
        scenarios = []
        if "dask" not in words or only:
            d = ensure_data(a.data_dir, sizes, log)
            scenarios = select(build_scenarios(cmd, fpy, d, a.out_dir, r), only)
        for s in scenarios:
            run_scenario(s, r, repeat, log)
        dask_rows = (dask_scenario(cmd, fpy, a.data_dir, a.out_dir, Path(tmp), r.run, a.quick,
                                   BASE_URL, log) if "dask" in words else "")
        if not a.keep_output:
            shutil.rmtree(a.out_dir, ignore_errors=True)
        total = time.perf_counter() - t0
        mach["load_end"] = os.getloadavg()[0]

    if scenarios:
        print(f"\n## Results (medians of {repeat} runs; ratios = ours / floor)\n")
        print(table(scenarios))
    if dask_rows:
        print("\n### dask (one run each; see benchmarks/README.md)\n")
        print(dask_rows)
    gz = [s for s in scenarios if s.name.startswith("gzip-")]
    if gz:
        plain = next((s for s in scenarios if s.name == "text-ascii"), None)
        print("\n### gzip levels (ASCII list; sizes are all files, parts + index)\n")
        print(gzip_table(gz, plain))
    notes = [f"- {s.name}: {s.note}" for s in scenarios if s.note]
    notes += [f"- {s.name} {side.label}: wrote {side.out_urls:,} URLs, expected {s.n:,}"
              for s in scenarios for side in (s.ours, *s.baselines)
              if side.out_urls is not None and side.out_urls != s.n]
    notes += [f"- {s.name} {side.label}: noisy, wall times spread {side.spread:.0%} of the median"
              for s in scenarios for side in (s.ours, *s.baselines)
              if side.spread is not None and side.spread > NOISY]
    if mach["load_start"] > 0.5 or mach["load_end"] > 1.5:
        notes.append(f"- the machine was busy (1-min load average {mach['load_start']:.1f} at the "
                     f"start, {mach['load_end']:.1f} at the end): wall times are less reliable; "
                     "the CPU times above (and in --json) are steadier")
    if notes:
        print("\nNotes:\n" + "\n".join(notes))
    print(f"\nMachine: {mach['nproc']} CPUs ({mach['usable_cpus']} usable), {mach['cpu']}; "
          f"Python {mach['floor_python']} (floors), feedparser {mach['feedparser']}; "
          f"{mach['platform']}; load {mach['load_start']:.1f} -> {mach['load_end']:.1f}.  "
          f"Total {total:.0f}s.")

    if a.json:
        a.json.write_text(json.dumps({
            "mode": "quick" if a.quick else "full", "repeat": repeat, "machine": mach,
            "sizes": sizes, "total_seconds": round(total, 1),
            "scenarios": [{
                "name": s.name, "what": s.what, "n": s.n, "note": s.note,
                "sides": [{
                    "label": side.label, "argv": side.argv, "status": side.status,
                    "median_wall": side.wall, "median_cpu": side.cpu,
                    "median_peak_mb": side.rss_mb,
                    "out_urls": side.out_urls, "out_bytes": side.out_bytes,
                    "runs": [{"wall": x.wall, "cpu": x.cpu, "peak_kib": x.rss_kib}
                             for x in side.runs],
                } for side in (s.ours, *s.baselines)],
            } for s in scenarios],
        }, indent=1))
        print(f"JSON written to {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
