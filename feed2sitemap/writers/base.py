"""What every output format is (batches in, text out), and the two without markup: text and
JSON Lines."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from ..model.batch import Batch
from ..model.record import Record, format_lastmod
from ..readers.lines import MAX_JSON_LINE

__all__ = ["JSONL", "TEXT", "Format"]


class Format:
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

    def header(self) -> str:
        return ""

    def footer(self) -> str:
        return ""

    def entries(self, batch: Batch) -> list[str]:
        """Each row's entry, in order."""
        raise NotImplementedError

    def block(self, batch: Batch) -> str:
        """All the batch's entries as one string (what the splitter writes when it fits)."""
        return "".join(self.entries(batch))

    def entry(self, record: Record) -> str:
        """One record's entry (for code holding a record; the writer itself formats batches)."""
        return self.entries(Batch.of_records([record]))[0]


class TextFormat(Format):
    """Text sitemaps (sitemaps.org): one URL per line, UTF-8, nothing else."""

    name = "text"
    extension = ".txt"
    limits = "text"

    def entries(self, batch: Batch) -> list[str]:
        return [loc + "\n" for loc in batch.locs]

    def block(self, batch: Batch) -> str:
        return "\n".join(batch.locs) + "\n"


class JsonLinesFormat(Format):
    """One record per line with every field, a data format that reads back as it was:

        {"loc":"https://example.com/a","lastmod":"2024-03-05","changefreq":"weekly","priority":0.8}

    Fields without a value are left out; lastmod is written as sitemaps are, priority as a JSON
    number, and an index's entries carry ``"sitemap": true``, so sitemap → jsonl → sitemap is
    byte-identical. It is not a sitemap: no limit applies unless asked, and it is never split.
    """

    name = "jsonl"
    extension = ".jsonl"
    limits = "data"
    carries_extensions = True
    # the reader's bound (readers/lines.py), newline included: a longer line would be written
    # and then refused when read back
    max_entry = MAX_JSON_LINE + 1

    @cached_property
    def _dumps(self) -> Callable[[object], str]:
        """The JSON encoder, made at first use: json costs a small run's start-up 3%."""
        import json

        # ensure_ascii=False: UTF-8 as it is (an IRI stays readable); separators without spaces
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

    def entries(self, batch: Batch) -> list[str]:
        return list(map(self._entry, batch.records()))

    def _entry(self, record: Record) -> str:
        parts = ['{"loc":', self._dumps(record.loc)]
        if record.lastmod is not None:
            parts += [',"lastmod":"', format_lastmod(record.lastmod), '"']
        if record.changefreq is not None:
            parts += [',"changefreq":"', record.changefreq, '"']
        if record.priority is not None:
            parts += [',"priority":', repr(record.priority)]
        if record.is_sitemap:
            parts.append(',"sitemap":true')
        if record.extensions:
            from ..extensions.jsonform import to_json  # (only a run with extensions)

            parts.append("," + self._dumps(to_json(record.extensions))[1:-1])
        parts.append("}\n")
        return "".join(parts)


TEXT = TextFormat()
JSONL = JsonLinesFormat()
