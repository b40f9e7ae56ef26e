"""Elements read as trees (Foreign values) turned into the typed extension values.

Missing required children are not refused here: the value is built with an empty text (or
None) and rules.check_* says so, the one place the rules live. What is refused here is what
cannot be held at all: a value that does not parse (a duration "ten"), an element the kind's
schema does not have, a child given twice (the first is kept).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Optional

from ..model.extensions import EMPTY, Extensions
from ..model.record import parse_lastmod
from .model import (
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Foreign,
    Image,
    Mobile,
    News,
    Platform,
    Problem,
    Restriction,
    Video,
)
from .xmlout import IMAGE_ORDER, NEWS_ORDER, VIDEO_ORDER

__all__ = ["build", "parse_yes_no"]

_INT = re.compile(r"\s*\+?\d{1,15}\s*")
_FLOAT = re.compile(r"\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,3})?\s*")


def parse_yes_no(text: str) -> bool:
    # [VID] yes or no; Google's schema takes yes/no, YES/NO and Yes/No
    value = text.strip().lower()
    if value not in ("yes", "no"):
        raise ValueError(f"{text.strip()[:40]!r} is not yes or no")
    return value == "yes"


def _int(text: str) -> int:
    if not _INT.fullmatch(text):
        raise ValueError(f"{text.strip()[:40]!r} is not a whole number")
    return int(text)


def _float(text: str) -> float:
    if not _FLOAT.fullmatch(text):
        raise ValueError(f"{text.strip()[:40]!r} is not a number")
    return float(text)


def _stripped(text: str) -> str:
    return text.strip()


# <video:video> children with one value each: element → (field, parser)
_VIDEO_VALUES: dict[str, tuple[str, Callable[[str], Any]]] = {
    "thumbnail_loc": ("thumbnail_loc", _stripped), "title": ("title", _stripped),
    "description": ("description", _stripped), "content_loc": ("content_loc", _stripped),
    "player_loc": ("player_loc", _stripped), "duration": ("duration", _int),
    "expiration_date": ("expiration_date", parse_lastmod), "rating": ("rating", _float),
    "view_count": ("view_count", _int), "publication_date": ("publication_date", parse_lastmod),
    "family_friendly": ("family_friendly", parse_yes_no),
    "requires_subscription": ("requires_subscription", parse_yes_no),
    "uploader": ("uploader", _stripped), "live": ("live", parse_yes_no)}
_VIDEO_LEGACY = frozenset(VIDEO_ORDER) - set(_VIDEO_VALUES) - {"tag", "restriction", "platform"}
_NEWS_LEGACY = frozenset(NEWS_ORDER) - {"publication", "publication_date", "title"}


class _Reader:
    """Collects one item's problems: ``kind`` and ``index`` say which item."""

    def __init__(self, kind: str, index: int, line: Optional[int]) -> None:
        self.kind, self.index, self.line = kind, index, line
        self.problems: list[Problem] = []
        self.seen: set[str] = set()

    def bad(self, field: str, reason: str) -> None:
        self.problems.append(Problem(self.kind, field, reason, self.index, self.line))

    def text(self, child: Foreign) -> Optional[str]:
        """The child's text, once: None (with a problem) if repeated or holding elements."""
        if child.name in self.seen:
            self.bad(child.name, "given more than once: the first is kept")
            return None
        self.seen.add(child.name)
        if any(isinstance(c, Foreign) for c in child.children):
            self.bad(child.name, "holds elements, not text: left out")
            return None
        return child.text()

    def value(self, child: Foreign, parse: Callable[[str], Any]) -> Any:
        text = self.text(child)
        if text is None:
            return None
        try:
            return parse(text)
        except ValueError as exc:
            self.bad(child.name, f"{exc}: left out")
            return None

    def unknown(self, child: Foreign, parent: str) -> None:
        self.bad(child.name, f"<{child.name}> is not an element of <{parent}> in Google's "
                 "schema: left out")


def _children(element: Foreign, ns: str, reader: _Reader) -> list[Foreign]:
    out = []
    for child in element.children:
        if isinstance(child, Foreign):
            if child.namespace == ns:
                out.append(child)
            else:
                reader.unknown(child, element.name)
    return out


def _image(element: Foreign, reader: _Reader) -> Image:
    values: dict[str, str] = {}
    for child in _children(element, IMAGE_NS, reader):
        if child.name not in IMAGE_ORDER:
            reader.unknown(child, "image:image")
            continue
        text = reader.text(child)
        if text is not None:
            values[child.name] = text.strip()
    loc = values.pop("loc", "")
    return Image(loc, **values)


