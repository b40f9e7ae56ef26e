"""The console script's entry: tiny, so that Ctrl-C while the program is still loading ends it
with a message and exit 130 rather than a traceback from inside an import."""

from __future__ import annotations

import gc
import os
import sys

_INTERRUPTED = "feed2sitemap: interrupted; nothing was written\n"
_TERMINATED = "feed2sitemap: terminated; nothing was written\n"
# The cyclic garbage collector's young generation holds 10,000 objects rather than 700 (and
# each older one 10 collections of the younger): a run makes millions of records, items and
# tuples, none of them in a cycle, and the default thresholds spent about 9% of a 1M-URL
# extension-rich run traversing them (memory was the same without the collector at all).
# The command's process only: a library user's program keeps its own thresholds.
_GC_THRESHOLDS = (10_000, 10, 10)


def main() -> None:
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        import signal

        from .cli_common import Interrupted, StdoutGone, Terminated, on_sigint

        args = sys.argv[1:]
        if args[:1] == ["check"]:  # the validator needs none of the converter's modules
            from .cli_check import run_check

            def run_command() -> None:
                run_check(args[1:])
        else:
            from .cli import main as run_command

        # Ctrl-C from here on is ours at any moment, option parsing included (click would
        # answer KeyboardInterrupt there with "Aborted!" and exit 1).
        signal.signal(signal.SIGINT, on_sigint)
    except KeyboardInterrupt:  # before the command's own handler was in place
        sys.stderr.write(_INTERRUPTED)
        raise SystemExit(130) from None
    except RuntimeError as exc:  # the same, while a dataclass was made (Python 3.11 wraps it)
        if not isinstance(exc.__cause__, KeyboardInterrupt):
            raise
        sys.stderr.write(_INTERRUPTED)
        raise SystemExit(130) from None
    try:
        run_command()
    except Interrupted:  # outside the command itself (the command says what it wrote)
        sys.stderr.write(_INTERRUPTED)
        raise SystemExit(130) from None
    except Terminated:  # likewise: SIGTERM while click parses the options, before the command
        sys.stderr.write(_TERMINATED)
        raise SystemExit(143) from None
    except RuntimeError as exc:  # either, while a class was made (cli_common.unwrapped_signal)
        from .cli_common import unwrapped_signal

        signal_exc = unwrapped_signal(exc)
        if signal_exc is None:
            raise
        terminated = isinstance(signal_exc, Terminated)
        sys.stderr.write(_TERMINATED if terminated else _INTERRUPTED)
        raise SystemExit(143 if terminated else 130) from None
    except StdoutGone:
        # End as other filters do when their reader has gone: killed by SIGPIPE, quietly (the
        # shell reports 141). Only here, in the command's own process: SIGPIPE's default
        # action would also end a library user's program, or a run that talks to a server.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
