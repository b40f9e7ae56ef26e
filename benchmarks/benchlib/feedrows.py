"""Issue 18's feed rows beside the 50k ones: RSS and Atom of 10,000 entries (with the same
floors and yardsticks), a 20-item feed against `python -c 'import feedparser'` (the small job),
and a 49 MB Atom feed (50,000 entries with summaries and content) read in bounded memory.
Each makes its own data under the data folder (fixed seeds, made once)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from .datasets import gen_atom, gen_rss
from .running import Runner, Scenario, Side
from .words import SEED, Chunked, blurb, make_path, sentence, when
from .yardsticks import missing_note, yardstick_sides

SMALL_ITEMS = 20


def gen_atom_big(path: Path, n: int) -> None:
    """Atom with a summary and an HTML content of about 900 bytes per entry: ~49 MB at 50k."""
    rng = random.Random(f"{SEED}-atom-big")
    with open(path, "w", encoding="utf-8") as f:
        w = Chunked(f)
        w.add('<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
              "\n<title>Example Blog</title>\n<id>tag:example.com,2015:blog</id>\n"
              "<updated>2024-01-01T00:00:00Z</updated>\n"
              '<link rel="alternate" href="https://example.com/"/>\n')
        for i in range(1, n + 1):
            link = make_path(rng, i, True)
            body = "".join(f"<p>{blurb(rng)}</p>" for _ in range(7))
            w.add(f"<entry>\n<title>{xml_escape(sentence(rng, rng.randrange(3, 9)))}</title>\n"
                  f'<link rel="alternate" type="text/html" href="{xml_escape(link)}"/>\n'
                  f"<id>tag:example.com,2015:post-{i}</id>\n"
                  f"<updated>{when(rng).strftime('%Y-%m-%dT%H:%M:%SZ')}</updated>\n"
                  f'<summary type="html">{xml_escape(blurb(rng))}</summary>\n'
                  f'<content type="html">{xml_escape(body)}</content>\n</entry>\n')
        w.add("</feed>\n")
        w.flush()


def gen_small(path: Path, n: int) -> None:
    gen_rss(path, n)


def _ensure(path: Path, n: int, make: Callable[[Path, int], None],
            log: Callable[[str], None]) -> Path:
    if not path.exists():
        tmp = path.with_name(path.name + ".tmp")
        make(tmp, n)
        tmp.replace(path)
        log(f"  made {path.name} ({path.stat().st_size / 1e6:.1f} MB)")
    return path


def feed_rows(cmd: list[str], fpy: str, data_dir: Path, out: Path, r: Runner, quick: bool,
              log: Callable[[str], None], yardstick: bool = True,
              make: bool = True) -> list[Scenario]:
    """The scenarios; ``make``: make the data (not for --list)."""
    n10, nbig = (1_000, 5_000) if quick else (10_000, 50_000)
    data_dir.mkdir(parents=True, exist_ok=True)
    ensure = _ensure if make else (lambda p, n, m, lg: p)

    def ours(name: str, args: list[str], output: str, sub: str) -> Side:
        od = out / name / "ours"
        return Side("ours", [*cmd, *args, "-o", str(od / sub), "-q"], od, output)

    def floor(name: str, label: str, script: str, src: Path) -> Side:
        od = out / name / label
        return Side(label, [fpy, r.script(script), str(src), str(od / "records.txt")], od, "text")

    rows = []
    for kind, gen in (("rss", gen_rss), ("atom", gen_atom)):
        name = f"{kind}-10k"
        src = ensure(data_dir / f"{kind}-{n10}.xml", n10, gen, log)
        sticks = yardstick_sides(name, src, fpy, out, r) if yardstick else []
        rows.append(Scenario(
            name, f"{kind.upper()} feed of {n10:,} items -> URL records (-t text)", n10,
            ours(name, [str(src), "-f", "feed", "-t", "text"], "text", "urls.txt"),
            [floor(name, "floor", "floor_expat.py", src),
             floor(name, "feedparser", "floor_feedparser.py", src), *sticks],
            note=missing_note(sticks)))
    src = ensure(data_dir / f"rss-{SMALL_ITEMS}.xml", SMALL_ITEMS, gen_small, log)
    rows.append(Scenario(
        "small-feed", f"a {SMALL_ITEMS}-item feed -> sitemap.xml (whole process) against "
        "`python -c 'import feedparser'`", SMALL_ITEMS,
        ours("small-feed", [str(src)], "xml", "sitemap.xml"),
        [Side("import feedparser", [fpy, "-c", "import feedparser"],
              out / "small-feed" / "import", "none")]))  # (it writes nothing, by design)
    src = ensure(data_dir / f"atom-big-{nbig}.xml", nbig, gen_atom_big, log)
    rows.append(Scenario(
        "big-atom", f"Atom feed of {nbig:,} entries with summaries and content (~1 KB each) "
        "-> URL records: peak memory", nbig,
        ours("big-atom", [str(src), "-f", "feed", "-t", "text"], "text", "urls.txt"),
        [floor("big-atom", "floor", "floor_expat.py", src)]))
    return rows
