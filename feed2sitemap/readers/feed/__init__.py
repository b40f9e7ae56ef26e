"""Feeds. RSS and Atom (reader.py): the fast pass (fastpass.py, with its runs, runs.py) replays
feedparser's rules (compat.py) and gives way to feedparser where it cannot (policy.py, which
decides); entry dates (dates.py). JSON Feed (jsonfeed.py)."""
