"""Issue 37's row: a built site directory as the input. 10,000 pages of about 30 KB (a Hugo-like
tree: posts/N/index.html with a header, nav, main content with images and links, a footer;
half dated by article:modified_time, a quarter by JSON-LD), a 404 page and assets. The floor
walks the tree, reads every file and writes each HTML file's URL: the I/O, without parsing."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from .running import Runner, Scenario, Side
from .words import BASE_URL, SEED, sentence

FLOOR_SITE = r'''
import os, sys
root, out = sys.argv[1], sys.argv[2]
with open(out, "w") as f:
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            with open(os.path.join(top, name), "rb") as page:
                page.read()
            if name.endswith(".html") and name != "404.html":
                rel = os.path.relpath(os.path.join(top, name), root)
                f.write(sys.argv[3] + rel.removesuffix("index.html") + "\n")
'''


def _page(rng: random.Random, i: int) -> str:
    nav = "".join(f'<li><a href="/section/{k}/">Section {k}</a></li>' for k in range(40))
    body, size = [], 0
    while size < 26_000:  # paragraphs of a few sentences, some with a link, a stress, an image
        p = " ".join(sentence(rng, rng.randrange(8, 20)) + "." for _ in range(rng.randrange(2, 6)))
        if rng.random() < 0.5:
            p += f' <a href="/posts/{rng.randrange(10_000)}/">more</a> <em>{sentence(rng, 4)}</em>'
        if rng.random() < 0.1:
            p = f'<img src="/img/{rng.randrange(999)}.jpg" alt="">' + p
        body.append(f"<p>{p}</p>\n")
        size += len(p)
    date = ""
    if i % 2 == 0:
        date = f'<meta property="article:modified_time" content="2024-0{i % 9 + 1}-1{i % 10}">'
    elif i % 4 == 1:
        date = ('<script type="application/ld+json">{"@context":"https://schema.org",'
                f'"@type":"BlogPosting","dateModified":"2023-1{i % 3}-0{i % 9 + 1}"}}</script>')
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>Post {i}</title>{date}\n"
            f'<link rel="stylesheet" href="/css/main.css"></head>\n<body><header><a href="/">'
            f"Site</a><nav><ul>{nav}</ul></nav></header>\n<main><article><h1>Post {i}</h1>\n"
            f"{''.join(body)}</article></main>\n<footer><p>Built today</p>"
            "<script>var built = 1 < 2;</script></footer></body></html>\n")


def gen_site(directory: Path, n: int) -> None:
    rng = random.Random(f"{SEED}-site")
    for i in range(n):
        page = directory / "posts" / str(i) / "index.html"
        page.parent.mkdir(parents=True)
        page.write_text(_page(rng, i))
    (directory / "404.html").write_text("<html><body><p>Not found</p></body></html>\n")
    (directory / "css").mkdir()
    (directory / "css" / "main.css").write_text("body { margin: 0 }\n")


def size(quick: bool) -> int:
    return 1_000 if quick else 10_000


def ensure_site_data(data_dir: Path, r: Runner, quick: bool, log: Callable[[str], None]) -> None:
    """The row's data (made once; only when the row runs: 300 MB) and its floor's script."""
    n = size(quick)
    src = data_dir / f"site-{n}"
    (r.work / "floor_site.py").write_text(FLOOR_SITE)
    if not src.exists():
        tmp = data_dir / f"site-{n}.tmp"
        if tmp.exists():
            import shutil

            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        gen_site(tmp, n)
        tmp.rename(src)
        log(f"  made {src.name} ({n:,} pages)")


def site_rows(cmd: list[str], fpy: str, data_dir: Path, out: Path, r: Runner,
              quick: bool) -> list[Scenario]:
    n = size(quick)
    src = data_dir / f"site-{n}"
    od = out / "site-dir"
    floor = r.work / "floor_site.py"
    return [Scenario(
        "site-dir", f"a built site of {n:,} pages of ~30 KB -> sitemap.xml (--images)", n,
        Side("ours", [*cmd, str(src), "--base-url", BASE_URL, "--images", "-o",
                      str(od / "ours" / "sitemap.xml"), "-q"], od / "ours", "xml"),
        [Side("floor", [fpy, str(floor), str(src), str(od / "floor" / "urls.txt"), BASE_URL],
              od / "floor", "text")])]
