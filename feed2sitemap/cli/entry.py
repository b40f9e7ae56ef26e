"""The console script's entry: tiny, so that a signal while the program is still loading ends
it with a message and its exit code (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP) rather than a
traceback from inside an import."""

from __future__ import annotations

import gc
import os
import signal
import sys

_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_HOW: dict[int, str] = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated",
                        signal.SIGHUP: "hung up"}


def _while_loading(signum: int, frame: object) -> None:
    """Before the command's own handlers (common.on_signal) are in place nothing has been
    written and no temporary made: end at once, with the one line and the signal's code."""
    os.write(2, f"feed2sitemap: {_HOW.get(signum, 'stopped')}; nothing was written\n".encode())
    os._exit(128 + signum)


def _hold() -> None:
    # No signal of the three meets Python's default from here on (a traceback from inside an
    # import, exit 1; SIGHUP and SIGTERM ended the process without cleanup).
    for signum in _SIGNALS:
        signal.signal(signum, _while_loading)


_hold()  # as this module is imported (only the console script imports it), and by main()


def _cwd_gone() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _blocking() -> None:
    """stdout and stderr wait for their reader. One left non-blocking by another program (a
    terminal after some tools, a pipe from an event loop) takes part of a write and drops the
    rest silently, or ends the run with BlockingIOError at exit."""
    for fd in (1, 2):
        try:
            os.set_blocking(fd, True)
        except OSError:  # (closed)
            pass


def main() -> None:
    _hold()
    _blocking()
    # The cyclic collector's young generation holds 10,000 objects rather than 700: a run makes
    # millions of records, none of them in a cycle, and the default thresholds spent about 9%
    # of a 1M-URL run traversing them. The command's process only, not a library user's.
    gc.set_threshold(10_000, 10, 10)
    from . import common

    command = common.subcommand(sys.argv[1:])
    try:
        try:
            common.start_run(_SIGNALS)  # signals now raise, and the command cleans up
            command()
        finally:
            # a signal from here on changes nothing; one that came before this line (while
            # an exception was on its way out) is the exception the handler below sees
            common.end_run()
    except BaseException as exc:
        if isinstance(exc, common.StdoutGone):
            # End as other filters do when their reader has gone: killed by SIGPIPE, quietly
            # (the shell reports 141). Only here: SIGPIPE's default action would also end a
            # library user's program, or a run that talks to a server.
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except OSError:
                pass
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGPIPE)
        if isinstance(exc, OSError) and _cwd_gone():
            # A relative name cannot be resolved in a deleted directory (a run with only
            # stdin, stdout and absolute names still works there, so this is not refused early)
            sys.stderr.write("feed2sitemap: the working directory no longer exists; cd to one "
                             "that does and run again; nothing was written\n")
            raise SystemExit(1) from None
        code = common.signal_code(exc)  # a signal outside the command, which says what it wrote
        if code is None:
            raise
        try:  # (after SIGHUP the terminal may be gone)
            sys.stderr.write(f"feed2sitemap: {_HOW.get(code - 128, 'stopped')}; nothing was "
                             "written\n")
        except OSError:
            pass
        raise SystemExit(code) from None
