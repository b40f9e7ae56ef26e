"""Issue 20 (URL and scope rules) and the URL items of issue 19, through the installed command."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from .conftest import run
from .test_cli import _run_on_a_terminal

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Links</title><link>{site}</link><description>d</description>
{items}</channel></rss>
"""


def rss(site: str, *links: str) -> bytes:
    items = "".join(f"<item><title>t</title><link>{link}</link></item>\n" for link in links)
    return RSS.format(site=site, items=items).encode()


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines()


# --- 1. scope and base of a feed: its own site link ---------------------------------------------

def test_a_link_blogs_scope_is_its_own_site_not_its_first_item(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(rss("https://me.example/", "https://elsewhere.example/great-read",
                         "https://me.example/post/1", "https://me.example/post/2"))
    out = tmp_path / "urls.txt"
    result = run(str(feed), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert lines_of(out) == ["https://me.example/post/1", "https://me.example/post/2"]
    err = result.stderr.decode()
    assert f"scope: https://me.example/ (the site link of {feed})" in err
    assert "1 off scope (1 https://elsewhere.example)" in err


def test_an_atom_feeds_site_link_is_resolved_against_xml_base(tmp_path: Path) -> None:
    feed = tmp_path / "feed.atom"
    feed.write_bytes(b"""<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://me.example/blog/">
<title>t</title><id>x</id><updated>2024-01-01T00:00:00Z</updated>
<link rel="self" href="https://feeds.example/me"/><link rel="alternate" href="./"/>
<entry><title>a</title><id>a</id><updated>2024-01-01T00:00:00Z</updated>
<link href="https://other.example/x"/></entry>
<entry><title>b</title><id>b</id><updated>2024-01-01T00:00:00Z</updated>
<link href="post-b"/></entry>
</feed>""")
    result = run(str(feed), "-t", "text")
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"https://me.example/blog/post-b\n"
    assert b"scope: https://me.example/ (the site link of" in result.stderr


def test_relative_feed_links_resolve_against_the_site_link(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(rss("https://me.example/", "/about", "post/1"))
    result = run(str(feed), "-t", "text")
    assert result.stdout == b"https://me.example/about\nhttps://me.example/post/1\n"


def test_a_site_link_on_another_scheme_than_every_entry_is_not_the_scope(
        tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(rss("http://me.example", "https://me.example/1", "https://me.example/2"))
    result = run(str(feed), "-t", "text")
    assert result.returncode == 0
    assert result.stdout == b"https://me.example/1\nhttps://me.example/2\n"
    assert b"is on another site than all of its entries" in result.stderr
    assert b"scope: https://me.example/ (guessed from the first URL)" in result.stderr


def test_without_a_site_link_the_scope_is_guessed_and_the_summary_says_so(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://a.example/1\nhttps://b.example/2\n")
    result = run(str(src), "-t", "text")
    assert result.stdout == b"https://a.example/1\n"
    assert b"scope: https://a.example/ (guessed from the first URL)" in result.stderr


def test_with_several_inputs_the_first_that_states_a_site_decides(tmp_path: Path) -> None:
    one = tmp_path / "one.xml"
    one.write_bytes(rss("https://me.example/", "https://other.example/x", "https://me.example/1"))
    two = tmp_path / "two.xml"
    two.write_bytes(rss("https://other.example/", "https://other.example/y",
                        "https://me.example/2"))
    result = run(str(one), str(two), "-t", "text")
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"https://me.example/1\nhttps://me.example/2\n"
    assert f"scope: https://me.example/ (the site link of {one})".encode() in result.stderr


# --- 2. --base-url without a trailing slash ---------------------------------------------------

def test_a_base_url_without_a_slash_is_a_directory_for_the_index_and_the_scope(
        tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"https://example.com/blog/{i}\n" for i in range(3))
                   + "https://example.com/shop/1\n")
    out = tmp_path / "sitemap.xml"
    result = run(str(src), "-o", str(out), "--base-url", "https://example.com/blog",
                 "--max-urls", "2")
    assert result.returncode == 0, result.stderr
    index = out.read_text()
    assert "<loc>https://example.com/blog/sitemap-1.xml</loc>" in index
    err = result.stderr.decode()
    assert ("note: --base-url https://example.com/blog is read as the directory "
            "https://example.com/blog/") in err
    assert "https://example.com/shop/1 is outside https://example.com/blog/" in err
    assert "scope: https://example.com/blog/ (--base-url)" in err


def test_a_base_url_naming_a_file_has_its_directory_as_base(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/blog/a\n")
    result = run(str(src), "-t", "text", "--base-url", "https://example.com/blog/sitemap.xml")
    assert result.returncode == 0
    assert (b"note: --base-url https://example.com/blog/sitemap.xml names a file; its directory "
            b"https://example.com/blog/ is the base") in result.stderr


# --- 3. relative paths in lists -----------------------------------------------------------------

def test_relative_lines_resolve_against_base_url(tmp_path: Path) -> None:
    src = tmp_path / "paths.txt"
    src.write_text("/about\ncontact.html\nhttps://example.com/x\n")
    result = run(str(src), "-t", "text", "--base-url", "https://example.com/")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (b"https://example.com/about\nhttps://example.com/contact.html\n"
                             b"https://example.com/x\n")


def test_relative_lines_without_base_url_say_to_give_it(tmp_path: Path) -> None:
    src = tmp_path / "paths.txt"
    src.write_text("https://example.com/x\n/about\n")
    result = run(str(src), "-t", "text")
    assert result.stdout == b"https://example.com/x\n"
    assert (f"{src}:2: skipped: not an absolute URL: '/about'; give --base-url to resolve "
            "relative links").encode() in result.stderr


def test_relative_feed_links_without_any_base_say_to_give_it(tmp_path: Path) -> None:
    feed = tmp_path / "feed.xml"
    feed.write_bytes(rss("", "https://me.example/1", "/about"))
    result = run(str(feed), "-t", "text")
    assert b"'/about'; give --base-url to resolve relative links" in result.stderr


# --- 4. static exports: links relative to the document ----------------------------------------

STATIC = rss("../../../../", "../../../post/index.html", "../../../../about/index.html")


def test_static_export_links_resolve_against_the_input_url(tmp_path: Path) -> None:
    feed = tmp_path / "index.html"
    feed.write_bytes(STATIC)
    result = run(str(feed), "-t", "text", "-f", "feed", "--base-url", "https://site.example/",
                 "--input-url", "https://site.example/publication/author/x/feed/index.html")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (b"https://site.example/publication/post/index.html\n"
                             b"https://site.example/about/index.html\n")
    # without the document's URL, --base-url is the only base: wrong pages, reported off-site
    wrong = run(str(feed), "-t", "text", "-f", "feed", "--base-url", "https://site.example/")
    assert b"publication" not in wrong.stdout


def test_xml_base_comes_before_the_input_url(tmp_path: Path) -> None:
    feed = tmp_path / "feed.atom"
    feed.write_bytes(b"""<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><id>x</id>
<updated>2024-01-01T00:00:00Z</updated>
<entry xml:base="https://site.example/docs/"><title>a</title><id>a</id>
<updated>2024-01-01T00:00:00Z</updated><link href="a.html"/></entry>
<entry><title>b</title><id>b</id><updated>2024-01-01T00:00:00Z</updated>
<link href="b.html"/></entry></feed>""")
    result = run(str(feed), "-t", "text", "--input-url", "https://site.example/feeds/all.atom")
    assert result.stdout == b"https://site.example/docs/a.html\nhttps://site.example/feeds/b.html\n"


# --- 5. <url> elements of another namespace -----------------------------------------------------

def test_url_elements_of_another_namespace_are_counted(tmp_path: Path) -> None:
    src = tmp_path / "old.xml"
    src.write_text('<?xml version="1.0"?>\n'
                   '<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">\n'
                   '<url xmlns=""><loc>https://e.example/a</loc></url>\n'
                   '<url xmlns=""><loc>https://e.example/b</loc></url>\n</urlset>\n')
    result = run(str(src), "-t", "text")
    assert result.returncode == 1
    assert (b"2 <url> elements in no namespace ignored: entries must be in the root's namespace "
            b"(http://www.google.com/schemas/sitemap/0.84)") in result.stderr


# --- 6-8. one page, one URL -----------------------------------------------------------------------

def test_fragments_are_removed_and_the_copies_fold(tmp_path: Path) -> None:
    feed = tmp_path / "comments.xml"
    feed.write_bytes(rss("https://me.example/", "https://me.example/p#comment-1",
                         "https://me.example/p#comment-2", "https://me.example/q#"))
    out = tmp_path / "urls.txt"
    result = run(str(feed), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert lines_of(out) == ["https://me.example/p", "https://me.example/q"]
    assert b"skipped 1: 1 duplicate; warnings: 3 fragment removed" in result.stderr
    listed = tmp_path / "list.txt"
    listed.write_text("https://me.example/p#top\n")
    checked = run("check", str(listed))
    assert checked.returncode == 0 and b"warning: loc-fragment" in checked.stdout


def test_credentials_are_never_written_nor_printed(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://e.example/a\nhttps://admin:hunter2@e.example/b\n")
    out = tmp_path / "s.xml"
    result = run(str(src), "-o", str(out))
    assert result.returncode == 0
    assert b"hunter2" not in result.stderr and b"hunter2" not in out.read_bytes()
    assert b"admin" not in result.stderr
    assert b"1 has credentials" in result.stderr
    checked = run("check", str(src))
    assert checked.returncode == 1 and b"hunter2" not in checked.stdout + checked.stderr


def test_equivalent_spellings_are_one_url(tmp_path: Path) -> None:
    src = tmp_path / "urls.xml"
    src.write_text('<?xml version="1.0"?>\n'
                   '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n' + "".join(
                       f"<url><loc>{u}</loc></url>\n" for u in [
                           "https://example.com/b", "https://example.com/a/../b",
                           "https://example.com/%7Efoo", "https://example.com/~foo",
                           "https://example.com/caf%c3%a9", "https://example.com/caf%C3%A9",
                           "https://example.com/q?", "https://example.com/q",
                           "https://example.com/t&#9;x", "HTTPS://EXAMPLE.COM/t&#9;x"])
                   + "</urlset>\n")
    result = run(str(src), "-t", "text")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines() == [
        "https://example.com/b", "https://example.com/~foo", "https://example.com/caf%C3%A9",
        "https://example.com/q?", "https://example.com/q", "https://example.com/t%09x"]
    assert b"skipped 4: 4 duplicate" in result.stderr


# --- 9. lines that are not one URL --------------------------------------------------------------

def test_a_line_with_white_space_is_skipped_not_encoded(tmp_path: Path) -> None:
    src = tmp_path / "export.txt"
    # (a tab on the first line would make the file a TSV list, read as columns: issue 13)
    src.write_text("https://example.com/d\nhttps://example.com/a\t2024-01-01\n"
                   "https://example.com/b c\n")
    result = run(str(src), "-t", "text")
    assert result.stdout == b"https://example.com/d\n"
    assert (f"{src}:2: skipped: contains white space; a list holds one URL per line (see the "
            "columns format)").encode() in result.stderr
    assert f"{src}:3: skipped: contains white space".encode() in result.stderr


def test_a_lone_carriage_return_ends_a_line(tmp_path: Path) -> None:
    src = tmp_path / "mac.txt"
    src.write_bytes(b"https://example.com/a\rhttps://example.com/b\r\nhttps://example.com/c\r"
                    b"x y\r")
    result = run(str(src), "-t", "text")
    assert result.stdout == b"https://example.com/a\nhttps://example.com/b\nhttps://example.com/c\n"
    assert f"{src}:4: skipped: contains white space".encode() in result.stderr


# --- 10. output names ----------------------------------------------------------------------------

def test_output_extensions_are_matched_without_case(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/a\n")
    assert run(str(src), "-o", str(tmp_path / "X.XML.GZ")).returncode == 0
    assert b"<urlset" in gzip.decompress((tmp_path / "X.XML.GZ").read_bytes())
    assert run(str(src), "-o", str(tmp_path / "x.TXT")).returncode == 0
    assert (tmp_path / "x.TXT").read_bytes() == b"https://example.com/a\n"


@pytest.mark.parametrize("name,flag,said", [
    ("s.xml", "--gzip", b"--gzip writes gzip data to a name not ending .gz"),
    ("s.xml.gz", "--no-gzip", b"--no-gzip writes plain data to a name ending .gz"),
])
def test_gzip_flags_against_the_name_are_warned_about(tmp_path: Path, name: str, flag: str,
                                                      said: bytes) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/a\n")
    result = run(str(src), "-o", str(tmp_path / name), flag)
    assert result.returncode == 0
    assert said + b"; a web server will label the file wrongly" in result.stderr


def test_gzip_to_a_terminal_is_refused(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/a\n")
    code, screen = _run_on_a_terminal([str(src), "--gzip"], {})
    assert code == 2
    assert b"give an --output file name ending .gz" in screen and b"\x1f\x8b" not in screen


# --- issue 19: hosts ------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("host,said", [
    ("ex\x01ample.com", b"bad character in host"), ("ex\x7fample.com", b"bad character in host"),
    ("ex\x1fample.com", b"contains white space"),  # U+001F is white space to str.split
])
def test_control_characters_in_hosts_are_skipped_and_output_passes_check(
        tmp_path: Path, host: str, said: bytes) -> None:
    src = tmp_path / "urls.txt"
    src.write_bytes(f"https://{host}/a\nhttps://example.com/b\n".encode())
    for name in ("s.xml", "s.txt"):
        out = tmp_path / name
        result = run(str(src), "-o", str(out), "--no-scope-check")
        assert result.returncode == 0, result.stderr
        assert b"skipped: " + said in result.stderr
        assert run("check", str(out)).returncode == 0


def test_a_backslash_before_at_is_refused_as_ambiguous(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/a\nhttp://example.com\\@evil.com/\n")
    result = run(str(src), "-t", "text", "--no-scope-check")
    assert result.stdout == b"https://example.com/a\n"
    assert b"refused as ambiguous" in result.stderr and b"1 ambiguous URL" in result.stderr


@pytest.mark.parametrize("host", ["a\uff1cb.example", "a\uff40b.example", "a\u3000b.example"])
def test_hosts_idna_maps_to_bad_characters_never_crash_or_get_written(
        tmp_path: Path, host: str) -> None:
    src = tmp_path / "urls.txt"
    src.write_text(f"https://{host}/x\nhttps://example.com/y\n")
    result = run(str(src), "-t", "text", "--no-scope-check")
    assert result.returncode == 0 and b"Traceback" not in result.stderr
    assert result.stdout == b"https://example.com/y\n"
    checked = run("check", str(src))
    assert checked.returncode == 1 and b"Traceback" not in checked.stderr
