"""Hostile input, round 3 (issue 35): robots.txt editing (--robots) and the URLs that part names
become. Each case through the installed command, and through the library where it applies;
each failed before its fix.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

from feed2sitemap import Limits, Publish, convert
from feed2sitemap.naming import url_segment

from .conftest import run

SITE = "https://example.com/"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _urls(n: int, start: int = 0) -> bytes:
    return "".join(f"{SITE}p{i}\n" for i in range(start, start + n)).encode()


# --- 12. file names in URLs -----------------------------------------------------------------

def test_url_segment_encodes_what_a_path_segment_may_not_hold() -> None:
    assert url_segment("sitemap-1.xml.gz") == "sitemap-1.xml.gz"
    assert url_segment("my sitemap#1-2.xml") == "my%20sitemap%231-2.xml"
    assert url_segment("a?b%c\nd\r\te.xml") == "a%3Fb%25c%0Ad%0D%09e.xml"
    assert url_segment("carte-été.xml") == "carte-%C3%A9t%C3%A9.xml"
    assert url_segment(os.fsdecode(b"bad\xff.xml")) == "bad%FF.xml"
    assert url_segment("a/b\\c") == "a%2Fb%5Cc"
    assert url_segment("!$&'()*+,;=:@~.xml") == "!$&'()*+,;=:@~.xml"


def _locs(path: Path) -> list[str]:
    return re.findall(r"<loc>(.*?)</loc>", path.read_text(), flags=re.S)


def _all_urls(directory: Path) -> set[str]:
    return {loc for p in directory.iterdir() if p.suffix == ".xml"
            and "<urlset" in p.read_text() for loc in _locs(p)}


def test_a_set_named_with_a_space_and_a_hash_grows_in_place_across_the_split(
        tmp_path: Path) -> None:
    out = tmp_path / "site" / "my sitemap#1.xml"
    out.parent.mkdir()
    robots = tmp_path / "site" / "robots.txt"
    for step in range(3):  # one file, then an index and two parts, then the parts grown
        src = tmp_path / f"new{step}.txt"
        src.write_bytes(_urls(2, 2 * step))
        inputs = [str(out)] if out.exists() else []
        done = run(*inputs, str(src), "-o", str(out), "--base-url", SITE, "--max-urls", "3",
                   "--robots", str(robots))
        assert done.returncode == 0, done.stderr
    locs = _locs(out)
    assert locs == [f"{SITE}my%20sitemap%231-1.xml", f"{SITE}my%20sitemap%231-2.xml"]
    assert robots.read_text() == f"Sitemap: {SITE}my%20sitemap%231.xml\n"
    # every URL of every run is still there: the earlier parts were found by their <loc>
    assert _all_urls(out.parent) == {f"{SITE}p{i}" for i in range(6)}
    assert sorted(p.name for p in out.parent.iterdir()) == [
        "my sitemap#1-1.xml", "my sitemap#1-2.xml", "my sitemap#1.xml", "robots.txt"]
    done = run("check", str(out), "--base-url", SITE, "--robots", str(robots))
    assert done.returncode == 0, done.stdout
    assert b"robots-unlisted" not in done.stdout and b"missing" not in done.stdout


def test_a_name_holding_a_newline_injects_no_line(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_bytes(_urls(4))
    name = "s\nDisallow: *.xml"
    robots = tmp_path / "robots.txt"
    robots.write_bytes(b"User-agent: *\nAllow: /\n")
    done = run("urls.txt", "-o", name, "--base-url", SITE, "--max-urls", "2", "--robots",
               "robots.txt", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert robots.read_text() == ("User-agent: *\nAllow: /\n"
                                  f"Sitemap: {SITE}s%0ADisallow:%20*.xml\n")
    assert _locs(tmp_path / name) == [f"{SITE}s%0ADisallow:%20*-1.xml",
                                      f"{SITE}s%0ADisallow:%20*-2.xml"]


def test_the_library_lists_parts_by_encoded_urls_that_lead_back_to_them(
        tmp_path: Path) -> None:
    out = tmp_path / "carte été?.xml"
    robots = tmp_path / "robots.txt"
    convert([io.BytesIO(_urls(5))], str(out), base_url=SITE,
            limits=Limits(max_urls=2), publish=Publish(robots=str(robots)))
    assert _locs(out) == [f"{SITE}carte%20%C3%A9t%C3%A9%3F-{k}.xml" for k in (1, 2, 3)]
    assert robots.read_text() == f"Sitemap: {SITE}carte%20%C3%A9t%C3%A9%3F.xml\n"
    # in place: the old parts are read through the index and the set grows
    convert([str(out), io.BytesIO(_urls(2, 5))], str(out), base_url=SITE,
            limits=Limits(max_urls=2), publish=Publish(robots=str(robots)))
    assert _all_urls(tmp_path) == {f"{SITE}p{i}" for i in range(7)}
    assert len(_locs(out)) == 4
