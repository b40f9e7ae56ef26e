"""check on a split set as a pre-commit hook sees it (issue 36, item 2) and on URLs (item 10),
through the installed command: each file checked once however it is reached, the shipped hook
run by the real pre-commit in a temporary repository, indexes and parts fetched from a server on
127.0.0.1."""

from __future__ import annotations

import gzip
import json
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT, command, run
from .test_check_ci import _index, _urlset
from .test_web import Server, body, env

SITE = "https://example.com/"


def _split(public: Path, n: int, tmp_path: Path) -> list[Path]:
    """The converter's split set of ``n`` URLs, 4 a part: the index last, as a shell lists it."""
    src = tmp_path / "urls.txt"
    src.write_bytes(b"".join(b"%sp/%d\n" % (SITE.encode(), i) for i in range(n)))
    public.mkdir(exist_ok=True)
    assert run(str(src), "-o", str(public / "sitemap.xml"), "--max-urls", "4",
               "--base-url", SITE).returncode == 0
    return sorted(public.glob("sitemap*.xml"))


def _diags(stdout: bytes) -> list[tuple[str, str, int, str]]:
    return [(Path(d["file"]).name, d["rule"], d["line"], d["message"])
            for d in json.loads(stdout)]


def test_an_index_given_with_its_parts_checks_each_file_once(tmp_path: Path) -> None:
    public = tmp_path / "public"
    files = _split(public, 9, tmp_path)
    assert [f.name for f in files] == ["sitemap-1.xml", "sitemap-2.xml", "sitemap-3.xml",
                                       "sitemap.xml"]
    # what the hook passed for a regenerated set, the index again, and a part spelt another way
    again = [str(public / "sitemap.xml"), str(public / "." / "sitemap-1.xml")]
    result = run("check", "--follow", "--fail-on", "warning", "--format", "json",
                 *map(str, files), *again)
    assert (result.returncode, json.loads(result.stdout)) == (0, [])
    assert b"4 files checked, 9 URLs, 3 sitemaps listed in indexes, 0 errors, 0 warnings" \
        in result.stderr
    # a true duplicate in another file still names the part it is in
    extra = tmp_path / "extra.txt"
    extra.write_bytes(f"{SITE}p/5\n{SITE}q\n".encode())
    result = run("check", "--follow", "--format", "json", *map(str, files), str(extra))
    assert result.returncode == 0
    assert _diags(result.stdout) == [("extra.txt", "duplicate-across-files", 1,
                                      f"{SITE}p/5 is already listed in "
                                      f"{public / 'sitemap-2.xml'} on line 4")]
    # the parts are found through the index: robots.txt need name the index only
    robots = tmp_path / "robots.txt"
    robots.write_text(f"User-agent: *\nAllow: /\n\nSitemap: {SITE}sitemap.xml\n")
    result = run("check", "--follow", "--fail-on", "warning", "--base-url", SITE,
                 "--robots", str(robots), *map(str, files))
    assert (result.returncode, result.stdout) == (0, b"")


