"""Duplicate URLs across everything one check run reads (every FILE, every part followed).

The same URL in two parts of one site is no error (search engines take one) but is seldom
meant: a post listed in the posts part and the tags part, a part listed twice. As the
converter's dedupe (pipeline.dedupe) does, only the URL's 64-bit hash is kept, with the
place it was first seen packed in one int (file number << 32 | line): about 100 bytes per URL,
whatever its length. Past ``limit`` URLs nothing new is remembered (later URLs are still looked
up), and a warning says so: memory stays bounded on any input.
"""

from __future__ import annotations

__all__ = ["DEFAULT_LIMIT", "SeenURLs"]

DEFAULT_LIMIT = 5_000_000  # about 500 MB; a site with more URLs is checked in several runs


class SeenURLs:
    """The first position of every URL checked in one run."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.names: list[str] = []  # file number -> file name
        self._first: dict[int, int] = {}
        self.full = False  # set once, when the limit is reached

    def add_file(self, name: str) -> int:
        self.names.append(name)
        return len(self.names) - 1

    def first(self, key: int, file_no: int, line: int) -> tuple[str, int] | None:
        """Where the URL of hash ``key`` was first seen (file name, line), or None if this is
        its first place, which is then remembered."""
        place = self._first.get(key)
        if place is not None:
            return self.names[place >> 32], place & 0xFFFFFFFF
        if len(self._first) < self.limit:
            self._first[key] = file_no << 32 | min(line, 0xFFFFFFFF)
        else:
            self.full = True
        return None

    def place(self, key: int) -> tuple[str, int] | None:
        """Where the URL of hash ``key`` was first seen (file name, line), None if never."""
        place = self._first.get(key)
        if place is None:
            return None
        return self.names[place >> 32], place & 0xFFFFFFFF

    def add_new(self, keys: list[int], file_no: int, lines: list[int]) -> bool:
        """Remember URLs (hashes ``keys``, at ``lines``) all at once, if none has been seen
        and none repeats among them and the limit is not reached; else remember none (False).
        """
        first = self._first
        if len(first) + len(keys) >= self.limit or not first.keys().isdisjoint(keys):
            return False
        size = len(first)
        high = file_no << 32
        if lines and max(lines) > 0xFFFFFFFF:
            lines = [min(line, 0xFFFFFFFF) for line in lines]
        first.update(zip(keys, [high | line for line in lines], strict=True))
        if len(first) - size == len(keys):
            return True
        for key in keys:  # a URL twice in the block: take them back
            first.pop(key, None)
        return False
