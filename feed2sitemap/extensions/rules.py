"""Google's (and Baidu's) published rules for sitemap extensions: ``check_extensions`` gives the
``Problem`` values (``check`` reports them), ``sanitize`` leaves out what they name (the
converter warns of each). Sources, read 2025 (Google Search Central):
  [IMG]  https://developers.google.com/search/docs/crawling-indexing/sitemaps/image-sitemaps
  [VID]  https://developers.google.com/search/docs/crawling-indexing/sitemaps/video-sitemaps
  [NEWS] https://developers.google.com/search/docs/crawling-indexing/sitemaps/news-sitemap
  [LOC]  https://developers.google.com/search/docs/specialty/international/localized-versions
  [BAIDU] Baidu search resource platform, mobile Sitemap protocol (<mobile:mobile type=…/>)
  [XSD]  Google's schemas of the image, video and news namespaces (sitemap-video.xsd …)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any, Optional

from ..model.extensions import Extensions
from ..model.rules import XML_SPACE, news_language, xsd_lastmod
from ..model.urls import BadURL, normalize_url
from .model import NEWS_NS, VIDEO_NS, Foreign, News, Problem, Video

IMAGES_PER_URL = 1_000  # [IMG] "Each <url> tag can contain up to 1,000 <image:image> tags"
MAX_TITLE = 100  # [XSD] <video:title>: maxLength 100
MAX_DESCRIPTION = 2_048  # [VID] <video:description>: "Maximum 2048 characters"
MIN_DURATION, MAX_DURATION = 1, 28_800  # [VID] <video:duration>: seconds, 1 to 28,800 (8 h)
MIN_RATING, MAX_RATING = 0.0, 5.0  # [VID] <video:rating>: a float, 0.0 (low) to 5.0 (high)
MAX_TAGS = 32  # [VID] <video:tag>: "A maximum of 32 tags is permitted"
MAX_UPLOADER = 255  # [VID] <video:uploader>: "Maximum 255 characters"
NEWS_PER_FILE = 1_000  # [NEWS] "up to 1,000 news:news tags" per sitemap (the writer's limit)
RELATIONSHIPS = ("allow", "deny")  # [VID] restriction and platform: relationship attribute
PLATFORMS = ("web", "mobile", "tv")  # [VID] <video:platform>: web, mobile, tv
MOBILE_TYPES = ("mobile", "pc,mobile", "htmladapt", "autoadapt")  # [BAIDU]; no type: mobile
# [VID] <video:restriction>: ISO 3166 country codes (alpha-2: the examples are "IE GB US CA");
# [XSD] in capitals ("ie" is written "IE"), as platforms are in small letters
_COUNTRY = re.compile(r"[A-Za-z]{2}")
_YES_NO = re.compile("yes|no|YES|NO|Yes|No")  # [XSD] tYesNo
# [NEWS] <news:language>: ISO 639 language code, two or three letters; "Exception: for
# Simplified Chinese, use zh-cn and for Traditional Chinese, use zh-tw".
_NEWS_LANGUAGE = re.compile(r"[a-z]{2,3}|zh-cn|zh-tw")
# [LOC] hreflang: a language (ISO 639-1), optionally a script (ISO 15924) and a region (ISO
# 3166-1 alpha-2), as a BCP 47 tag; or "x-default". Case does not matter in BCP 47. (Three
# letters are let through: BCP 47 language subtags may have them, and Google's parser does.)
_HREFLANG = re.compile(r"(?i:[a-z]{2,3}(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?|x-default)")


# [LOC] "Each language version must list itself as well as all other language versions": a
# warning, nothing is left out for it
NOT_ITSELF = Problem("alternates", "", "the page is not among its own alternates (each "
                     "version must list itself)", drops="none")


def is_news_language(code: str) -> bool:
    return _NEWS_LANGUAGE.fullmatch(code) is not None


def is_hreflang(value: str) -> bool:
    return _HREFLANG.fullmatch(value) is not None


def _url_problem(value: Optional[str]) -> Optional[str]:
    if not value:
        return "missing (required)"
    try:
        normalize_url(value)
    except BadURL as exc:
        return str(exc)
    return None


def _check_video(video: Video, index: int, page: Optional[str]) -> list[Problem]:
    """[VID] required: thumbnail_loc, title, description, and content_loc or player_loc
    (neither the page's own <loc>)."""
    out: list[Problem] = []

    def bad(name: str, reason: str, drops: str = "field", value: Any = None) -> None:
        out.append(Problem("videos", name, reason, index, drops=drops, value=value))

    why = _url_problem(video.thumbnail_loc)
    if why:
        bad("thumbnail_loc", why, "item")
    for name, text in (("title", video.title), ("description", video.description)):
        if not text or not text.strip():
            bad(name, "missing (required)", "item")
    if len(video.title) > MAX_TITLE:
        bad("title", f"longer than {MAX_TITLE} characters", "excess")
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
    out += [Problem("videos", name, why, index) for name, why in _extra(video.extra, VIDEO_NS)[1]]
    return out


def _check_video_values(video: Video, bad: Callable[..., None]) -> None:
    if video.duration is not None and not MIN_DURATION <= video.duration <= MAX_DURATION:
        bad("duration", f"{video.duration} is outside {MIN_DURATION}-{MAX_DURATION:,} seconds")
    if video.rating is not None and not MIN_RATING <= video.rating <= MAX_RATING:
        bad("rating", f"{video.rating} is outside {MIN_RATING}-{MAX_RATING}")
    if video.view_count is not None and video.view_count < 0:
        bad("view_count", f"{video.view_count} is negative")
    if video.allow_embed is not None and not _YES_NO.fullmatch(video.allow_embed):
        bad("allow_embed", f"{video.allow_embed[:40]!r} is not yes or no")
    if video.restriction is not None:
        countries = video.restriction.countries
        _listed(bad, "restriction", video.restriction, countries, tuple(map(str.upper, countries)),
                [v for v in countries if not _COUNTRY.fullmatch(v)], "an ISO 3166 country code")
    if video.platform is not None:
        platforms = video.platform.platforms
        _listed(bad, "platform", video.platform, platforms, tuple(map(str.lower, platforms)),
                [v for v in platforms if v.lower() not in PLATFORMS], "web, mobile or tv")
    if len(video.tags) > MAX_TAGS:
        bad("tags", f"{len(video.tags)} tags, at most {MAX_TAGS} are permitted", "excess")
    if video.uploader is not None and len(video.uploader) > MAX_UPLOADER:
        bad("uploader", f"longer than {MAX_UPLOADER} characters")
    if video.uploader_info is not None and _url_problem(video.uploader_info):
        bad("uploader_info", f"not a URL: {_url_problem(video.uploader_info)}")


def _listed(bad: Callable[..., None], name: str, held: Any, given: tuple[str, ...],
            spelt: tuple[str, ...], wrong: list[str], what: str) -> None:
    """<video:restriction> or <video:platform>, its list written ``spelt`` (in the case the
    schema takes) when that is all that is wrong with it."""
    if held.relationship not in RELATIONSHIPS:
        bad(name, f"relationship {held.relationship!r} is not allow or deny")
    elif wrong:
        bad(name, f"{wrong[0]!r} is not {what}")
    elif spelt != given:
        field = "countries" if name == "restriction" else "platforms"
        bad(name, f"{' '.join(given)[:60]!r} is written {' '.join(spelt)[:60]!r}", "value",
            replace(held, **{field: spelt}))


Rule = Callable[[str], Optional[str]]


def _rule(pattern: str, what: str, collapse: bool = True) -> Rule:
    """A schema type as a pattern; ``collapse``: it strips white space (all but xsd:string)."""
    regex = re.compile(pattern)

    def judge(text: str) -> Optional[str]:
        value = text.strip(XML_SPACE) if collapse else text
        return None if regex.fullmatch(value) else f"{value[:60]!r} is not {what}"
    return judge


def _date(text: str) -> Optional[str]:
    return xsd_lastmod(text)[0]


_COUNT = _rule(r"\+?\d{1,18}", "a whole number")
_GENRE = "(?:PressRelease|Satire|Blog|OpEd|Opinion|UserGenerated)"
_POSITIVE = _rule(r"\+?0*[1-9]\d{0,17}", "a whole number above 0")
# [XSD] the deprecated children kept as read (Video.extra, News.extra): the rule of each one's
# text (None: any text), of its attributes, the attributes it needs, whether it may be repeated.
_LEAVES: dict[tuple[str, str], tuple[Optional[Rule], dict[str, Optional[Rule]],
                                     tuple[str, ...], bool]] = {
    (VIDEO_NS, "content_segment_loc"): (None, {"duration": _COUNT}, (), True),
    (VIDEO_NS, "category"): (_rule(r"[\s\S]{0,256}", "at most 256 characters", False), {}, (),
                             False),
    (VIDEO_NS, "gallery_loc"): (None, {"title": None}, (), False),
    (VIDEO_NS, "price"): (_rule(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)", "a decimal number"), {
        "currency": _rule("[A-Z]{3}", "an ISO 4217 currency code", False),
        "type": _rule("rent|purchase|RENT|PURCHASE", "rent or purchase", False),
        "resolution": _rule("HD|hd|SD|sd", "HD or SD", False)}, ("currency",), True),
    (VIDEO_NS, "id"): (None, {"type": None}, ("type",), True),
    (NEWS_NS, "access"): (_rule("Subscription|Registration", "Subscription or Registration",
                                False), {}, (), False),
    (NEWS_NS, "genres"): (_rule(f"{_GENRE}(?:, *{_GENRE})*", "a list of PressRelease, Satire, "
                                "Blog, OpEd, Opinion, UserGenerated", False), {}, (), False),
    (NEWS_NS, "geo_locations"): (None, {}, (), False),
    (NEWS_NS, "keywords"): (None, {}, (), False),
    (NEWS_NS, "stock_tickers"): (_rule(r"(?:[^\W_]+:[^\W_]+(?:, *[^\W_]+:[^\W_]+){0,4})?",
                                       "up to five EXCHANGE:TICKER, comma-separated", False),
                                 {}, (), False),
}
# <video:tvshow>'s children, in order: the rule of each one's text, whether it is required
_TVSHOW: dict[str, tuple[Optional[Rule], bool]] = {
    "show_title": (None, True),
    "video_type": (_rule("full|preview|clip|interview|news|other",
                         "full, preview, clip, interview, news or other", False), True),
    "episode_title": (None, False), "season_number": (_POSITIVE, False),
    "episode_number": (_POSITIVE, False), "premier_date": (_date, False)}


