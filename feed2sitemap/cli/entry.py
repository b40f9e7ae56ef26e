"""The console script's entry: tiny, so that a signal while the program is still loading ends
it with a message and its exit code (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP) rather than a
traceback from inside an import (issue 35, item 21)."""

from __future__ import annotations

import gc
import os
import signal
import sys

# The cyclic garbage collector's young generation holds 10,000 objects rather than 700 (and
# each older one 10 collections of the younger): a run makes millions of records, items and
# tuples, none of them in a cycle, and the default thresholds spent about 9% of a 1M-URL
# extension-rich run traversing them (memory was the same without the collector at all).
# The command's process only: a library user's program keeps its own thresholds.
_GC_THRESHOLDS = (10_000, 10, 10)
_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_HOW: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated",
                        signal.SIGHUP: "hung up"}


def _while_loading(signum: int, frame: object) -> None:
    """Before the command's own handlers (cli_common.on_signal) are in place nothing has been
    written and no temporary made: end at once, with the one line and the signal's code."""
    os.write(2, f"feed2sitemap: {_HOW.get(signum, 'stopped')}; nothing was written\n".encode())
    os._exit(128 + signum)


def _hold() -> None:
    # From here on no signal of the three meets Python's default (a traceback from inside an
    # import, exit 1; SIGHUP and SIGTERM ended the process without cleanup). Done as this
    # module is imported (only the console script imports it), and again by main().
    for signum in _SIGNALS:
        signal.signal(signum, _while_loading)


_hold()


def main() -> None:
    _hold()  # first thing
    gc.set_threshold(*_GC_THRESHOLDS)
    args = sys.argv[1:]
    if args[:1] == ["check"]:  # the validator needs none of the converter's modules
        from .check import run_check

        def run_command() -> None:
            run_check(args[1:])
    else:
        from .main import main as run_command
    from . import common as cli_common

    try:
        try:
            cli_common.start_run(_SIGNALS)  # signals now raise, and the command cleans up
            run_command()
        finally:
            # a signal from here on changes nothing; one that came before this line (while
            # an exception was on its way out) is the exception the handler below sees
            cli_common.end_run()
    except BaseException as exc:
        code = _signal_exit(exc)
        if code is None:
            raise
        try:  # (after SIGHUP the terminal may be gone)
            sys.stderr.write(f"feed2sitemap: {_HOW.get(code - 128, 'stopped')}; nothing was "
                             "written\n")
        except OSError:
            pass
        raise SystemExit(code) from None


def _signal_exit(exc: BaseException) -> int | None:
    """The exit code for a signal that ended the run outside the command itself (which says
    what it wrote), None for anything else; StdoutGone ends the process here."""
    from .common import StdoutGone, signal_code, unwrapped_signal

    if isinstance(exc, RuntimeError):  # a signal while a class was made
        caught = unwrapped_signal(exc)
        return None if caught is None else signal_code(caught)
    if isinstance(exc, StdoutGone):
        # End as other filters do when their reader has gone: killed by SIGPIPE, quietly (the
        # shell reports 141). Only here, in the command's own process: SIGPIPE's default
        # action would also end a library user's program, or a run that talks to a server.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
        return None
    return signal_code(exc)
