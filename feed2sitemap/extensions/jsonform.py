"""Extensions as JSON values, the shapes JSON Lines writes and reads losslessly (README, "JSON
Lines shapes": one member per kind, lists of objects keyed by the model's field names, dates as
W3C Datetime, defaults left out); the npm ``sitemap`` package's shapes (``img``, ``video``,
``news``, ``links``, ``androidLink``, ``ampLink``) are read too (README, Inputs)."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from functools import cache
from typing import Any, Optional, Union, get_args, get_origin, get_type_hints

from ..model.extensions import EMPTY, Extensions
from ..model.record import format_lastmod, parse_lastmod
from .model import (
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Foreign,
    Image,
    Mobile,
    News,
    Platform,
    Restriction,
    Video,
    check_foreign_name,
)

KINDS = {"images": Image, "videos": Video, "news": News, "alternates": Alternate,
         "mobile": Mobile}
_NESTED = {"restriction": Restriction, "platform": Platform}
_DATES = frozenset({"expiration_date", "publication_date"})
# the npm sitemap package's names for the same things: its kinds...
_NPM = {"img": "images", "video": "videos", "links": "alternates", "androidLink": "foreign",
        "ampLink": "foreign"}
# (its links without hreflang: <xhtml:link rel="…" href="…"/>, kept as the XML reader keeps them)
_NPM_LINKS = {"androidLink": "alternate", "ampLink": "amphtml"}
# ...and its members where they differ from ours (our field -> its member)
_NPM_NAMES = {"img": {"loc": "url", "geo_location": "geoLocation"},
              "video": {"tags": "tag", "autoplay": "player_loc:autoplay",
                        "allow_embed": "player_loc:allow_embed",
                        "uploader_info": "uploader:info"},
              "links": {"hreflang": "lang", "href": "url"}}
# its video and news members that Google dropped from its documentation: kept as the elements
# they stand for (as the XML reader keeps them), with their attributes (``price:currency``…)
_NPM_ELEMENTS = {"video": ("category", "gallery_loc", "price", "id"),
                 "news": ("access", "genres", "keywords", "stock_tickers")}
_NPM_YES_NO = ("family_friendly", "requires_subscription", "live")
# Notes on what was read but not kept, the item kept: ("field", …) for a member we do not read,
# ("extension", …) for a value left out
Notes = list[tuple[str, str]]


def to_json(ext: Extensions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kind in (*KINDS, "foreign"):
        items = getattr(ext, kind)
        if items:
            out[kind] = [_foreign_json(i) if kind == "foreign" else _item_json(i) for i in items]
    return out


def _item_json(item: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(item):
        value = getattr(item, f.name)
        if value is None or value == () or value == f.default:
            continue
        if f.name in _DATES:
            value = format_lastmod(value)
        elif f.name in _NESTED:
            value = {"relationship": value.relationship,
                     "countries" if f.name == "restriction" else "platforms":
                     list(value.countries if f.name == "restriction" else value.platforms)}
        elif f.name == "extra":
            value = [_foreign_json(e) for e in value]
        elif isinstance(value, tuple):
            value = list(value)
        out[f.name] = value
    return out


def _foreign_json(element: Foreign) -> dict[str, Any]:
    return {"namespace": element.namespace, "name": element.name,
            "attributes": [list(a) for a in element.attributes],
            "children": [c if isinstance(c, str) else _foreign_json(c)
                         for c in element.children]}


def from_json(obj: dict[str, Any], notes: Optional[Notes] = None
              ) -> tuple[Extensions, list[str]]:
    """The Extensions in a JSON object's members (others ignored), and a message naming the
    member for each item left out (a value of another type than the model's field, say);
    ``notes`` receives what an item held that is not kept."""
    found: dict[str, list[Any]] = {}
    problems: list[str] = []
    for key, value in obj.items():
        kind = _NPM.get(key, key)
        if kind not in KINDS and kind != "foreign":
            continue
        items = value if isinstance(value, list) else [value]
        for n, item in enumerate(items):
            try:
                found.setdefault(kind, []).append(_read(kind, key, item, f"{key}[{n}]",
                                                        [] if notes is None else notes))
            except (TypeError, ValueError, KeyError) as exc:
                problems.append(f"{key}[{n}]: {exc}")
    if not found:
        return EMPTY, problems
    return Extensions(**{k: tuple(v) for k, v in found.items()}), problems


def _read(kind: str, key: str, item: Any, where: str, notes: Notes) -> Any:
    if key in _NPM_LINKS:
        href = _typed(key, item, str, True)
        return Foreign(XHTML_NS, "link", (("rel", _NPM_LINKS[key]), ("href", href)))
    if kind == "foreign":
        return _foreign(item)
    if key == "img" and isinstance(item, str):  # npm: a URL alone
        return Image(item)
    if not isinstance(item, dict):
        raise TypeError(f"an object is expected, not {_shown(item)}")
    names = _NPM_NAMES.get(key, {})
    known = set()
    if key == "links":  # npm: {"lang": "de", "url": "…"}, hreflang (when given) written
        known.add("lang")
        if "hreflang" in item:
            names = {"href": "url"}
    elif key == "video":
        item = _npm_video(item, where, notes)
    elif key == "news" and "publication" in item:
        item = _npm_news(item, where, notes)
    schema = _schema(KINDS[kind])
    known.update(names.get(name, name) for name in schema)
    notes += [("field", f"{key}: member {m[:40]!r} ignored (not one we read; reported once)")
              for m in item if m not in known]
    values = {}
    for name, (want, required) in schema.items():
        member = names.get(name, name)
        value = _typed(member, item.get(member), want, required)
        if value is not None or required:  # (null is the default left out)
            values[name] = value
    return KINDS[kind](**values)


def _npm_video(item: dict[str, Any], where: str, notes: Notes) -> dict[str, Any]:
    """An npm video in our shape but for _NPM_NAMES."""
    item = dict(item)
    if isinstance(item.get("tag"), str):
        item["tag"] = [item["tag"]]
    for name in _NPM_YES_NO:
        value = item.get(name)
        if isinstance(value, str) and value.lower() in ("yes", "no"):
            item[name] = value.lower() == "yes"
    if isinstance(item.get("rating"), str):
        try:
            item["rating"] = float(item["rating"])
        except ValueError:
            pass  # (refused by its type, naming it)
    for name, key in (("restriction", "countries"), ("platform", "platforms")):
        relationship = item.pop(f"{name}:relationship", None)
        if isinstance(item.get(name), str):
            if relationship is None:
                notes.append(("extension", f"{where}.{name}: no {name}:relationship (allow or "
                                           "deny): left out"))
                del item[name]
            else:
                item[name] = {"relationship": relationship, key: item[name].split()}
    return _npm_elements(item, "video", VIDEO_NS)


def _npm_news(item: dict[str, Any], where: str, notes: Notes) -> dict[str, Any]:
    """An npm news object (``publication: {name, language}``) in our shape."""
    item = dict(item)
    publication = item.pop("publication")
    if not isinstance(publication, dict):
        raise TypeError(f"publication must be an object, not {_shown(publication)}")
    for name, value in publication.items():
        if name in ("name", "language"):
            item[name] = value
        else:
            notes.append(("field", f"news: member 'publication.{name[:40]}' ignored (not one "
                                   "we read; reported once)"))
    if item.get("publication_date") == "":  # (what its parser leaves for none)
        del item["publication_date"]
    return _npm_elements(item, "news", NEWS_NS)


def _npm_elements(item: dict[str, Any], key: str, namespace: str) -> dict[str, Any]:
    """``item`` with its _NPM_ELEMENTS members (and ``name:attribute`` ones) moved to ``extra``."""
    extra = []
    for name in _NPM_ELEMENTS[key]:
        if name in item:
            attributes = [[k.partition(":")[2], item.pop(k)] for k in list(item)
                          if k.startswith(name + ":")]
            text = item.pop(name)
            if not isinstance(text, str):
                raise TypeError(f"{name} must be a string, not {_shown(text)}")
            extra.append({"namespace": namespace, "name": name, "attributes": attributes,
                          "children": [text]})
    if extra:
        item["extra"] = [*_array("extra", item.get("extra", [])), *extra]
    return item


@cache
def _schema(cls: type) -> dict[str, tuple[Any, bool]]:
    """Each field of a kind: the type its JSON value must have, and whether it is required."""
    hints = get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        args = [a for a in get_args(hint) if a is not type(None)]
        base = args[0] if get_origin(hint) is Union and len(args) == 1 else hint
        out[f.name] = (base, f.default is dataclasses.MISSING)
    return out


# The model's types as JSON says them; a value of another type is refused, naming the member
_WANTED = {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}
# the most digits the XML reader takes (xmlout.VIDEO_VALUES): a bigger number would be written
# into a sitemap that reads back as no number at all
_MAX_WHOLE = 10 ** 15


def _typed(name: str, value: Any, want: Any, required: bool) -> Any:
    """A member's value as the model holds it; TypeError/ValueError naming it when not one."""
    if value is None:
        if required and name != "publication_date":  # (a news date: the rules say)
            raise ValueError(f"{name} is missing (required)")
        return None
    if name in _DATES:
        return _date(name, value)
    if name == "extra":
        return tuple(_foreign(e) for e in _array(name, value))
    if want in (Restriction, Platform):
        return _nested(name, value, want)
    if get_origin(want) is tuple:  # tags
        return _strings(name, value)
    if want is float and type(value) in (int, float):
        return float(value)
    if type(value) is not want:  # (type, not isinstance: true is no number here)
        raise TypeError(f"{name} must be {_WANTED.get(want, want)}, not {_shown(value)}")
    if want is int and not -_MAX_WHOLE < value < _MAX_WHOLE:
        raise ValueError(f"{name} has more than 15 digits")
    return value


def _nested(name: str, value: Any, cls: Any) -> Any:
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be an object, not {_shown(value)}")
    key = "countries" if cls is Restriction else "platforms"
    items = _strings(f"{name}.{key}", value.get(key, []))
    return cls(_typed(f"{name}.relationship", value.get("relationship"), str, True), items)


def _array(name: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{name} must be a list, not {_shown(value)}")
    return value


def _strings(name: str, value: Any) -> tuple[str, ...]:
    items = _array(name, value)
    if any(type(v) is not str for v in items):
        raise TypeError(f"{name} must be a list of strings")
    return tuple(items)


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return json.dumps(value)[:40]


def _date(name: str, text: Any) -> date:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be W3C Datetime text, not {_shown(text)}")
    try:
        return parse_lastmod(text)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None


def _foreign(obj: Any, nested: bool = False) -> Foreign:
    """A foreign element from its JSON form; its names must be XML names (they are written as
    they are: ``x/></url><url>…`` would write markup of its own)."""
    if not isinstance(obj, dict):
        raise TypeError("a foreign element is an object")
    namespace, name = _member(obj, "namespace", str, ""), _member(obj, "name", str, None)
    check_foreign_name(namespace, name, nested=nested)
    children = [child if isinstance(child, str) else _foreign(child, nested=True)
                for child in _member(obj, "children", list, [])]
    attributes: list[tuple[str, str]] = []
    for pair in _member(obj, "attributes", list, []):
        if not (isinstance(pair, list) and len(pair) == 2
                and all(isinstance(v, str) for v in pair)):
            raise TypeError("an attribute is a pair of strings [name, value]")
        ns, _, local = pair[0].rpartition(" ")
        check_foreign_name(ns, local, attribute=True)
        if any(key == pair[0] for key, _ in attributes):
            raise ValueError(f"the attribute {local[:80]!r} is given twice")
        attributes.append((pair[0], pair[1]))
    return Foreign(namespace, name, tuple(attributes), tuple(children))


def _member(obj: dict[str, Any], key: str, want: type, default: Any) -> Any:
    value = obj.get(key, default)
    if not isinstance(value, want):
        raise TypeError(f"a foreign element's {key} is a {'string' if want is str else 'list'}")
    return value
