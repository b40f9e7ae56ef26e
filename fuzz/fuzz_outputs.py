#!/usr/bin/env python3
"""A campaign over the converter with an oracle on every output (pure Python, no atheris).

    python fuzz/fuzz_outputs.py --seconds 600 --findings /tmp/findings
    python fuzz/fuzz_outputs.py --workers 2 --seconds 300 --findings /tmp/findings  # 10 CPU-min

Each case is an input made one of three ways: a JSON Lines file built field by field (every
extension member given values of every JSON type, foreign elements with hostile names, the npm
sitemap package's shapes), one of those or a bundled sample mutated byte by byte, or a
structured sitemap/feed with hostile values. It is converted in-process to a sitemap (now and
then with tiny limits, so that it splits into parts and an index, or gzip), and:

1. only the library's own errors (Feed2SitemapError) may escape ``convert``;
2. every file written must pass our own ``check`` (no error; warnings are fine);
3. every file written must be valid against the official sitemaps.org XSD
   (../shared/conformance/schemas, its ##other wildcards made lax, since Google's extension
   schemas are not there: our ``check`` holds the extension rules), when xmlschema and the
   schemas are present;
4. the same input written with ``-t jsonl`` must read back to the same sitemap (README: the
   JSON Lines output is lossless);
5. one case in ``--command-every`` runs the installed command instead: exit 0, 1 or 2 and never
   a traceback.

A case that breaks a rule is saved in --findings as NAME.input and NAME.txt (the rule and
what happened); the campaign goes on. The exit code is 1 when anything was found.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import multiprocessing
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from feed2sitemap import Feed2SitemapError, Limits, WriteOptions, convert, read
from feed2sitemap.check import check

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted(p for p in (ROOT / "samples").glob("*.*") if p.is_file())
SCHEMAS = ROOT.parent / "shared" / "conformance" / "schemas"
BASE = "https://example.com/"

# --- values of every JSON type, hostile strings first among them --------------------------------

HOSTILE = ["", " ", "x", "<", "&", "]]>", '"', "'", "\x00", "\x0b", "\ud800x", "\u2028", "é",
           "ß", "\u200d", "x" * 3000, "a:b", "x/></url><url><loc>https://evil.example.org/i",
           "https://example.com/a[]=1", "https://example.com/a b", "https://example.com/\n",
           "javascript:alert(1)", "//example.com/x", "https://faß.de/", "https://[::1]/",
           "https://example.com:99999/", "2024-13-45", "2024-03-01T10:00", "9" * 5000,
           "-1", "1e400", "NaN", "true", "yes", "no", "allow", "deny", "IE US", "web tv"]


def any_value(r: random.Random, depth: int = 0) -> Any:
    kind = r.randrange(9 if depth < 2 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return r.choice([True, False])
    if kind == 2:
        return r.choice([0, 1, -1, 5, 10**30, 2**63, 100000])
    if kind == 3:
        return r.choice([0.0, 0.5, 1.0, -0.1, 1.5, 1e308, float("nan")])
    if kind in (4, 5):
        return r.choice(HOSTILE)
    if kind == 6:
        return [any_value(r, depth + 1) for _ in range(r.randrange(4))]
    if kind == 7:
        return {r.choice(FIELDS): any_value(r, depth + 1) for _ in range(r.randrange(4))}
    return foreign(r, depth + 1)


FIELDS = ["loc", "caption", "title", "geo_location", "license", "thumbnail_loc", "description",
          "content_loc", "player_loc", "duration", "expiration_date", "rating", "view_count",
          "publication_date", "family_friendly", "restriction", "platform", "tags",
          "requires_subscription", "uploader", "live", "extra", "name", "language", "hreflang",
          "href", "type", "relationship", "countries", "platforms", "url", "lang",
          "publication", "img", "genres", "keywords", "stock_tickers"]
NAMES = ["ok", "a-b", "_x", "é", "x.y", "", "a:b", "1a", "x/><y", "a b", "xmlns", "url", "\u0300",
         "x" * 300]
NAMESPACES = ["urn:x", "", "http://www.sitemaps.org/schemas/sitemap/0.9",
              "http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/",
              "http://www.google.com/schemas/sitemap-image/1.1", 'urn:"<&', "urn:y"]


def foreign(r: random.Random, depth: int = 0) -> Any:
    if r.random() < 0.1:
        return any_value(r, 3)
    obj: dict[str, Any] = {"namespace": r.choice(NAMESPACES), "name": r.choice(NAMES)}
    if r.random() < 0.5:
        obj["attributes"] = [[r.choice(["a", "urn:x b", "xmlns", "a b", "c"]),
                              r.choice(HOSTILE[:12])] for _ in range(r.randrange(3))]
    if r.random() < 0.5 and depth < 3:
        obj["children"] = [r.choice(HOSTILE[:12]) if r.random() < 0.5 else foreign(r, depth + 1)
                           for _ in range(r.randrange(3))]
    return obj


def good_item(r: random.Random, kind: str) -> dict[str, Any]:
    n = r.randrange(1000)
    return {
        "images": {"loc": f"https://example.com/i{n}.jpg", "caption": "c"},
        "videos": {"thumbnail_loc": f"https://example.com/t{n}.jpg", "title": "t",
                   "description": "d", "content_loc": f"https://example.com/v{n}.mp4",
                   "duration": 60, "family_friendly": True, "tags": ["a", "b"],
                   "restriction": {"relationship": "allow", "countries": ["IE"]}},
        "news": {"name": "N", "language": "en", "publication_date": "2024-03-01",
                 "title": "T"},
        "alternates": {"hreflang": "de", "href": f"https://example.com/de/{n}"},
        "mobile": {"type": "mobile"},
        "img": {"url": f"https://example.com/i{n}.jpg"},
        "links": {"lang": "fr", "url": f"https://example.com/fr/{n}"},
        "video": {"thumbnail_loc": "https://example.com/t.jpg", "title": "t",
                  "description": "d", "tag": ["x"]},
    }[kind]


def json_line(r: random.Random, n: int) -> dict[str, Any]:
    obj: dict[str, Any] = {"loc": f"https://example.com/p{n}"}
    if r.random() < 0.2:
        obj["loc"] = r.choice(HOSTILE) if r.random() < 0.5 else any_value(r)
    for key, values in (("lastmod", ["2024-03-01", "2024-03-01T10:00:00Z", "2024", "1999-1-1"]),
                        ("changefreq", ["daily", "Daily", "sometimes"]),
                        ("priority", [0.5, "0.5", 2, "x"])):
        if r.random() < 0.4:
            obj[key] = r.choice(values) if r.random() < 0.7 else any_value(r)
    for kind in ("images", "videos", "news", "alternates", "mobile", "img", "links", "video"):
        if r.random() < 0.25:
            items = [good_item(r, kind) for _ in range(r.randrange(1, 3))]
            for item in items:  # then spoil some members with values of any type
                for _ in range(r.randrange(3)):
                    item[r.choice(list(item) + FIELDS)] = any_value(r)
            obj[kind] = items if r.random() < 0.8 else r.choice([items[0], any_value(r)])
    if r.random() < 0.3:
        obj["foreign"] = [foreign(r) for _ in range(r.randrange(1, 3))]
    return obj


def jsonl_input(r: random.Random) -> bytes:
    lines = [json.dumps(json_line(r, n), ensure_ascii=r.random() < 0.5) for n in range(
        r.randrange(1, 12))]
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def sitemap_input(r: random.Random) -> bytes:
    entries = []
    for n in range(r.randrange(1, 8)):
        loc = f"https://example.com/s{n}" if r.random() < 0.7 else str(r.choice(HOSTILE))
        loc = loc.replace("&", "&amp;").replace("<", "&lt;")
        extra = ""
        if r.random() < 0.4:
            extra += (f"<image:image><image:loc>https://example.com/i{n}.jpg</image:loc>"
                      f"<image:title>{r.choice(['t', '&amp;', 'x' * 500])}</image:title>"
                      "</image:image>")
        if r.random() < 0.3:
            extra += "<x:thing xmlns:x='urn:x' a='1'>t<x:in/></x:thing>"
        entries.append(f"<url><loc>{loc}</loc>{extra}</url>")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
            'schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/'
            '1.1">\n' + "\n".join(entries) + "\n</urlset>\n").encode("utf-8", "surrogatepass")


def mutate(r: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(r.randrange(1, 6)):
        if not out:
            break
        i = r.randrange(len(out))
        op = r.randrange(5)
        if op == 0:
            out[i] = r.randrange(256)
        elif op == 1:
            out[i:i] = r.choice([b"<", b"&", b"\\", b'"', b"\\u0000", b"\\ud800", b"[", b"]",
                                 b"\x00", b"\xff", b"\n", b'":', b"{}", b"[[[[", b"]]>"])
        elif op == 2:
            del out[i:i + r.randrange(1, 16)]
        elif op == 3:
            del out[i:]
        else:
            j = r.randrange(len(out))
            out[i:i] = out[min(i, j):max(i, j)][:256]
    return bytes(out)


def make_case(r: random.Random) -> bytes:
    way = r.randrange(10)
    if way < 5:
        return jsonl_input(r)
    if way < 7:
        return sitemap_input(r)
    seed = jsonl_input(r) if way == 7 else r.choice(SAMPLES).read_bytes()
    return mutate(r, seed)


# --- the oracle ----------------------------------------------------------------------------------

class Finding(Exception):
    pass


def schemas() -> dict[str, Any]:
    try:
        import xmlschema
    except ImportError:
        return {}
    found = {}
    for root, name in (("urlset", "sitemap.xsd"), ("sitemapindex", "siteindex.xsd")):
        path = SCHEMAS / name
        if path.exists():
            text = path.read_text().replace('processContents="strict"', 'processContents="lax"')
            found[root] = xmlschema.XMLSchema(text)
    return found


def convert_case(data: bytes, directory: str, options: dict[str, Any]) -> list[str]:
    """Convert ``data``; the files written (empty when the run was refused)."""
    out = os.path.join(directory, options.pop("name"))
    try:
        summary = convert([io.BytesIO(data)], out, base_url=BASE, **options)
    except Feed2SitemapError:
        return []
    except Exception:
        raise Finding("convert raised\n" + traceback.format_exc()) from None
    return [f.path for f in summary.files if f.path]


def run_case(data: bytes, r: random.Random, xsd: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        options = case_options(r)
        gz = options["name"].endswith(".gz")
        for path in convert_case(data, directory, dict(options)):
            oracle(path, xsd, gz)
        if not gz and "limits" not in options:
            round_trip(data, directory, options.get("dedupe_mode", "auto"))


def case_options(r: random.Random) -> dict[str, Any]:
    options: dict[str, Any] = {"name": r.choice(["sitemap.xml", "sitemap.xml", "s.xml.gz"])}
    if r.random() < 0.2:
        options["limits"] = Limits(max_urls=r.choice([1, 2, 3]))
    if r.random() < 0.2:
        options["dedupe_mode"] = r.choice(["merge", "first", "none"])
    return options


def oracle(path: str, xsd: dict[str, Any], gz: bool) -> None:
    problems = [d for d in check(path) if d.severity == "error"]
    if problems:
        raise Finding("our check rejects what we wrote:\n" + "\n".join(map(str, problems[:5])))
    if not xsd:
        return
    import gzip
    import xml.etree.ElementTree as ET

    raw = gzip.open(path).read() if gz else Path(path).read_bytes()
    root = ET.fromstring(raw).tag.rpartition("}")[2]
    schema = xsd.get(root)
    if schema is not None:
        errors = list(schema.iter_errors(io.BytesIO(raw)))
        if errors:
            raise Finding(f"the XSD rejects what we wrote ({os.path.basename(path)}):\n"
                          + str(errors[0])[:2000])


def round_trip(data: bytes, directory: str, dedupe_mode: str) -> None:
    """The JSON Lines output reads back to the same sitemap (with the same dedupe mode)."""
    first = os.path.join(directory, "sitemap.xml")
    if not os.path.exists(first):
        return
    lines = os.path.join(directory, "all.jsonl")
    again = os.path.join(directory, "again.xml")
    try:
        convert([io.BytesIO(data)], lines, base_url=BASE, writing=WriteOptions(to="jsonl"),
                dedupe_mode=dedupe_mode)
        convert([lines], again, base_url=BASE, dedupe_mode=dedupe_mode)
    except Feed2SitemapError as exc:
        raise Finding(f"the JSON Lines output does not read back: {exc}") from None
    except Exception:
        raise Finding("the JSON Lines round trip raised\n" + traceback.format_exc()) from None
    if Path(first).read_bytes() != Path(again).read_bytes() and _fields(first) != _fields(again):
        raise Finding("the JSON Lines output reads back to another sitemap")


def _fields(path: str) -> list[tuple[Any, ...]]:
    """What a sitemap says, whatever its bytes (namespaces declared on <urlset> or on each
    element are the same document: the declarations follow the first batch's kinds)."""
    return [(r.loc, r.lastmod, r.changefreq, r.priority, r.extensions) for r in read(path)]


def command_case(data: bytes, exe: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        src = os.path.join(directory, "in")
        Path(src).write_bytes(data)
        out = os.path.join(directory, "sitemap.xml")
        for args in ([src, "-o", out, "--base-url", BASE], ["check", src]):
            done = subprocess.run([exe, *args], capture_output=True, timeout=60,
                                  stdin=subprocess.DEVNULL)
            if done.returncode not in (0, 1, 2) or b"Traceback" in done.stderr:
                raise Finding(f"the command {args[0]} exited {done.returncode}:\n"
                              + done.stderr.decode(errors="replace")[-3000:])


# --- the campaign --------------------------------------------------------------------------------

def campaign(seed: int, seconds: float, findings: str, command_every: int) -> tuple[int, int]:
    r = random.Random(seed)
    xsd = schemas()
    exe = shutil.which("feed2sitemap") or ""
    deadline = time.process_time() + seconds
    cases = found = 0
    while time.process_time() < deadline:
        data = make_case(r)
        cases += 1
        job: Callable[[], None]
        if exe and command_every and cases % command_every == 0:
            job = partial(command_case, data, exe)
        else:
            job = partial(run_case, data, random.Random(r.random()), xsd)
        started = time.monotonic()
        try:
            job()
            if time.monotonic() - started > 10:
                raise Finding("slow: over 10 s")
        except Finding as exc:
            found += 1
            save(findings, data, str(exc))
        except Exception:  # noqa: BLE001 - check or the oracle itself broke: a finding too
            found += 1
            save(findings, data, "the oracle raised\n" + traceback.format_exc())
    return cases, found


def save(findings: str, data: bytes, problem: str) -> None:
    os.makedirs(findings, exist_ok=True)
    name = os.path.join(findings, hashlib.sha1(data).hexdigest()[:16])
    Path(name + ".input").write_bytes(data)
    Path(name + ".txt").write_text(problem)
    print(f"finding: {name}.txt: {problem.splitlines()[0][:200]}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60, help="CPU seconds per worker")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--findings", default="fuzz-findings")
    parser.add_argument("--command-every", type=int, default=50,
                        help="one case in N runs the installed command (0: never)")
    args = parser.parse_args()
    jobs = [(args.seed + i, args.seconds, args.findings, args.command_every)
            for i in range(args.workers)]
    with multiprocessing.Pool(args.workers) as pool:
        results = pool.starmap(campaign, jobs)
    cases, found = (sum(x) for x in zip(*results, strict=True))
    cpu = args.seconds * args.workers
    print(f"{cases:,} cases in {cpu:.0f} CPU-seconds (seed {args.seed}, "
          f"{len(schemas())} XSDs): {found} findings"
          + (f" in {args.findings}" if found else ""))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
