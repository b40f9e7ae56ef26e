"""RSS 2.0 and Atom 1.0 output: one item (entry) per record.

Records carry no titles, so an item's title is derived from its URL (``title_for``). Feeds carry
instants to the second: a date-only lastmod is written as its midnight UTC (the instant
``lastmod_key`` compares it as) and reads back as that datetime; fractions of a second are dropped.

Atom requires an ``<updated>`` on every entry and on the feed. An entry whose page has no known
lastmod gets ``UNKNOWN_UPDATED`` (1970-01-01T00:00:00Z, the Unix epoch): a value no reader takes
for a real date, which the feed reader maps back to "no lastmod", so a round trip never turns it
into a page's date. RSS has no such rule: an item without a lastmod simply has no ``<pubDate>``.
"""

from __future__ import annotations

from datetime import datetime, timezone

from ..model.batch import Batch
from ..model.record import Lastmod, Record, lastmod_key
from ..xmlutil import xml_escape
from .base import Format

__all__ = ["ATOM", "RSS", "UNKNOWN_UPDATED", "FeedFormat", "atom_time", "rfc822_time",
           "title_for"]

DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
ATOM_NS = "http://www.w3.org/2005/Atom"
UNKNOWN_UPDATED = datetime(1970, 1, 1, tzinfo=timezone.utc)

# RFC 822 names, not strftime's %a/%b: those follow the locale.
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# A path's last segment ending so is a page file, not a word of the title.
_PAGE_EXTENSIONS = frozenset({"html", "htm", "xhtml", "shtml", "php", "asp", "aspx", "jsp"})


def _utc_seconds(value: Lastmod) -> datetime:
    return lastmod_key(value).astimezone(timezone.utc).replace(microsecond=0)


def rfc822_time(value: Lastmod) -> str:
    """RSS 2.0 date (RFC 822 with a four-digit year), always 29 characters: day zero-padded."""
    t = _utc_seconds(value)
    return (f"{_DAYS[t.weekday()]}, {t.day:02d} {_MONTHS[t.month - 1]} {t.year:04d} "
            f"{t.hour:02d}:{t.minute:02d}:{t.second:02d} GMT")


def atom_time(value: Lastmod) -> str:
    """Atom date (RFC 3339) in UTC to the second, always 20 characters."""
    t = _utc_seconds(value)
    return (f"{t.year:04d}-{t.month:02d}-{t.day:02d}T"
            f"{t.hour:02d}:{t.minute:02d}:{t.second:02d}Z")


def title_for(loc: str) -> str:
    """A readable title made from a URL, since records carry none.

    The last non-empty segment of the path, percent-decoded, without a page-file extension
    (.html, .php …), with "-" and "_" read as spaces: ``/blog/my-first-post.html`` gives
    "my first post". The home page (no path segment) gives the host.
    """
    from urllib.parse import unquote, urlsplit  # (2 ms of start-up, with ipaddress)

    parts = urlsplit(loc)
    segments = [s for s in parts.path.split("/") if s]
    if not segments:
        return parts.hostname or loc
    name = unquote(segments[-1], errors="replace")
    stem, dot, ext = name.rpartition(".")
    if dot and stem and ext.lower() in _PAGE_EXTENSIONS:
        name = stem
    title = " ".join(name.replace("-", " ").replace("_", " ").split())
    return title or name


