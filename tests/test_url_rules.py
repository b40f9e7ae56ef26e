"""URL rules of issues 19/20: one normal form (RFC 3986 section 6.2.2), whatever path a URL
takes through the code, and agreement between the converter and ``check``."""

from __future__ import annotations

import io
import os
import string
import tempfile
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feed2sitemap import Report, convert
from feed2sitemap.backends import ENV
from feed2sitemap.check import check
from feed2sitemap.errors import Feed2SitemapError
from feed2sitemap.model.scope import base_directory
from feed2sitemap.model.urls import (
    CLEAN_BYTES,
    all_normalized,
    normalize_locs,
    normalize_url,
    proven_clean,
    shown,
)
from feed2sitemap.pipeline.steps import normalize
from feed2sitemap.readers.text import read_text

UNRESERVED = string.ascii_letters + string.digits + "-._~"
# Characters that make URLs interesting: every class the normaliser treats differently.
_PATH_CHARS = st.sampled_from(list(UNRESERVED + "!$&'()*+,;=:@/?#[]%") + [
    " ", "\t", "\r", "\n", "\x01", "\x7f", "\\", "<", "`", "é", "维", "\u3000", "\ud800", "%2e",
    "%2E", "%7e", "%c3%a9", "%41", "%zz", "/./", "/../", "/.", "/..", "?", "#"])
_PATHS = st.lists(_PATH_CHARS, max_size=12).map("".join)
_HOSTS = st.one_of(
    st.sampled_from(["example.com", "EXAMPLE.com", "bücher.example", "ＥＸＡＭＰＬＥ.com",
                     "example.com:80", "example.com:443", "example.com:8080", "[::1]",
                     "u:p@example.com", "user@example.com", "example.com\\@evil.com",
                     "ex\x01ample.com", "ex\x7fample.com", "a＜b.com", "a｀b.com", "a\u3000b.com",
                     "", "exa mple.com", "xn--bcher-kva.example"]),
    st.text(string.ascii_lowercase + "é.-＜\x05", min_size=1, max_size=8))
_URLS = st.builds("{}://{}{}".format, st.sampled_from(["http", "https", "HTTPS", "ftp"]),
                  _HOSTS, _PATHS)


def _norm(url: str) -> str | None:
    try:
        return normalize_url(url)
    except ValueError:
        return None


@given(_URLS)
def test_normalising_twice_changes_nothing(url: str) -> None:
    once = _norm(url)
    if once is not None:
        assert normalize_url(once) == once


@given(_URLS)
def test_the_result_has_no_fragment_no_userinfo_and_urllib_reads_it_back(url: str) -> None:
    norm = _norm(url)
    if norm is None:
        return
    parts = urlsplit(norm)
    assert "#" not in norm and parts.fragment == ""
    assert parts.username is None and parts.password is None and "@" not in parts.netloc
    assert parts.scheme in ("http", "https") and parts.hostname
    query = "?" + parts.query if "?" in norm else ""
    assert f"{parts.scheme}://{parts.netloc}{parts.path}{query}" == norm
    assert norm.isascii() and not any(c in norm for c in ' \t\r\n"<>\\^`{|}\x7f')
    assert all(ord(c) > 0x20 for c in norm)


# Two spellings RFC 3986 section 6.2.2 calls equivalent: case of scheme and host, case of the hex
# digits of an escape, an escaped unreserved character, dot segments, a default port; and a
# fragment, which is no part of the page's URL.
_SEGMENT = st.text(UNRESERVED.replace(".", "") + "!$&'()*+,;=:@é", min_size=1, max_size=6)


def _respell(draw: st.DrawFn, segment: str) -> str:
    out = []
    for ch in segment:
        if ch in UNRESERVED and draw(st.booleans()):
            hexd = f"{ord(ch):02x}"
            out.append("%" + (hexd.upper() if draw(st.booleans()) else hexd))
        elif ch == "é":
            out.append(draw(st.sampled_from(["é", "%C3%A9", "%c3%a9", "%C3%a9"])))
        else:
            out.append(ch)
    return "".join(out)


