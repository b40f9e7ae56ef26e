"""JSON Lines: one record per line with every field, a data format that reads back as it was.

    {"loc":"https://example.com/a","lastmod":"2024-03-05","changefreq":"weekly","priority":0.8}
    {"loc":"https://example.com/sitemap-1.xml","lastmod":"2024-03-05T10:15:00+00:00","sitemap":true}

Fields without a value are left out; lastmod is written as sitemaps are (a date stays a date, a
time in UTC), priority as a JSON number, and an index's entries carry ``"sitemap": true``. The
reader (readers.columns) gives back equal records, so sitemap → jsonl → sitemap is byte-identical.
It is not a sitemap: no 50,000-entry or 50 MB limit applies, and it is never split
(model/limits.py).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from ..model.batch import Batch
from ..model.record import Record, format_lastmod
from ..readers.lines import MAX_JSON_LINE
from .base import Format

__all__ = ["JSONL"]


class JsonLinesFormat(Format):
    name = "jsonl"
    extension = ".jsonl"
    limits = "data"
    carries_extensions = True
    # the reader's bound (readers/lines.py), newline included: a longer line would be written
    # and then refused when read back (issue 35, item 15)
    max_entry = MAX_JSON_LINE + 1

    @cached_property
    def _dumps(self) -> Callable[[object], str]:
        """The JSON encoder, made at first use: json costs a small run's start-up 3%."""
        import json

        # ensure_ascii=False: UTF-8 as it is (an IRI stays readable); separators without spaces
        return json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode

    def header(self) -> str:
        return ""

    def footer(self) -> str:
        return ""

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

    def entries(self, batch: Batch) -> list[str]:
        return list(map(self._entry, batch.records()))


JSONL = JsonLinesFormat()
