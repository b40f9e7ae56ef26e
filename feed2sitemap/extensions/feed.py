"""Extensions from a feed entry as feedparser gives it (README, "Feeds").

Images: image enclosures, media:content and media:thumbnail, itunes:image; normalised but not
scope-checked (images may live on a CDN), each once. Videos, from Media RSS as Google reads it
([VID] "Google also supports mRSS"): one per entry, from its first video media:content or
enclosure (content_loc) or media:player (player_loc; a Flash media:content is a player too),
with the thumbnail, title, description without markup, duration and tags. Alternates: an Atom
entry's rel="alternate" links that carry hreflang, when it has several. What breaks Google's
rules is left out with a warning (rules.sanitize)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from html.parser import HTMLParser
from typing import Any, NamedTuple, Optional

from ..model.extensions import Extensions
from ..model.urls import BadURL, normalize_url, resolve
from .model import Alternate, Image, Problem, Restriction, Video
from .news import first_published
from .rules import sanitize

_FLASH = "application/x-shockwave-flash"
_CLOCK = re.compile(r"(?:(\d{1,4}):)?(\d{1,4}):(\d{1,2}(?:\.\d+)?)")
_SECONDS = re.compile(r"\d{1,9}(?:\.\d+)?")


def parse_duration(text: str) -> int:
    """Seconds from "3156", "3156.4", "26:53" or "00:37:07"; ValueError otherwise."""
    value = text.strip()
    if _SECONDS.fullmatch(value):
        return round(float(value))
    m = _CLOCK.fullmatch(value)
    if m is None:
        raise ValueError(f"{value[:40]!r} is neither seconds nor [HH:]MM:SS")
    hours, minutes, seconds = int(m.group(1) or 0), int(m.group(2)), float(m.group(3))
    return round(hours * 3600 + minutes * 60 + seconds)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        elif tag in ("br", "p", "div", "li"):
            self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def plain_text(html: str) -> str:
    """``html`` as text: no markup, references decoded, white space runs as single spaces."""
    if "<" not in html and "&" not in html:
        return " ".join(html.split())
    parser = _Text()
    parser.feed(html)
    parser.close()
    return " ".join("".join(parser.parts).split())


def _list(value: Any) -> list[Mapping[str, Any]]:
    if isinstance(value, Mapping):
        return [value]
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _kind(item: Mapping[str, Any], kind: str) -> bool:
    return str(item.get("medium") or "") == kind or \
        str(item.get("type") or "").startswith(kind + "/")


def _given(raw: Any) -> bool:
    return isinstance(raw, str) and bool(raw.strip())


class _Urls(NamedTuple):
    """Normalises the URLs of one entry, reporting those that are no URL."""

    base: Optional[str]
    problems: list[Problem]

    def __call__(self, raw: Any, kind: str, field: str) -> Optional[str]:
        if not _given(raw):
            return None
        try:
            return normalize_url(resolve(self.base, raw.strip()) if self.base else raw)
        except BadURL as exc:
            self.problems.append(Problem(kind, field, f"{exc}: left out", drops="item"))
            return None


def _images(entry: Mapping[str, Any], url: _Urls) -> list[Image]:
    enclosures = [link for link in _list(entry.get("links")) if link.get("rel") == "enclosure"]
    raw = [link.get("href") for link in enclosures if _kind(link, "image")]
    raw += [m.get("url") for m in _list(entry.get("media_content")) if _kind(m, "image")]
    raw += [t.get("url") for t in _list(entry.get("media_thumbnail"))]
    raw += [i.get("href") for i in _list(entry.get("image"))]
    for i, given in enumerate(raw):
        if not _given(given):
            url.problems.append(Problem("images", "loc", "missing (required): left out", i,
                                        drops="item"))
    locs = (url(r, "images", "loc") for r in raw)
    return [Image(loc) for loc in dict.fromkeys(loc for loc in locs if loc)]


def _duration(values: Iterable[Any], problems: list[Problem]) -> Optional[int]:
    for value in values:
        if isinstance(value, str) and value.strip():
            try:
                return parse_duration(value)
            except ValueError as exc:
                problems.append(Problem("videos", "duration", f"{exc}: left out", 0))
    return None


def _video(entry: Mapping[str, Any], feed: Mapping[str, Any], url: _Urls) -> Optional[Video]:
    media = _list(entry.get("media_content"))
    enclosures = [link for link in _list(entry.get("links")) if link.get("rel") == "enclosure"]
    videos = [m for m in media if _kind(m, "video")]
    content = next((m.get("url") for m in videos if m.get("url")), None) or next(
        (e.get("href") for e in enclosures if _kind(e, "video") and e.get("href")), None)
    player = next((p.get("url") for p in _list(entry.get("media_player")) if p.get("url")),
                  None) or next((m.get("url") for m in media
                                 if m.get("type") == _FLASH and m.get("url")), None)
    if not videos and content is None and player is None:
        return None  # not a video entry
    thumbs = [t.get("url") for t in _list(entry.get("media_thumbnail"))]
    thumbs += [i.get("href") for i in _list(entry.get("image")) + _list(feed.get("image"))]
    thumbnail = next((t for t in (url(t, "videos", "thumbnail_loc") for t in thumbs) if t), "")
    detail = entry.get("summary_detail") or {}
    summary = str(entry.get("summary") or "")
    description = plain_text(summary) if detail.get("type", "text/html") != "text/plain" \
        else summary.strip()
    tags = tuple(dict.fromkeys(str(t.get("term") or "").strip() for t in _list(entry.get("tags"))
                               if str(t.get("term") or "").strip()))
    return Video(
        thumbnail, str(entry.get("title") or "").strip(), description,
        url(content, "videos", "content_loc"), url(player, "videos", "player_loc"),
        duration=_duration([m.get("duration") for m in videos] + [entry.get("itunes_duration")],
                           url.problems),
        publication_date=first_published(entry), tags=tags, **_video_extras(entry))


def _video_extras(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The optional values Media RSS can give (YouTube's feeds give the first two)."""
    out: dict[str, Any] = {}
    stats = entry.get("media_statistics")
    if isinstance(stats, Mapping) and str(stats.get("views", "")).isdigit():
        out["view_count"] = int(stats["views"])
    stars: Any = entry.get("media_starrating")
    try:  # media:starRating's average of its max (5 unless said), as a 0.0-5.0 rating
        out["rating"] = round(float(stars["average"]) / float(stars.get("max", 5)) * 5.0, 2)
    except (AttributeError, KeyError, TypeError, ValueError, ZeroDivisionError):
        pass
    rating = entry.get("media_rating")
    if isinstance(rating, Mapping) and rating.get("content") in ("adult", "nonadult"):
        out["family_friendly"] = rating["content"] == "nonadult"  # (Media RSS urn:simple)
    restriction = entry.get("media_restriction")
    if isinstance(restriction, Mapping) and restriction.get("type") == "country" and \
            restriction.get("relationship") in ("allow", "deny"):
        out["restriction"] = Restriction(str(restriction["relationship"]), tuple(
            str(c).upper() for c in restriction.get("content") or ()))
    return out


def _alternates(entry: Mapping[str, Any], url: _Urls) -> list[Alternate]:
    links = [link for link in _list(entry.get("links"))
             if link.get("rel", "alternate") == "alternate" and link.get("hreflang")]
    if len(links) < 2:
        return []
    hrefs = [(link, url(link.get("href"), "alternates", "href")) for link in links]
    return [Alternate(str(link["hreflang"]).strip(), href) for link, href in hrefs if href]


def extensions_for_entry(entry: Mapping[str, Any], feed: Optional[Mapping[str, Any]] = None,
                         *, page: Optional[str] = None, base: Optional[str] = None
                         ) -> tuple[Extensions, list[Problem]]:
    """The images, video and alternates of a feedparser entry (``feed``, the feed's dict, gives
    the channel's itunes:image), and the problems met; ``page`` is the entry's own URL."""
    problems: list[Problem] = []
    url = _Urls(base, problems)
    video = _video(entry, feed or {}, url)
    ext = Extensions(images=tuple(_images(entry, url)), videos=(video,) if video else (),
                     alternates=tuple(_alternates(entry, url)))
    clean, found = sanitize(ext, page)
    return clean, problems + found