def _leaf(element: Foreign, text: Optional[Rule], attributes: dict[str, Optional[Rule]],
          needed: tuple[str, ...] = ()) -> Optional[str]:
    """Why an element fails its schema type, or None."""
    if any(isinstance(c, Foreign) for c in element.children):
        return "holds elements, not text"
    why = text(element.text()) if text is not None else None
    for key, value in element.attributes:
        if key not in attributes:
            return f"the attribute {key.rpartition(' ')[2]!r} is not in Google's schema"
        rule = attributes[key]
        why = why or (rule(value) if rule is not None else None)
    missing = [name for name in needed if element.attribute(name) is None]
    return why or (f"no {missing[0]} attribute" if missing else None)


def _tvshow(element: Foreign) -> tuple[Optional[Foreign], list[tuple[str, str]]]:
    """<video:tvshow> less the optional children that fail (each named), or None when one
    it needs fails or is missing, or its children are out of order."""
    out: list[tuple[str, str]] = []
    kept: list[Any] = []
    order = list(_TVSHOW)
    last = -1
    for child in element.children:
        if isinstance(child, str):
            if child.strip(XML_SPACE):
                return None, [("tvshow", "holds text, not only elements: left out")]
            kept.append(child)
            continue
        name = f"tvshow.{child.name}"
        if child.namespace != VIDEO_NS or child.name not in _TVSHOW:
            return None, [(name, "not in Google's schema: the tvshow is left out")]
        at = order.index(child.name)
        if at <= last:
            return None, [(name, "repeated or out of order: the tvshow is left out")]
        last = at
        rule, required = _TVSHOW[child.name]
        why = _leaf(child, rule, {})
        if why and required:
            return None, [(name, f"{why}: the tvshow is left out")]
        if why:
            out.append((name, f"{why}: left out"))
        else:
            kept.append(child)
    present = {c.name for c in kept if isinstance(c, Foreign)}
    missing = [n for n, (_, required) in _TVSHOW.items() if required and n not in present]
    if missing:
        return None, [(f"tvshow.{missing[0]}", "missing (required): the tvshow is left out")]
    return (replace(element, children=tuple(kept)) if out else element), out


