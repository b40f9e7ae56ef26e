"""The sitemap peers (issue 33's yardsticks for reading sitemaps and writing lists), as rows
beside `sitemap-set` and `text-ascii`, each given the job of the floor beside it:

    sitemap-set  read the index and its 20 parts; write each URL and its lastmod, one a line:
                 ultimate-sitemap-parser (usp), advertools, sitemap.js
    text-ascii   write the 1M-line list as sitemaps of 50,000 URLs + an index: sitemap.js
                 (usp and advertools only read sitemaps: neither has a writer)

None reads a local sitemap index as it is, so each is given the files its own way, outside the
timed run where any preparing is needed:
- usp: `sitemap_tree_for_homepage` with a web client of the kind it takes (`web_client=`)
  that answers https://example.com/sitemaps/NAME (the parts' URLs) from the file NAME beside
  the index, and 404 to any other URL (its probes of the usual sitemap paths; robots.txt is
  not asked for);
- advertools: `sitemap_to_df` opens URLs with urllib, which opens file:// URLs (not a bare
  path): it is given a copy of the index whose locs are the parts' file:// URLs;
- sitemap.js: `parseSitemapIndex`, then `XMLToSitemapItemStream` over each part found by the
  last segment of its URL beside the index.
They are not dependencies: one that is not installed is a row marked so, with a note. The
Python peers run on the floors' interpreter (pip install ultimate-sitemap-parser advertools);
sitemap.js runs on the `node` on PATH, from the node_modules folder given by --node-modules
(npm install --no-save --prefix benchmarks sitemap).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from .running import Runner, Side
from .words import BASE_URL
from .yardsticks import installed

HERE = Path(__file__).resolve().parent.parent
NODE_MODULES = HERE / "node_modules"

# label → (the module to import, the distribution to pip install)
PY_PEERS = {"usp": ("usp", "ultimate-sitemap-parser"), "advertools": ("advertools", "advertools")}
JS = "sitemap.js"
SITEMAPS_URL = BASE_URL + "sitemaps/"  # where the data's index says its parts are

USP_READ = r'''
import os, sys
from usp.tree import sitemap_tree_for_homepage
from usp.web_client.abstract_client import (
    AbstractWebClient, AbstractWebClientSuccessResponse, WebClientErrorResponse)
index, DIR, dst = sys.argv[1:4]  # DIR: the URL of the index's folder, as its locs say
here, name = os.path.split(index)
HOME = DIR[:DIR.index("/", DIR.index("//") + 2) + 1]

class Found(AbstractWebClientSuccessResponse):
    def __init__(self, url, data):
        self._url, self._data = url, data
    def status_code(self): return 200
    def status_message(self): return "OK"
    def header(self, case_insensitive_name): return None
    def raw_data(self): return self._data
    def url(self): return self._url

class Files(AbstractWebClient):
    def set_max_response_data_length(self, max_response_data_length): pass
    def get(self, url):
        if not url.startswith(DIR):
            return WebClientErrorResponse("404 Not Found", retryable=False)
        with open(os.path.join(here, url[len(DIR):]), "rb") as f:
            return Found(url, f.read())

tree = sitemap_tree_for_homepage(HOME, web_client=Files(), use_robots=False,
                                 extra_known_paths={DIR[len(HOME):] + name})
with open(dst, "w", encoding="utf-8") as out:
    for page in tree.all_pages():
        lastmod = page.last_modified
        out.write("%s\t%s\n" % (page.url, lastmod.isoformat() if lastmod else None))
'''

ADVERTOOLS_READ = r'''
import sys
import advertools
index_url, dst = sys.argv[1:3]
df = advertools.sitemap_to_df(index_url)
df[["loc", "lastmod"]].to_csv(dst, sep="\t", header=False, index=False)
'''

SITEMAPJS_READ = r'''
const { createReadStream, createWriteStream } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const [nodeModules, index, dst] = process.argv.slice(2);
const { parseSitemapIndex, XMLToSitemapItemStream } =
  createRequire(path.join(path.resolve(nodeModules), 'x.js'))('sitemap');

async function* lines(items) {  // (written in 64 KB pieces, not a write per URL)
  let buf = '';
  for await (const it of items) {
    buf += it.url + '\t' + it.lastmod + '\n';
    if (buf.length > 65536) { yield buf; buf = ''; }
  }
  if (buf) yield buf;
}

(async () => {
  const parts = await parseSitemapIndex(createReadStream(index));
  const out = createWriteStream(dst);
  for (const p of parts) {
    const file = path.join(path.dirname(index), new URL(p.url).pathname.split('/').pop());
    await pipeline(createReadStream(file), new XMLToSitemapItemStream(), lines, out,
                   { end: false });
  }
  out.end();
  await new Promise((ok, ko) => out.on('finish', ok).on('error', ko));
})().catch((e) => { console.error(String(e)); process.exit(1); });
'''

SITEMAPJS_WRITE = r'''
const { createRequire } = require('node:module');
const path = require('node:path');
const [nodeModules, src, outdir, base] = process.argv.slice(2).map(
  (a, i) => (i < 3 ? path.resolve(a) : a));
const { simpleSitemapAndIndex } = createRequire(path.join(nodeModules, 'x.js'))('sitemap');
process.chdir(outdir);  // (its destinationDir must be relative, without '..')
simpleSitemapAndIndex({ hostname: base, destinationDir: '.', sourceData: src,
                        limit: 50000, gzip: false })
  .catch((e) => { console.error(String(e)); process.exit(1); });
'''


def _script(r: Runner, name: str, text: str) -> str:
    path = r.work / name
    if not path.exists():
        path.write_text(text)
    return str(path)


def _node(node_modules: Path) -> str | None:
    """The node command when node and the sitemap package are both there, else None."""
    node = shutil.which("node")
    return node if node and (node_modules / "sitemap" / "package.json").is_file() else None


def file_url_index(index: Path, work: Path) -> Path:
    """A copy of the index whose locs are the file:// URLs of the parts beside it (advertools'
    way to a local file); made once a run, not timed."""
    copy = work / f"file-urls-{index.name}"
    if not copy.exists() and index.is_file():
        here = index.resolve().parent
        copy.write_text(re.sub(r"<loc>\s*[^<]*/([^/<\s]+)\s*</loc>",
                               lambda m: f"<loc>{(here / m.group(1)).as_uri()}</loc>",
                               index.read_text(encoding="utf-8")), encoding="utf-8")
    return copy


def read_sides(name: str, index: Path, fpy: str, out: Path, r: Runner, node_modules: Path,
               ask: bool = True) -> list[Side]:
    """usp, advertools and sitemap.js reading the sitemap set into records, one a line;
    ``ask``: find out which are installed (not for --list)."""
    def side(label: str, argv: list[str], ok: bool) -> Side:
        od = out / name / label
        s = Side(label, [*argv, str(od / "records.txt")], od, "text")
        if not ok:
            s.status = "not installed"
        return s

    return [
        side("usp", [fpy, _script(r, "peer_usp.py", USP_READ), str(index), SITEMAPS_URL],
             not ask or installed(fpy, PY_PEERS["usp"][0])),
        side("advertools", [fpy, _script(r, "peer_advertools.py", ADVERTOOLS_READ),
                            file_url_index(index, r.work).as_uri()],
             not ask or installed(fpy, PY_PEERS["advertools"][0])),
        side(JS, [_node(node_modules) or "node", _script(r, "peer_sitemap_read.cjs",
                                                          SITEMAPJS_READ),
                  str(node_modules), str(index)], not ask or _node(node_modules) is not None),
    ]


def write_sides(name: str, src: Path, out: Path, r: Runner, node_modules: Path, base: str,
                ask: bool = True) -> list[Side]:
    """sitemap.js writing the list as sitemaps of 50,000 URLs + an index."""
    od = out / name / JS
    s = Side(JS, [_node(node_modules) or "node", _script(r, "peer_sitemap_write.cjs",
                                                          SITEMAPJS_WRITE),
                  str(node_modules), str(src), str(od), base], od, "xml")
    if ask and _node(node_modules) is None:
        s.status = "not installed"
    return [s]


def versions(labels: list[str], fpy: str, node_modules: Path) -> str:
    """The versions of the peers ``labels`` that are installed: "usp 1.8.1, sitemap.js 9.0.1"."""
    said = []
    for label in labels:
        if label in PY_PEERS:
            try:
                res = subprocess.run([fpy, "-c", "import importlib.metadata as m, sys; "
                                      "print(m.version(sys.argv[1]))", PY_PEERS[label][1]],
                                     capture_output=True, text=True, timeout=60)
                if res.returncode == 0:
                    said.append(f"{label} {res.stdout.strip()}")
            except (OSError, subprocess.SubprocessError):
                pass
        elif label == JS and _node(node_modules):
            pkg = json.loads((node_modules / "sitemap" / "package.json").read_text())
            said.append(f"{JS} {pkg.get('version', '?')}")
    return ", ".join(said)


def peers_note(sides: list[Side], fpy: str, node_modules: Path) -> str:
    """The scenario's note: the peers' versions, and how to install those that are missing."""
    absent = [s.label for s in sides if s.status == "not installed"]
    note = f"peers: {versions([s.label for s in sides], fpy, node_modules) or 'none installed'}"
    pip = [PY_PEERS[a][1] for a in absent if a in PY_PEERS]
    if pip:
        note += f"; not installed where the floors run: pip install {' '.join(pip)}"
    if JS in absent:
        note += (f"; {JS} not found (node on PATH and {node_modules}/sitemap: "
                 "npm install --no-save --prefix benchmarks sitemap, or --node-modules DIR)")
    if len(sides) == 1:
        note += " (usp and advertools only read sitemaps)"
    return note
