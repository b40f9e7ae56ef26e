"""Lastmods of a built site's pages from git history and from content fingerprints
(readers/site/lastmod.py), on real repositories and state files."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from feed2sitemap.errors import InputError, OptionError
from feed2sitemap.files.safety import replace_file
from feed2sitemap.readers.site.lastmod import lastmod_source

from .conftest import run

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENV = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
       "GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
       "GIT_COMMITTER_NAME": "C", "GIT_COMMITTER_EMAIL": "c@example.com",
       "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(cwd: Path, *args: str, date: str | None = None, author_date: str | None = None) -> None:
    env = dict(ENV)
    if date is not None:
        env["GIT_COMMITTER_DATE"] = date
        env["GIT_AUTHOR_DATE"] = author_date or date
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                    *args], cwd=cwd, env=env, check=True, capture_output=True)


def commit(repo: Path, date: str, author_date: str | None = None) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", date, date=date, author_date=author_date)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A site committed at known dates: a rename, a subdirectory, a name with a space and
    one not ASCII, an author date unlike its committer date."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write(repo / "README", "not a page")
    write(repo / "site/index.html", "home")
    write(repo / "site/old.html", "moved later")
    commit(repo, "2020-01-01T00:00:00Z")
    write(repo / "site/a page.html", "space")
    write(repo / "site/sub/été.html", "accents")
    commit(repo, "2021-02-03T04:05:06+02:00")
    git(repo, "mv", "site/old.html", "site/new.html")
    commit(repo, "2022-03-04T05:06:07Z")
    write(repo / "site/index.html", "home, again")
    commit(repo, "2023-05-06T07:08:09Z", author_date="2019-01-01T00:00:00Z")
    write(repo / "README", "a later change outside the site")
    commit(repo, "2024-01-01T00:00:00Z")
    return repo


def test_git_gives_each_page_its_last_commit(repo: Path) -> None:
    write(repo / "site/untracked.html", "never committed")
    write(repo / "site/a page.html", "changed, not committed")
    dates = lastmod_source("git", str(repo / "site"))
    assert dates.warnings == []
    got = {rel: dates.lastmod(rel, "ignored") for rel in
           ["index.html", "a page.html", "sub/été.html", "new.html", "untracked.html"]}
    assert got == {
        "index.html": "2023-05-06T07:08:09+00:00",  # the committer's date, not the author's
        "a page.html": "2021-02-03T02:05:06+00:00",  # in UTC; the last commit's date
        "sub/été.html": "2021-02-03T02:05:06+00:00",
        "new.html": "2022-03-04T05:06:07+00:00",  # a renamed page: dated by the rename
        "untracked.html": None,
    }


def test_git_dates_the_pages_by_their_source_files(repo: Path) -> None:
    content = repo / "content"
    for name in ["_index.md", "about.md", "posts/_index.md", "posts/hello/index.md",
                 "logo.png", "posts/draft.md"]:
        write(content / name, name)
    commit(repo, "2025-06-07T08:09:10Z")
    write(content / "about.md", "edited")
    commit(repo, "2025-07-08T09:10:11Z")
    public = repo / "public"  # built, not committed
    dates = lastmod_source("git", str(public), source=str(content))
    got = {rel: dates.lastmod(rel, "") for rel in
           ["index.html", "about/index.html", "about.html", "posts/index.html",
            "posts/hello/index.html", "logo.png", "tags/index.html"]}
    assert got == {"index.html": "2025-06-07T08:09:10+00:00",
                   "about/index.html": "2025-07-08T09:10:11+00:00",
                   "about.html": "2025-07-08T09:10:11+00:00",
                   "posts/index.html": "2025-06-07T08:09:10+00:00",
                   "posts/hello/index.html": "2025-06-07T08:09:10+00:00",
                   "logo.png": "2025-06-07T08:09:10+00:00",
                   "tags/index.html": None}


def test_a_shallow_clone_gives_no_dates_and_one_warning(repo: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", repo.as_uri(), str(clone))
    dates = lastmod_source("git", str(clone / "site"))
    assert [dates.lastmod(rel, "") for rel in ["index.html", "new.html", "sub/été.html"]] \
        == [None, None, None]
    assert len(dates.warnings) == 1
    assert "shallow" in dates.warnings[0] and "fetch-depth: 0" in dates.warnings[0]


def test_git_outside_a_repository_or_without_git(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(OptionError, match="not in a git work tree"):
        lastmod_source("git", str(tmp_path))
    with pytest.raises(OptionError, match="no such directory"):
        lastmod_source("git", str(tmp_path), source=str(tmp_path / "missing"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OptionError, match="git: not installed"):
        lastmod_source("git", str(tmp_path))


def test_options_that_do_not_go_together(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="state"):
        lastmod_source("content", str(tmp_path))
    with pytest.raises(OptionError, match="source"):
        lastmod_source("content", str(tmp_path), source=str(tmp_path), state="s")
    with pytest.raises(OptionError, match="lastmod_from"):
        lastmod_source("mtime", str(tmp_path))


def dated(state: Path, pages: dict[str, str], epoch: int,
        monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, str | None], list[str]]:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(epoch))
    dates = lastmod_source("content", str(state.parent), state=str(state))
    got = {rel: dates.lastmod(rel, fingerprint) for rel, fingerprint in pages.items()}
    kept = dates.state_file()
    if kept is not None:
        replace_file(*kept)
    return got, dates.warnings


FIRST, LATER = "2001-09-09T01:46:40+00:00", "2033-05-18T03:33:20+00:00"


def test_content_moves_only_the_pages_whose_content_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "lastmods.jsonl"
    pages = {"index.html": "aa" * 32, "a/é b.html": "bb" * 32, "gone.html": "cc" * 32}
    got, warnings = dated(state, pages, 1_000_000_000, monkeypatch)
    assert got == dict.fromkeys(pages, FIRST)
    assert len(warnings) == 1 and "first run" in warnings[0]
    pages = {"index.html": "aa" * 32, "a/é b.html": "dd" * 32, "new.html": "ee" * 32}
    got, warnings = dated(state, pages, 2_000_000_000, monkeypatch)
    assert got == {"index.html": FIRST, "a/é b.html": LATER, "new.html": LATER}
    assert warnings == []
    lines = state.read_text(encoding="ascii").splitlines()
    assert lines[0] == '{"feed2sitemap-lastmods":1}'
    assert len(lines) == 4 and "gone.html" not in state.read_text()  # the page gone is dropped
    before = state.stat()
    got, _ = dated(state, pages, 2_100_000_000, monkeypatch)
    assert got == {"index.html": FIRST, "a/é b.html": LATER, "new.html": LATER}
    after = state.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # unwritten


def test_source_date_epoch_must_be_whole_seconds(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ["", "1.5", "-1", "soon", "9" * 30]:
        monkeypatch.setenv("SOURCE_DATE_EPOCH", bad)
        with pytest.raises(OptionError, match="SOURCE_DATE_EPOCH"):
            lastmod_source("content", str(tmp_path), state=str(tmp_path / "s"))


@pytest.mark.parametrize(("text", "line", "says"), [
    ('{"feed2sitemap-lastmods":1}\n["a.html","ff","2020-01-01"]\n["b.html",', 3, "not JSON"),
    ('{"feed2sitemap-lastmods":2}\n', 1, "version 2"),
    ('["a.html","ff","2020-01-01"]\n', 1, "first line"),
    ('{"feed2sitemap-lastmods":1}\n["a.html",1,"2020-01-01"]\n', 2, "PATH"),
    ('{"feed2sitemap-lastmods":1}\n["a.html","ff","yesterday"]\n', 2, "W3C"),
    ('{"feed2sitemap-lastmods":1}\n["a","f","2020-01-01"]\n["a","f","2020-01-01"]\n', 3, "twice"),
    ("", 1, "empty"),
])
def test_a_damaged_state_file_is_an_error_not_a_reset(tmp_path: Path, text: str, line: int,
                                                      says: str) -> None:
    state = tmp_path / "state.jsonl"
    state.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=says) as caught:
        lastmod_source("content", str(tmp_path), state=str(state))
    assert (caught.value.source, caught.value.line) == (str(state), line)
    assert state.read_text(encoding="utf-8") == text


def test_the_state_file_is_replaced_atomically_keeping_its_mode_and_link(
        tmp_path: Path) -> None:
    real = tmp_path / "kept" / "state.jsonl"
    real.parent.mkdir()
    real.write_text('{"feed2sitemap-lastmods":1}\n["a.html","ff","2020-01-01"]\n')
    real.chmod(0o640)
    link = tmp_path / "state-link.jsonl"
    link.symlink_to(real)
    for name in ("a.html", "b.html"):
        write(tmp_path / "site" / name, f"<html><body><main>{name}</main></body></html>")
    done = run(str(tmp_path / "site"), "--base-url", "https://example.com/", "--lastmod-from",
               "content", "--state", str(link), "-o", str(tmp_path / "sitemap.xml"),
               env={**os.environ, "SOURCE_DATE_EPOCH": "1000000000"})
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert os.listdir(real.parent) == ["state.jsonl"]  # no temporary left
    rows = [json.loads(line) for line in real.read_text().splitlines()[1:]]
    assert [(rel, lastmod) for rel, _, lastmod in rows] == [("a.html", FIRST), ("b.html", FIRST)]
    with pytest.raises(OptionError, match="directory does not exist"):
        lastmod_source("content", str(tmp_path), state=str(tmp_path / "no" / "state"))
