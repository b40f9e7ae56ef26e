"""check as a CI gate (issue 14), through the installed command: dangling parts, parts found by
their path, missing files, --fail-on, -q, progress, the summary's words, feeds and UTF-16."""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from feed2sitemap import Limits, convert
from feed2sitemap.model.limits import PROFILES

from .conftest import run
from .test_cli import _run_on_a_terminal

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _urlset(*urls: str) -> bytes:
    body = "".join(f"<url><loc>{u}</loc></url>\n" for u in urls)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{body}</urlset>\n'.encode()


def _index(*locs: str) -> bytes:
    body = "".join(f"<sitemap><loc>{u}</loc></sitemap>\n" for u in locs)
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {NS}>\n{body}'
            "</sitemapindex>\n").encode()


def _diags(stdout: bytes) -> list[tuple[str, str, str, int]]:
    """(file name, severity, rule, line) of each JSON diagnostic."""
    return [(Path(d["file"]).name, d["severity"], d["rule"], d["line"])
            for d in json.loads(stdout)]


def test_dangling_part_is_an_error_and_parts_are_found_by_path(tmp_path: Path) -> None:
    (tmp_path / "sitemaps").mkdir()
    # posts.xml lies in sitemaps/, as its URL says; looked for by name only, it is not found
    (tmp_path / "sitemaps" / "posts.xml").write_bytes(_urlset("https://site.example/a b"))
    (tmp_path / "sitemap.xml").write_bytes(_index("https://site.example/sitemaps/posts.xml",
                                                  "https://site.example/sitemaps/gone.xml"))
    result = run("check", "--follow", "--format", "json", "--base-url",
                 "https://site.example/", str(tmp_path / "sitemap.xml"))
    assert result.returncode == 1
    assert _diags(result.stdout) == [
        ("sitemap.xml", "error", "follow-missing", 4),
        ("posts.xml", "error", "loc-chars", 3)]
    message = json.loads(result.stdout)[0]["message"]
    assert message.startswith("part https://site.example/sitemaps/gone.xml is missing: no file ")


def test_parts_are_found_by_name_beside_the_index_without_base_url(tmp_path: Path) -> None:
    (tmp_path / "posts.xml").write_bytes(_urlset("https://site.example/sitemaps/a"))
    (tmp_path / "sitemap.xml").write_bytes(_index("https://site.example/sitemaps/posts.xml"))
    result = run("check", "--follow", str(tmp_path / "sitemap.xml"))
    assert (result.returncode, result.stdout) == (0, b"")
    assert result.stderr == (b"feed2sitemap check: 2 files checked, 1 URL, 1 sitemap listed "
                             b"in indexes, 0 errors, 0 warnings\n")


def test_missing_file_is_bad_data_in_the_format_asked(tmp_path: Path) -> None:
    missing = tmp_path / "nope.xml"
    result = run("check", "--format", "json", str(missing))
    assert result.returncode == 1
    assert json.loads(result.stdout) == [{
        "file": str(missing), "line": 1, "column": 1, "severity": "error",
        "rule": "unreadable", "message": "cannot read: No such file or directory"}]
    text = run("check", str(missing))
    assert text.returncode == 1
    assert text.stdout == f"{missing}:1:1: error: unreadable: cannot read: No such file or " \
                          "directory\n".encode()


def test_follow_with_stdin_is_refused(tmp_path: Path) -> None:
    result = run("check", "--follow", "-", input=_index("https://site.example/a.xml"))
    assert result.returncode == 2
    assert b"--follow needs the index as a file" in result.stderr
    assert b"Traceback" not in result.stderr


