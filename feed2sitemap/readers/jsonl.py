"""JSON Lines lists: one JSON object per line with a URL and its fields (readers/columns.py
names them; the extensions' shapes are extensions/jsonform.py's). Hostile JSON (NaN, a field
named twice, deep nesting) is a problem of its line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from operator import itemgetter
from typing import IO, Any, Optional

from ..backends import fast
from ..model.batch import BATCH, Batch
from ..model.report import Report
from .fields import COLUMNS, Problem, Rows, rows_to_batches
from .lines import MAX_JSON_LINE, blocks

__all__ = ["EXTENSION_FIELDS", "JSON_FIELDS", "JSON_TYPE_NAMES", "jsonl_rows", "read_jsonl"]

# The fields of the sitemap extensions (extensions/jsonform.py); from "img" on: npm sitemap's
EXTENSION_FIELDS = ("images", "videos", "news", "alternates", "mobile", "foreign",
                    "img", "video", "links", "androidLink", "ampLink")
JSON_FIELDS = frozenset(COLUMNS) | {"url", "sitemap"}
_KNOWN = JSON_FIELDS | frozenset(EXTENSION_FIELDS)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LETTER_ESCAPE = re.compile(r"\\u00[4-7]")  # \u0040-\u007F: our field names are ASCII letters


def read_jsonl(stream: IO[bytes], source: str, report: Report,
               base_url: Optional[str] = None) -> Iterator[Batch]:
    """JSON Lines: one object per line (what ``-t jsonl`` writes, read back as it was)."""
    for rows in jsonl_rows(stream, source):
        yield from rows_to_batches(rows, source, report)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (RFC 8259 has no NaN or Infinity)")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object, refusing a field named twice (json would keep the last copy silently)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"field {key!r} appears twice in the object")
            seen.add(key)
    return obj


def _load_block(lines: list[str]) -> Optional[tuple[list[dict[str, Any]], str]]:
    """The block's objects in one C call, and its text; None when the per-line parse must
    decide: a syntax error, a line that is not exactly one object, a blank line, an escape
    that may spell a letter of a field name (``\\u006coc``: _named_twice counts names as
    written), half a surrogate pair."""
    text = ",".join(lines)
    if "" in lines or "\\u00" in text and _LETTER_ESCAPE.search(text) is not None:
        return None
    try:
        values: list[Any] = json.loads("[" + text + "]", parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None
    if len(values) != len(lines) or set(map(type, values)) != {dict}:
        return None
    if _lone_surrogate(text, values):
        return None
    return values, text


def _named_twice(text: str, columns: dict[str, list[Any]]) -> bool:
    """Whether some object may name one of our fields twice (json keeps the last silently):
    ``"loc"`` appears once per object holding a loc unless one holds it twice (or it appears
    elsewhere, or a value is null: the per-line parse then decides)."""
    return any(text.count(f'"{key}"') != len(column) - column.count(None)
               for key, column in columns.items())


def json_limit(exc: ValueError) -> str:
    """What a ValueError from json.loads (not a syntax error) says."""
    if "integer string conversion" in str(exc):
        return "a number with more digits than Python reads (4,300); refused"
    return str(exc)


def _load_lines(lines: list[str], numbers: Sequence[int]
                ) -> tuple[list[int], list[dict[str, Any]], list[Problem]]:
    """Each non-blank line's object by itself, refusing a field named twice; a line that is
    no JSON object is a problem (and {})."""
    kept_numbers: list[int] = []
    objs: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for line, number in zip(lines, numbers, strict=True):
        if not line.strip():
            continue
        problem = None
        try:
            value = json.loads(line, parse_constant=_no_constant, object_pairs_hook=_pairs)
        except json.JSONDecodeError as exc:
            problem = f"not valid JSON: {exc.msg} (column {exc.colno})"
        except RecursionError:
            problem = "JSON nested too deeply"
        except ValueError as exc:  # a field twice, NaN, a number of over 4,300 digits
            problem = json_limit(exc)
        else:
            if _lone_surrogate(line, value):
                problem = ("a \\uD800-\\uDFFF escape that is not half of a pair is no "
                           "character (RFC 8259, section 8.2); refused")
            elif not isinstance(value, dict):
                problem = (f"{JSON_TYPE_NAMES.get(type(value), 'a value')}, not a JSON object "
                           "with a loc")
        if problem is not None:
            value = {}
            problems.append((len(objs), "", problem))
        kept_numbers.append(number)
        objs.append(value)
    return kept_numbers, objs, problems


def _lone_surrogate(line: str, value: Any) -> bool:
    """Whether ``value`` holds half a surrogate pair (json reads a lone "\\ud800"): no writer
    can encode it as UTF-8."""
    if "\\u" not in line or _SURROGATE_ESCAPE.search(line) is None:
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


JSON_TYPE_NAMES = {dict: "an object", list: "an array", bool: "true or false", type(None): "null",
               int: "a number", float: "a number", str: "a string"}
_STRING_TYPES = {str, type(None)}


def jsonl_rows(stream: IO[bytes], source: str) -> Iterator[Rows]:
    """The JSON Lines list's rows, a block at a time (blank lines left out)."""
    told: set[str] = set()
    for block in blocks(stream, source, "a JSON Lines list", MAX_JSON_LINE):
        start, lines = block.start, block.lines
        for k in range(0, len(lines), BATCH):
            part = lines[k: k + BATCH]
            rows = _json_rows(part, range(start + k, start + k + len(part)), source, told)
            if rows is not None:
                yield rows


