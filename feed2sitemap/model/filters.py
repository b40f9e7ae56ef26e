"""Which URLs a run keeps: ``--include``/``--exclude`` globs, ``--remove`` lists, and the
mass-removal guard's threshold (``--max-removals``).

A glob is matched against a URL's decoded path and query (``/café?p=2``): ``*`` within one
segment, ``**`` across segments, any other character itself (``?`` and ``[`` too: they are
common in URLs). Without a ``/`` it matches the last segment at any depth (``*.pdf``); one
starting ``http://`` or ``https://`` is matched against the whole URL."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Optional, Union

from ..errors import InputError, OptionError
from .urls import normalize_url


def compile_glob(pattern: str) -> re.Pattern[str]:
    """The regular expression a glob stands for; OptionError when it is empty."""
    if not pattern.strip():
        raise OptionError("an empty --include/--exclude pattern matches nothing", "exclude")
    whole_url = pattern.startswith(("http://", "https://"))
    if not whole_url and "/" not in pattern:
        pattern = "**/" + pattern
    elif not whole_url and not pattern.startswith("/"):
        pattern = "/" + pattern
    out = []
    for i, part in enumerate(re.split(r"(\*\*/?|\*)", pattern)):
        if i % 2 == 0:
            out.append(re.escape(part))
        elif part == "*":
            out.append("[^/]*")
        elif part == "**/":
            out.append("(?:.*/)?")  # zero or more whole segments
        else:
            out.append(".*")
    return re.compile("".join(out), re.DOTALL)


def _path_of(loc: str) -> str:
    """A normalised URL's path and query, decoded."""
    from urllib.parse import unquote  # (a run with globs only: start-up time)

    start = loc.find("/", loc.find("://") + 3)
    return unquote(loc[start:]) if start >= 0 else "/"


@dataclass(frozen=True)
class Filters:
    """What a run leaves out of its output, by rule. Empty: every URL is kept."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    remove: frozenset[str] = frozenset()  # normalised URLs
    _include: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)
    _exclude: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("include", "exclude", "remove"):
            if isinstance(getattr(self, name), str):  # (else one pattern per character)
                raise OptionError(f"must be a tuple of patterns or URLs, not a str (give "
                                  f"({getattr(self, name)!r},))", name)
        object.__setattr__(self, "_include", tuple(map(compile_glob, self.include)))
        object.__setattr__(self, "_exclude", tuple(map(compile_glob, self.exclude)))

    def __bool__(self) -> bool:
        return bool(self.include or self.exclude or self.remove)

    def why_left_out(self, loc: str) -> Optional[str]:
        """None when ``loc`` (normalised) is kept, else the rule that leaves it out."""
        if loc in self.remove:
            return "listed by --remove"
        if not (self._include or self._exclude):
            return None
        path = _path_of(loc)
        for pattern, glob in zip(self._exclude, self.exclude, strict=True):
            if pattern.fullmatch(loc if glob.startswith("http") else path):
                return f"--exclude {glob}"
        if self._include and not any(
                pattern.fullmatch(loc if glob.startswith("http") else path)
                for pattern, glob in zip(self._include, self.include, strict=True)):
            return "no --include matches"
        return None


def read_url_list(lines: Iterable[str], name: str) -> Iterator[str]:
    """The URLs of a ``--remove`` list (blank lines and ``#`` comments skipped), normalised;
    InputError for a line that is no http(s) URL: a list that names no page must not pass."""
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            yield normalize_url(text)
        except ValueError as exc:
            raise InputError(name, number, f"not a URL to remove: {exc}") from None


def read_remove_files(files: Iterable[Union[str, IO[str]]]) -> frozenset[str]:
    """Every URL the ``--remove`` files name (a path, or an open text stream such as stdin)."""
    urls: set[str] = set()
    for f in files:
        if isinstance(f, str):
            try:
                with open(f, encoding="utf-8-sig") as handle:
                    urls.update(read_url_list(handle, f))
            except OSError as exc:
                raise OptionError(f"cannot read {f}: {exc.strerror}", "remove") from None
            except UnicodeDecodeError:
                raise InputError(f, None, "not UTF-8 text") from None
        else:
            urls.update(read_url_list(f, getattr(f, "name", "<stdin>")))
    return frozenset(urls)


@dataclass(frozen=True)
class Threshold:
    """A number of URLs allowed: a count, or a percentage of the earlier output's (or OLD's)
    URLs, rounded down (``--max-removals``, diff's gates)."""

    count: Optional[int] = None
    percent: Optional[float] = None

    @classmethod
    def parse(cls, text: str, option: str = "max_removals") -> Threshold:
        """ "25%" or "1000"; OptionError otherwise."""
        value = text.strip()
        try:
            if value.endswith("%") and 0 <= float(value[:-1]) <= 100:
                return cls(None, float(value[:-1]))
            if value.isdigit():
                return cls(int(value), None)
        except ValueError:
            pass
        raise OptionError(f"takes a count (500) or a percentage (25%), not {text!r}", option)

    def allowed(self, earlier: int) -> int:
        if self.count is not None:
            return self.count
        return int(earlier * (self.percent or 0.0) / 100)

    def __str__(self) -> str:
        return str(self.count) if self.count is not None else f"{self.percent:g}%"


MAX_REMOVALS = Threshold(percent=10.0)
