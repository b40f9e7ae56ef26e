"""Where a page's lastmod comes from when the page itself does not say (``--lastmod-from``; the
README gives the rules a user sees).

**git**: the committer date of the last commit that touched the page's file (or, with
``source=DIR``, its source: _source_of), from one ``git log`` pass over the tree. The committer
date, not the author's: a change rebased or cherry-picked today is published today. Rename
detection is off (a moved page is a new URL); a merge commit dates nothing itself. A shallow
clone's oldest commit seems to add every file, so there every lastmod is None, with a warning.

**content**: a state file keeps, per page, a fingerprint of its main content and the lastmod
it gave; an unchanged page keeps it, a new or changed one gets the run's time
(``SOURCE_DATE_EPOCH``, else now). The file is JSON Lines sorted by path so that it diffs well
when committed: the header ``{"feed2sitemap-lastmods":1}``, then
``["PATH","FINGERPRINT","LASTMOD"]`` a page, the fingerprint cut to 16 hex digits (a changed
page goes unnoticed with odds of 1 in 2**64).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import IO, Optional

from ...errors import InputError, OptionError
from ...model.rules import format_lastmod, parse_lastmod

__all__ = ["KINDS", "LastmodSource", "lastmod_source"]

KINDS = ("git", "content")
STATE_VERSION = 1
_HEADER = "feed2sitemap-lastmods"
_KEPT_DIGITS = 16

# Pinned so that no user setting changes what log prints: unquoted names, the root commit's
# files listed, no signatures, paths from the top.
_GIT = ["git", "--no-pager", "--literal-pathspecs", "-c", "core.quotepath=off",
        "-c", "log.showRoot=true", "-c", "log.showSignature=false", "-c", "diff.relative=false"]

_SHALLOW = ("a shallow git clone: its history is cut short, so no page gets a lastmod from "
            "git (rather than the newest commit's date on every page). Fetch the whole "
            "history: with actions/checkout, set fetch-depth: 0; elsewhere, run "
            "git fetch --unshallow")


def lastmod_source(kind: str, root: str, *, source: Optional[str] = None,
                   state: Optional[str] = None) -> LastmodSource:
    """The lastmods of the site at ``root`` (its pages named by their paths under it):
    from git ("git", optionally from the source files under ``source``) or from the state
    file ``state`` ("content")."""
    if kind == "git":
        if state is not None:
            raise OptionError("goes with `lastmod_from` content only", "state")
        return GitLastmods(root, source)
    if kind == "content":
        if source is not None:
            raise OptionError("goes with `lastmod_from` git only", "source")
        if state is None:
            raise OptionError("needed by `lastmod_from` content: the file that keeps each "
                              "page's fingerprint and lastmod between runs", "state")
        return ContentLastmods(state)
    raise OptionError(f"{kind!r} is not one of: {', '.join(KINDS)}", "lastmod_from")


class LastmodSource:
    """Lastmods for the pages of one run; ``warnings``: what the run should say, each once."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def lastmod(self, rel: str, fingerprint: str) -> Optional[str]:
        """The W3C Datetime of the page at ``rel`` ("/"-separated, under the site's root)
        whose main content has the hex ``fingerprint``; None when there is none."""
        raise NotImplementedError

    def state_file(self) -> Optional[tuple[str, bytes]]:
        """After a successful run, what the next run needs: the file to replace and its bytes
        (None: nothing to keep). The caller writes it: readers lie below files/."""
        return None


