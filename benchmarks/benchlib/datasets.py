"""The benchmark's input files, made once per size and reused (data/manifest.json)."""

from __future__ import annotations

import email.utils
import json
import os
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta, timezone
from pathlib import Path
from urllib.parse import quote

from .words import (
    BASE_URL,
    CHANGEFREQ,
    EPOCH,
    GEN_VERSION,
    SEED,
    SITEMAP_PARTS,
    SPAN,
    URL_SAFE,
    Chunked,
    blurb,
    make_path,
    sentence,
    when,
    xml_escape,
)


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


def ensure_data(data_dir: Path, sizes: dict[str, int], log: Callable[[str], None]) -> Data:
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
    jobs: list[tuple[Path, int, Callable[[Path], None]]] = [
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



def size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size