def test_fail_on_and_quiet(tmp_path: Path) -> None:
    warn = tmp_path / "warn.xml"
    warn.write_bytes(_urlset("https://site.example/a", "https://site.example/a"))
    default = run("check", str(warn))
    assert default.returncode == 0 and b"duplicate-loc" in default.stdout
    strict = run("check", "--fail-on", "warning", str(warn))
    assert strict.returncode == 1 and b"duplicate-loc" in strict.stdout
    quiet = run("check", "-q", "--fail-on", "warning", str(warn))
    assert (quiet.returncode, quiet.stdout) == (1, b"")
    assert quiet.stderr == b"feed2sitemap check: 1 file checked, 2 URLs, 0 errors, 1 warning\n"
    silent = run("check", "-qq", "--format", "json", str(warn), str(tmp_path / "gone.xml"))
    assert (silent.returncode, silent.stdout, silent.stderr) == (1, b"", b"")


def test_progress_on_a_terminal_is_cleared(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"https://e.example/%d\n" % i for i in range(30000)))
    env = {"FEED2SITEMAP_PROGRESS_DELAY": "0"}
    code, screen = _run_on_a_terminal(["check", str(src)], env)
    assert code == 0
    assert b"entries read in 1 file" in screen
    last = screen.rindex(b"/s")
    assert b"\r\x1b[K" in screen[last:]
    assert screen.rstrip().endswith(b"30,000 URLs, 0 errors, 0 warnings")
    code, screen = _run_on_a_terminal(["check", "-q", str(src)], env)
    assert code == 0 and b"entries read" not in screen
    piped = run("check", str(src), env=dict(os.environ, **env))
    assert b"entries read" not in piped.stderr


def test_feed_item_without_link_is_a_warning(tmp_path: Path) -> None:
    feed = tmp_path / "feed.rss"
    feed.write_bytes(b'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title>\n'
                     b"<link>https://e.example/</link>\n<item><title>draft</title></item>\n"
                     b"<item><link>https://e.example/b</link></item>\n</channel></rss>\n")
    result = run("check", "--format", "json", str(feed))
    assert result.returncode == 0
    assert _diags(result.stdout) == [("feed.rss", "warning", "missing-loc", 4)]


def test_utf16_gets_one_message(tmp_path: Path) -> None:
    for name, data in [("u.txt", "https://e.example/a\nhttps://e.example/b\n"),
                       ("u.rss", '<?xml version="1.0"?><rss version="2.0"><channel><item>'
                                 "<link>https://e.example/a</link></item></channel></rss>")]:
        path = tmp_path / name
        path.write_bytes(data.encode("utf-16"))
        result = run("check", str(path))
        assert result.returncode == 1
        assert result.stdout == f"{path}:1:1: error: encoding: the file is UTF-16; sitemaps.org " \
                                "requires UTF-8: save it as UTF-8 (checking stopped here)\n" \
                                .encode()


def test_our_nested_index_is_a_warning_and_followed(tmp_path: Path) -> None:
    # what the converter writes past 50,000 parts: sitemap.xml lists sitemap-index-N.xml
    base = "https://e.example/s/"
    (tmp_path / "sitemap-1.xml").write_bytes(_urlset(base + "a"))
    (tmp_path / "sitemap-2.xml").write_bytes(_urlset(base + "b c"))
    (tmp_path / "sitemap-index-1.xml").write_bytes(_index(base + "sitemap-1.xml",
                                                          base + "sitemap-2.xml"))
    (tmp_path / "sitemap.xml").write_bytes(_index(base + "sitemap-index-1.xml"))
    result = run("check", "--follow", "--format", "json", str(tmp_path / "sitemap.xml"))
    assert result.returncode == 1  # for the part's bad URL only
    assert _diags(result.stdout) == [
        ("sitemap-index-1.xml", "warning", "nested-index", 2),
        ("sitemap-2.xml", "error", "loc-chars", 3)]
    # an index of someone else's indexes stays an error, and is not followed
    os.rename(tmp_path / "sitemap-index-1.xml", tmp_path / "more.xml")
    (tmp_path / "sitemap.xml").write_bytes(_index(base + "more.xml"))
    result = run("check", "--follow", "--format", "json", str(tmp_path / "sitemap.xml"))
    assert _diags(result.stdout) == [("more.xml", "error", "nested-index", 2)]