@st.composite
def _spellings(draw: st.DrawFn) -> tuple[str, str]:
    segments = draw(st.lists(_SEGMENT, min_size=1, max_size=4))
    query = draw(st.one_of(st.none(), st.text("abc=&é", max_size=5)))
    plain = "https://example.com/" + "/".join(segments) + ("" if query is None else "?" + query)
    parts = []
    for seg in segments:
        parts.append(draw(st.sampled_from(["", "./", "x/../", "a/b/../../"])) + _respell(draw, seg))
    host = draw(st.sampled_from(["example.com", "EXAMPLE.COM", "Example.com:443"]))
    other = (draw(st.sampled_from(["https", "HTTPS", "hTTps"])) + "://" + host + "/"
             + "/".join(parts) + ("" if query is None else "?" + _respell(draw, query))
             + draw(st.sampled_from(["", "#", "#top", "#comment-3"])))
    return plain, other


@given(_spellings())
def test_equivalent_spellings_normalise_to_the_same_string(pair: tuple[str, str]) -> None:
    plain, other = pair
    assert normalize_url(other) == normalize_url(plain)


@pytest.mark.parametrize("raw,expected", [
    ("https://example.com/a/../b", "https://example.com/b"),
    ("https://example.com/a/./b/", "https://example.com/a/b/"),
    ("https://example.com/a/..", "https://example.com/"),
    ("https://example.com/../../x", "https://example.com/x"),
    ("https://example.com/%2e%2E/x", "https://example.com/x"),
    ("https://example.com/%7Efoo", "https://example.com/~foo"),
    ("https://example.com/%c3%a9", "https://example.com/%C3%A9"),
    ("https://example.com/a?", "https://example.com/a?"),  # an empty query is kept
    ("https://example.com/a?#x", "https://example.com/a?"),
    ("https://example.com/a#", "https://example.com/a"),
    ("https://example.com/p#comment-3", "https://example.com/p"),
    ("https://example.com/a\tb", "https://example.com/a%09b"),
    ("HTTPS://EXAMPLE.COM/a\tb", "https://example.com/a%09b"),  # one rule, whatever the path
    ("https://example.com/?q=/../x", "https://example.com/?q=/../x"),  # not a path: kept
])
def test_rfc3986_normal_form(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


@pytest.mark.parametrize("raw,kind", [
    ("https://user:secret@example.com/", "has credentials"),
    ("https://user@example.com/", "has credentials"),
    ("http://example.com\\@evil.com/", "ambiguous URL"),
    ("https://ex\x01ample.com/", "invalid URL"),
    ("https://ex\x1fample.com/", "invalid URL"),
    ("https://ex\x7fample.com/", "invalid URL"),
    ("https://a＜b.com/", "invalid URL"),  # IDNA maps it to "<"
    ("https://a｀b.com/", "invalid URL"),  # … to a backtick
    ("https://a\u3000b.com/", "invalid URL"),  # … to a space
])
def test_refused_urls_say_why_and_never_show_a_password(raw: str, kind: str) -> None:
    with pytest.raises(ValueError) as err:
        normalize_url(raw)
    assert getattr(err.value, "kind", None) == kind
    assert "secret" not in str(err.value)


def test_shown_hides_userinfo() -> None:
    assert "secret" not in shown("https://me:secret@example.com/x")


@pytest.mark.parametrize("base,directory,noted", [
    ("https://example.com/blog", "https://example.com/blog/", True),
    ("https://example.com/blog/", "https://example.com/blog/", False),
    ("https://example.com/blog/sitemap.xml", "https://example.com/blog/", True),
    ("https://example.com", "https://example.com/", False),
])
def test_base_directory(base: str, directory: str, noted: bool) -> None:
    got, note = base_directory(base)
    assert got == directory and (note is not None) == noted


# ---------------------------------------------------------------- one rule, whatever the path

_LIST_URLS = st.one_of(
    _URLS,
    st.builds("https://a.example/{}".format, st.text("abz09-_/?=&%.~#", max_size=10)),
    st.builds("https://a.example/{}".format, _PATHS),
)


@given(st.lists(_LIST_URLS, max_size=20))
def test_batch_proofs_accept_only_what_normalize_url_leaves_unchanged(locs: list[str]) -> None:
    text = "".join(loc + "\n" for loc in locs)
    if locs and all_normalized(locs):
        assert all(_norm(loc) == loc for loc in locs)
    if text.isascii() and locs:
        unclean_bytes = len(text.encode().translate(None, CLEAN_BYTES))
        if proven_clean(text, len(locs), unclean_bytes) is not None:
            assert all(_norm(loc) == loc for loc in locs)


def _through_text_reader(lines: list[str], eol: str = "\n") -> tuple[list[str], Report]:
    data = "".join(line + eol for line in lines).encode("utf-8", "surrogatepass")
    report = Report()
    batches = read_text(io.BytesIO(data), "list.txt", report)
    return [loc for b in normalize(batches, report) for loc in b.locs], report


_TEXT_LINES = st.lists(st.one_of(
    _LIST_URLS.filter(lambda u: "\n" not in u and "\r" not in u and "\ud800" not in u),
    st.builds("https://a.example/{}".format, st.text("abz09-_/.", max_size=10))), max_size=30)


@pytest.mark.slow
@settings(deadline=None)
@given(_TEXT_LINES)
def test_text_reader_and_pipeline_give_normalize_urls_answer(lines: list[str]) -> None:
    """The text reader's clean-block path, the pipeline's batch proofs and normalize_url agree:
    each line comes out as normalize_url makes it, or is skipped (white space inside a line,
    or a URL normalize_url refuses)."""
    want = []
    for line in lines:
        loc = line.strip()
        if not loc or any(ch.isspace() for ch in loc):
            continue
        norm = _norm(loc)
        if norm is not None:
            want.append(norm)
    for many in (1, 500):  # a block small enough for the per-line path, and a clean-sized one
        got, _ = _through_text_reader(lines * many)
        assert got == want * many


# ---------------------------------------------------------------- converter and check agree


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_URLS.filter(lambda u: "\ud800" not in u), min_size=1, max_size=8),
       st.sampled_from(["out.xml", "out.txt", "out.rss", "out.atom"]))
