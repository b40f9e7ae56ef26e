"""The console script's entry: tiny, so that Ctrl-C while the program is still loading ends it
with a message and exit 130 rather than a traceback from inside an import."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from .cli import main as run_command

        run_command()
    except KeyboardInterrupt:  # before the command's own handler was in place
        sys.stderr.write("feed2sitemap: interrupted; nothing was written\n")
        raise SystemExit(130) from None
