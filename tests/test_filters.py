"""The rules of --include/--exclude globs, --remove lists and --max-removals (issue 34)."""

from __future__ import annotations

import io

import pytest

from feed2sitemap.errors import InputError, OptionError
from feed2sitemap.model.filters import Filters, Threshold, read_remove_files


@pytest.mark.parametrize("glob, url, excluded", [
    ("/tags/**", "https://e.com/tags/", True),
    ("/tags/**", "https://e.com/tags/a/b/", True),
    ("/tags/**", "https://e.com/tags", False),          # the directory's own page stays
    ("/tags/**", "https://e.com/blog/tags/a", False),
    ("/private/*", "https://e.com/private/a", True),
    ("/private/*", "https://e.com/private/a/b", False),  # * stays within a segment
    ("/docs/**/draft-*", "https://e.com/docs/draft-1", True),
    ("/docs/**/draft-*", "https://e.com/docs/a/b/draft-1", True),
    ("*.pdf", "https://e.com/x/y/report.pdf", True),     # no slash: any depth
    ("*.pdf", "https://e.com/report.pdf.html", False),
    ("blog/*", "https://e.com/blog/a", True),            # a slash: from the root
    ("/search?*", "https://e.com/search?q=a", True),     # the query is matched too
    ("/search", "https://e.com/search?q=a", False),
    ("/café/*", "https://e.com/caf%C3%A9/menu", True),   # written as the address reads
    ("https://e.com/a/*", "https://e.com/a/b", True),    # a whole URL
    ("https://e.com/a/*", "https://f.com/a/b", False),
])
def test_exclude_globs(glob: str, url: str, excluded: bool) -> None:
    assert (Filters(exclude=(glob,)).why_left_out(url) is not None) is excluded


def test_include_keeps_only_matches_and_exclude_wins() -> None:
    rules = Filters(include=("/blog/**", "/"), exclude=("/blog/drafts/**",))
    assert rules.why_left_out("https://e.com/") is None
    assert rules.why_left_out("https://e.com/blog/a") is None
    assert rules.why_left_out("https://e.com/about") == "no --include matches"
    assert rules.why_left_out("https://e.com/blog/drafts/x") == "--exclude /blog/drafts/**"


def test_empty_filters_keep_everything() -> None:
    assert not Filters()
    assert Filters().why_left_out("https://e.com/anything") is None
    with pytest.raises(OptionError):
        Filters(exclude=("  ",))


def test_remove_list(tmp_path: object) -> None:
    text = "# gone\n\nHTTPS://E.com/a\n  https://e.com/b#top  \n"
    urls = read_remove_files([io.StringIO(text)])
    assert urls == {"https://e.com/a", "https://e.com/b"}
    rules = Filters(remove=urls)
    assert rules.why_left_out("https://e.com/a") == "listed by --remove"
    with pytest.raises(InputError) as bad:
        read_remove_files([io.StringIO("https://e.com/a\n/relative\n")])
    assert bad.value.line == 2


def test_remove_file_missing_is_a_usage_error(tmp_path: object) -> None:
    with pytest.raises(OptionError):
        read_remove_files(["/nonexistent/remove.txt"])


@pytest.mark.parametrize("text, earlier, allowed", [
    ("10%", 1000, 100), ("10%", 99, 9), ("0", 1000, 0), ("250", 10, 250),
    ("100%", 7, 7), ("0.5%", 1000, 5),
])
def test_threshold(text: str, earlier: int, allowed: int) -> None:
    assert Threshold.parse(text).allowed(earlier) == allowed


@pytest.mark.parametrize("text", ["", "ten", "-1", "101%", "5 %x", "1e3"])
def test_threshold_refuses(text: str) -> None:
    with pytest.raises(OptionError):
        Threshold.parse(text)
