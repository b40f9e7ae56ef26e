"""XML as ``check`` reads it: UTF-8 only, well-formed, no DTD, within the converter's bounds.

The pump (``parse_xml``) feeds a file to expat chunk by chunk and reports what expat and the
converter's MarkupGuard refuse; the element handlers of the caller (xml.py for sitemaps,
feed.py for feeds) report the rest.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any
from xml.parsers import expat

from ..errors import InputError
from ..xmlutil import EntitiesForbidden, MarkupGuard, XMLTooComplex

if TYPE_CHECKING:
    from .diagnostics import Diagnostic, FileCheck

__all__ = ["CHUNK", "check_encoding", "is_utf16", "parse_xml"]

CHUNK = 1 << 16
_UTF16_START = re.compile(rb"(?:[\t\n\r ]\x00)*<\x00|(?:\x00[\t\n\r ])*\x00<")
_DECL_ENCODING = re.compile(rb"<\?xml[^>]*?\sencoding\s*=\s*[\"']([^\"']*)[\"']")


def is_utf16(head: bytes) -> bool:
    """A UTF-16 (or UTF-32) byte-order mark, or UTF-16 markup without one."""
    return head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:4] == b"\x00\x00\xfe\xff" or \
        _UTF16_START.match(head) is not None


def check_encoding(head: bytes, f: FileCheck) -> bool:
    """sitemaps.org: files must be UTF-8. Report a UTF-16 BOM or a declaration naming another
    encoding (expat then decodes it anyway, so the rest is still checked). True for UTF-8."""
    # (expat reads UTF-16 without a BOM or a declaration too, from its first "<": XML 1.0,
    # appendix F, so it must be caught here)
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or _UTF16_START.match(head):
        f.error("encoding", 1, 1, "the file is UTF-16; sitemaps.org requires UTF-8")
        return False
    body = head[3:] if head.startswith(codecs.BOM_UTF8) else head
    m = _DECL_ENCODING.match(body)
    if m is not None and m.group(1).lower().replace(b"_", b"-") not in (b"utf-8", b"utf8"):
        name = m.group(1).decode("ascii", "replace")
        name = name if len(name) <= 64 else name[:64] + "..."  # (one line, however long)
        f.error("encoding", 1, m.start(1) + 1,
                f"the XML declaration names encoding {name!r}; sitemaps.org requires UTF-8")
        return False
    return True


def _bad_utf8_at(data: bytes, i: int) -> bool:
    if not 0 <= i < len(data):
        return False
    try:
        codecs.utf_8_decode(data[i:i + 4], "strict", False)
    except UnicodeDecodeError as exc:
        return exc.start == 0
    return False


def parse_xml(stream: IO[bytes], parser: Any, guard: MarkupGuard, f: FileCheck,
              utf8: bool, feed: Callable[[bytes, bool], Any] | None = None,
              ) -> Iterator[Diagnostic]:
    """Feed ``stream`` to ``parser`` chunk by chunk, yielding the diagnostics that are final.

    Well-formedness, entity declarations, the guard's bounds (the converter's own: see xmlutil),
    bytes that are not UTF-8 and the profile's byte limit are reported here; the element
    handlers set on ``parser`` report the rest through ``f``. ``feed`` stands for
    ``parser.Parse`` (xmlfast.py: the same bytes, offsets and positions).
    """
    feed = feed or parser.Parse
    doctype: list[tuple[int, int]] = []  # where the DOCTYPE began, once seen
    parser.StartDoctypeDeclHandler = lambda *_: doctype.append(
        (parser.CurrentLineNumber, parser.CurrentColumnNumber + 1))

    def end_doctype() -> None:
        line, col = doctype[0]
        f.error("dtd", line, col, "a DOCTYPE; sitemaps are not validated against DTDs and "
                "must not declare any")

    parser.EndDoctypeDeclHandler = end_doctype
    total = 0
    prev = chunk = b""
    try:
        while True:
            prev, chunk = chunk, stream.read(CHUNK)
            total += len(chunk)
            guard.scan(chunk)
            feed(chunk, not chunk)
            yield from f.pop_safe()
            if not chunk:
                break
        f.size(total, parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
    except expat.ExpatError as exc:
        at = parser.ErrorByteIndex - (total - len(chunk) - len(prev))
        if utf8 and exc.code == expat.errors.codes[expat.errors.XML_ERROR_INVALID_TOKEN] \
                and _bad_utf8_at(prev + chunk, at):
            f.error("encoding", exc.lineno, exc.offset + 1,
                    "bytes that are not UTF-8; sitemaps.org requires UTF-8")
        else:
            f.error("not-well-formed", exc.lineno, exc.offset + 1,
                    f"not well-formed XML: {expat.ErrorString(exc.code)}")
    except EntitiesForbidden as exc:
        line, col = doctype[0] if doctype else (parser.CurrentLineNumber,
                                                parser.CurrentColumnNumber + 1)
        f.error("dtd", line, col, f"{exc}; checking stopped here")
    except XMLTooComplex as exc:  # hostile: stop before it costs memory or time
        f.error("too-complex", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1,
                f"{exc}; refused, checking stopped here")
    except UnicodeDecodeError as exc:  # transcoded by expat_input from another encoding
        f.error("encoding", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1,
                f"bytes that are not {exc.encoding}: {exc.reason}")
    except LookupError as exc:  # expat asked Python for an encoding expat_input did not see
        f.error("encoding", 1, 1, f"{str(exc)[:200]}; checking stopped here")
    except InputError as exc:  # a gzip stream that breaks off, a read error
        f.error("input", parser.CurrentLineNumber, parser.CurrentColumnNumber + 1, exc.reason)
    yield from f.pop_all()