def _json_rows(part: list[str], numbers: Sequence[int], source: str,
               told: set[str]) -> Optional[Rows]:
    """One block's rows. The usual block (one object per line, each naming our fields once) is
    parsed in one C call (_load_block); any other, and every block in the reference mode, goes
    line by line (_load_lines, the plain path)."""
    loaded = _load_block(part) if fast("JSON Lines blocks") else None
    objs, columns, keys = None, {}, set()
    if loaded is not None:
        objs, text = loaded
        keys = set().union(*objs)
        columns = _fields(objs, keys)
        if _named_twice(text, columns):
            objs = None
    problems: list[Problem] = []
    if objs is None:
        numbers, objs, problems = _load_lines(part, numbers)
        if not objs:
            return None
        keys = set().union(*objs)
        columns = _fields(objs, keys)
    none: list[Optional[str]] = [None] * len(objs)

    def field(key: str) -> list[Optional[str]]:  # (a field no object holds: no values to check)
        column = columns.get(key)
        if column is None:
            return none
        return _strings(_numbers(column) if key == "priority" else column, key, problems)

    rows = Rows(numbers, _strings(_locs(columns, problems, len(objs)), "", problems),
                field("lastmod"), field("changefreq"), field("priority"), problems=problems)
    sitemaps = columns.get("sitemap")
    if sitemaps is not None:
        rows.sitemaps = [s is True for s in sitemaps]
        problems += [(i, "sitemap", f"sitemap dropped: {json.dumps(s)[:40]} is not true or "
                      "false") for i, s in enumerate(sitemaps) if s not in (None, True, False)]
    if not keys.isdisjoint(EXTENSION_FIELDS):
        rows.extensions = _extensions(objs, told, problems)
    _unknown(objs, keys, source, told, problems)
    return rows


def _extensions(objs: list[dict[str, Any]], told: set[str], problems: list[Problem]
                ) -> list[Any]:
    """Each row's extensions (EMPTY for none); an item that cannot be read is a problem, and
    so is a value left out, and a member we do not read (once per file)."""
    from ..extensions.jsonform import from_json  # (only rows with extensions)
    column = []
    for i, obj in enumerate(objs):
        notes: list[tuple[str, str]] = []
        ext, errors = from_json(obj, notes)
        problems += [(i, "extension", f"extension dropped: {e}") for e in errors]
        for what, message in notes:
            if what == "field":
                if message in told:
                    continue
                told.add(message)
            problems.append((i, what, message))
        column.append(ext)
    return column


def _fields(objs: list[dict[str, Any]], keys: set[str]) -> dict[str, list[Any]]:
    """Our fields among ``keys`` as columns (None where an object lacks one)."""
    columns = {}
    for key in keys & JSON_FIELDS:
        try:  # the usual column, which every object has: taken in C
            columns[key] = list(map(itemgetter(key), objs))
        except KeyError:
            columns[key] = [o.get(key) for o in objs]
    return columns


def _locs(columns: dict[str, list[Any]], problems: list[Problem],
          n: int) -> list[Optional[str]]:
    """loc, else url, for each of ``n`` objects; an object with both is a problem."""
    locs, urls = columns.get("loc"), columns.get("url")
    if locs is None:  # (a block in which no object names either: n rows without a loc)
        locs = urls if urls is not None else [None] * n
    elif urls is not None:
        locs = list(locs)
        for i, (loc, url) in enumerate(zip(locs, urls, strict=True)):
            if url is not None and loc is not None:
                problems.append((i, "", "both loc and url; give one"))
            elif url is not None:
                locs[i] = url
    return locs


def _strings(column: list[Any], key: str, problems: list[Problem]) -> list[Optional[str]]:
    """One field of every object (``key`` "" the loc); a value that is not a string is a
    problem and None."""
    if set(map(type, column)) <= _STRING_TYPES:  # (in C: the usual column)
        return column
    out: list[Optional[str]] = []
    for i, v in enumerate(column):
        if v is None or type(v) is str:
            out.append(v)
            continue
        what = JSON_TYPE_NAMES.get(type(v), "a value")
        wanted = "a number" if key == "priority" else "a string"
        problems.append((i, key, f"{key} dropped: {what}, not {wanted}" if key else
                         f"loc is {what}, not {wanted}"))
        out.append(None)
    return out


def _numbers(column: list[Any]) -> list[Any]:
    """priority as a JSON number (0.8) or string ("0.8"): numbers become their decimal text."""
    if set(map(type, column)) <= _STRING_TYPES:
        return column
    return [_decimal(v) if type(v) in (int, float) else v for v in column]


def _decimal(v: float) -> str:
    text = repr(v)  # the shortest text that reads back as v; xsd:decimal has no exponent
    return format(Decimal(text), "f") if "e" in text else text


def _unknown(objs: list[dict[str, Any]], keys: set[str], source: str, told: set[str],
             problems: list[Problem]) -> None:
    """Name each field we do not read once per file, as a problem of its first row."""
    for key in sorted(keys - _KNOWN - told):  # (sorted: the same order in every run)
        # an empty value ("img": [] as the npm package writes) carries nothing to lose
        i = next((i for i, o in enumerate(objs) if o.get(key) not in (None, [], {}, "")), -1)
        if i < 0:
            continue
        told.add(key)
        problems.append((i, "field", f"unknown field {key!r} ignored (known: loc or url, "
                         "lastmod, changefreq, priority, sitemap and the extensions: "
                         f"{', '.join(EXTENSION_FIELDS[:6])}; reported once)"))
