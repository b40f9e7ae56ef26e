"""Feeds. RSS and Atom (reader.py): the fast pass (fastpass.py, with its runs, runs.py) replays
feedparser's rules and dates (compat.py) and gives way to feedparser where it cannot (policy.py,
which decides). JSON Feed (jsonfeed.py)."""
