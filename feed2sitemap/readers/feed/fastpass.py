"""The feed fast pass: each entry's page link and date, feedparser's answer, from one expat pass.

feedparser builds a dictionary of everything in a feed; we need two values per entry, so this
pass replays only the parts of its handler that decide them (compat.py holds the rules).
Whatever could make feedparser's state machine wander off that path (a root other than
rss/rdf:RDF/feed, CDF, XML that is not well-formed once decoded as feedparser decodes it, an
internal DTD subset, elements inside a link, guid or date, handlers not replayed, a namespace
prefix rebound below the root...) raises FastPathUnsupported, and the policy asks feedparser.
Markup that may carry an extension is noted (FeedEntries.extended) for feedparser to read.
Past SMALL bytes, runs of plain entries are read by runs.py instead of the handlers (Feeder).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from typing import Any, Optional
from xml.parsers import expat

from ...xmlutil import MAX_ATTRIBUTES, MAX_TOKEN, MarkupGuard, XMLTooComplex, forbid_entities
from .compat import (
    END_KEYS,
    ENTRY,
    FREE_TEXT,
    KIND,
    PLAIN,
    REPLAYED_VERSION,
    ROOTS,
    Attributes,
    FastPathUnsupported,
    FeedEntries,
    FeedEntry,
    Namespaces,
    clean,
    entry_date,
    guid_is_url,
    is_html,
    join_base,
    link_text,
    map_content_type,
    native,
    new_entry,
    no_date,
    one_line_encoding,
    prepare,
    resolver,
)

__all__ = ["FastPathUnsupported", "FeedEntries", "FeedEntry", "parse_feed_chunks",
           "parse_feed_entries"]

CHUNK = 1 << 16  # expat is given slices, not the whole document in its buffer


def parse_feed_entries(data: bytes, base_url: str | None = None) -> FeedEntries:
    """Parse a whole feed document; raise FastPathUnsupported for anything not replayed."""
    if not data:
        return FeedEntries()  # feedparser returns no entries without parsing anything
    if not REPLAYED_VERSION:
        raise FastPathUnsupported("feedparser is not the 6.0 series the pass replays")
    body, encoding, shift = prepare(bytes(data), base_url)
    return _Pass(encoding, base_url or "", shift).run([body])


def parse_feed_chunks(chunks: Iterator[bytes], base_url: str | None,
                      whole: Callable[[], bytes]) -> FeedEntries:
    """parse_feed_entries over a document given a chunk at a time; ``whole()`` gives the whole
    document, for an encoding expat does not read."""
    if not REPLAYED_VERSION:
        raise FastPathUnsupported("feedparser is not the 6.0 series the pass replays")
    first = next(chunks, b"")
    if b"\n" in first:  # (feedparser's declaration regex reads the whole first line)
        encoding = native(first, base_url)
    else:  # a feed on one line (minified)
        encoding, chunks = one_line_encoding(first, chunks, base_url)
    if encoding is None:  # feedparser's converter, which needs the whole document
        return parse_feed_entries(whole(), base_url)
    return _Pass(encoding, base_url or "", 0).run(itertools.chain([first], chunks))


Text = list[str]  # an element's text as expat gave it, in pieces: joined only if it is used


def _finish(alt: str | None, link: str | tuple[str, Text] | None, updated: Text | None,
            published: Text | None, line: int,
            resolve: Callable[[str, str], str]) -> FeedEntry:
    """The entry's record: what feedparser computes on the way, done once, only if used."""
    if alt is None and isinstance(link, tuple):  # a permalink guid: pop() resolves and cleans it
        base, pieces = link
        text = "".join(pieces).strip()
        link = clean(resolve(base, text)) if guid_is_url(text) else ""
    when = entry_date(clean("".join(updated).strip())) if updated is not None else None
    if when is None and published is not None:
        when = entry_date(clean("".join(published).strip()), epoch_is_unknown=False)
    return new_entry(FeedEntry, (link if alt is None else alt, when, line))


Handler = Optional[Callable[[str, dict[str, str]], None]]


