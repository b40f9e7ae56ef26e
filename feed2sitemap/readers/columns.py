"""URL lists with columns: TSV, CSV (RFC 4180) and JSON Lines, one URL and its fields per entry.

    TSV     https://example.com/a<TAB>2024-03-05<TAB>weekly<TAB>0.8
            (or a header line naming the columns, in any order: loc lastmod changefreq priority)
    CSV     a header line, then rows: loc,lastmod,changefreq,priority (any order, quoted as RFC
            4180 quotes); the header's separator (``,``, ``;`` as European spreadsheets
            write, or a tab) is the file's
    JSONL   {"loc": "https://example.com/a", "lastmod": "2024-03-05", "priority": 0.8}

A column named ``url`` is ``loc``. Unknown columns (and JSON fields) are reported once per file
and ignored. Every value is validated as in an XML sitemap (readers.fields): a bad field is
dropped with a warning naming the line, the URL kept. All three stream, no line longer than
MAX_LINE bytes (a CSV field: csv's own 128 KiB). JSON Lines is read in readers/jsonl.py.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from itertools import chain, repeat, zip_longest
from typing import IO, Optional

from ..errors import InputError
from ..model.batch import BATCH, Batch
from ..model.report import Report
from .detect import csv_delimiter, header_columns, header_names
from .fields import COLUMNS, Rows, rows_to_batches
from .jsonl import EXTENSION_FIELDS, jsonl_rows, read_jsonl
from .lines import blocks

__all__ = ["COLUMNS", "EXTENSION_FIELDS", "csv_rows", "jsonl_rows", "read_csv", "read_jsonl",
           "read_tsv", "tsv_rows"]


def read_tsv(stream: IO[bytes], source: str, report: Report,
             base_url: Optional[str] = None) -> Iterator[Batch]:
    """TSV: ``URL<TAB>lastmod<TAB>changefreq<TAB>priority`` (trailing columns optional), or a
    header line naming the columns."""
    for rows in tsv_rows(stream, source, report):
        yield from rows_to_batches(rows, source, report)


def read_csv(stream: IO[bytes], source: str, report: Report,
             base_url: Optional[str] = None) -> Iterator[Batch]:
    """CSV (RFC 4180): a header line naming the columns, then one row per URL."""
    for rows in csv_rows(stream, source, report):
        yield from rows_to_batches(rows, source, report)


class _Layout:
    """Which field holds which column; unknown columns and extra fields reported once."""

    def __init__(self, source: str, report: Report) -> None:
        self.source, self.report = source, report
        self.columns: dict[str, int] = {name: i for i, name in enumerate(COLUMNS)}
        self.width = len(COLUMNS)
        self.told_extra = False

    def header(self, fields: list[str], line: int) -> bool:
        """Take ``fields`` as the header if it is one; True if so."""
        columns = header_columns(fields)
        if columns is None:
            return False
        names = header_names(fields)
        twice = sorted({n for n in names if names.count(n) > 1 and n in COLUMNS})
        if twice:
            raise InputError(self.source, line, f"the header names column {twice[0]!r} twice")
        unknown = [f.strip() for f, n in zip(fields, names, strict=True) if n not in COLUMNS]
        if unknown:
            self.report.warn("unknown column", self.source, line,
                             f"column{'s' * (len(unknown) > 1)} {', '.join(map(repr, unknown))} "
                             "ignored (known: loc or url, lastmod, changefreq, priority)")
        self.columns = {n: i for n, i in columns.items() if n in COLUMNS}
        self.width = len(fields)
        return True

    def rows(self, columns: Sequence[Sequence[Optional[str]]], lines: Sequence[int]) -> Rows:
        """The values of the fields, column by column (None: a row without that field)."""
        if not self.told_extra and len(columns) > self.width:
            self.told_extra = True
            i = next(i for i, f in enumerate(columns[self.width]) if f is not None)
            self.report.warn("unknown column", self.source, lines[i], f"more fields than the "
                             f"{self.width} columns; the extra ones are ignored (reported once)")

        def column(name: str) -> list[Optional[str]]:
            k = self.columns.get(name)
            if k is None or k >= len(columns):
                return [None] * len(lines)
            return _values(columns[k])

        return Rows(lines, column("loc"), column("lastmod"), column("changefreq"),
                    column("priority"))


def _values(column: Sequence[Optional[str]]) -> list[Optional[str]]:
    """A column's values: an absent, empty or blank field is no value."""
    if None not in column and all(map(str.strip, column)):  # type: ignore[arg-type]
        return list(column)
    return [f if f and f.strip() else None for f in column]


def tsv_rows(stream: IO[bytes], source: str, report: Report) -> Iterator[Rows]:
    """The TSV list's rows, a block at a time (blank lines left out)."""
    layout = _Layout(source, report)
    first = True
    for block in blocks(stream, source, "a TSV list"):
        start, lines = block.start, block.lines
        if first:
            i = next((i for i, s in enumerate(lines) if s.strip()), None)
            if i is not None:
                first = False
                if layout.header(lines[i].split("\t"), start + i):
                    start, lines = start + i + 1, lines[i + 1:]
        for k in range(0, len(lines), BATCH):
            yield layout.rows(*_split(lines[k: k + BATCH], start + k))


def _split(lines: list[str], start: int
           ) -> tuple[Sequence[Sequence[Optional[str]]], Sequence[int]]:
    """The fields of TSV lines column by column, and the lines' numbers (blank ones left out).
    Lines of as many fields each, none blank (the usual), are split at once."""
    tabs = set(map(str.count, lines, repeat("\t")))
    if len(tabs) == 1:
        width = tabs.pop() + 1
        fields = "\t".join(lines).split("\t")
        columns = [fields[k::width] for k in range(width)]
        if all(map(str.strip, columns[0])):  # (a blank line has a blank first field)
            return columns, range(start, start + len(lines))
    numbers = [start + i for i, s in enumerate(lines) if s.strip()]
    return list(zip_longest(*(lines[n - start].split("\t") for n in numbers))), numbers


def csv_rows(stream: IO[bytes], source: str, report: Report) -> Iterator[Rows]:
    """The CSV list's rows (a quoted field may span lines: a row's number is its first line)."""
    layout = _Layout(source, report)
    lines = (s + "\n" for block in blocks(stream, source, "a CSV list") for s in block.lines)
    head = []  # the blank lines and the header, to find its separator
    for text in lines:
        head.append(text)
        if text.strip():
            break
    delimiter = csv_delimiter(head[-1]) if head else None
    reader = csv.reader(chain(head, lines), delimiter=delimiter or ",", strict=True)
    split: list[list[str]] = []
    numbers: list[int] = []
    line = 0  # lines consumed before the current row
    header = False
    try:
        for fields in reader:
            start, line = line + 1, reader.line_num
            if not any(f.strip() for f in fields):
                continue
            if not header:
                if not layout.header(fields, start):
                    raise InputError(source, start, "a CSV list needs a header line naming its "
                                     "columns, separated by ',' or ';': loc (or url), lastmod, "
                                     "changefreq, priority")
                header = True
                continue
            split.append(fields)
            numbers.append(start)
            if len(split) == BATCH:
                yield layout.rows(list(zip_longest(*split)), numbers)
                split, numbers = [], []
    except csv.Error as exc:
        if split:  # the rows before the fault, for `check` to judge (the run stops anyway)
            yield layout.rows(list(zip_longest(*split)), numbers)
        raise InputError(source, line + 1, f"not valid CSV: {exc}") from None
    if split:
        yield layout.rows(list(zip_longest(*split)), numbers)