def _extra(extra: tuple[Foreign, ...], ns: str
           ) -> tuple[tuple[Foreign, ...], list[tuple[str, str]]]:
    """The deprecated children (of an item in ``ns``) that pass Google's schema, and (name,
    why) for each one that does not (left out; an optional part of a tvshow alone)."""
    if not extra:
        return extra, []
    kept: list[Foreign] = []
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for element in extra:
        name, key = element.name, (element.namespace, element.name)
        tvshow = key == (VIDEO_NS, "tvshow") and ns == VIDEO_NS
        why: Optional[str] = None
        if not tvshow and (element.namespace != ns or key not in _LEAVES):
            why = "not in Google's schema"
        elif name in seen and (tvshow or not _LEAVES[key][3]):
            out.append((name, "given more than once: the first is kept"))
            continue
        elif tvshow:
            checked, found = _tvshow(element)
            out += found
            if checked is not None:
                kept.append(checked)
        else:
            why = _leaf(element, *_LEAVES[key][:3])
        seen.add(name)
        if why:
            out.append((name, f"{why}: left out"))
        elif not tvshow:
            kept.append(element)
    return tuple(kept), out


def _check_news(news: News, index: int) -> list[Problem]:
    out = [Problem("news", name, "missing (required)", index, drops="item")
           for name, value in (("name", news.name), ("language", news.language),
                               ("publication_date", news.publication_date),
                               ("title", news.title))
           if value is None or (isinstance(value, str) and not value.strip())]
    if news.language and not is_news_language(news.language):
        code = news_language(news.language)  # ("en-US" is "en": Google takes no region)
        why = f"{news.language[:40]!r} is not an ISO 639 code of two or three lower-case " \
              "letters, zh-cn or zh-tw"
        out.append(Problem("news", "language", why, index, drops="item") if code is None else
                   Problem("news", "language", f"{why}: written {code!r}", index,
                           drops="value", value=code))
    out += [Problem("news", name, why, index) for name, why in _extra(news.extra, NEWS_NS)[1]]
    if index > 0:  # [NEWS] "each sitemap <url> tag can have only one news:news tag"
        out.append(Problem("news", "", "more than one <news:news> in a <url>", index,
                           drops="item"))
    return out