class _Pass:
    """One pass of pyexpat over a feed, with feedparser's state as named attributes: ``start``
    finds an element's handler by its expat name, ``end`` has work only at the depth of the
    deepest open scope (entry, source, image, leaf or text construct)."""

    __slots__ = ("parser", "shift", "guard", "attributes", "namespaces", "resolve",
                 "names", "base", "stack", "stable", "self_joins", "entries",
                 "entry", "source", "image", "inside", "in_text", "deepest", "outer",
                 "content_attrs", "collecting", "link_text", "rel",
                 "alt", "link", "updated", "published", "line", "encoding", "closed",
                 "bound", "tag")

    def __init__(self, encoding: str, base: str, shift: int) -> None:
        p = self.parser = expat.ParserCreate(encoding, " ")
        p.namespace_prefixes = True  # qualified attribute names, as feedparser's SAX has them
        p.buffer_text = True
        self.shift = shift  # lines feedparser's encoding converter added or removed
        self.guard = MarkupGuard()
        self.attributes = Attributes()
        self.namespaces = Namespaces()
        self.resolve = resolver()
        self.names: dict[str, tuple[Handler, str]] = {}  # expat name -> handler, feedparser key
        # feedparser's basestack above a falsy bottom: depths below are len(stack), the root's 2
        self.base = base
        self.stack = [""]
        self.stable = ""  # a base that joined with itself stays the same
        self.self_joins: dict[str, str] = {}
        self.entries = FeedEntries()
        # Depths (or 0) of the open entry, source, image, leaf or text construct (``in_text``:
        # its key, "" for a leaf); the deepest of them, and the deepest but the leaf or text
        # construct.
        self.entry = self.source = self.image = self.inside = self.deepest = self.outer = 0
        self.in_text = ""
        self.content_attrs: dict[str, str] = {}  # the open text construct's
        self.collecting = False  # the character data handler is set (in a leaf)
        self.link_text: Text | None = None  # the text of the open <link> read as text
        self.rel = ""  # and its rel
        # The open entry: its first alternate href; feedparser's "link" ((base, text) for a
        # permalink guid's); the text of its last updated and published elements; its line.
        self.alt: str | None = None
        self.link: str | tuple[str, Text] | None = None
        self.updated: Text | None = None
        self.published: Text | None = None
        self.line = 0
        # For runs: expat's encoding, byte index of the last entry's end tag, entries' tag
        self.encoding, self.closed, self.tag = encoding, -1, ""
        self.bound: dict[str | None, list[str]] = {}  # prefix (None: default) -> URIs in scope

    def run(self, chunks: Iterable[bytes]) -> FeedEntries:
        p, guard = self.parser, self.guard
        forbid_entities(p)
        dtd = Doctype()
        p.SkippedEntityHandler = dtd.skipped_entity
        p.StartElementHandler = self.start_root
        p.EndElementHandler = self.end
        p.StartNamespaceDeclHandler = self.declare_namespace
        p.EndNamespaceDeclHandler = self.end_namespace
        feeder = Feeder(self)
        feed = feeder.feed

        def free() -> bool:  # in a text construct no reader keeps, expat holding no tag
            return (self.inside != 0 and self.in_text in FREE_TEXT
                    and feeder.fed - p.CurrentByteIndex <= MAX_TOKEN)

        p.StartDoctypeDeclHandler = dtd.start
        p.EndDoctypeDeclHandler = dtd.end
        try:
            for body in chunks:
                for i in range(0, len(body), CHUNK):
                    piece = body[i : i + CHUNK]
                    guard.scan(piece, free)
                    feed(piece)
                    guard.depth(len(self.stack) - 1)
                    dtd.parsed(piece)
            p.Parse(b"", True)
        except expat.ExpatError as exc:
            raise FastPathUnsupported(f"not well-formed: {exc}") from None
        except XMLTooComplex as exc:
            raise XMLTooComplex(str(exc), p.CurrentLineNumber + self.shift) from None
        return self.entries

    def learn(self, name: str) -> tuple[Handler, str]:
        """A new element name: its feedparser key and the handler of the key's kind."""
        self.guard.element(name, None)  # (its length)
        key = self.namespaces.key(name)
        kind = KIND.get(key, PLAIN)  # its handler: on_<kind> below
        info = self.names[name] = (getattr(self, "on_" + kind) if kind else None, key)
        return info

    def push(self, attrs: dict[str, str]) -> None:
        """feedparser's push of the element's base: xml:base, else the base joined with itself."""
        if attrs:
            if len(attrs) > MAX_ATTRIBUTES:
                self.guard.element("", attrs)
            if not self.attributes.plain.issuperset(attrs):
                self.guard.element("", attrs)  # new attribute names: their lengths
                new = self.attributes.new_base(attrs)
                if new is not None:
                    self.base = join_base(self.base, new)
                    self.stack.append(self.base)
                    return
        base = self.base
        if base is not self.stable and base:  # feedparser joins the base with itself every time
            joined = self.self_joins.get(base)
            if joined is None:
                joined = self.self_joins[base] = join_base(base, base)
            if joined == base:
                self.stable = base
            self.base = base = joined
        self.stack.append(base)

    def start_root(self, name: str, attrs: dict[str, str]) -> None:
        key = (self.names.get(name) or self.learn(name))[1]
        if key not in ROOTS:
            raise FastPathUnsupported(f"root element <{key}> is not rss, rdf:RDF or feed")
        self.tag = "entry" if key == "feed" else "item"
        self.parser.StartElementHandler = self.start
        self.start(name, attrs)

    def start(self, name: str, attrs: dict[str, str]) -> None:
        handler, key = self.names.get(name) or self.learn(name)
        if attrs or self.base is not self.stable:
            self.push(attrs)
        else:  # no attribute, and a base that joins with itself unchanged ("" included)
            self.stack.append(self.base)
        if self.inside:
            self.child(key)
        elif handler is not None:
            handler(key, attrs)

    def child(self, key: str) -> None:
        """An element inside a leaf (refused) or a text construct."""
        if not self.in_text:
            raise FastPathUnsupported(f"element <{key}> inside an element read as text")
        # feedparser keeps the children of a text construct as markup but still calls their
        # end handlers; with an XML (non-XHTML) type it even dispatches them as elements.
        given = self.attributes.as_dict(self.content_attrs).get("type")
        mapped = map_content_type(given) if given is not None else ""
        if key in END_KEYS or (mapped.endswith("xml") and mapped != "application/xhtml+xml"):
            raise FastPathUnsupported(f"element <{key}> inside a text construct")

    def on_text(self, key: str, attrs: dict[str, str]) -> None:
        self.outer = self.deepest
        self.inside = self.deepest = len(self.stack)
        self.in_text = key
        self.content_attrs = attrs

    def open_leaf(self, text: Text | None = None) -> None:
        """An element read as text: no element may start inside; its text is collected."""
        self.outer = self.deepest
        self.inside = self.deepest = len(self.stack)
        self.in_text = ""
        if text is not None:
            self.collecting = True
            self.parser.CharacterDataHandler = text.append

    def on_entry(self, key: str, attrs: dict[str, str]) -> None:
        d = self.attributes.as_dict(attrs) if attrs else {}
        if self.entry or self.source or self.image or "href" in d or "lastmod" in d:  # CDF
            raise FastPathUnsupported(f"<{key}> nested or with CDF attributes")
        self.entry = self.deepest = len(self.stack)
        self.alt = self.link = self.updated = self.published = None
        self.line = self.parser.CurrentLineNumber + self.shift

    def on_link(self, key: str, attrs: dict[str, str]) -> None:
        if self.source or not self.entry and (self.image or self.entries.site is not None):
            return  # not the entry's, nor the feed's own first link
        rel, href, typ = self.attributes.link(attrs)
        if self.entry and attrs and ("enclosure" in rel or self.attributes.has(attrs, "hreflang")):
            self.entries.extended = True
        if href is None:  # its text is the link: see end_link
            self.rel = rel
            self.link_text = []
            self.open_leaf(self.link_text)
        elif not self.entry:  # the feed's own link: its site
            href = self.resolve(self.base, href)
            if rel == "alternate" and href:
                self.entries.site = href
        elif rel == "alternate":
            href = self.resolve(self.base, href)
            if self.alt is None and href:
                self.alt = href
            if is_html("text/html" if typ is None else typ):  # (feedparser's default type)
                self.link = href

    def on_guid(self, key: str, attrs: dict[str, str]) -> None:
        if self.entry and not self.source:
            # A permalink guid is the link if none is set at its end (none can be set inside
            # it); the text of another is never used, but it is still read as text.
            if self.link is None and self.attributes.is_permalink(attrs):
                text: Text = []
                self.link = (self.base, text)
                self.open_leaf(text)
            else:
                self.open_leaf()

    def on_published(self, key: str, attrs: dict[str, str]) -> None:
        if self.entry and not self.source:
            self.published = []  # the last one counts
            self.open_leaf(self.published)

    def on_updated(self, key: str, attrs: dict[str, str]) -> None:
        if self.entry and not self.source:
            self.updated = []
            self.open_leaf(self.updated)

    def on_source(self, key: str, attrs: dict[str, str]) -> None:
        if self.source:
            raise FastPathUnsupported("nested <source>")
        self.source = self.deepest = len(self.stack)

    def on_image(self, key: str, attrs: dict[str, str]) -> None:
        if self.image:
            raise FastPathUnsupported(f"nested <{key}>")
        if not self.entry:
            self.image = self.deepest = len(self.stack)
        else:  # there feedparser's image context captures links and dates: allow it empty
            self.open_leaf()

    def on_container(self, key: str, attrs: dict[str, str]) -> None:
        if self.entry:
            raise FastPathUnsupported(f"<{key}> inside an entry")

    def on_childless(self, key: str, attrs: dict[str, str]) -> None:
        self.open_leaf()

    def on_extension(self, key: str, attrs: dict[str, str]) -> None:
        self.entries.extended = True

    def on_unsupported(self, key: str, attrs: dict[str, str]) -> None:
        raise FastPathUnsupported(f"element <{key}> is not handled by the fast path")

    def end(self, name: str) -> None:
        stack = self.stack
        depth = len(stack)
        if depth == self.deepest:  # no element ends above the deepest open scope
            self.close(depth)
        stack.pop()
        if stack[-1]:  # feedparser keeps the inner base when the outer one is empty
            self.base = stack[-1]

    def close(self, depth: int) -> None:
        """The end of the leaf, text construct, entry, source or image open at ``depth``."""
        if depth == self.inside:
            self.inside = 0
            self.deepest = self.outer
            if self.collecting:
                self.collecting = False
                self.parser.CharacterDataHandler = None
                if self.link_text is not None:
                    self.end_link(self.link_text)
            return
        if depth == self.entry:
            self.entry = 0
            self.closed = self.parser.CurrentByteIndex
            entry = _finish(self.alt, self.link, self.updated, self.published, self.line,
                            self.resolve)
            if entry.lastmod is None:
                bad = no_date(clean("".join(t).strip())
                              for t in (self.updated, self.published) if t is not None)
                if bad is not None:
                    self.entries.undated += ((len(self.entries), bad),)
            self.entries.append(entry)
        elif depth == self.source:
            self.source = 0
        elif depth == self.image:
            self.image = 0
        self.deepest = max(self.entry, self.source, self.image)

    def end_link(self, pieces: Text) -> None:
        """The end of a <link> read as text, under its own base: feedparser's _end_link."""
        self.link_text = None
        text = link_text("".join(pieces).strip(), self.base, self.resolve)
        if not self.entry:  # the feed's own link: its site
            if text and self.rel == "alternate":
                self.entries.site = text
        else:
            self.link = text
            if text and self.rel == "alternate" and self.alt is None:
                self.alt = text

    def declare_namespace(self, prefix: str | None, uri: str | None) -> None:
        """feedparser's track_namespace. Changes that rename elements: only on the root."""
        self.guard.namespace(prefix, uri)
        self.bound.setdefault(prefix, []).append(uri or "")
        if uri and self.namespaces.declare(prefix, uri):
            if self.stack[1:]:  # an open element could end under another name than it began
                raise FastPathUnsupported("a namespace prefix is rebound inside the document")
            self.names.clear()

    def end_namespace(self, prefix: str | None) -> None:
        self.bound[prefix].pop()  # (expat calls it for each declaration going out of scope)


