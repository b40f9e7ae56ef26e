"""The extension-rich row (issue 17): a sitemap set whose every URL carries 2 images and 3
hreflang alternates, read with --follow and written as split XML sitemaps + index, against a
floor that does the same with no checks. Its data, floor and scenario live here, apart from the
other rows, so that adding it touched scenarios.py and main.py by one call each."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from .running import Runner, Scenario, Side
from .words import BASE_URL, GEN_VERSION, SEED, SITEMAP_PARTS, URL_SAFE, Chunked, make_path, when

NAME = "sitemap-ext"
SIZES = {"full": 1_000_000, "quick": 20_000}
LANGS = ("de", "fr", "es", "it", "ja", "pt-br")
NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
      'xmlns:xhtml="http://www.w3.org/1999/xhtml"')


def ext_dir(data_dir: Path, n: int) -> Path:
    return data_dir / f"sitemaps-ext-{n}"


def gen_ext_set(directory: Path, n: int) -> None:
    """index.xml + SITEMAP_PARTS urlsets, each <url> with a lastmod, 2 images, 3 alternates."""
    rng = random.Random(f"{SEED}-sitemaps-ext")
    directory.mkdir(parents=True, exist_ok=True)
    per = -(-n // SITEMAP_PARTS)
    i = 0
    names = []
    for part in range(1, SITEMAP_PARTS + 1):
        names.append(name := f"part-{part:02d}.xml")
        with open(directory / name, "w", encoding="utf-8") as f:
            w = Chunked(f)
            w.add(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n')
            for _ in range(min(per, n - i)):
                i += 1
                loc = quote(make_path(rng, i, False), safe=URL_SAFE).replace("&", "&amp;")
                images = "".join(f"<image:image><image:loc>{BASE_URL}img/{i}-{k}.jpg"
                                 "</image:loc></image:image>" for k in (1, 2))
                alternates = "".join(f'<xhtml:link rel="alternate" hreflang="{lang}" '
                                     f'href="{BASE_URL}{lang}/p/{i}"/>'
                                     for lang in rng.sample(LANGS, 3))
                w.add(f"<url><loc>{loc}</loc><lastmod>{when(rng).date().isoformat()}</lastmod>"
                      f"{images}{alternates}</url>\n")
            w.add("</urlset>\n")
            w.flush()
    with open(directory / "index.xml", "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex '
                'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        f.writelines(f"<sitemap><loc>{BASE_URL}sitemaps/{name}</loc></sitemap>\n"
                     for name in names)
        f.write("</sitemapindex>\n")


def ensure_ext_data(data_dir: Path, quick: bool, log: Callable[[str], None]) -> Path:
    """The row's data set, made once per size (data/manifest.json, as datasets.py does)."""
    n = SIZES["quick" if quick else "full"]
    path = ext_dir(data_dir, n)
    manifest_path = data_dir / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    want = {"seed": SEED, "version": GEN_VERSION, "count": n}
    if manifest.get(path.name) != want or not path.exists():
        import shutil

        tmp = path.with_name(path.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        gen_ext_set(tmp, n)
        shutil.rmtree(path, ignore_errors=True)
        tmp.rename(path)
        manifest[path.name] = want
        manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
        log(f"  made {path.name}")
    return path


def ext_scenario(cmd: list[str], fpy: str, data_dir: Path, out: Path, r: Runner,
                 quick: bool) -> Scenario:
    n = SIZES["quick" if quick else "full"]
    index = ext_dir(data_dir, n) / "index.xml"
    od = out / NAME
    ours = Side("ours", [*cmd, str(index), "--follow", "-f", "sitemap", "--base-url", BASE_URL,
                         "-o", str(od / "ours" / "sitemap.xml"), "-q"], od / "ours", "xml")
    script = r.work / "floor_sitemap_ext.py"
    script.write_text(FLOOR_SITEMAP_EXT)
    floor = Side("floor", [fpy, str(script), str(index),
                           str(od / "floor"), BASE_URL], od / "floor", "xml")
    return Scenario(NAME, f"sitemap index + {SITEMAP_PARTS} parts ({n:,} URLs, 2 images and "
                    "3 hreflang alternates each) -> split XML sitemap + index", n, ours, [floor])


# ElementTree.iterparse over the index and each part; writes urlset parts of 50,000 URLs with
# their image:image and xhtml:link, then the index: the job with no checks at all.
FLOOR_SITEMAP_EXT = r'''
import os, sys
import xml.etree.ElementTree as ET
index, outdir, base = sys.argv[1:4]
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
IMG = "{http://www.google.com/schemas/sitemap-image/1.1}"
XH = "{http://www.w3.org/1999/xhtml}"
LOC, LASTMOD, URL, IMAGE, ILOC, LINK = (SM + "loc", SM + "lastmod", SM + "url", IMG + "image",
                                        IMG + "loc", XH + "link")
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/'
        'sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')

def esc(s):
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&apos;").replace('"', "&quot;"))

here = os.path.dirname(index)
parts = [os.path.join(here, el.text.strip().rsplit("/", 1)[-1])
         for _, el in ET.iterparse(index) if el.tag == LOC]
n = part = 0
out = None
for src in parts:
    for _, el in ET.iterparse(src):
        if el.tag != URL:
            continue
        s = ["<url><loc>", esc(el.findtext(LOC).strip()), "</loc>"]
        lastmod = el.findtext(LASTMOD)
        if lastmod:
            s += ["<lastmod>", lastmod.strip(), "</lastmod>"]
        for img in el.iter(IMAGE):
            s += ["<image:image><image:loc>", esc(img.findtext(ILOC).strip()),
                  "</image:loc></image:image>"]
        for link in el.iter(LINK):
            s.append('<xhtml:link rel="alternate" hreflang="%s" href="%s"/>'
                     % (esc(link.get("hreflang")), esc(link.get("href"))))
        s.append("</url>\n")
        el.clear()
        if n % 50000 == 0:
            if out:
                out.write("</urlset>\n")
                out.close()
            part += 1
            out = open(os.path.join(outdir, "sitemap-%d.xml" % part), "w", encoding="utf-8")
            out.write(HEAD)
        out.write("".join(s))
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