def test_split_into_more_than_50000_parts_passes_its_own_check(tmp_path: Path) -> None:
    # past the sitemaps an index may list (50,000; here a profile's 2, as the command's
    # 2.5 billion URLs cannot be a test) the converter writes an index of indexes
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"https://e.example/s/%d\n" % i for i in range(7)))
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "sitemap.xml"
    convert([str(src)], str(out), base_url="https://e.example/s/",
            limits=Limits(profile=replace(PROFILES["sitemaps"], max_urls=2, max_sitemaps=2)))
    assert (tmp_path / "out" / "sitemap-index-1.xml").exists()
    result = run("check", "--follow", "--format", "json", str(out))
    assert result.returncode == 0
    assert {d[1:3] for d in _diags(result.stdout)} == {("warning", "nested-index")}
    assert b"7 URLs" in result.stderr


ROOT = Path(__file__).resolve().parents[1]


def test_pre_commit_hook_and_actions_example_run_check(tmp_path: Path) -> None:
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text()
    fields = dict(re.findall(r"^[ -]*(\w+): (.*)$", hook, re.M))
    assert fields["id"] == "feed2sitemap-check"
    assert fields["entry"] == "feed2sitemap check --follow"
    # run at every commit on the sitemaps the user names (test_check_sets runs it in pre-commit)
    assert (fields["always_run"], fields["pass_filenames"]) == ("true", "false")
    # the README's GitHub Actions line, run on a site the converter wrote
    readme = (ROOT / "README.md").read_text()
    line = re.search(r"- run: (feed2sitemap check .*)", readme)
    assert line is not None
    public = tmp_path / "public"
    public.mkdir()
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"https://example.com/p/%d\n" % i for i in range(7)))
    assert run(str(src), "-o", str(public / "sitemap.xml"), "--max-urls", "3",
               "--base-url", "https://example.com/").returncode == 0
    result = run(*line.group(1).split()[1:], cwd=tmp_path)
    assert (result.returncode, result.stdout) == (0, b"")
    assert b"4 files checked, 7 URLs, 3 sitemaps" in result.stderr
    hooked = run(*fields["entry"].split()[1:], str(public / "sitemap.xml"))
    assert hooked.returncode == 0


def test_duplicates_across_parts_and_files_name_the_first_place(tmp_path: Path) -> None:
    base = "https://e.example/s/"
    (tmp_path / "posts.xml").write_bytes(_urlset(base + "a", base + "b"))
    (tmp_path / "tags.xml").write_bytes(_urlset(base + "c", base + "b/"[:-1]))
    (tmp_path / "sitemap.xml").write_bytes(_index(base + "posts.xml", base + "tags.xml"))
    extra = tmp_path / "extra.txt"
    extra.write_bytes(f"{base}c\n{base}d\n{base}d\n".encode())
    result = run("check", "--follow", "--format", "json", str(tmp_path / "sitemap.xml"),
                 str(extra))
    assert result.returncode == 0
    got = [(Path(d["file"]).name, d["rule"], d["line"], d["message"])
           for d in json.loads(result.stdout)]
    assert got == [
        ("tags.xml", "duplicate-across-files", 4,
         f"{base}b is already listed in {tmp_path / 'posts.xml'} on line 4"),
        ("extra.txt", "duplicate-across-files", 1,
         f"{base}c is already listed in {tmp_path / 'tags.xml'} on line 3"),
        ("extra.txt", "duplicate-loc", 3, f"{base}d is already listed on line 2")]


def test_duplicate_memory_is_bounded_and_says_so(tmp_path: Path) -> None:
    from feed2sitemap.check import CheckStats, check
    from feed2sitemap.check.diagnostics import SeenURLs

    path = tmp_path / "u.txt"
    path.write_bytes(b"https://e.example/a\nhttps://e.example/b\nhttps://e.example/c\n"
                     b"https://e.example/a\nhttps://e.example/c\n")
    stats = CheckStats(seen=SeenURLs(limit=2))
    got = [(d.rule, d.line) for d in check(path, stats=stats)]
    # a and b are remembered; c is past the limit, so its copy goes unseen, and that is said
    assert got == [("duplicate-limit", 3), ("duplicate-loc", 4)]