def _video(element: Foreign, reader: _Reader) -> Video:
    values: dict[str, Any] = {"thumbnail_loc": "", "title": "", "description": ""}
    tags: list[str] = []
    extra: list[Foreign] = []
    for child in _children(element, VIDEO_NS, reader):
        name = child.name
        if name in _VIDEO_VALUES:
            field, parse = _VIDEO_VALUES[name]
            value = reader.value(child, parse)
            if value is None:
                continue
            values[field] = value
            if name == "player_loc":
                values["allow_embed"] = child.attribute("allow_embed")
                values["autoplay"] = child.attribute("autoplay")
            elif name == "uploader":
                values["uploader_info"] = child.attribute("info")
        elif name == "tag":
            tags.append(child.text().strip())
        elif name in ("restriction", "platform"):
            text = reader.text(child)
            relationship = child.attribute("relationship")
            if text is not None and relationship is None:
                reader.bad(name, "no relationship attribute (allow or deny): left out")
            elif text is not None and relationship is not None:
                kind = Restriction if name == "restriction" else Platform
                values[name] = kind(relationship.strip(), tuple(text.split()))
        elif name in _VIDEO_LEGACY:
            extra.append(child)
        else:
            reader.unknown(child, "video:video")
    return Video(**values, tags=tuple(tags), extra=tuple(extra))


def _news(element: Foreign, reader: _Reader) -> News:
    values: dict[str, Any] = {"name": "", "language": "", "publication_date": None,
                              "title": ""}
    extra: list[Foreign] = []
    for child in _children(element, NEWS_NS, reader):
        if child.name == "publication":
            if "publication" in reader.seen:
                reader.bad("publication", "given more than once: the first is kept")
                continue
            reader.seen.add("publication")
            for part in _children(child, NEWS_NS, reader):
                if part.name in ("name", "language"):
                    text = reader.text(part)
                    if text is not None:
                        values[part.name] = text.strip()
                else:
                    reader.unknown(part, "news:publication")
        elif child.name == "publication_date":
            values["publication_date"] = reader.value(child, parse_lastmod)
        elif child.name == "title":
            text = reader.text(child)
            values["title"] = values["title"] if text is None else text.strip()
        elif child.name in _NEWS_LEGACY:
            extra.append(child)
        else:
            reader.unknown(child, "news:news")
    return News(**values, extra=tuple(extra))


def _simple(element: Foreign, attrs: dict[str, str], allowed: frozenset[str]) -> bool:
    """No child element, no text but white space, and only the ``allowed`` attributes."""
    return (all(isinstance(c, str) and not c.strip() for c in element.children)
            and attrs.keys() <= allowed)


_MAKERS: dict[tuple[str, str], tuple[str, Callable[[Foreign, _Reader], Any]]] = {
    (IMAGE_NS, "image"): ("images", _image), (VIDEO_NS, "video"): ("videos", _video),
    (NEWS_NS, "news"): ("news", _news)}
_LINK = frozenset(("rel", "hreflang", "href"))
_MOBILE = frozenset(("type",))


def _kind_of(element: Foreign) -> tuple[str, Any]:
    """The kind an element is, and its value when it needs no reader: an xhtml:link that is
    exactly an hreflang alternate, a bare mobile:mobile; anything else unknown is foreign."""
    key = (element.namespace, element.name)
    if key == (XHTML_NS, "link"):
        attrs = dict(element.attributes)
        if attrs.get("rel") == "alternate" and "hreflang" in attrs and "href" in attrs and \
                _simple(element, attrs, _LINK):
            return "alternates", Alternate(attrs["hreflang"].strip(), attrs["href"].strip())
    elif key == (MOBILE_NS, "mobile"):
        attrs = dict(element.attributes)
        if _simple(element, attrs, _MOBILE):
            return "mobile", Mobile(attrs.get("type"))
    return "foreign", element


def build(tops: list[tuple[Foreign, Optional[int]]]
          ) -> tuple[Extensions, list[Problem], dict[tuple[str, int], int]]:
    """The typed Extensions of a <url>'s top-level extension elements (with their lines)."""
    kinds: dict[str, list[Any]] = {}
    problems: list[Problem] = []
    lines: dict[tuple[str, int], int] = {}
    for element, line in tops:
        maker = _MAKERS.get((element.namespace, element.name))
        if maker is not None:
            kind, make = maker
            items = kinds.setdefault(kind, [])
            reader = _Reader(kind, len(items), line)
            items.append(make(element, reader))
            problems += reader.problems
        else:
            kind, value = _kind_of(element)
            items = kinds.setdefault(kind, [])
            items.append(value)
        if line is not None:
            lines[(kind, len(items) - 1)] = line
    if not kinds:
        return EMPTY, problems, lines
    return Extensions(**{k: tuple(v) for k, v in kinds.items()}), problems, lines