class GitLastmods(LastmodSource):
    def __init__(self, root: str, source: Optional[str]) -> None:
        super().__init__()
        tree = root if source is None else source
        if not os.path.isdir(tree):
            raise OptionError(f"{tree}: no such directory",
                              "lastmod_from" if source is None else "source")
        self.source = source
        self.listings: dict[str, list[str]] = {}
        done = _git(["rev-parse", "--show-toplevel", "--is-shallow-repository"], tree)
        if done.returncode != 0:
            raise OptionError(f"git: {tree} is not in a git work tree (git says: "
                              f"{_said(done.stderr)})", "lastmod_from")
        top, shallow = os.fsdecode(done.stdout).rstrip("\n").rsplit("\n", 1)
        # the tree's path from the top, as log names files ("" at the top)
        self.prefix = os.path.relpath(os.path.realpath(tree), top).replace(os.sep, "/")
        self.prefix = "" if self.prefix == "." else self.prefix
        self.dates: dict[str, int] = {}
        if shallow == "true":
            self.warnings.append(_SHALLOW)
        else:
            self.dates = _log(top, self.prefix or ".")

    def lastmod(self, rel: str, fingerprint: str) -> Optional[str]:
        path = rel if self.source is None else self._source_of(rel)
        if path is None or not self.dates:
            return None
        stamp = self.dates.get(posixpath.join(self.prefix, path))
        return None if stamp is None else format_lastmod(datetime.fromtimestamp(stamp,
                                                                                 timezone.utc))

    def _source_of(self, rel: str) -> Optional[str]:
        """The source file of the page ``rel``: ``rel`` itself; then, for ``a/b.html`` or
        ``a/b/index.html``, ``a/b.EXT``, ``a/b/index.EXT``, ``a/b/_index.EXT`` (EXT any one
        extension, the first by name)."""
        head, name = posixpath.split(rel)
        if name in self._files(head):
            return rel
        stem = posixpath.splitext(rel)[0]
        if posixpath.basename(stem) == "index":
            stem = posixpath.dirname(stem)
        head, name = posixpath.split(stem)
        tries = [(head, name + ".")] if name else []
        for directory, prefix in tries + [(stem, "index."), (stem, "_index.")]:
            for found in self._files(directory):
                ext = found[len(prefix):]
                if found.startswith(prefix) and ext and "." not in ext:
                    return posixpath.join(directory, found)
        return None

    def _files(self, directory: str) -> list[str]:
        """The names of the files in a directory of the source tree, sorted (kept: pages
        share directories)."""
        names = self.listings.get(directory)
        if names is None:
            assert self.source is not None
            try:
                with os.scandir(os.path.join(self.source, directory)) as entries:
                    names = sorted(e.name for e in entries if e.is_file())
            except OSError:
                names = []
            self.listings[directory] = names
        return names


def _environment() -> dict[str, str]:
    """The caller's environment less git's own variables (GIT_DIR and the like would point
    elsewhere), in the C locale: the same output whoever runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(LC_ALL="C", LANGUAGE="C", GIT_TERMINAL_PROMPT="0")
    return env


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(_GIT + args, cwd=cwd, env=_environment(), capture_output=True,
                              stdin=subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        raise _no_git() from None


def _no_git() -> OptionError:
    return OptionError("git: not installed (not found on PATH), and it is git that dates "
                       "pages by their commits", "lastmod_from")


def _said(stderr: bytes) -> str:
    """git's first line of complaint, for a one-line message."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0].removeprefix("fatal: ") if lines else "git failed"


def _log(top: str, pathspec: str) -> dict[str, int]:
    """Each file's path from the top → the newest committer time (Unix) of the commits that
    touched it, from one ``git log`` read as it streams."""
    command = _GIT + ["log", "--format=%x00%ct", "--name-only", "-z", "--no-renames", "--",
                      pathspec]
    with tempfile.TemporaryFile() as errors:
        try:
            process = subprocess.Popen(command, cwd=top, env=_environment(),
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                       stderr=errors)
        except FileNotFoundError:
            raise _no_git() from None
        assert process.stdout is not None
        with process.stdout:
            try:
                dates = _dates(_tokens(process.stdout))
            except ValueError:  # (a time that is not one: a setting this module did not pin)
                process.kill()
                process.wait()
                raise OptionError(f"git log in {top} printed what it was not asked for",
                                  "lastmod_from") from None
        if process.wait() != 0:
            errors.seek(0)
            said = errors.read()
            if b"does not have any commits yet" in said:
                return {}
            raise OptionError(f"git log failed in {top}: {_said(said)}", "lastmod_from")
    return dates


def _tokens(stream: IO[bytes]) -> Iterator[bytes]:
    tail = b""
    while chunk := stream.read(1 << 20):
        *whole, tail = (tail + chunk).split(b"\0")
        yield from whole
    if tail:
        yield tail


def _dates(tokens: Iterator[bytes]) -> dict[str, int]:
    """Parse log's -z output: each commit is NUL, its time, NUL, then its files each ended by
    a NUL, the first after a newline; so an empty token is always followed by a time."""
    dates: dict[str, int] = {}
    stamp, header, first = 0, True, False
    for token in tokens:
        if not token:
            header = True
        elif header:
            stamp, header, first = int(token), False, True
        else:
            path = os.fsdecode(token[1:] if first and token.startswith(b"\n") else token)
            first = False
            if dates.get(path, -1) < stamp:
                dates[path] = stamp
    return dates


