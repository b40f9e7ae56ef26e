"""The floors: the least a Python program can do for each job, run as our command is."""

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

# Yardsticks (yardsticks.py): the same job as the feedparser reference, with the parser
# module named by argv[1]: each entry's link and date, one a line.
FLOOR_YARDSTICK = r'''
import importlib, sys
module, src, dst = sys.argv[1:4]
mod = importlib.import_module(module)
parse = mod.parse
if hasattr(mod, "ParserLimits"):  # feedparser-rs stops at 10,000 entries by default (its room for
    # entries is reserved up front: 1 << 30 asked for 2 TB)
    limits = mod.ParserLimits(max_entries=1 << 20, max_feed_size_bytes=1 << 40)
    parse = lambda data: mod.parse_with_limits(data, limits=limits)
with open(src, "rb") as f:
    d = parse(f.read())
with open(dst, "w", encoding="utf-8") as out:
    for e in d.entries:
        out.write("%s\t%s\n" % (e.get("link"), e.get("updated") or e.get("published")))
'''
YARDSTICK_SCRIPT = "yardstick.py"

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
