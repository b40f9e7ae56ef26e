"""The console script's entry: tiny, so that Ctrl-C while the program is still loading ends it
with a message and exit 130 rather than a traceback from inside an import."""

from __future__ import annotations

import os
import sys


def main() -> None:
    try:
        from .cli import StdoutGone
        from .cli import main as run_command
    except KeyboardInterrupt:  # before the command's own handler was in place
        sys.stderr.write("feed2sitemap: interrupted; nothing was written\n")
        raise SystemExit(130) from None
    try:
        run_command()
    except StdoutGone:
        # End as other filters do when their reader has gone: killed by SIGPIPE, quietly (the
        # shell reports 141). Only here, in the command's own process: SIGPIPE's default
        # action would also end a library user's program, or a run that talks to a server.
        import signal  # (not at the top: only what the interpreter has loaded comes first)

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
