"""The command line: options in, one library call, messages and exit codes out.

main.py is the converter's command, check.py and index.py the other two, common.py what they
share (messages, signals, progress); entry.py is the console script, light enough to put the
signal handlers in place before anything else is imported.
"""