class FeedFormat(Format):
    """What RSS and Atom share: the channel's title, link and description, set per run, and a
    header that names the newest lastmod of the file's own entries.

    That header cannot be written before the file's entries are known, yet the splitter must
    know its size before the first entry: ``file_header(newest)`` has exactly the UTF-8 length
    of ``header()`` whatever ``newest`` is (a fixed-width timestamp, padded when absent), and
    the splitter holds the entries aside until the file closes.
    """

    name = "feed"
    extension = ".xml"
    limits = "feed"  # one file a reader subscribes to: never split

    def __init__(self, title: str = "", link: str = "", description: str = "") -> None:
        self.title = title
        self.link = link
        self.description = description

    def for_site(self, site_url: str, title: str | None = None,
                 description: str | None = None) -> FeedFormat:
        """This format for one site: the title defaults to the host, the description to
        "Pages of HOST". ``site_url`` must be a normalised absolute URL."""
        from urllib.parse import urlsplit  # (2 ms of start-up, with ipaddress)

        host = urlsplit(site_url).hostname or site_url
        return type(self)(host if title is None else title, site_url,
                          f"Pages of {host}" if description is None else description)

    def file_header(self, newest: Lastmod | None) -> str:
        raise NotImplementedError

    def header(self) -> str:
        return self.file_header(None)

    def entries(self, batch: Batch) -> list[str]:
        return list(map(self._entry, batch.records()))

    def _entry(self, record: Record) -> str:
        raise NotImplementedError


class RssFormat(FeedFormat):
    name = "rss"
    extension = ".rss"

    # <lastBuildDate> is optional in RSS 2.0; when no entry of the file has a lastmod it is left
    # out and its fixed-width slot holds a comment of the same width saying so (a line of
    # spaces looked like a fault to whoever read the file).
    _SLOT = len("<lastBuildDate></lastBuildDate>") + len(rfc822_time(UNKNOWN_UPDATED))
    _NO_DATE = f"<!-- {'no lastBuildDate here: none of the items has a date':<{_SLOT - 9}} -->"

    def file_header(self, newest: Lastmod | None) -> str:
        stamp = (f"<lastBuildDate>{rfc822_time(newest)}</lastBuildDate>" if newest is not None
                 else self._NO_DATE)
        return (f'{DECLARATION}<rss version="2.0">\n<channel>\n'
                f"<title>{xml_escape(self.title)}</title>\n"
                f"<link>{xml_escape(self.link)}</link>\n"
                f"<description>{xml_escape(self.description)}</description>\n"
                f"{stamp}\n")

    def footer(self) -> str:
        return "</channel>\n</rss>\n"

    def _entry(self, record: Record) -> str:
        loc = xml_escape(record.loc)
        date = ("" if record.lastmod is None
                else f"<pubDate>{rfc822_time(record.lastmod)}</pubDate>")
        return (f"<item><title>{xml_escape(title_for(record.loc))}</title><link>{loc}</link>"
                f'<guid isPermaLink="true">{loc}</guid>{date}</item>\n')


class AtomFormat(FeedFormat):
    """Atom 1.0. The feed's id and alternate link are the site URL; its author is the title.

    RFC 4287 needs an author on the feed when entries have none, an id, a title and an updated
    time: the newest lastmod of the file's entries, else ``UNKNOWN_UPDATED``.
    """

    name = "atom"
    extension = ".atom"

    def file_header(self, newest: Lastmod | None) -> str:
        link, title = xml_escape(self.link), xml_escape(self.title)
        return (f'{DECLARATION}<feed xmlns="{ATOM_NS}">\n'
                f"<id>{link}</id>\n<title>{title}</title>\n"
                f"<subtitle>{xml_escape(self.description)}</subtitle>\n"
                f'<link rel="alternate" href="{link}"/>\n'
                f"<author><name>{title}</name></author>\n"
                f"<updated>{atom_time(UNKNOWN_UPDATED if newest is None else newest)}"
                "</updated>\n")

    def footer(self) -> str:
        return "</feed>\n"

    def _entry(self, record: Record) -> str:
        loc = xml_escape(record.loc)
        updated = atom_time(UNKNOWN_UPDATED if record.lastmod is None else record.lastmod)
        return (f"<entry><id>{loc}</id><title>{xml_escape(title_for(record.loc))}</title>"
                f'<link rel="alternate" href="{loc}"/><updated>{updated}</updated></entry>\n')


RSS = RssFormat()
ATOM = AtomFormat()
