"""Time and peak memory of the fast feed path against feedparser on generated 50k-entry feeds.

Run: python benchmarks/bench_feedstream.py [N] [--skip-feedparser]
Each measurement runs in a fresh subprocess. Peak memory is VmHWM from /proc (Linux): unlike
ru_maxrss it is not inherited from the parent across fork and exec.
"""

from __future__ import annotations

import datetime as dt
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def rss(n: int) -> bytes:
    t0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    items = []
    for i in range(n):
        when = (t0 + dt.timedelta(minutes=i)).strftime("%a, %d %b %Y %H:%M:%S +0000")
        items.append(
            f"<item><title>Item {i} &amp; more</title><link>https://example.com/posts/{i}?a=1&amp;b=2</link>"
            f'<guid isPermaLink="false">urn:uuid:{i:08d}</guid><pubDate>{when}</pubDate>'
            f'<description><![CDATA[<p>Body of item {i} with <a href="/x/{i}">a link</a> and '
            f"some text to make it longer, lorem ipsum dolor sit amet, consectetur adipiscing "
            f"elit.</p>]]></description>"
            f"<category>cat{i % 10}</category><dc:creator>Author {i % 7}</dc:creator></item>\n"
        )
    head = (
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/">'
        "<channel><title>Big</title><link>https://example.com/</link><description>d</description>\n"
    )
    return (head + "".join(items) + "</channel></rss>\n").encode()


def atom(n: int) -> bytes:
    t0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
    entries = []
    for i in range(n):
        when = (t0 + dt.timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        entries.append(
            f"<entry><title>Entry {i}</title><id>tag:example.com,2024:{i}</id>"
            f'<link rel="alternate" type="text/html" href="posts/{i}"/>'
            f'<link rel="replies" type="application/atom+xml" href="posts/{i}/comments.xml"/>'
            f"<updated>{when}</updated><published>{when}</published>"
            f"<author><name>Author {i % 7}</name></author>"
            f'<summary type="html">Summary of entry {i} &lt;b&gt;bold&lt;/b&gt; lorem ipsum '
            f"dolor sit amet.</summary>"
            f"</entry>\n"
        )
    head = (
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        'xml:base="https://example.com/blog/"><title>Big</title><id>urn:x</id><updated>2024-01-01T00:00:00Z</updated>\n'
    )
    return (head + "".join(entries) + "</feed>\n").encode()


def hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child(kind: str, path: str) -> None:
    sys.path.insert(0, str(HERE.parent))
    from feed2sitemap.readers.feed.fastpass import parse_feed_entries
    from feed2sitemap.readers.feed.policy import feedparser_entries

    data = Path(path).read_bytes()
    base = "https://example.com/feed.xml"
    before = hwm_mb()
    start = time.process_time()  # CPU time: the wall clock also counts other processes' load
    entries = (
        parse_feed_entries(data, base) if kind == "fast" else feedparser_entries(data, base)[0]
    )
    elapsed = time.process_time() - start
    peak = hwm_mb()
    print(
        f"{elapsed:.3f} {peak:.0f} {peak - before:.0f} {len(entries)} "
        f"{entries[-1].link} {entries[-1].lastmod}"
    )


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        return
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 50_000
    DATA.mkdir(exist_ok=True)
    for name, make in (("rss", rss), ("atom", atom)):
        path = DATA / f"{name}_{n}.xml"
        path.write_bytes(make(n))
        print(f"{name}: {n} entries, {path.stat().st_size / 1e6:.1f} MB")
        kinds = ["fast"] if "--skip-feedparser" in sys.argv else ["fast", "feedparser"]
        for kind in kinds:
            out = subprocess.run(
                [sys.executable, __file__, "--child", kind, str(path)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split(" ", 4)
            print(
                f"  {kind:10s} {float(out[0]):7.2f} s CPU  peak RSS {out[1]:>4s} MB, "
                f"{out[2]:>4s} MB above"
                f" interpreter+document  ({out[3]} entries, last: {out[4].strip()})"
            )


if __name__ == "__main__":
    main()