def test_what_the_converter_writes_check_accepts(urls: list[str], name: str) -> None:
    """Whatever URLs come in, every file the converter writes passes ``check`` without an
    error, even with the scope check off (issue 19: control characters and IDNA in hosts)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.xml")
        with open(src, "w", encoding="utf-8") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
            for url in urls:
                esc = url.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                esc = "".join(c if c in "\t\n\r" or ord(c) >= 0x20 and c != "\x7f"
                              else f"&#{ord(c)};" for c in esc)
                f.write(f"<url><loc>{esc}</loc></url>\n")
            f.write("</urlset>\n")
        out = os.path.join(tmp, name)
        try:
            convert([src], out, scope_check=False)
        except Feed2SitemapError:
            return  # nothing written (every URL refused, or the input refused as a whole)
        errors = [d for d in check(out) if d.severity == "error"]
        assert errors == []


@pytest.mark.parametrize("url", [
    "https://example.com/p#comment-3", "https://user:pw@example.com/",
    "http://example.com\\@evil.com/", "https://ex\x01ample.com/", "https://example.com/a b",
    "https://example.com/%7e", "https://example.com/a/../b",
])
def test_what_check_calls_an_error_the_converter_skips_or_repairs(url: str) -> None:
    data = (url + "\n").encode()
    errors = [d for d in check(io.BytesIO(data)) if d.severity == "error"]
    norm = _norm(url)
    if errors:  # an error in check: the converter refuses the URL or writes another one
        assert norm is None or norm != url
    else:
        assert norm is not None


@pytest.mark.parametrize("line,want", [
    ("https://a.example/x/../y", "https://a.example/y"),
    ("https://a.example/x/./y", "https://a.example/x/y"),
    ("https://a.example/x/..", "https://a.example/"),
    ("https://a.example/p#c", "https://a.example/p"),
    ("https://a.example/%7e", "https://a.example/~"),
    ("https://a.example/%c3%a9", "https://a.example/%C3%A9"),
    ("https://a.example/%41", "https://a.example/A"),
    ("https://a.example/.well-known/x", "https://a.example/.well-known/x"),
])
@pytest.mark.parametrize("other", ["https://a.example/z", "https://b.example/z"])
def test_whole_blocks_of_clean_looking_lines_are_normalised(line: str, want: str,
                                                            other: str) -> None:
    """A block of one site (proven_clean) or of several (all_normalized) whose lines look clean to
    the character class still gets normalize_url's answer for each line."""
    got, _ = _through_text_reader([line, other] * 2000)
    assert got == [want, other] * 2000


