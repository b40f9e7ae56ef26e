from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap.model.scope import scope_of
from feed2sitemap.model.urls import normalize_url


@pytest.mark.parametrize("raw,expected", [
    ("https://example.com/", "https://example.com/"),
    ("  https://example.com/a  ", "https://example.com/a"),
    ("HTTPS://EXAMPLE.COM/Path", "https://example.com/Path"),  # the path keeps its case
    ("https://example.com", "https://example.com/"),
    ("https://example.com?q=1", "https://example.com/?q=1"),
    ("http://example.com:80/a", "http://example.com/a"),
    ("https://example.com:443/a", "https://example.com/a"),
    ("https://example.com:8443/a", "https://example.com:8443/a"),
    ("https://example.com/a b", "https://example.com/a%20b"),
    ("https://example.com/café", "https://example.com/caf%C3%A9"),
    ("https://example.com/%C3%A9", "https://example.com/%C3%A9"),  # never double-encoded
    ("https://example.com/100%", "https://example.com/100%25"),  # a lone % is encoded
    ("https://example.com/a%zz", "https://example.com/a%25zz"),
    ('https://example.com/"<>\\^`{|}', "https://example.com/%22%3C%3E%5C%5E%60%7B%7C%7D"),
    ("https://example.com/a?x=1&y='2'", "https://example.com/a?x=1&y='2'"),
    ("https://bücher.example/straße", "https://xn--bcher-kva.example/stra%C3%9Fe"),
    ("https://example.com/维基?q=ä#frag", "https://example.com/%E7%BB%B4%E5%9F%BA?q=%C3%A4"),
    ("http://[::1]:8080/x", "http://[::1]:8080/x"),
])
def test_normalisation(raw: str, expected: str) -> None:
    assert normalize_url(raw) == expected


@pytest.mark.parametrize("raw", ["", "   ", "/relative/path", "example.com/page", "ftp://x.org/",
                                 "mailto:a@b.c", "https://", "http:///path", "javascript:alert(1)",
                                 "https://exa mple.com/"])
def test_not_absolute_http_urls_are_refused(raw: str) -> None:
    with pytest.raises(ValueError):
        normalize_url(raw)


URI_CHARS = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?#\[\]%]*")


@given(st.text(max_size=40))
def test_normalised_urls_are_ascii_uris_and_normalising_is_idempotent(path: str) -> None:
    try:
        url = normalize_url("https://example.com/" + path)
    except ValueError:
        return
    assert URI_CHARS.fullmatch(url)
    assert normalize_url(url) == url


@given(st.text(max_size=40).filter(lambda p: not set(p) & set("#%.")))
def test_encoding_agrees_with_urllib_quote(path: str) -> None:
    # the reference: urllib's quote with RFC 3986's reserved and unreserved characters safe,
    # then a "%" that starts no %XX escape encoded as %25 (fragments, escapes and dot segments,
    # which RFC 3986 section 6.2.2 rewrites, are the property tests' business below)
    path = path.strip()
    reference = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25",
                       quote(path, safe="-._~!$&'()*+,;=:@/?#%", errors="surrogatepass"))
    assert normalize_url("https://example.com/" + path) == "https://example.com/" + reference


def test_scope_of_a_base_url_is_its_directory() -> None:
    assert scope_of("https://example.com/blog/sitemap.xml").prefix == "https://example.com/blog/"
    assert scope_of("https://Example.com/blog/").prefix == "https://example.com/blog/"
    assert scope_of("https://example.com").prefix == "https://example.com/"
    assert scope_of("https://example.com/blog/x", directory=False).prefix == \
        "https://example.com/"
