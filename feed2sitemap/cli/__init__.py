"""The command line: options in, one library call, messages and exit codes out (main.py: the
converter and `index`; check.py: `check`; common.py: what they share; entry.py: the console
script, light enough to put the signal handlers in place before anything else is imported)."""
