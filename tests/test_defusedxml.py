"""defusedxml at the XML boundary (issue 33, item 8).

A differential test: for every DTD, entity and external-reference case, whether defusedxml
refuses a document must match whether the converter (both modes) and ``check`` refuse it.
Where our policy deliberately differs, the difference is written out below with its reason.
And the plain paths (the reference mode's readers, ``check``'s plain pump, the pass before
feedparser) parse through defusedxml itself, so they refuse what it refuses by construction.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.etree.ElementTree import ParseError
from xml.parsers import expat

import defusedxml
import defusedxml.ElementTree as DET
import pytest

from feed2sitemap.backends import ENV
from feed2sitemap.xmlutil import EntitiesForbidden, defused_parse

from .conftest import ROOT, run

NS = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
INDEX_NS = b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
OLD = b"an older output, which no refused run may touch\n"
LOC = b"https://e.example/a/"

LAUGHS = b"".join([b'<!ENTITY lol "lol">'] + [
    b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
    for i in range(1, 10)])

# (id, the DOCTYPE (None: none), what follows LOC in every <loc>/<link>)
CASES = [
    ("no-doctype", None, b"plain"),
    ("predefined-and-character-references", None, b"?a=1&amp;b=&#50;&#x33;"),
    ("undefined-reference-no-dtd", None, b"&undef;"),
    ("doctype-no-subset", b"<!DOCTYPE root>", b"plain"),
    ("doctype-element-declarations", b"<!DOCTYPE root [<!ELEMENT root ANY>]>", b"plain"),
    ("doctype-attlist-default", b'<!DOCTYPE root [<!ATTLIST loc lang CDATA "en">]>', b"plain"),
    ("internal-entity-used", b'<!DOCTYPE root [<!ENTITY e "x">]>', b"&e;"),
    ("internal-entity-unused", b'<!DOCTYPE root [<!ENTITY e "x">]>', b"plain"),
    ("internal-entity-in-attribute", b'<!DOCTYPE root [<!ENTITY e "x">]>', b"attr"),
    ("billion-laughs", b"<!DOCTYPE root [" + LAUGHS + b"]>", b"&lol9;"),
    ("external-entity-system", b'<!DOCTYPE root [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
     b"&x;"),
    ("external-entity-public",
     b'<!DOCTYPE root [<!ENTITY x PUBLIC "-//E//X" "http://127.0.0.1:9/x">]>', b"&x;"),
    ("unparsed-entity",
     b'<!DOCTYPE root [<!NOTATION n SYSTEM "n"><!ENTITY u SYSTEM "u.gif" NDATA n>]>', b"plain"),
    ("parameter-entity-internal",
     b"<!DOCTYPE root [<!ENTITY % p \"<!ENTITY e 'x'>\"> %p;]>", b"plain"),
    ("parameter-entity-external", b'<!DOCTYPE root [<!ENTITY % p SYSTEM '
     b'"http://127.0.0.1:9/p.dtd"> %p;]>', b"plain"),
    ("external-dtd-system", b'<!DOCTYPE root SYSTEM "http://127.0.0.1:9/s.dtd">', b"plain"),
    ("external-dtd-public",
     b'<!DOCTYPE root PUBLIC "-//E//S" "http://127.0.0.1:9/s.dtd">', b"plain"),
    ("external-dtd-empty-system", b'<!DOCTYPE root SYSTEM "">', b"plain"),
    ("external-dtd-undefined-reference",
     b'<!DOCTYPE root SYSTEM "http://127.0.0.1:9/s.dtd">', b"&undef;"),
]
IDS = [c[0] for c in CASES]
# Enough entries that the references fall in the fast paths' middle regions (64 KiB chunks).
MANY = 3_000


def _entries(kind: str, tail: bytes, n: int, start: int = 0) -> bytes:
    loc = LOC + (b"plain" if tail == b"attr" else tail)
    attr = b' xml:lang="&e;"' if tail == b"attr" else b""
    if kind == "feed":
        return b"".join(b"<item%s><link>%s%d</link></item>" % (attr, loc, i)
                        for i in range(start, start + n))
    entry = b"sitemap" if kind == "index" else b"url"
    return b"".join(b"<%s%s><loc>%s%d</loc></%s>" % (entry, attr, loc, i, entry)
                    for i in range(start, start + n))


def document(kind: str, doctype: bytes | None, tail: bytes, n: int = 1) -> bytes:
    """A sitemap, index or RSS feed with ``doctype`` whose entries end their URL in ``tail``
    (in the last entry only when there are many: a late reference)."""
    root = {"sitemap": b"urlset", "index": b"sitemapindex", "feed": b"rss"}[kind]
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n'
    if doctype is not None:
        head += doctype.replace(b"root", root) + b"\n"
    body = _entries(kind, b"plain", n - 1) + _entries(kind, tail, 1, n - 1)
    if kind == "feed":
        return head + (b'<rss version="2.0"><channel><title>t</title>'
                       b"<link>https://e.example/</link>" + body + b"</channel></rss>")
    return head + (INDEX_NS if kind == "index" else NS) + body + b"</" + root + b">"


def defused(data: bytes, forbid_dtd: bool = False) -> str:
    """defusedxml's verdict with its defaults (entities and external references forbidden):
    "ok", "forbidden" (its own refusal) or "malformed" (expat's, through it)."""
    try:
        DET.fromstring(data, forbid_dtd=forbid_dtd)
    except defusedxml.DefusedXmlException:
        return "forbidden"
    except ParseError:
        return "malformed"
    return "ok"


def convert(tmp: Path, data: bytes, name: str, reference: bool,
            *args: str) -> subprocess.CompletedProcess[bytes]:
    src, out = tmp / name, tmp / "out" / "sitemap.xml"
    src.write_bytes(data)
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(OLD)
    env = dict(os.environ)
    env.pop(ENV, None)
    if reference:
        env[ENV] = "1"
    result = run(str(src), "-o", str(out), *args, env=env)
    if result.returncode:
        assert out.read_bytes() == OLD, "a refused run touched the output"
        assert b"Traceback" not in result.stderr
        assert len(result.stderr.decode().strip().splitlines()) == 1, result.stderr
    return result


def check(tmp: Path, data: bytes, name: str,
          reference: bool = False) -> subprocess.CompletedProcess[bytes]:
    src = tmp / name
    src.write_bytes(data)
    env = dict(os.environ)
    env.pop(ENV, None)
    if reference:
        env[ENV] = "1"
    return run("check", str(src), env=env)


def _sizes(tail: bytes) -> tuple[int, ...]:
    """One entry; and many, when the case puts a reference in the entries (the DOCTYPE comes
    before the root: the fast paths' middle regions only ever see the references)."""
    return (1,) if tail == b"plain" else (1, MANY)


def _entity_refusal(result: subprocess.CompletedProcess[bytes]) -> bool:
    """The run was refused with our entity message (the converter's one line)."""
    err = result.stderr.decode()
    return result.returncode == 1 and ("declares entities" in err or "refers to entity" in err)


# --------------------------------------------------------------------------- the table


def test_the_table_holds_what_defusedxml_says() -> None:
    """The table covers both of defusedxml's verdicts (so the rows below test something)."""
    verdicts = {c[0]: defused(document("sitemap", c[1], c[2])) for c in CASES}
    assert verdicts["internal-entity-used"] == verdicts["billion-laughs"] == "forbidden"
    assert verdicts["external-entity-system"] == verdicts["parameter-entity-external"] == \
        "forbidden"
    assert verdicts["doctype-no-subset"] == verdicts["external-dtd-system"] == "ok"
    assert verdicts["external-dtd-undefined-reference"] == "malformed"


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sitemap", "index"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
def test_sitemaps_refuse_exactly_what_defusedxml_refuses(kind: str, case: tuple[str, bytes |
                                                         None, bytes], reference: bool,
                                                         tmp_path: Path) -> None:
    """Sitemaps and indexes: no difference at all. A document defusedxml refuses (an entity
    declared, an external reference) is refused with our entity message; one its parser
    cannot read (an undefined entity, under an external DTD or none) is refused too; the rest
    (a DOCTYPE without entities, an external DTD, which is never loaded) is read."""
    _, doctype, tail = case
    for n in _sizes(tail):  # one entry, and the reference in the fast path's middle region
        data = document(kind, doctype, tail, n)
        verdict = defused(data)
        result = convert(tmp_path, data, f"{kind}.xml", reference)
        assert (result.returncode != 0) == (verdict != "ok"), (n, verdict, result.stderr)
        if verdict == "forbidden":
            assert _entity_refusal(result), result.stderr
        if verdict != "ok":
            assert result.returncode == 1


# Feeds defusedxml reads but feedparser calls malformed: read with the warning, refused by
# --strict. feedparser cuts the DOCTYPE out with a regex that stops at its first ">", so an
# internal subset without entities (element or attribute-list declarations) leaves text
# before the root (readers/feed/fastpass.py's Doctype): the reader gives feedparser's answer, by
# design.
FEEDPARSER_MALFORMED = {"doctype-element-declarations", "doctype-attlist-default"}


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
def test_feeds_refuse_what_defusedxml_forbids(case: tuple[str, bytes | None, bytes],
                                              reference: bool, tmp_path: Path) -> None:
    """Feeds: defusedxml's own refusals (entities, external references) are ours, by the fast
    pass and by feedparser's path alike. Deliberate difference: a feed defusedxml cannot read
    (not well-formed: an undefined entity) is read as feedparser reads it, the reference
    kept as text with a "malformed feed" warning (README, "Messages and exit codes"), since
    feeds in the wild often are; ``--strict`` refuses it, and then the verdicts are equal
    (but for FEEDPARSER_MALFORMED)."""
    name, doctype, tail = case
    for n in _sizes(tail):
        data = document("feed", doctype, tail, n)
        verdict = defused(data)
        if name in FEEDPARSER_MALFORMED:
            assert verdict == "ok"
            verdict = "malformed"  # (feedparser's verdict, above)
        result = convert(tmp_path, data, "feed.xml", reference)
        assert _entity_refusal(result) == (verdict == "forbidden"), (n, verdict, result.stderr)
        if verdict == "malformed":
            assert result.returncode == 0 and b"malformed" in result.stderr, result.stderr
        strict = convert(tmp_path, data, "feed.xml", reference, "--strict")
        assert (strict.returncode != 0) == (verdict != "ok"), (n, verdict, strict.stderr)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sitemap", "index", "feed"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_check_refuses_what_defusedxml_refuses_with_forbid_dtd(
        kind: str, case: tuple[str, bytes | None, bytes], tmp_path: Path) -> None:
    """``check``: equal to defusedxml with forbid_dtd=True. Deliberate difference from its
    defaults: any DOCTYPE is an error (sitemaps.org defines no DTD; a file we write never
    holds one), so what defusedxml's defaults read (a DOCTYPE without entities, an external
    DTD) ``check`` reports."""
    _, doctype, tail = case
    data = document(kind, doctype, tail, _sizes(tail)[-1])
    verdict = defused(data, forbid_dtd=True)
    for reference in (False, True):
        result = check(tmp_path, data, f"{kind}.xml", reference)
        assert (result.returncode != 0) == (verdict != "ok"), (reference, result.stdout)
        if verdict == "forbidden":
            assert b"error: dtd:" in result.stdout, result.stdout


