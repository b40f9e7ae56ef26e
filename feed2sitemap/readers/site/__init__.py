"""A built site's directory as input: its pages, and where their lastmods come from."""