def test_lone_carriage_returns_across_read_chunks_keep_line_numbers() -> None:
    lines = [f"https://example.com/{i:06d}" for i in range(60000)] + ["not one url"]
    messages: list[str] = []
    report = Report(on_message=messages.append)
    data = "".join(line + "\r" for line in lines).encode()
    batches = read_text(io.BytesIO(data), "mac.txt", report)
    got = [loc for b in normalize(batches, report) for loc in b.locs]
    assert got == lines[:-1]
    assert messages == ["mac.txt:60001: skipped: contains white space; a list holds one URL per "
                        "line (see the columns format)"]


_MIXED_LOCS = st.lists(st.one_of(
    _LIST_URLS,
    st.builds("https://a.example/{}".format, st.text("abz09-_/.%#é中 \t\n", max_size=12)),
    st.builds("https://a.example/{}".format, st.text("abz09-_/", max_size=12))), max_size=40)


@given(_MIXED_LOCS)
def test_normalize_locs_gives_normalize_urls_answer_for_each_url(locs: list[str]) -> None:
    """The batch paths of normalize_locs (the ASCII proof beside a few IRIs) give, URL by URL,
    what normalize_url gives, and refuse what it refuses."""
    for many in (1, 9):  # (9 copies: IRIs few enough beside clean ASCII URLs to take that path)
        batch = locs + ["https://a.example/plain"] * (len(locs) * many)
        got = normalize_locs(batch)
        refused = {i for i, _ in got.bad}
        kept = iter(got.clean.locs)
        # what the proof says of the site holds for every URL (the scope step trusts it)
        assert all(url.startswith(got.clean.prefix) for url in got.clean.locs)
        for i, loc in enumerate(batch):
            want = _norm(loc)
            assert (i in refused) == (want is None)
            if want is not None:
                assert next(kept) == want


def test_iris_among_one_sites_urls_keep_the_proof_of_the_site(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of one site's URLs with a few IRIs among them is known to be of that site
    after their paths are encoded: the scope step need not look at each URL."""
    monkeypatch.setenv(ENV, "")  # (the batch path, also in CI's run of the reference mode)
    locs = ["https://a.example/plain"] * 30 + ["https://a.example/café", "https://a.example/ü"]
    assert normalize_locs(locs).clean.prefix == "https://a.example/"
    other = locs + ["https://b.example/ß"]  # an IRI of another site: nothing said of the site
    assert normalize_locs(other).clean.prefix == ""


def test_iris_among_ascii_urls_are_encoded_by_the_batch_path() -> None:
    locs = ["https://a.example/plain"] * 30 + ["https://a.example/café/ü?q=ß", " https://a.example/é"]
    got = normalize_locs(locs)
    assert list(got.clean.locs[30:]) == ["https://a.example/caf%C3%A9/%C3%BC?q=%C3%9F",
                                   "https://a.example/%C3%A9"]
    assert list(got.clean.locs[:30]) == locs[:30] and not got.bad