class ContentLastmods(LastmodSource):
    def __init__(self, state: str) -> None:
        super().__init__()
        self.path = state
        self.now = format_lastmod(_run_time())
        earlier = _read_state(state)
        self.earlier = earlier or {}
        self.kept: dict[str, tuple[str, str]] = {}
        self.changed = earlier is None
        if earlier is None:
            self.warnings.append(f"{state}: no state file yet: a first run, every page gets "
                                 f"this run's time ({self.now}) as its lastmod; keep the file "
                                 "for the next runs (commit it, or cache it in CI)")

    def lastmod(self, rel: str, fingerprint: str) -> Optional[str]:
        fingerprint = fingerprint[:_KEPT_DIGITS]
        was = self.earlier.get(rel)
        if was is not None and was[0] == fingerprint:
            lastmod = was[1]
        else:
            lastmod = self.now
            self.changed = True
        self.kept[rel] = (fingerprint, lastmod)
        return lastmod

    def state_file(self) -> Optional[tuple[str, bytes]]:
        # pages are only added (changed) or kept: fewer kept than before means some are gone
        if not self.changed and len(self.kept) == len(self.earlier):
            return None
        lines = [json.dumps({_HEADER: STATE_VERSION}, separators=(",", ":"))]
        lines += [json.dumps([rel, fingerprint, lastmod], separators=(",", ":"))
                  for rel, (fingerprint, lastmod) in sorted(self.kept.items())]
        return self.path, ("\n".join(lines) + "\n").encode("ascii")


def _run_time() -> datetime:
    """The time given to new and changed pages: SOURCE_DATE_EPOCH (reproducible builds'
    convention), else now; to the second."""
    text = os.environ.get("SOURCE_DATE_EPOCH")
    if text is None:
        return datetime.now(timezone.utc).replace(microsecond=0)
    try:
        if not re.fullmatch(r"[0-9]+", text):
            raise ValueError(text)
        return datetime.fromtimestamp(int(text), timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise OptionError(f"SOURCE_DATE_EPOCH={text!r} is not a time: it must be a whole "
                          "number of seconds since 1970-01-01 UTC") from None


def _read_state(path: str) -> Optional[dict[str, tuple[str, str]]]:
    """The pages of the state file at ``path``: {path: (fingerprint, lastmod)}; None when
    there is no such file yet."""
    try:
        f = open(path, encoding="utf-8")
    except FileNotFoundError:
        if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise OptionError(f"{path}: its directory does not exist", "state") from None
        return None
    except OSError as exc:
        raise InputError(path, None, f"cannot read the state file: {exc.strerror}") from None
    pages: dict[str, tuple[str, str]] = {}
    valid: set[str] = set()  # the lastmods parsed once (most pages share a few run times)
    number = 0
    with f:
        try:
            for number, line in enumerate(f, 1):
                if number == 1:
                    _check_header(path, line)
                    continue
                rel, fingerprint, lastmod = _entry(path, number, line, valid)
                if rel in pages:
                    raise _damaged(path, number, f"{rel} is listed twice")
                pages[rel] = (fingerprint, lastmod)
        except UnicodeDecodeError:
            raise _damaged(path, number + 1, "not UTF-8 text") from None
    if number == 0:
        raise _damaged(path, 1, "the file is empty (a missing file is a first run; an empty "
                                "one is no state file)")
    return pages


def _damaged(path: str, line: int, reason: str) -> InputError:
    return InputError(path, line, f"damaged state file: {reason}; mend it, or remove it to "
                                  "date every page afresh")


def _check_header(path: str, line: str) -> None:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or _HEADER not in header:
        raise _damaged(path, 1, f'no feed2sitemap state file: its first line must be '
                                f'{{"{_HEADER}":{STATE_VERSION}}}')
    if header[_HEADER] != STATE_VERSION:
        raise _damaged(path, 1, f"version {header[_HEADER]!r}: this feed2sitemap reads "
                                f"version {STATE_VERSION}")


def _entry(path: str, number: int, line: str, valid: set[str]) -> tuple[str, str, str]:
    try:
        value = json.loads(line)
    except ValueError as exc:
        raise _damaged(path, number, f"not JSON ({getattr(exc, 'msg', exc)})") from None
    if (isinstance(value, list) and len(value) == 3 and all(isinstance(v, str) for v in value)
            and value[0] and value[1]):
        try:
            if value[2] not in valid:
                parse_lastmod(value[2])
                valid.add(value[2])
            return value[0], value[1], value[2]
        except ValueError:
            pass
    raise _damaged(path, number, 'each line after the first must be ["PATH","FINGERPRINT",'
                                 '"LASTMOD"], LASTMOD a W3C Datetime')
