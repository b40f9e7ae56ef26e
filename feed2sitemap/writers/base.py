"""The interface every output format implements: batches in, text out.

The batch (model/batch.py) is the data path's contract, so a format formats batches: ``entries``
gives each row's text, ``block`` the whole batch as one string (what the splitter writes when
the batch fits). A format that can do better than joining its entries (one join over the
locations of a proven batch, say) overrides ``block``; nothing else is looked up.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..model.batch import Batch
from ..model.record import Lastmod, Record

__all__ = ["Format", "StampedFormat"]


class Format(ABC):
    """An output file is ``header()``, then the entries of each batch, then ``footer()``.

    The splitter measures each piece's UTF-8 length and so knows every file's exact size before
    it writes a byte: a file is closed only when the next entry would not fit.
    """

    name: str
    extension: str  # the file-name ending that selects this format (".xml", ".txt")
    # Which limits the files obey (limits.output_profile): "sitemap" (the profile's, split into
    # parts), "text" (a text sitemap in a file, an extraction to stdout), "feed" (one file, up
    # to the byte limit) or "data" (JSON Lines: none unless asked).
    limits = "sitemap"
    # Whether entries carry a record's extensions (images, videos, …); where not, the writer
    # counts each URL whose extensions are left out.
    carries_extensions = False
    # The most UTF-8 bytes one entry may have (None: only the file's limit): an entry past it
    # is skipped and counted, as one larger than a whole file is (files/split.py).
    max_entry: int | None = None

    @abstractmethod
    def header(self) -> str: ...

    @abstractmethod
    def footer(self) -> str: ...

    @abstractmethod
    def entries(self, batch: Batch) -> list[str]:
        """Each row's entry, in order."""

    def block(self, batch: Batch) -> str:
        """All the batch's entries as one string."""
        return "".join(self.entries(batch))

    def entry(self, record: Record) -> str:
        """One record's entry (for code holding a record; the writer itself formats batches)."""
        return self.entries(Batch.of_records([record]))[0]


class StampedFormat(Format):
    """A format whose header names the newest lastmod of the file's own entries (feeds).

    The header cannot be written before the file's entries are known, yet the splitter must know
    its size before the first entry. So ``file_header(newest)`` must have exactly the UTF-8 length
    of ``header()`` whatever ``newest`` is (a fixed-width timestamp, padded when absent); the
    splitter holds the file's entries aside and writes this header first when the file is closed.
    """

    @abstractmethod
    def file_header(self, newest: Lastmod | None) -> str: ...

    def header(self) -> str:
        return self.file_header(None)