@cache  # (compiled when first used: start-up time)
def _undefined_ref() -> re.Pattern[bytes]:
    """A reference to an entity other than XML's five (a character reference starts "&#")."""
    return re.compile(rb"&(?!(?:amp|lt|gt|quot|apos);|#)")


class Doctype:
    """The DOCTYPE handlers of one pass, and the pieces it parsed after one."""

    __slots__ = ("internal_subset", "external", "pieces")

    def __init__(self) -> None:
        self.internal_subset = False
        self.external = False  # the DOCTYPE names an external DTD
        self.pieces = 0  # pieces of the document parsed

    def start(self, name: str, sysid: Any, pubid: Any, has_internal_subset: int) -> None:
        self.internal_subset = bool(has_internal_subset)
        # Under an external DTD (even SYSTEM ""), never loaded, expat drops a reference to an
        # undefined entity from an attribute value without a word, where feedparser keeps it
        # and calls the feed malformed: any such reference, in this piece or one after it
        # (one before could have been read already), is left to feedparser.
        if sysid is not None or pubid is not None:
            if self.pieces:
                raise FastPathUnsupported("a DOCTYPE with an external DTD after 64 KiB")
            self.external = True

    def parsed(self, piece: bytes) -> None:
        self.pieces += 1
        if self.external and _undefined_ref().search(piece):
            raise FastPathUnsupported("an entity reference under an external DTD")

    def end(self) -> None:
        # feedparser cuts the DOCTYPE out with a regex that stops at the first ">"
        if self.internal_subset:
            raise FastPathUnsupported("DOCTYPE with an internal subset")

    @staticmethod
    def skipped_entity(name: str, is_parameter: int) -> None:
        # (under an external DTD, which expat does not read: feedparser calls the feed
        # malformed, where xmlutil's rule for the other passes refuses it)
        raise FastPathUnsupported(f"undefined entity {name!r}")


