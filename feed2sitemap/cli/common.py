"""What the commands share: messages in the command line's terms, the progress line, and how
library errors and signals become exit codes (1 bad data, 2 bad usage, 130 Ctrl-C, 143 SIGTERM,
129 SIGHUP)."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from collections.abc import Callable
from importlib import import_module
from typing import Any, Optional

import click

from ..errors import Feed2SitemapError, OptionError
from ..files.store import is_store, shown
from ..model.report import Progress

PROG = "feed2sitemap"
PROGRESS_KEY = "feed2sitemap.progress"
_HELP = {"help_option_names": ["-h", "--help"]}


def command(name: Optional[str] = None) -> Callable[[Callable[..., Any]], click.Command]:
    """Every command's decorator: our Command class, and -h as well as --help."""
    return click.command(name, cls=Command, context_settings=_HELP)


# The subcommands and their modules, each imported by its own runs only (start-up time).
_MODULES = {"check": "check", "report": "report", "diff": "diff", "index": "main"}


def subcommand(args: list[str]) -> Callable[[], None]:
    """The run of the subcommand ``args`` begins with, else the converter's, its module imported
    now (by the console script while a signal still ends the process at once, entry.py)."""
    name = args[0] if args and args[0] in _MODULES else None
    module = import_module(f".{_MODULES.get(name or '', 'main')}", __package__)
    command = getattr(module, f"{name or 'convert'}_command")

    def run() -> None:
        prepare_process()
        command.main(args[1:] if name else args, prog_name=f"{PROG} {name}" if name else PROG)

    return run


def check_stdin(files: tuple[str, ...], follow: bool) -> None:
    """check's and report's usage errors about stdin among the FILEs."""
    if files.count("-") > 1:
        raise click.UsageError("stdin (-) can be read only once")
    if follow and "-" in files:
        raise click.UsageError("--follow needs the index as a file or URL: its parts are "
                               "found beside it, and stdin (-) has no directory")


