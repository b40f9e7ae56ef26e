"""Google's (and Baidu's) published rules for sitemap extensions: ``check_extensions`` gives the
``Problem`` values (``check`` reports them), ``sanitize`` leaves out what they name (the
converter warns of each). Sources, read 2025 (Google Search Central):
  [IMG]  https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps
  [VID]  https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps
  [NEWS] https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap
  [LOC]  https://developers.google.com/search/docs/specialty/international/localized-versions
  [BAIDU] Baidu search resource platform, mobile Sitemap protocol (<mobile:mobile type=…/>)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any, Optional

from ..model.extensions import Extensions
from ..model.urls import BadURL, normalize_url
from .model import News, Problem, Video

__all__ = ["IMAGES_PER_URL", "NEWS_PER_FILE", "check_extensions", "is_hreflang",
           "is_news_language", "sanitize"]

IMAGES_PER_URL = 1_000  # [IMG] "Each <url> tag can contain up to 1,000 <image:image> tags"
MAX_DESCRIPTION = 2_048  # [VID] <video:description>: "Maximum 2048 characters"
MIN_DURATION, MAX_DURATION = 1, 28_800  # [VID] <video:duration>: seconds, 1 to 28,800 (8 h)
MIN_RATING, MAX_RATING = 0.0, 5.0  # [VID] <video:rating>: a float, 0.0 (low) to 5.0 (high)
MAX_TAGS = 32  # [VID] <video:tag>: "A maximum of 32 tags is permitted"
MAX_UPLOADER = 255  # [VID] <video:uploader>: "Maximum 255 characters"
NEWS_PER_FILE = 1_000  # [NEWS] "up to 1,000 news:news tags" per sitemap (the writer's limit)
RELATIONSHIPS = ("allow", "deny")  # [VID] restriction and platform: relationship attribute
PLATFORMS = ("web", "mobile", "tv")  # [VID] <video:platform>: web, mobile, tv
MOBILE_TYPES = ("mobile", "pc,mobile", "htmladapt", "autoadapt")  # [BAIDU]; no type: mobile
# [VID] <video:restriction>: ISO 3166 country codes (alpha-2: the examples are "IE GB US CA")
_COUNTRY = re.compile(r"[A-Za-z]{2}")
# [NEWS] <news:language>: ISO 639 language code, two or three letters; "Exception: for
# Simplified Chinese, use zh-cn and for Traditional Chinese, use zh-tw".
_NEWS_LANGUAGE = re.compile(r"[a-z]{2,3}|zh-cn|zh-tw")
# [LOC] hreflang: a language (ISO 639-1), optionally a script (ISO 15924) and a region (ISO
# 3166-1 alpha-2), as a BCP 47 tag; or "x-default". Case does not matter in BCP 47. (Three
# letters are let through: BCP 47 language subtags may have them, and Google's parser does.)
_HREFLANG = re.compile(r"(?i:[a-z]{2,3}(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?|x-default)")


def is_news_language(code: str) -> bool:
    return _NEWS_LANGUAGE.fullmatch(code) is not None


def is_hreflang(value: str) -> bool:
    return _HREFLANG.fullmatch(value) is not None


def _url_problem(value: Optional[str]) -> Optional[str]:
    """Why ``value`` is no absolute http(s) URL, or None when it is one."""
    if not value:
        return "missing (required)"
    try:
        normalize_url(value)
    except BadURL as exc:
        return str(exc)
    return None


def _check_video(video: Video, index: int, page: Optional[str]) -> list[Problem]:
    """[VID] required: thumbnail_loc, title, description, and content_loc or player_loc
    (neither the same as the page's <loc>); then each optional value's format and range."""
    out: list[Problem] = []

    def bad(name: str, reason: str, drops: str = "field") -> None:
        out.append(Problem("videos", name, reason, index, drops=drops))

    why = _url_problem(video.thumbnail_loc)
    if why:
        bad("thumbnail_loc", why, "item")
    for name, text in (("title", video.title), ("description", video.description)):
        if not text or not text.strip():
            bad(name, "missing (required)", "item")
    if len(video.description) > MAX_DESCRIPTION:
        bad("description", f"longer than {MAX_DESCRIPTION:,} characters", "excess")
    if not video.content_loc and not video.player_loc:
        bad("content_loc", "neither content_loc nor player_loc given (one is required)", "item")
    for name in ("content_loc", "player_loc"):
        value = getattr(video, name)
        if value:
            why = _url_problem(value)
            if why is None and page is not None and value.strip() == page:
                why = "the same as the page's <loc> (it must be the video or its player)"
            if why:
                other = video.player_loc if name == "content_loc" else video.content_loc
                usable = other is not None and not _url_problem(other) and other.strip() != page
                bad(name, why, "field" if usable else "item")
    _check_video_values(video, bad)
    return out


def _check_video_values(video: Video, bad: Callable[..., None]) -> None:
    if video.duration is not None and not MIN_DURATION <= video.duration <= MAX_DURATION:
        bad("duration", f"{video.duration} is outside {MIN_DURATION}-{MAX_DURATION:,} seconds")
    if video.rating is not None and not MIN_RATING <= video.rating <= MAX_RATING:
        bad("rating", f"{video.rating} is outside {MIN_RATING}-{MAX_RATING}")
    if video.view_count is not None and video.view_count < 0:
        bad("view_count", f"{video.view_count} is negative")
    for name, held, values, what in (
            ("restriction", video.restriction, video.restriction and [
                v for v in video.restriction.countries if not _COUNTRY.fullmatch(v)],
             "an ISO 3166 country code"),
            ("platform", video.platform, video.platform and [
                v for v in video.platform.platforms if v.lower() not in PLATFORMS],
             "web, mobile or tv")):
        if held is None:
            continue
        if held.relationship not in RELATIONSHIPS:
            bad(name, f"relationship {held.relationship!r} is not allow or deny")
        elif values:
            bad(name, f"{values[0]!r} is not {what}")
    if len(video.tags) > MAX_TAGS:
        bad("tags", f"{len(video.tags)} tags, at most {MAX_TAGS} are permitted", "excess")
    if video.uploader is not None and len(video.uploader) > MAX_UPLOADER:
        bad("uploader", f"longer than {MAX_UPLOADER} characters")
    if video.uploader_info is not None and _url_problem(video.uploader_info):
        bad("uploader_info", f"not a URL: {_url_problem(video.uploader_info)}")


def _check_news(news: News, index: int) -> list[Problem]:
    """[NEWS] required: publication name and language, publication_date, title."""
    out = [Problem("news", name, "missing (required)", index, drops="item")
           for name, value in (("name", news.name), ("language", news.language),
                               ("publication_date", news.publication_date),
                               ("title", news.title))
           if value is None or (isinstance(value, str) and not value.strip())]
    if news.language and not is_news_language(news.language):
        out.append(Problem("news", "language", f"{news.language!r} is not an ISO 639 code of "
                           "two or three lower-case letters, zh-cn or zh-tw", index,
                           drops="item"))
    if index > 0:  # [NEWS] "each sitemap <url> tag can have only one news:news tag"
        out.append(Problem("news", "", "more than one <news:news> in a <url>", index,
                           drops="item"))
    return out


def check_extensions(ext: Extensions, page: Optional[str] = None) -> list[Problem]:
    """Every problem of every item, and the per-URL limits. Foreign elements have no rules
    here (an unknown namespace passes)."""
    if not ext:
        return []
    out: list[Problem] = []
    for i, image in enumerate(ext.images[:IMAGES_PER_URL]):
        # [IMG] <image:loc> is required: the image's URL (any host: images may be on a CDN)
        why = _url_problem(image.loc)
        if why:
            out.append(Problem("images", "loc", why, i, drops="item"))
    if len(ext.images) > IMAGES_PER_URL:
        out.append(Problem("images", "", f"{len(ext.images):,} images, at most "
                           f"{IMAGES_PER_URL:,} per URL", None, drops="excess"))
    for i, video in enumerate(ext.videos):
        out += _check_video(video, i, page)
    for i, news in enumerate(ext.news):
        out += _check_news(news, i)
    for i, alt in enumerate(ext.alternates):
        if not is_hreflang(alt.hreflang):
            out.append(Problem("alternates", "hreflang", f"{alt.hreflang!r} is not a language"
                               "[-script][-region] code or x-default", i, drops="item"))
        why = _url_problem(alt.href)
        if why:
            out.append(Problem("alternates", "href", why, i, drops="item"))
    if ext.alternates and page is not None and not _lists_itself(ext, page):
        # [LOC] "Each language version must list itself as well as all other language
        # versions": a warning, nothing is left out for it
        out.append(Problem("alternates", "", "the page is not among its own alternates "
                           "(each version must list itself)", drops="none"))
    for i, mobile in enumerate(ext.mobile):
        if mobile.type is not None and mobile.type not in MOBILE_TYPES:
            out.append(Problem("mobile", "type", f"{mobile.type!r} is not one of "
                               f"{', '.join(MOBILE_TYPES)}", i, drops="item"))
        elif i > 0:
            out.append(Problem("mobile", "", "more than one <mobile:mobile> in a <url>", i,
                               drops="item"))
    return out


def _lists_itself(ext: Extensions, page: str) -> bool:
    try:
        own = normalize_url(page)
    except BadURL:
        return True  # (the page's own problem, reported where it is read)
    for alt in ext.alternates:
        try:
            if normalize_url(alt.href) == own:
                return True
        except BadURL:
            continue
    return False


def sanitize(ext: Extensions, page: Optional[str] = None) -> tuple[Extensions, list[Problem]]:
    """``ext`` less everything a problem names, and the problems (one warning each).

    An item with a problem that ``drops`` "item" is left out whole; a bad optional value is
    left out alone; past a limit ("excess") the surplus is cut: images past 1,000, tags past
    32, a description past 2,048 characters (at a character boundary); "none" is a warning.
    """
    problems = check_extensions(ext, page)
    if not problems:
        return ext, []
    by_kind: dict[str, list[Problem]] = {}
    for p in problems:
        by_kind.setdefault(p.kind, []).append(p)
    changes: dict[str, Any] = {}
    for kind, found in by_kind.items():
        items: Sequence[Any] = getattr(ext, kind)
        if kind == "images":
            items = items[:IMAGES_PER_URL]
        fixed = (_fixed(item, [p for p in found if p.index == i]) for i, item in enumerate(items))
        changes[kind] = tuple(item for item in fixed if item is not None)
    return replace(ext, **changes), problems


def _fixed(item: Any, problems: list[Problem]) -> Any:
    """``item`` less what ``problems`` name, or None when one of them drops it whole."""
    if not problems:
        return item
    if any(p.drops == "item" for p in problems):
        return None
    defaults = {f.name: f.default for f in fields(item)}
    changes: dict[str, Any] = {}
    for p in problems:
        if p.drops == "excess" and p.field == "tags":
            changes["tags"] = item.tags[:MAX_TAGS]
        elif p.drops == "excess" and p.field == "description":
            changes["description"] = item.description[:MAX_DESCRIPTION]
        elif p.drops == "field" and p.field in defaults:
            changes[p.field] = defaults[p.field]
    return replace(item, **changes)