def test_robots_disallowed_urls_and_unlisted_sitemaps(tmp_path: Path) -> None:
    base = "https://e.example/"
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /private/\n\nUser-agent: Googlebot\n"
                      "Disallow: /drafts/\n\nSitemap: https://e.example/sitemap.xml\n")
    (tmp_path / "sitemap.xml").write_bytes(_urlset(base + "a", base + "drafts/b"))
    (tmp_path / "news.xml").write_bytes(_urlset(base + "private/c"))
    args = ["check", "--robots", str(robots), "--format", "json", str(tmp_path / "sitemap.xml"),
            str(tmp_path / "news.xml")]
    result = run(*args, "--base-url", base)
    assert result.returncode == 0
    # Googlebot obeys its own group only: /private/ is disallowed for other robots
    assert _diags(result.stdout) == [
        ("sitemap.xml", "warning", "robots-disallowed", 4),
        ("news.xml", "warning", "robots-unlisted", 1)]
    assert json.loads(result.stdout)[1]["message"] == (
        f"{robots} has no Sitemap: line for https://e.example/news.xml: search engines will "
        "not find it")
    # without --base-url a Sitemap: line is matched by the file's name
    assert _diags(run(*args).stdout) == _diags(result.stdout)
    missing = run("check", "--robots", str(tmp_path / "nope.txt"), str(tmp_path / "news.xml"))
    assert missing.returncode == 1
    assert missing.stderr.startswith(b"feed2sitemap: ") and b"--robots: cannot read" in \
        missing.stderr


# --- the whole gate: a broken site, and the same site repaired -----------------------------------

SITE = "https://site.example/"
PAGE = '<!doctype html><html><head><title>t</title>{}</head><body><p>x</p></body></html>\n'


def _page(root: Path, rel: str, head: str = "") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PAGE.format(head))


def _broken_site(tmp_path: Path) -> Path:
    public = tmp_path / "public"
    _page(public, "index.html", f'<link rel="canonical" href="{SITE}">')
    _page(public, "posts/a/index.html")
    _page(public, "posts/b/index.html", '<meta name="robots" content="noindex, follow">')
    _page(public, "about/index.html")  # listed by no sitemap
    _page(public, "private/x.html")
    _page(public, "404.html")  # an error page: never "unlisted"
    (public / "robots.txt").write_text(f"User-agent: *\nDisallow: /private/\n\n"
                                       f"Sitemap: {SITE}sitemap.xml\n")
    (public / "sitemaps").mkdir()
    (public / "sitemaps" / "posts.xml").write_bytes(_urlset(
        SITE + "posts/a/", SITE + "posts/b/", SITE + "private/x.html"))
    (public / "sitemaps" / "pages.xml").write_bytes(_urlset(SITE, SITE + "posts/a/"))
    (public / "sitemap.xml").write_bytes(_index(
        SITE + "sitemaps/posts.xml", SITE + "sitemaps/pages.xml", SITE + "sitemaps/gone.xml"))
    return public


def _gate(public: Path, *extra: str) -> tuple[int, bytes, bytes]:
    result = run("check", "--follow", "--base-url", SITE, "--robots",
                 str(public / "robots.txt"), "--site", str(public), *extra,
                 str(public / "sitemap.xml"))
    return result.returncode, result.stdout, result.stderr