# Runs start past this many bytes: a small feed (the usual cron job's) is read by the handlers
# alone, without compiling the grammar.
SMALL = 32 << 10


class Feeder:
    """Gives a pass's pieces to its parser, with a run (runs.py) in place of plain entries
    wherever expat, with the handlers, has just read an entry's end tag."""

    __slots__ = ("p", "fed", "end", "wait", "backoff", "prefixed")

    def __init__(self, p: _Pass) -> None:
        self.p = p
        self.fed = 0  # bytes given to expat (stand-ins counted as given): its byte index
        self.end = b""
        # after a region without a run, the next tries wait 1, 2, 4... (up to 256) entries
        self.wait = 0
        self.backoff = 1
        self.prefixed: tuple[str, ...] = ()  # the PREFIXED names the document binds as assumed

    def feed(self, piece: bytes) -> None:
        p = self.p
        parse = p.parser.Parse
        pos = 0
        if not self.end:
            if not p.tag and self.fed + len(piece) > SMALL:  # read up to an end tag: the root
                ends = [i for i in (piece.find(b"</item>"), piece.find(b"</entry>")) if i >= 0]
                pos = min(ends, default=len(piece))
                parse(piece[:pos], False)
                self.fed += pos
            if not p.tag or self.fed < SMALL:  # (no root yet, or a small feed so far)
                parse(piece[pos:], False)
                self.fed += len(piece) - pos
                return
            self.end = f"</{p.tag}>".encode()
        end, window = self.end, len(piece)
        while True:
            cut = piece.find(end, pos)
            if cut < 0:
                break
            cut += len(end)
            parse(piece[pos:cut], False)
            self.fed += cut - pos
            pos = cut
            if self.wait:
                self.wait -= 1
                continue
            last = piece.rfind(end, pos, pos + window)
            if last < 0 or not self.between_entries():
                continue
            made = self.run(piece[pos : last + len(end)])
            if made is None:
                window = 4096  # (this piece's next entry is tried with a short region)
                self.wait, self.backoff = self.backoff, min(2 * self.backoff, 256)
                continue
            self.backoff = 1
            pos += made
        if pos < len(piece):
            parse(piece[pos:], False)
            self.fed += len(piece) - pos

    def run(self, region: bytes) -> int | None:
        """The run at the start of ``region``, taken: its size in bytes, or None."""
        p = self.p
        from .runs import NotPlain, entries, scan  # (a large feed's first run imports it)

        found = scan(region, p.tag, p.encoding, self.prefixed)
        if found is None:
            return None
        try:
            made = entries(found, p.base, p.resolve, p.parser.CurrentLineNumber + p.shift)
        except NotPlain:
            return None
        p.entries.extend(made)
        p.parser.Parse(found.stand_in, False)
        self.fed += len(found.stand_in)
        return found.size

    def between_entries(self) -> bool:
        """expat has read all it was given, the last thing an entry's end tag; no scope is
        open, the base stays the same, and the grammar's names have the kinds it assumes."""
        p = self.p
        if (p.parser.CurrentByteIndex != self.fed or p.closed != self.fed - len(self.end)
                or p.entry or p.inside or p.source or p.image
                or p.base and p.base is not p.stable):
            return False
        from .runs import NAMES, PREFIXED

        bound = p.bound
        uri = bound[None][-1] if bound.get(None) else ""
        for local, kind in ((p.tag, ENTRY), *NAMES.items()):
            if self.kind(f"{uri} {local}" if uri else local) != kind:
                return False
        prefixed = []
        for qname, kind in PREFIXED.items():
            prefix, local = qname.split(":")
            if bound.get(prefix) and self.kind(f"{bound[prefix][-1]} {local} {prefix}") == kind:
                prefixed.append(qname)
        self.prefixed = tuple(prefixed)
        return True

    def kind(self, name: str) -> str:
        """The kind (compat.KIND) of the element expat names ``name``."""
        info: dict[str, Any] = self.p.names
        return KIND.get((info.get(name) or self.p.learn(name))[1], PLAIN)
