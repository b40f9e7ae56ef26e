"""The vocabulary of the benchmark's data: realistic URLs, dates and text, from a fixed seed."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import TextIO

BASE_URL = "https://example.com/"
SEED = 20240601
# Bump when a generator changes, so data made by an older version is remade.
GEN_VERSION = 2
SITEMAP_PARTS = 20

# Characters RFC 3986 allows unescaped in a URL (plus '%' so existing escapes survive);
# the non-ASCII floor percent-encodes everything else, as our command must.
URL_SAFE = "/:?#[]@!$&'()*+,;=%~"


# --------------------------------------------------------------------------- data

WORDS = (
    "about access account action active actual address advice agency album alpha amazing "
    "analysis angle animal annual answer apple april archive area argument art article "
    "audio august author autumn average award backup balance band bank basic battery beach "
    "bench best beta better bike black blog blue board boat book border bottle brand bread "
    "bridge bright budget build business button cable cache camera campaign camp career case "
    "castle cat center chain change chapter chart cheap check chess city class classic clean "
    "client climate cloud club coast code coffee color column comment company compare config "
    "contact content cookie corner cotton country course cover craft create credit culture "
    "cycle daily data debug deep delta design desk detail device diet digital dinner direct "
    "doctor dog domain download draft dream drive early earth easy edge editor energy engine "
    "event expert fabric family farm fast feature field film final finance fire fish flight "
    "floor flower focus food forest format forum frame free fresh friend fruit future galaxy "
    "game garden gear gift global gold golf green grid group growth guide guitar habit hair "
    "health heart history holiday home hotel house idea image index island jacket journal "
    "kitchen label lake language laptop learn legal lemon letter light linux list local "
    "lunch magic market media menu metal method mobile model money month motor mountain "
    "movie music nature network news night north note ocean office online open orange "
    "order paper park party pattern people photo piano plan planet plant player pocket "
    "policy portal power press price print product project python queen quick radio rain "
    "recipe release report review river road rocket room route rule safety sale salt sample "
    "school science screen search season secret security server service shadow share shop "
    "silver simple sky smart snow social software solar sound space speed sport spring "
    "square stack star station stone story street studio style summer sunset support system "
    "table team tech test theory ticket time tool tower town track trade travel tree trend "
    "update user valley video village vision voice water weather web week wind window winter "
    "wood work world yellow young zero zone"
).split()
# Non-ASCII path segments seen on real sites: accented Latin, CJK, Cyrillic, Greek.
NON_ASCII = (
    "café", "crème-brûlée", "über-uns", "straße", "naïve", "résumé", "niño", "jalapeño",
    "维基", "百科全书", "新闻", "東京", "日本語", "новости", "статьи", "Ελλάδα", "smörgåsbord",
)
SECTIONS = ("blog", "news", "products", "docs", "tags", "users", "events", "help")
CATEGORIES = ("shoes", "books", "garden", "kitchen", "toys", "music", "sports", "tools")
CHANGEFREQ = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
EPOCH = datetime(2015, 1, 1, tzinfo=timezone.utc)
SPAN = 10 * 365 * 86400  # dates spread over ten years


def make_path(rng: random.Random, i: int, non_ascii: bool) -> str:
    """A realistic, unique URL on example.com; ``i`` in every path keeps the URLs distinct
    (so dedupe never drops any and the output count must equal the input count)."""
    slug = "-".join(rng.choice(WORDS) for _ in range(rng.randrange(2, 6)))
    y, m, d = rng.randrange(2015, 2025), rng.randrange(1, 13), rng.randrange(1, 29)
    t = rng.randrange(8)
    if t == 0:
        path = f"blog/{y}/{m:02d}/{slug}-{i}"
    elif t == 1:
        path = f"products/{rng.choice(CATEGORIES)}/{slug}-{i}.html"
    elif t == 2:
        path = f"docs/v{rng.randrange(1, 6)}/{rng.choice(WORDS)}/{slug}-{i}"
    elif t == 3:
        path = f"news/{y}-{m:02d}-{d:02d}/{slug}-{i}"
    elif t == 4:
        path = f"users/{rng.choice(WORDS)}{i}/posts/{rng.randrange(1, 500)}"
    elif t == 5:
        path = f"tags/{rng.choice(WORDS)}/{slug}-{i}"
    elif t == 6:
        path = f"{rng.choice(SECTIONS)}/{slug}-{i}/"
    else:
        path = f"events/{y}/{rng.choice(WORDS)}-{i}"
    if non_ascii and rng.random() < 0.05:
        word = rng.choice(NON_ASCII)
        path = f"blog/{word}-{slug}-{i}" if rng.random() < 0.5 else f"{word}/{slug}-{i}"
    q = rng.random()
    if q < 0.03:  # ~3% with '&' in the query, which every XML writer must escape
        path += f"?utm_source={rng.choice(WORDS)}&utm_medium=email&page={rng.randrange(1, 50)}"
    elif q < 0.10:
        path += f"?page={rng.randrange(2, 40)}"
    return BASE_URL + path


def when(rng: random.Random) -> datetime:
    return EPOCH + timedelta(seconds=rng.randrange(SPAN))


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def xml_escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def blurb(rng: random.Random) -> str:
    """A description as feeds carry it: plain text or a little HTML (which the XML then
    escapes, so entities like &amp;amp; appear).  Kept short so the RSS lands near 16 MB."""
    text = sentence(rng, rng.randrange(4, 10)) + "."
    r = rng.random()
    if r < 0.5:
        return text
    if r < 0.8:
        return f"<p>{text}</p>"
    return f'<p>{text} <a href="/more">More</a> &amp; <em>{rng.choice(WORDS)}</em></p>'


class Chunked:
    """Buffered writer: joining ~10k pieces per write keeps generation fast."""

    def __init__(self, f: TextIO) -> None:
        self.f: TextIO = f
        self.buf: list[str] = []

    def add(self, s: str) -> None:
        self.buf.append(s)
        if len(self.buf) >= 10_000:
            self.flush()

    def flush(self) -> None:
        self.f.write("".join(self.buf))
        self.buf.clear()