def test_an_index_of_indexes_given_before_its_index_is_still_a_part(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(_urlset(f"{SITE}a"))
    (tmp_path / "sub.xml").write_bytes(_index(f"{SITE}a.xml"))
    (tmp_path / "top.xml").write_bytes(_index(f"{SITE}sub.xml"))
    result = run("check", "--follow", "--format", "json",
                 *(str(tmp_path / n) for n in ("sub.xml", "a.xml", "top.xml")))
    assert result.returncode == 1
    assert [d[:3] for d in _diags(result.stdout)] == [("sub.xml", "nested-index", 2)]
    assert b"3 files checked, 1 URL, 2 sitemaps listed" in result.stderr


def _hook() -> dict[str, object]:
    """The shipped hook, as a local one running the installed command: the test installs
    nothing and reaches no network (``language: system``)."""
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    hook = dict(hooks[0])
    program, *rest = shlex.split(hook["entry"])
    assert program == "feed2sitemap"
    hook["entry"] = shlex.join(command() + rest)
    hook["language"] = "system"
    return hook


@pytest.mark.slow  # (seconds of CPU: the default run's budget)
def test_the_pre_commit_hook_refuses_a_commit_that_leaves_a_dangling_part(
        tmp_path: Path) -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (the test extra)")
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    import yaml

    repo = tmp_path / "site"
    repo.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    git_env = {**env(), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
               "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"),
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

    def git(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=repo, env=git_env, capture_output=True,
                              text=True, timeout=300)

    # the user's configuration, as the hook's comment says: the index named, and options
    hook = {**_hook(), "args": ["--fail-on", "warning", "public/sitemap.xml"]}
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
    (repo / "README").write_text("a site\n")
    assert git("init", "-q").returncode == 0
    installed = subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo,
                               env=git_env, capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stderr
    public = repo / "public"
    _split(public, 9, tmp_path)
    git("add", "-A")
    done = git("commit", "-q", "-m", "first set")
    assert done.returncode == 0, done.stdout + done.stderr
    # regenerated with more URLs: a new part beside the changed ones
    assert [p.name for p in _split(public, 13, tmp_path)][-2:] == ["sitemap-4.xml",
                                                                  "sitemap.xml"]
    git("add", "-A")
    done = git("commit", "-q", "-m", "regenerated")
    assert done.returncode == 0, done.stdout + done.stderr
    head = git("rev-parse", "HEAD").stdout
    # a commit that only deletes a part: no sitemap is staged, and the hook still runs
    git("rm", "-q", "public/sitemap-4.xml")
    done = git("commit", "-q", "-m", "lost a part")
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "follow-missing" in said and "sitemap-4.xml is missing" in said
    assert git("rev-parse", "HEAD").stdout == head


# --- check URL (item 10) ----------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[Server]:
    s = Server()
    yield s
    s.close()


def test_check_fetches_a_url(server: Server) -> None:
    server.routes["/sitemap.xml"] = body(
        _urlset(f"{SITE}a", f"{SITE}a").replace(b"</loc>", b"</loc><priority>2</priority>", 1))
    server.routes["/sitemap.xml.gz"] = body(gzip.compress(_urlset(f"{SITE}b")))
    url = server.url("/sitemap.xml")
    done = run("check", "--format", "json", url, server.url("/sitemap.xml.gz"), env=env())
    assert done.returncode == 1
    assert [(d["file"], d["rule"], d["line"]) for d in json.loads(done.stdout)] == [
        (url, "priority", 3), (url, "duplicate-loc", 4), (url, "changefreq-priority", 3)]
    assert b"2 files checked, 3 URLs, 1 error, 1 warning, 1 note" in done.stderr
    assert server.requests[0][2]["User-Agent"].startswith("feed2sitemap/")
    missing = server.url("/gone.xml")
    done = run("check", missing, env=env())
    assert done.returncode == 1
    assert done.stdout.decode() == f"{missing}:1:1: error: unreadable: HTTP 404 Not Found\n"


def test_check_follow_fetches_the_parts_of_a_remote_index(server: Server) -> None:
    index = server.url("/sitemap.xml")
    server.routes["/sitemap.xml"] = body(_index(
        server.url("/s-1.xml"), server.url("/s-2.xml"), server.url("/gone.xml"),
        "https://other.example/s-3.xml"))
    server.routes["/s-1.xml"] = body(_urlset(f"{SITE}a", f"{SITE}b"))
    server.routes["/s-2.xml"] = body(_urlset(f"{SITE}b"))
    done = run("check", "--follow", "--format", "json", index, server.url("/s-1.xml"),
               env=env())
    assert done.returncode == 1
    got = [(d["file"], d["rule"], d["line"], d["message"]) for d in json.loads(done.stdout)]
    assert got == [
        (index, "index-host", 6, f"https://other.example/s-3.xml is not on {server.base}; "
         "an index lists sitemaps of its own site"),
        (index, "follow-outside", 6, "https://other.example/s-3.xml is not under "
         f"{server.base}/, the index's directory"),
        (server.url("/s-2.xml"), "duplicate-across-files", 3,
         f"{SITE}b is already listed in {server.url('/s-1.xml')} on line 4"),
        (server.url("/gone.xml"), "unreadable", 1, "HTTP 404 Not Found")]
    assert b"4 files checked, 3 URLs, 4 sitemaps listed in indexes" in done.stderr
    # each part fetched once, though one was given too
    assert sorted(r[1] for r in server.requests) == ["/gone.xml", "/s-1.xml", "/s-2.xml",
                                                     "/sitemap.xml"]
    # an index served from elsewhere (a staging server) names the site's parts: not fetched
    server.routes["/staging.xml"] = body(_index(f"{SITE}s-1.xml"))
    done = run("check", "--follow", server.url("/staging.xml"), env=env())
    assert done.returncode == 1
    assert done.stdout.decode() == (
        f"{server.url('/staging.xml')}:3:10: error: follow-outside: {SITE}s-1.xml is not on "
        f"{server.base.partition('//')[2]}, the index's host: not fetched\n")
