"""The command line: options in, one library call, messages and exit codes out (main.py: the
converter and `index`, summary.py: their summary; check.py, diff.py, report.py: the other
commands; common.py: what they share; entry.py: the console script, light enough to put the
signal handlers in place before anything else is imported)."""