class Terminated(BaseException):
    """SIGTERM, or SIGHUP (a closed terminal or ssh session), raised in the main thread so
    that temporaries are removed on the way out, as they are for Ctrl-C."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


class Interrupted(BaseException):
    """Ctrl-C in the console script's process (see entry.py). Not KeyboardInterrupt: click
    turns that into "Aborted!" and exit 1 while it parses the options."""


class StdoutGone(BaseException):
    """stdout's reader has gone (`feed2sitemap ... | head -1`); not an Exception, which click
    would turn into exit 1."""


# The run's state for the signal handler: "running" (a signal raises, once), "stopping" (the
# first one is being handled: the cleanup runs to its end, later signals are ignored) or
# "done" (the output is in place: a signal changes nothing).
_run_state = "running"


def on_signal(signum: int, frame: object) -> None:
    """Raise Interrupted for SIGINT, Terminated for the others, the first time only: a second
    Ctrl-C must not cut short the removal of the temporaries."""
    global _run_state
    if _run_state == "running":
        _run_state = "stopping"
        raise Interrupted if signum == signal.SIGINT else Terminated(signum)


def start_run(signums: tuple[int, ...]) -> None:
    """``signums`` raise from now on (the console script's command is about to run)."""
    global _run_state
    _run_state = "running"
    sys.unraisablehook = _unraisable
    for signum in signums:
        signal.signal(signum, on_signal)


def _unraisable(args: Any) -> None:
    """A signal's exception raised in a finalizer (a generator closed by the collector) cannot
    leave it: Python would print it and go on. The signal is sent again, from another thread a
    moment later (from here its handler would raise inside this hook again)."""
    global _run_state
    exc = args.exc_value
    if isinstance(exc, (Interrupted, Terminated)) and _run_state == "stopping":
        import threading

        _run_state = "running"
        signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
        threading.Timer(0.01, os.kill, (os.getpid(), signum)).start()
        return
    sys.__unraisablehook__(args)


def end_run() -> None:
    global _run_state
    _run_state = "done"


def prepare_process() -> None:
    """SIGTERM and SIGHUP end a command's process as Ctrl-C does; the modules loaded so far are
    moved out of the collector's sight, so its full collections walk only what the run holds."""
    import gc

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    gc.freeze()


def unwrapped_signal(exc: RuntimeError) -> Optional[BaseException]:
    """The Ctrl-C or SIGTERM inside ``exc``: Python 3.11 wraps what is raised while a class is
    being made (a module imported when first used) in a RuntimeError."""
    cause = exc.__cause__
    return cause if isinstance(cause, (KeyboardInterrupt, Interrupted, Terminated)) else None


def signal_code(exc: BaseException) -> Optional[int]:
    """The exit code of a run a signal ended (128 + its number), None for other exceptions."""
    if isinstance(exc, RuntimeError):
        caught = unwrapped_signal(exc)
        return None if caught is None else signal_code(caught)
    if isinstance(exc, (KeyboardInterrupt, Interrupted)):
        return 130
    if isinstance(exc, Terminated):
        return 128 + exc.signum
    return None


def on_disk(*arguments: str, **options: Optional[str]) -> None:
    """Refuse, in a line, a URL of object storage given for a file or folder that is read and
    written in place on this machine (an option's name as the keyword)."""
    for option, path in [*((None, a) for a in arguments), *options.items()]:
        if path is not None and is_store(path):
            raise OptionError(f"{shown(path)}: must be on this machine's disk, not in object "
                              "storage: give a local path", option)


def say(text: str) -> None:
    click.echo(f"{PROG}: {render(text)}", err=True)


# The library names a parameter between backticks, alone or with the value a hint means
# (errors.py); the command line shows the option that sets it. Those no option of the same
# name sets:
_OPTION_OF = {"scope_check": "--no-scope-check", "scope_check=False": "--no-scope-check",
              "atomic": "--no-atomic", "atomic=False": "--no-atomic",
              "follow=True": "--follow", "gzip=True": "--gzip", "gzip=False": "--no-gzip",
              "dedupe_mode": "--merge/--keep-first/--no-dedupe", "output": "-o/--output",
              "remove": "--remove"}


_NAME = re.compile(r"`([a-z][a-z_]*(?:=\w+)?)`")


def render(text: str) -> str:
    """A library message in the command line's terms: `base_url` becomes --base-url. A hint in
    parentheses naming a parameter this command has no option for (check and diff fetch
    without --allow-private-redirects) is left out: the user could not act on it."""
    if "`" not in text:
        return text
    ctx = click.get_current_context(silent=True)
    options = dict(_OPTION_OF)
    for param in ctx.command.params if ctx is not None else ():
        if isinstance(param, click.Option) and param.name:
            options[param.name] = "/".join(o for o in param.opts if o.startswith("--"))
    text = re.sub(r" \([^()`]*`[^()]*\)", lambda m: m[0] if all(
        n in options for n in _NAME.findall(m[0])) else "", text)
    return _NAME.sub(lambda m: options.get(m[1], m[0]), text)


class ProgressLine:
    """A one-line progress display on a terminal's stderr, for runs longer than a delay (2 s; 1 s
    for check and report, which have no output to watch grow), redrawn at most every quarter
    second and cleared before any other message and at the end, so nothing of it stays."""

    def __init__(self, command: str = "", delay: str = "2") -> None:
        self.prog = f"{PROG} {command}" if command else PROG
        self.delay = float(os.environ.get("FEED2SITEMAP_PROGRESS_DELAY", delay))
        self.start = time.monotonic()
        self.drawn_at = 0.0
        self.shown = False

    def update(self, progress: Progress) -> None:
        """The converter's line: URLs read, files written."""
        elapsed = self._due()
        if elapsed is not None:
            self._draw(f"{progress.urls:,} URLs read, {progress.files} "
                       f"file{'s' if progress.files != 1 else ''} written, "
                       f"{progress.urls / elapsed if elapsed else 0.0:,.0f} URLs/s")

    def checked(self, stats: Any) -> None:
        """check's and report's line: entries (URLs and sitemaps) and files read."""
        elapsed = self._due()
        if elapsed is not None:
            urls = stats.urls + stats.sitemaps
            self._draw(f"{urls:,} entries read in {count(stats.files, 'file')}, "
                       f"{urls / elapsed if elapsed else 0.0:,.0f}/s")

    def _due(self) -> Optional[float]:
        """The seconds since the start when the line is to be drawn now, else None."""
        now = time.monotonic()
        if now - self.start < self.delay or now - self.drawn_at < 0.25:
            return None
        self.drawn_at = now
        return now - self.start

    def _draw(self, text: str) -> None:
        sys.stderr.write(f"\r\x1b[K{self.prog}: {text}")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.shown = False

    def say(self, text: str) -> None:
        self.clear()
        say(text)


def count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


class _Failed(click.ClickException):
    """A library error, shown as `feed2sitemap: FILE:LINE: what is wrong`, with its exit code."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # a ClassVar in click's stubs

    def show(self, file: Any = None) -> None:
        say(self.message)


class Command(click.Command):
    """A click command that turns the library's errors and signals into messages and exit codes
    instead of tracebacks."""

    def invoke(self, ctx: click.Context) -> Any:
        progress = ctx.meta.setdefault(PROGRESS_KEY, Progress())
        try:
            result = super().invoke(ctx)
            end_run()  # done: a signal from here on finds the output in place
            return result
        except Feed2SitemapError as exc:
            raise _Failed(render(str(exc)), 2 if isinstance(exc, OptionError) else 1) from None
        except BrokenPipeError:
            raise StdoutGone from None
        except (KeyboardInterrupt, Interrupted, Terminated, RuntimeError) as exc:
            code = signal_code(exc)
            if code is None:  # (a RuntimeError that is no signal)
                raise
            # Signals are held while files are put in place (deferred_signals), so either
            # all of the output is in place or none of it.
            how = {130: "interrupted", 129: "hung up"}.get(code, "terminated")
            raise _Failed(f"{how} after the output was written" if progress.written
                          else f"{how}; nothing was written", code) from None