def check_extensions(ext: Extensions, page: Optional[str] = None) -> list[Problem]:
    """Every problem of every item and of the per-URL limits (foreign elements have none)."""
    if not ext:
        return []
    out: list[Problem] = []
    for i, image in enumerate(ext.images[:IMAGES_PER_URL]):  # (any host: a CDN's too)
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
        out.append(NOT_ITSELF)
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
    """``ext`` less everything a problem names (as its ``drops`` says), and the problems."""
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
    """``item`` less what ``problems`` name, or None when one drops it whole."""
    if not problems:
        return item
    if any(p.drops == "item" for p in problems):
        return None
    defaults = {f.name: f.default for f in fields(item)}
    changes: dict[str, Any] = {}
    for p in problems:
        if p.drops == "excess" and p.field in _CUT:
            changes[p.field] = getattr(item, p.field)[:_CUT[p.field]]
        elif p.drops == "value":
            changes[p.field] = p.value
        elif p.drops == "field" and p.field in defaults:
            changes[p.field] = defaults[p.field]
        elif p.drops == "field":  # a deprecated child (extra)
            changes["extra"] = _extra(item.extra, VIDEO_NS if isinstance(item, Video)
                                      else NEWS_NS)[0]
    return replace(item, **changes)


_CUT = {"title": MAX_TITLE, "description": MAX_DESCRIPTION, "tags": MAX_TAGS}
