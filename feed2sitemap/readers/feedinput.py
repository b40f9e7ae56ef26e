"""A feed's bytes, read once in chunks and kept so that they can be read again.

The fast pass (feedpass.py) streams: it needs a chunk at a time. Only when it gives up does
feedparser need the whole document, and by then the stream (stdin, a download, a gunzipped
file) cannot be rewound. So every chunk the pass reads is kept: in memory up to SPOOL_MEMORY,
in an anonymous temporary file beyond it, so that a feed of any size up to ``max_bytes`` is
read in bounded memory by the fast pass (the issue 18 rule: a 49 MB feed within 80 MB), and
only a feed feedparser must read is held whole.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Optional

from ..errors import InputError

__all__ = ["CHUNK", "FeedInput", "SPOOL_MEMORY"]

CHUNK = 1 << 20  # bytes read from the stream at a time
SPOOL_MEMORY = 24 << 20  # kept in memory up to this (a 50,000-item feed is 16-18 MB)


class FeedInput:
    """The feed read from ``stream``, refused past ``max_bytes`` (named by ``source``)."""

    def __init__(self, stream: IO[bytes], source: str, max_bytes: int) -> None:
        self.stream = stream
        self.source = source
        self.max_bytes = max_bytes
        self.size = 0  # bytes read from the stream so far
        self.memory: list[bytes] = []
        self.file: Optional[IO[bytes]] = None  # the spool, once past SPOOL_MEMORY
        self.done = False  # the stream is read to its end
        self.data: Optional[bytes] = None  # the whole document, once whole() was asked

    def chunks(self) -> Iterator[bytes]:
        """The document from its start, a chunk at a time (what was read before, again)."""
        yield from self._kept()
        while not self.done:
            chunk = self._read()
            if chunk:
                yield chunk

    def whole(self) -> bytes:
        """The whole document (for feedparser, which cannot stream), held from now on."""
        if self.data is None:
            for _ in self.chunks():
                pass
            data = b"".join(self._kept())
            self.close()
            self.data = data
        return self.data

    def close(self) -> None:
        self.data = None
        self.memory = []
        if self.file is not None:
            self.file.close()
            self.file = None

    def _kept(self) -> Iterator[bytes]:
        if self.data is not None:
            yield self.data
            return
        if self.file is not None:
            self.file.flush()
            self.file.seek(0)
            while True:
                piece = self.file.read(CHUNK)
                if not piece:
                    break
                yield piece
        yield from list(self.memory)

    def _read(self) -> bytes:
        chunk = self.stream.read(min(CHUNK, self.max_bytes + 1 - self.size))
        if not chunk:
            self.done = True
            return b""
        self.size += len(chunk)
        if self.size > self.max_bytes:
            raise InputError(self.source, None, f"feed larger than {self.max_bytes:,} bytes; "
                             "raise `max_feed_bytes` if this one is genuine",
                             parameter="max_feed_bytes")
        self._keep(chunk)
        return chunk

    def _keep(self, chunk: bytes) -> None:
        if self.file is None and self.size > SPOOL_MEMORY:
            import tempfile  # (only a feed this large pays for the import)

            self.file = tempfile.TemporaryFile()
            for piece in self.memory:
                self.file.write(piece)
            self.memory = []
        if self.file is not None:
            self.file.seek(0, 2)
            self.file.write(chunk)
        else:
            self.memory.append(chunk)
