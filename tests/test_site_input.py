"""A built site directory as an input (issue 37): the URLs of its pages, what is left out and
why (by file), the pages' own dates, alternates and images; hostile pages; the two HTML
parsers held to the same facts; and the one file <-> URL mapping check --site shares."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from feed2sitemap.cli.check import check_command
from feed2sitemap.cli.main import convert_command
from feed2sitemap.readers.site.pages import Facts, parse_page

from .conftest import run

SITE = "https://example.com/"


@pytest.fixture(params=["", "1"], ids=["fast", "reference"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("FEED2SITEMAP_REFERENCE", request.param)
    yield request.param


def _write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")


def _page(lang: str = "en", head: str = "", main: str = "<p>text</p>") -> str:
    return (f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8"><title>t</title>'
            f"{head}</head>\n<body><header><nav><a href='/'>home</a></nav></header>\n"
            f"<main>{main}</main>\n<footer>© 2024 <img src='/footer.png'></footer></body>"
            "</html>\n")


def _hreflang(path: str) -> str:
    return "".join(f'<link rel="alternate" hreflang="{lang}" href="{SITE}{lang}/{path}">'
                   for lang in ("en", "fr")) + \
        f'<link rel="alternate" hreflang="x-default" href="{SITE}en/{path}">'


def _hugo_like(root: Path) -> None:
    """A multilingual Hugo-like build: pretty URLs, a 404 page, a noindex page, a page canonical
    elsewhere, drafts disallowed by robots.txt, a dot-directory and assets."""
    _write(root, "index.html", _page(head=f'<link rel="canonical" href="{SITE}">'))
    for lang in ("en", "fr"):
        _write(root, f"{lang}/index.html", _page(lang, _hreflang("")))
        _write(root, f"{lang}/posts/hello/index.html", _page(
            lang, _hreflang("posts/hello/") + '<meta property="article:modified_time" '
            'content="2024-03-05T10:15:00+01:00">', '<h1>Hello</h1><img src="cover.jpg">'
            '<p>body</p><img src="https://cdn.example.net/x.png"><img src="data:image/gif,x">'))
    _write(root, "en/posts/ld/index.html", _page(head='<script type="application/ld+json">'
           '[{"@type":"WebSite"},{"@graph":[{"@type":"Article","dateModified":"2023-11-02"}]}]'
           "</script>"))
    _write(root, "en/about.html", _page(head='<meta itemprop="dateModified" '
                                        'content="2022-01-31">'))
    _write(root, "en/old/index.html", _page(head='<meta name="robots" content="noindex,follow">'))
    _write(root, "en/copy.html", _page(head=f'<link rel="canonical" href="{SITE}en/">'))
    _write(root, "drafts/wip/index.html", _page())
    _write(root, "404.html", _page())
    _write(root, "fr/404.html", _page())
    _write(root, ".git/HEAD", "ref: refs/heads/main\n")
    _write(root, ".hidden.html", _page())
    _write(root, "css/site.css", "body{}")
    _write(root, "docs/guide.pdf", b"%PDF-1.4\n")
    _write(root, "robots.txt", f"User-agent: *\nDisallow: /drafts/\nSitemap: {SITE}sitemap.xml\n")


def _convert(*args: str) -> tuple[int, str]:
    """The converter in this process (faster than a subprocess): exit code and stderr."""
    result = CliRunner().invoke(convert_command, list(args))
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def _check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(check_command, list(args))
    return result.exit_code, result.stdout


def _locs(xml: str) -> list[str]:
    return re.findall(r"<loc>([^<]*)</loc>", xml)


def test_a_hugo_like_site_gives_its_pages_and_says_what_it_left_out(tmp_path: Path) -> None:
    public = tmp_path / "public"
    _hugo_like(public)
    out = public / "sitemap.xml"
    done = run(str(public), "-o", str(out), "--base-url", SITE, "--images")
    assert done.returncode == 0, done.stderr
    xml = out.read_text()
    urls = _locs(xml)
    assert urls == [SITE, SITE + "en/about.html", SITE + "en/", SITE + "en/posts/hello/",
                    SITE + "en/posts/ld/", SITE + "fr/", SITE + "fr/posts/hello/"]  # (by name)
    err = done.stderr.decode()
    assert "; 10 excluded (3 not HTML, 2 hidden, 2 error page, 1 disallowed by robots.txt, " \
           "1 canonical elsewhere, 1 noindex)\n" in err
    p = str(public)
    for line in (f"excluded, not HTML: {p}/robots.txt, {p}/css/site.css, {p}/docs/guide.pdf",
                 f"excluded, hidden: {p}/.git/, {p}/.hidden.html",
                 f"excluded, error page: {p}/404.html, {p}/fr/404.html",
                 f"excluded, disallowed by robots.txt: {p}/drafts/wip/index.html",
                 f"excluded, noindex: {p}/en/old/index.html",
                 f"excluded, canonical elsewhere: {p}/en/copy.html"):
        assert f"feed2sitemap: {line}\n" in err, err
    # the pages' own dates, first found first: article:modified_time, JSON-LD, itemprop
    entries = dict(re.findall(r"<loc>([^<]*)</loc>(?:<lastmod>([^<]*)</lastmod>)?", xml))
    assert entries[SITE + "en/posts/hello/"] == "2024-03-05T09:15:00+00:00"
    assert entries[SITE + "en/posts/ld/"] == "2023-11-02"
    assert entries[SITE + "en/about.html"] == "2022-01-31"
    assert entries[SITE] == entries[SITE + "fr/"] == ""  # no date of its own: none, no mtime
    # alternates, x-default included; images of the main content only, resolved
    hello = xml[xml.index(f"<loc>{SITE}en/posts/hello/</loc>"):]
    hello = hello[:hello.index("</url>")]
    assert re.findall(r'hreflang="([^"]+)" href="([^"]+)"', hello) == [
        ("en", SITE + "en/posts/hello/"), ("fr", SITE + "fr/posts/hello/"),
        ("x-default", SITE + "en/posts/hello/")]
    assert re.findall(r"<image:loc>([^<]*)</image:loc>", hello) == [
        SITE + "en/posts/hello/cover.jpg", "https://cdn.example.net/x.png"]
    assert "footer.png" not in xml
    # our own check passes it, with the site beside it
    checked = run("check", str(out), "--site", str(public), "--base-url", SITE)
    assert checked.returncode == 0, checked.stdout
    assert b"site-missing" not in checked.stdout and b"error" not in checked.stdout
    # the pages the site's robots.txt disallows are left out by both: not "unlisted"
    assert b"site-unlisted" not in checked.stdout, checked.stdout


def test_include_brings_assets_in_and_v_names_each_file(tmp_path: Path) -> None:
    public = tmp_path / "public"
    _hugo_like(public)
    out = tmp_path / "pdf.xml"
    code, err = _convert(str(public), "-o", str(out), "--base-url", SITE, "--include", "*.pdf",
                         "-v")
    assert code == 0, err
    assert _locs(out.read_text()) == [SITE + "docs/guide.pdf"]
    assert f"{public}/css/site.css: left out: not HTML" in err


@pytest.mark.parametrize(("pretty", "url"), [("keep", "a/b%20c.html"), ("strip", "a/b%20c"),
                                             ("slash", "a/b%20c/")])
def test_pretty_urls_and_check_site_share_the_mapping(tmp_path: Path, pretty: str,
                                                      url: str) -> None:
    public = tmp_path / "public"
    _write(public, "a/b c.html", _page())
    _write(public, "a/index.html", _page())
    _write(public, "100%.html", _page())
    out = tmp_path / "sitemap.xml"
    code, err = _convert(str(public), "-o", str(out), "--base-url", SITE, "--pretty-urls",
                         pretty)
    assert code == 0, err
    pct = {"keep": "100%25.html", "strip": "100%25", "slash": "100%25/"}[pretty]
    assert _locs(out.read_text()) == [SITE + pct, SITE + url, SITE + "a/"]
    assert _check(str(out), "--site", str(public), "--base-url", SITE) == (0, "")


def test_usage_errors(tmp_path: Path) -> None:
    public = tmp_path / "public"
    _write(public, "index.html", _page())
    page = tmp_path / "list.txt"
    page.write_text(SITE + "\n")
    for args, what in (([str(public)], "--base-url"),
                       ([str(page), "--pretty-urls", "strip"], "--pretty-urls"),
                       ([str(public), "--base-url", SITE, "--lastmod-from", "content"],
                        "--state"),
                       ([str(public), "--base-url", SITE, "--source", "src"], "--source")):
        code, err = _convert(*args, "-o", str(tmp_path / "out.xml"))
        assert code == 2, (args, err)
        assert err.startswith(f"feed2sitemap: {what}: "), err
    assert not (tmp_path / "out.xml").exists()


def test_hostile_pages_never_a_traceback_and_a_fifo_never_waits(tmp_path: Path,
                                                                mode: str) -> None:
    public = tmp_path / "public"
    _write(public, "unclosed.html", '<html lang="en"><head><meta property="article:modified_'
           'time" content="yesterday"><body><main><div><p>a<b>b<main>c<nav>d')
    _write(public, "junk.html", os.urandom(3000) + b"\x00<html>\xff\xfe<main>\x00</main>")
    _write(public, "attr.html", '<html><body><main><img src="' + "x" * 300_000 + '">'
           '<p title="' + "'" * 100_000)
    _write(public, "json.html", '<script type="application/ld+json">' + "[" * 100_000
           + "</script><p>deep")
    _write(public, "empty.html", b"")
    _write(public, "ok.html", _page())
    os.mkfifo(public / "trap.html")
    out = tmp_path / "sitemap.xml"
    code, err = _convert(str(public), "-o", str(out), "--base-url", SITE, "--images")
    assert code == 0, err
    assert len(_locs(out.read_text())) == 6
    assert f"{public}/trap.html: skipped: not a regular file" in err
    assert f"{public}/attr.html: warning: an image URL of 300,000 characters" in err
    assert f"{public}/unclosed.html: warning: article:modified_time: not a W3C " \
           "Datetime: 'yesterday'" in err
    assert _check(str(out)) == (0, "")


def test_a_page_larger_than_the_bound_is_read_up_to_it_and_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import feed2sitemap.readers.site as site

    monkeypatch.setattr(site, "MAX_PAGE_BYTES", 1000)
    public = tmp_path / "public"
    _write(public, "big.html", b"<main>" + b"word " * 1000 + b'<img src="late.png"></main>')
    out = tmp_path / "s.xml"
    code, err = _convert(str(public), "-o", str(out), "--base-url", SITE, "--images")
    assert code == 0
    assert f"{public}/big.html: warning: larger than 1,000 bytes: only that much was read" \
        in err
    assert "late.png" not in out.read_text()


PAGES = [
    _page(head=_hreflang("x/") + '<link rel="canonical" href="/x/">'
          '<meta name="googlebot" content="NOINDEX">', main="<h1>T&amp;t</h1> a<br>b"),
    '<html><body><article>one <img src=a.png></article><article>two</article>'
    "<nav>menu</nav></body></html>",
    "<p>plain body<script>var x = '<main>';</script><style>p{}</style><!-- c --> tail</p>"
    "<header>h</header><footer>f</footer>",
    '<html lang="de"><head><script type="application/ld+json">{"@graph": [{"a": 1}, '
    '{"dateModified": "2024-01-02T03:04:05Z"}]}</script></head><main><p>x</p>\n\n<p>y</p>'
    "<template>t</template><noscript>n</noscript></main>",
    "<main><p>caf\u00e9 \u00a0 na\u00efve</p><time itemprop=dateModified datetime=2020-02-02>"
    "</time></main>",
    "<body>be<!-- x -->fore<nav>n</nav>af<script>s</script>ter<ul>\n <li>one</li>\n <li>two"
    "</li></ul><table><tr><td>a</td> <td>b</td></tr></table><footer><img src=f.png></footer>"
    "<img src=b.png></body>",
    "<main>one</main><div><main>two <main>nested</main></main></div><article>no</article>",
    '<html lang="fr"><meta property="article:modified_time" content="2024-13-45">'
    '<img src="data:image/png;base64,xx"><img src=" spaced.png ">text',
]


def _facts(page: Facts) -> tuple[object, ...]:
    return (page.lang, page.noindex, page.canonical, page.alternates, page.dates,
            page.region, page.fingerprint, page.main_images)


def test_both_parsers_find_the_same_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("lxml")
    for text in PAGES:
        data = text.encode()
        monkeypatch.setenv("FEED2SITEMAP_REFERENCE", "1")
        plain = _facts(parse_page(data))
        monkeypatch.setenv("FEED2SITEMAP_REFERENCE", "")
        assert _facts(parse_page(data)) == plain, text
    first = parse_page(PAGES[0].encode())
    assert (first.noindex, first.canonical, first.lang) == (True, "/x/", "en")
    second = parse_page(PAGES[1].encode())
    assert (second.region, second.main_images) == ("article", ["a.png"])


def test_the_fingerprint_is_of_the_main_content_only(mode: str) -> None:
    base = parse_page(_page(main="<p>Hello  world</p>").encode()).fingerprint
    chrome = _page(main="<p>Hello world</p>").replace("© 2024", "© 2025 build 17")
    chrome = chrome.replace("<nav>", "<nav><a href='/new'>new</a>")
    assert parse_page(chrome.encode()).fingerprint == base
    assert parse_page(_page(main="<p>Hello world!</p>").encode()).fingerprint != base
    body = "<body><nav>n1</nav><p>text <!-- build 1 --></p><script>s1</script></body>"
    again = body.replace("n1", "n2").replace("build 1", "build 2").replace("s1", "s2")
    assert parse_page(body.encode()).fingerprint == parse_page(again.encode()).fingerprint


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a directory of mode 000")
def test_a_directory_that_cannot_be_read_is_said(tmp_path: Path) -> None:
    public = tmp_path / "public"
    _write(public, "index.html", _page())
    _write(public, "locked/a.html", _page())
    (public / "locked").chmod(0)
    try:
        code, err = _convert(str(public), "-o", str(tmp_path / "s.xml"), "--base-url", SITE)
    finally:
        (public / "locked").chmod(0o755)
    assert code == 0, err
    assert f"{public}/locked/: skipped: cannot read the directory: Permission denied" in err


def test_the_sitemap_written_into_the_site_is_not_taken_for_its_content(tmp_path: Path) -> None:
    """`feed2sitemap public/ -o public/sitemap.xml` run again (a build's every run): the set it
    wrote there last time (index and parts) is neither listed nor reported as left out, so the
    second run says what the first said; a user's own XML file beside it still is."""
    _hugo_like(tmp_path)
    _write(tmp_path, "feed.xml", "<rss/>")
    args = [str(tmp_path), "-o", str(tmp_path / "sitemap.xml"), "--base-url", SITE,
            "--max-urls", "3", "-v"]
    first = run(*args)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "sitemap-1.xml").exists()
    second = run(*args)
    assert second.returncode == 0, second.stderr
    def left_out(stderr: bytes) -> list[str]:
        return re.findall(r"\d+ excluded \(.*\)|excluded, .*", stderr.decode())

    excluded = left_out(second.stderr)
    assert excluded == left_out(first.stderr)
    named = "".join(excluded)
    assert "sitemap.xml" not in named and "sitemap-1.xml" not in named and "feed.xml" in named


def test_a_sitemap_linked_into_the_site_is_passed_over_too(tmp_path: Path) -> None:
    """The output given as a link in the site (public/sitemap.xml -> ../build/real.xml): the
    link is the output, whatever its own name, so it is not reported as a file left out."""
    site, build = tmp_path / "public", tmp_path / "build"
    _write(site, "index.html", _page())
    build.mkdir()
    (build / "real.xml").write_text("")
    (site / "sitemap.xml").symlink_to(build / "real.xml")
    args = [str(site), "-o", str(site / "sitemap.xml"), "--base-url", SITE, "-v"]
    for _ in range(2):
        done = run(*args)
        assert done.returncode == 0, done.stderr
        assert b"excluded" not in done.stderr  # (the page and the link: nothing else)
    assert (site / "sitemap.xml").is_symlink() and "<loc>" in (build / "real.xml").read_text()
