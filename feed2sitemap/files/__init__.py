"""The output on disk: the set of files a run replaces at once (outputs.py), what the tool may
touch (safety.py), the parts' names (naming.py), the previous version read back (previous.py),
and the split into parts and indexes within the limits (split.py)."""
