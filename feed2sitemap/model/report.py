"""Counting and reporting problems: nothing is dropped without a count and a message."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Optional

from ..errors import InputError, OptionError, Problem

# Past this many messages of one kind, further ones are only counted (the summary has them all)
MESSAGES_PER_KIND = 50
NAMES_SHOWN = 5  # files named per reason a site's file is left out (Report.exclude)


class Report:
    """Skipped records and warnings of one run: ``skip`` and ``warn`` count each under its
    ``kind``, pass it to ``on_problem`` and, the first MESSAGES_PER_KIND of a kind (which
    ``problems`` keeps), as ``source:line: text`` to ``on_message``. With ``strict`` every
    problem raises InputError instead."""

    def __init__(self, strict: bool = False,
                 on_message: Optional[Callable[[str], None]] = None,
                 on_problem: Optional[Callable[[Problem], None]] = None) -> None:
        for name, hook in (("on_message", on_message), ("on_problem", on_problem)):
            if hook is not None and not callable(hook):
                raise OptionError(f"must be a function or None, not {type(hook).__name__}",
                                  name)
        self.strict = strict
        self.on_message = on_message
        self.on_problem = on_problem
        self.problems: list[Problem] = []
        self.skipped: Counter[str] = Counter()
        self.warnings: Counter[str] = Counter()
        self.hosts_off_scope: Counter[str] = Counter()
        self.excluded: Counter[str] = Counter()  # left out by the user's rules, by rule
        self.dropped_tags: Counter[str] = Counter()  # deprecated extension tags left out
        self.excluded_names: dict[str, list[str]] = {}  # the first files of each (exclude)
        self.name_each = False  # exclude: a message for every file, not only the first few
        self._messages: Counter[str] = Counter()
        self._held: Optional[list[tuple[Optional[str], int, str]]] = None  # (hold)
        # for the summary: the site the first input stated and which input; the scope used and
        # where it came from ("--base-url", "the site link of FILE", "guessed from the first URL")
        self.site: Optional[str] = None
        self.site_source: Optional[str] = None
        self.scope: Optional[str] = None
        self.scope_from = ""

    def _emit(self, action: str, kind: str, source: Optional[str], line: Optional[int],
              text: str, url: Optional[str]) -> None:
        if self.strict:
            raise InputError(source, line, text + " (`strict`)")
        counted_only = self._counted_only(kind)
        self._messages[kind] += 1
        if counted_only:
            return  # a million bad lines build no million objects
        n = self._messages[kind]
        problem = Problem(action, kind, source, line, text, url)
        if self.on_problem is not None:
            self.on_problem(problem)
        if n > MESSAGES_PER_KIND:
            return
        self.problems.append(problem)
        if self.on_message is None:
            return
        where = source or "<input>"
        if line is not None:
            where += f":{line}"
        self._say(source, line, f"{where}: {action}: {text}")
        if n == MESSAGES_PER_KIND:
            self._say(source, line, f"{where}: further '{kind}' messages are counted, not shown")

    def _say(self, source: Optional[str], line: Optional[int], message: str) -> None:
        if self._held is not None:
            self._held.append((source, -1 if line is None else line, message))
        elif self.on_message is not None:
            self.on_message(message)

    def hold(self) -> None:
        """Hold the messages until ``release`` gives them in input order (each step reports a
        whole batch in turn: a later step's line 2 would come after an earlier step's line 9)."""
        if self._held is None:
            self._held = []

    def release(self, stop: bool = False) -> None:
        """Give the held messages in input order; with ``stop``, hold no more."""
        held = self._held
        if held is None:
            return
        self._held = None if stop else []
        if self.on_message is None:
            return
        files: dict[Optional[str], int] = {}
        held.sort(key=lambda m: (files.setdefault(m[0], len(files)), m[1]))
        for _, _, message in held:
            self.on_message(message)

    def _counted_only(self, kind: str) -> bool:
        return self._messages[kind] >= MESSAGES_PER_KIND and self.on_problem is None

    def note(self, text: str, source: Optional[str] = None) -> None:
        """Something the user should know that is no problem (not counted, even with strict)."""
        self._say(source, None, f"{source}: note: {text}" if source else f"note: {text}")

    def skip(self, kind: str, source: Optional[str], line: Optional[int], text: str,
             url: Optional[str] = None) -> None:
        """A record left out of the output."""
        self._emit("skipped", kind, source, line, text, url)
        self.skipped[kind] += 1

    def exclude(self, reason: str, name: str) -> None:
        """A file of a site left out by a rule (not HTML, noindex...): no problem, never an
        error; counted, the first NAMES_SHOWN names kept, each said with ``name_each``."""
        self.excluded[reason] += 1
        names = self.excluded_names.setdefault(reason, [])
        if len(names) < NAMES_SHOWN:
            names.append(name)
        if self.name_each and self.on_message is not None:
            self.on_message(f"{name}: left out: {reason}")

    def warn(self, kind: str, source: Optional[str], line: Optional[int], text: str,
             url: Optional[str] = None, count: int = 1) -> None:
        """Something was wrong but the record (perhaps less a field) was kept; ``count``: one
        message for that many records."""
        self._emit("warning", kind, source, line, text, url)
        self.warnings[kind] += count

    def warn_rows(self, kind: str, source: Optional[str], text: str, rows: Sequence[int],
                  lines: Sequence[Optional[int]], urls: Sequence[str]) -> None:
        """``warn`` for several records (``rows`` index ``lines`` and ``urls``); once the kind
        is only counted, the rest are counted at once."""
        for done, i in enumerate(rows):
            if self._counted_only(kind):  # (never with strict: the first warn raised)
                rest = len(rows) - done
                self._messages[kind] += rest
                self.warnings[kind] += rest
                return
            self.warn(kind, source, lines[i], text, url=urls[i] or None)

    @property
    def total_skipped(self) -> int:
        return sum(self.skipped.values())


class Progress:
    """How far a run has got: URLs read and files opened; ``on_update`` shows it."""

    def __init__(self, on_update: Optional[Callable[[Progress], None]] = None) -> None:
        self.urls = 0
        self.files = 0
        self.written = False  # the output files are in place (the run can no longer fail)
        self.on_update = on_update

    def read(self, n: int) -> None:
        self.urls += n
        if self.on_update is not None:
            self.on_update(self)

    def committed(self) -> None:
        self.written = True

    def opened(self) -> None:
        self.files += 1
        if self.on_update is not None:
            self.on_update(self)


@dataclass
class Submitted:
    """What an IndexNow submission sent (``Summary.indexnow``)."""

    requests: int = 0
    urls: int = 0
    bodies: list[dict[str, object]] = field(default_factory=list)  # with --dry-run