# --------------------------------------------------------------------------- by construction


def test_the_plain_paths_parse_through_defusedxml() -> None:
    """defused_parse: whatever the expat parser beside it lets through, a declaration
    defusedxml forbids is refused (here a bare parser, with none of our handlers)."""
    data = document("sitemap", b'<!DOCTYPE root [<!ENTITY e "x">]>', b"&e;")
    bare = expat.ParserCreate(None, " ")
    parse = defused_parse(bare, None)
    with pytest.raises(EntitiesForbidden, match="declares entities"):
        parse(data, True)
    # a document defusedxml merely cannot read (an undefined entity under an external DTD)
    # is left to our parser's own rules: no refusal from defusedxml
    undefined = document("sitemap", b'<!DOCTYPE root SYSTEM "s.dtd">', b"&undef;")
    defused_parse(expat.ParserCreate(None, " "), None)(undefined, True)


_IMPORTED = """
import sys
from feed2sitemap.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("defusedxml" in sys.modules)
"""


@pytest.mark.parametrize("kind", ["sitemap", "feed"])
def test_reference_mode_and_check_read_through_defusedxml(kind: str, tmp_path: Path) -> None:
    """The reference mode's readers and ``check``'s plain pump import and use defusedxml; the
    fast path does not (no start-up cost, no second parse)."""
    src = tmp_path / f"{kind}.xml"
    src.write_bytes(document(kind, None, b"plain", 3))

    def imported(reference: bool, *args: str) -> bool:
        env = dict(os.environ)
        env.pop(ENV, None)
        if reference:
            env[ENV] = "1"
        out = subprocess.run([sys.executable, "-c", _IMPORTED, *args], capture_output=True,
                             env=env, timeout=60, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        return out.stdout.decode().split()[-1] == "True"

    assert imported(True, str(src), "-o", str(tmp_path / "ref.xml"))
    assert imported(True, "check", str(src))
    assert not imported(False, str(src), "-o", str(tmp_path / "fast.xml"))


def test_defusedxml_is_a_declared_dependency() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    deps = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    assert '"defusedxml' in deps