def test_broken_site_gives_exactly_the_expected_diagnostics(tmp_path: Path) -> None:
    public = _broken_site(tmp_path)
    code, out, err = _gate(public, "--format", "json")
    assert code == 1
    got = [(d["file"], d["line"], d["severity"], d["rule"], d["message"])
           for d in json.loads(out)]
    posts, pages = public / "sitemaps" / "posts.xml", public / "sitemaps" / "pages.xml"
    assert got == [
        (str(public / "sitemap.xml"), 5, "error", "follow-missing",
         f"part {SITE}sitemaps/gone.xml is missing: no file {public / 'sitemaps' / 'gone.xml'}"),
        (str(posts), 4, "warning", "site-noindex",
         f"{SITE}posts/b/: posts/b/index.html says noindex (meta robots); a sitemap lists "
         "pages to index"),
        (str(posts), 5, "warning", "robots-disallowed",
         f"{SITE}private/x.html is disallowed for Googlebot by {public / 'robots.txt'}: never "
         "crawled"),
        (str(pages), 4, "warning", "duplicate-across-files",
         f"{SITE}posts/a/ is already listed in {posts} on line 3"),
        (str(public), 1, "warning", "site-unlisted",
         "1 HTML page no sitemap lists: about/index.html")]
    assert err == (b"feed2sitemap check: 3 files checked, 5 URLs, 3 sitemaps listed in "
                   b"indexes, 1 error, 4 warnings\n")
    text_code, text, _ = _gate(public)
    assert text_code == 1
    assert text.decode().splitlines() == [
        f"{file}:{line}:1: {sev}: {rule}: {msg}" if file == str(public) else
        f"{file}:{line}:{6 if 'sitemaps' in file else 10}: {sev}: {rule}: {msg}"
        for file, line, sev, rule, msg in got]


def test_the_same_site_repaired_passes(tmp_path: Path) -> None:
    public = _broken_site(tmp_path)
    (public / "private" / "x.html").unlink()
    (public / "sitemaps" / "posts.xml").write_bytes(_urlset(SITE + "posts/a/"))
    (public / "sitemaps" / "pages.xml").write_bytes(_urlset(SITE, SITE + "about/"))
    (public / "sitemap.xml").write_bytes(_index(SITE + "sitemaps/posts.xml",
                                                SITE + "sitemaps/pages.xml"))
    code, out, err = _gate(public, "--fail-on", "warning")
    assert (code, out) == (0, b""), out
    assert err.endswith(b"0 errors, 0 warnings\n")


@pytest.mark.slow
def test_converter_output_of_every_sample_passes_check_follow(tmp_path: Path) -> None:
    from .conftest import SAMPLES

    samples = sorted(p for p in SAMPLES.iterdir() if p.is_file())
    assert len(samples) >= 10
    for sample in samples:
        out = tmp_path / sample.name / "sitemap.xml"
        out.parent.mkdir()
        assert run(str(sample), "-o", str(out), "-q").returncode == 0, sample
        result = run("check", "--follow", "--format", "json", str(out))
        errors = [d for d in json.loads(result.stdout) if d["severity"] == "error"]
        if sample.name == "sitemap-index.xml":
            # the index is copied; the parts it lists are not in samples/: dangling, and said
            assert [d["rule"] for d in errors] == ["follow-missing"] * 3
            assert run("check", str(out)).returncode == 0
        else:
            assert (result.returncode, errors) == (0, []), sample
    # split into parts and an index, found again by --follow
    out = tmp_path / "split" / "sitemap.xml"
    out.parent.mkdir()
    assert run(str(SAMPLES / "urls.txt"), "-o", str(out), "--max-urls", "3", "--base-url",
               "https://shop.example.com/").returncode == 0
    result = run("check", "--follow", str(out))
    assert (result.returncode, result.stdout) == (0, b"")
    assert b"3 files checked, 5 URLs, 2 sitemaps listed in indexes, 0 errors" in result.stderr


def test_robots_by_url_from_the_local_server(tmp_path: Path) -> None:
    from .test_web import Server, body

    server = Server()
    try:
        server.routes["/robots.txt"] = body(b"User-agent: *\nDisallow: /x\n")
        (tmp_path / "s.xml").write_bytes(_urlset("https://e.example/x", "https://e.example/y"))
        result = run("check", "--robots", server.url("/robots.txt"), "--format", "json",
                     str(tmp_path / "s.xml"))
        assert _diags(result.stdout) == [("s.xml", "warning", "robots-unlisted", 1),
                                         ("s.xml", "warning", "robots-disallowed", 3)]
        gone = run("check", "--robots", server.url("/nope.txt"), str(tmp_path / "s.xml"))
        assert gone.returncode == 1 and b"404" in gone.stderr
        assert b"Traceback" not in gone.stderr
    finally:
        server.close()
