"""The fast path for the common sitemap extensions (readers/urlextfast.py, with the batch rules
of extensions/rulesfast.py) against the extension pass it stands for (FEED2SITEMAP_REFERENCE=1):
the same output bytes, the same report, the same messages with the same lines, the same errors,
on generated sitemaps and on real ones.
"""

from __future__ import annotations

import io
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from feed2sitemap import Feed2SitemapError, Report, convert
from feed2sitemap.backends import ENV
from feed2sitemap.extensions.merging import ExtensionMerger
from feed2sitemap.extensions.model import Alternate, Image
from feed2sitemap.model.extensions import Extensions
from feed2sitemap.readers import sitemap as sitemap_reader
from feed2sitemap.readers import urlextfast

from .conftest import CONFORMANCE, run

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
BASE = "https://example.com/"
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def outcome(data: bytes) -> tuple[bytes, list[str], Any, str | None]:
    """What converting ``data`` gives: the output bytes, the messages, the counts, the error."""
    messages: list[str] = []
    report = Report(on_message=messages.append)
    out = io.BytesIO()
    try:
        convert([io.BytesIO(data)], out, base_url=BASE, report=report)
    except Feed2SitemapError as exc:
        return b"", messages, None, str(exc)
    return out.getvalue(), messages, (dict(report.warnings), dict(report.skipped)), None


def both_ways(data: bytes, mp: pytest.MonkeyPatch) -> tuple[Any, Any]:
    mp.delenv(ENV, raising=False)
    fast = outcome(data)
    mp.setenv(ENV, "1")
    plain = outcome(data)
    mp.delenv(ENV)
    return fast, plain


# ---------------------------------------------------------------------------- generated sitemaps

_WS = st.sampled_from(["", "", " ", "\n", "\r\n", "\t", "\n  "])
_PAGES = st.sampled_from([BASE + "p/{n}", BASE + "p/{n}?a=1&amp;b=2", "/rel/{n}",
                          BASE + "caf\u00e9/{n}", "", BASE + "p/{n}#top", "  " + BASE + "s/{n} "])
_IMAGES = st.sampled_from([BASE + "i/{n}.jpg", "https://cdn.example.net/{n}.jpg", "/i/{n}.jpg",
                           "not a url", BASE + "a b.jpg", "http://", BASE + "%7E{n}.jpg",
                           "https://EXAMPLE.com/{n}.jpg", BASE + "q?x=1&amp;y=&#50;", "",
                           " " + BASE + "sp/{n}.jpg\n", BASE + "./d/{n}.jpg"])
_LANGS = st.sampled_from(["de", "en-GB", "x-default", "pt-br", "english", " fr ", "", "de&#x9;x",
                          "zh-Hant-TW", "e&amp;n"])
_HREFS = st.sampled_from([BASE + "de/{n}", "{page}", "/rel/{n}", "ftp://example.com/{n}",
                          BASE + "x?q=1&amp;r=2", BASE + "t\tab/{n}", BASE + "%C3%A9/{n}"])


@st.composite
def _link(draw: st.DrawFn, px: str, page: str, n: int) -> str:
    values = {"rel": "alternate", "hreflang": draw(_LANGS),
              "href": draw(_HREFS).format(n=n, page=page)}
    names = draw(st.permutations(list(values)))
    attrs = []
    for name in names:
        quote = draw(st.sampled_from(['"', "'"]))
        eq = draw(st.sampled_from(["=", "=", " = ", "=\n"]))
        attrs.append(f"{draw(st.sampled_from([' ', ' ', '  ', chr(10)]))}{name}{eq}"
                     f"{quote}{values[name]}{quote}")
    return f"<{px}:link{''.join(attrs)}{draw(st.sampled_from(['', ' ']))}/>"


@st.composite
def _image(draw: st.DrawFn, pi: str, n: int) -> str:
    loc = draw(_IMAGES).format(n=n)
    return (f"<{pi}:image>{draw(_WS)}<{pi}:loc>{loc}</{pi}:loc>{draw(_WS)}</{pi}:image>")


def _odd(pi: str, px: str, n: int) -> st.SearchStrategy[str]:
    """What the fast path leaves to the extension pass (the region then goes to expat)."""
    return st.sampled_from([
        f"<{pi}:image><{pi}:loc>{BASE}c/{n}.jpg</{pi}:loc><{pi}:caption>c</{pi}:caption>"
        f"</{pi}:image>",
        f'<{px}:link rel="alternate" hreflang="de" href="{BASE}d/{n}"></{px}:link>',
        f'<{px}:link rel="alternate" hreflang="de" href="{BASE}d/{n}" media="x"/>',
        f'<{pi}:image xmlns:{pi}="http://other.example/ns"><{pi}:loc>{BASE}o/{n}</{pi}:loc>'
        f"</{pi}:image>",
        f'<image xmlns="{IMAGE_NS}"><loc>{BASE}dflt/{n}.jpg</loc></image>',
        "<!-- a comment -->", "<![CDATA[ text ]]>",
        f'<{px}:link rel="nofollow" hreflang="de" href="{BASE}d/{n}"/>',
        f'<{px}:link rel=" alternate" hreflang="de" href="{BASE}d/{n}"/>',
        f'<{px}:link rel="alternate" hreflang="de" hreflang="fr" href="{BASE}d/{n}"/>',
        '<video:video xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">'
        "<video:title>t</video:title></video:video>",
        f"<{pi}:image><{pi}:loc>{BASE}{n}</{pi}:loc><{pi}:loc>{BASE}twice</{pi}:loc>"
        f"</{pi}:image>",
        "<changefreq>daily</changefreq>"])


@st.composite
def _entry(draw: st.DrawFn, pi: str, px: str, n: int, odd: bool, bare: bool = False) -> str:
    page = draw(_PAGES).format(n=n)
    core = f"<loc>{page}</loc>"
    if draw(st.booleans()):
        core += f"{draw(_WS)}<lastmod>{draw(st.sampled_from(['2024-03-05', 'soon']))}</lastmod>"
    if draw(st.integers(0, 4)) == 0:
        core += f"{draw(_WS)}<priority>{draw(st.sampled_from(['0.5', '7']))}</priority>"
    kinds = [] if bare else draw(st.lists(st.sampled_from("iil" + ("o" if odd else "")),
                                          max_size=6))
    items = []
    for kind in kinds:
        if kind == "i":
            items.append(draw(_image(pi, n)))
        elif kind == "l":
            items.append(draw(_link(px, page.replace("&amp;", "&").strip(), n)))
        else:
            items.append(draw(_odd(pi, px, n)))
    inner = "".join(draw(_WS) + item for item in items)
    return f"<url>{draw(_WS)}{core}{inner}{draw(_WS)}</url>"


@st.composite
def sitemaps(draw: st.DrawFn) -> bytes:
    pi, px = draw(st.lists(st.sampled_from(["image", "img", "i", "xhtml", "x", "h"]),
                           min_size=2, max_size=2, unique=True))
    declared = draw(st.sampled_from(["both", "both", "both", "image", "xhtml", "neither"]))
    decls = f' xmlns="{SM}"'
    if declared in ("both", "image"):
        decls += f' xmlns:{pi}="{IMAGE_NS}"'
    if declared in ("both", "xhtml"):
        decls += f' xmlns:{px}="{XHTML_NS}"'
    if draw(st.booleans()) or declared == "neither":
        decls += ' xmlns:other="http://other.example/ns"'
    odd = draw(st.integers(0, 4)) == 0  # (then the fast path is seldom taken)
    n = draw(st.integers(1, 40))
    entries = [draw(_entry(pi, px, i, odd, declared == "neither")) for i in range(n)]
    sep = draw(st.sampled_from(["\n", "", "\r\n", "\n\n  "]))
    text = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset{decls}>{sep}'
            + sep.join(entries) + f"{sep}</urlset>\n")
    return text.encode("utf-8")


@pytest.mark.slow
@SETTINGS
@given(sitemaps(), st.sampled_from([1 << 16, 4096, 700, 97]))
@example(b'<urlset xmlns="' + SM.encode() + b'" xmlns:image="' + IMAGE_NS.encode() + b'">'
         + b"".join(b"<url><loc>https://example.com/%d</loc><image:image><image:loc>"
                    b"/rel.jpg</image:loc></image:image></url>\n" % i for i in range(9))
         + b"</urlset>", 97)
def test_generated_sitemaps_give_the_same_both_ways(data: bytes, chunk: int) -> None:
    """Chunks down to 97 bytes put every cut (head, middle, tail) everywhere."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sitemap_reader, "CHUNK", chunk)
        fast, plain = both_ways(data, mp)
    assert fast == plain


def _record_scans(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each region offered to the extension scan was read by it (fast mode on)."""
    taken: list[bool] = []
    scan = urlextfast.ExtensionScanner.scan

    def spy(self: urlextfast.ExtensionScanner, region: bytes, line: int) -> Any:
        found = scan(self, region, line)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(urlextfast.ExtensionScanner, "scan", spy)
    monkeypatch.delenv(ENV, raising=False)
    return taken


def test_the_fast_path_is_taken_for_the_common_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The differential tests above hold only if the fast path runs: it reads these entries
    (bad values included: the rules, not the scan, deal with them)."""
    taken = _record_scans(monkeypatch)
    entries = "".join(
        f"<url><loc>{BASE}p/{i}</loc>\n <img:image> <img:loc>/rel/{i}.jpg</img:loc>"
        f"</img:image>\n <h:link href='{BASE}p/{i}' hreflang=\"english\"\trel='alternate' />"
        "</url>\n" for i in range(50))
    data = (f'<urlset xmlns="{SM}" xmlns:img="{IMAGE_NS}" xmlns:h="{XHTML_NS}">\n{entries}'
            "</urlset>\n").encode()
    written, messages, counts, error = outcome(data)
    assert taken == [True] and error is None
    assert counts[0] == {"bad images extension": 50, "bad alternates extension": 50}
    # each message names the line of the item it is about (entry 0 is read by the extension
    # pass, the chunk's head; entry 1 by the fast path)
    lang = "is not a language[-script][-region] code or x-default"
    assert messages[:4] == [
        "<stream>:3: warning: images[0].loc: not an absolute URL: '/rel/0.jpg'",
        f"<stream>:4: warning: alternates[0].hreflang: 'english' {lang}",
        "<stream>:6: warning: images[0].loc: not an absolute URL: '/rel/1.jpg'",
        f"<stream>:7: warning: alternates[0].hreflang: 'english' {lang}"]
    assert b"<xhtml:link" not in written and b"<image:image>" not in written


def test_past_the_shown_messages_warnings_are_counted_alike(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages that do not list themselves (one warning each, shared by the proven rows) past
    the messages a kind shows, with rows the batch proof leaves to the rule (a relative image)
    among them: the same messages, in the same order, and the same counts both ways, and a
    problem sink (the problems file) gets every one with its line."""
    def entry(i: int) -> str:
        image = "/rel.jpg" if i % 7 == 3 else f"{BASE}i/{i}.jpg"
        return (f"<url><loc>{BASE}p/{i}</loc>\n<image:image><image:loc>{image}</image:loc>"
                f'</image:image><x:link rel="alternate" hreflang="de" href="{BASE}de/{i}"/>'
                "</url>\n")
    data = (f'<urlset xmlns="{SM}" xmlns:image="{IMAGE_NS}" xmlns:x="{XHTML_NS}">\n'
            + "".join(map(entry, range(400))) + "</urlset>\n").encode()
    taken = _record_scans(monkeypatch)
    fast, plain = both_ways(data, monkeypatch)
    assert any(taken) and fast == plain and fast[3] is None
    assert fast[2][0] == {"bad alternates extension": 400, "bad images extension": 57}
    assert sum(": warning: alternates:" in m for m in fast[1]) == 50

    def sunk(reference: bool) -> list[Any]:
        problems: list[Any] = []
        if reference:
            monkeypatch.setenv(ENV, "1")
        else:
            monkeypatch.delenv(ENV, raising=False)
        convert([io.BytesIO(data)], io.BytesIO(), base_url=BASE,
                report=Report(on_problem=problems.append))
        return problems
    problems = sunk(False)
    assert len(problems) == 457 and problems == sunk(True)
    assert [p.line for p in problems if p.reason.startswith("alternates")][:3] == [2, 4, 6]


def test_a_sitemap_declaring_only_xsi_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """A second namespace on the root (xsi, for a schemaLocation, as many generators write)
    turns the extension pass on; its plain entries are still read by the scan."""
    taken = _record_scans(monkeypatch)
    xsi = "http://www.w3.org/2001/XMLSchema-instance"
    entries = "".join(f"<url><loc>{BASE}{i}</loc><lastmod>2024-03-05</lastmod></url>\n"
                      for i in range(20))
    data = (f'<urlset xmlns="{SM}" xmlns:xsi="{xsi}" xsi:schemaLocation="{SM} '
            f'{SM}/sitemap.xsd">\n{entries}</urlset>\n').encode()
    fast = outcome(data)
    assert taken == [True] and fast[3] is None and fast[0].count(b"<lastmod>") == 20
    monkeypatch.setenv(ENV, "1")
    assert outcome(data) == fast


def test_a_namespace_declared_past_the_root_leaves_the_fast_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken = []
    monkeypatch.setattr(urlextfast.ExtensionScanner, "scan",
                        lambda self, region, line: taken.append(1))
    entries = "".join(f'<url><loc>{BASE}{i}</loc><image:image xmlns:image="{IMAGE_NS}">'
                      f"<image:loc>{BASE}{i}.jpg</image:loc></image:image></url>\n"
                      for i in range(20))
    written, _, _, error = outcome(
        f'<urlset xmlns="{SM}" xmlns:x="{XHTML_NS}">{entries}</urlset>'.encode())
    assert error is None and written.count(b"<image:loc>") == 20 and not taken


# ---------------------------------------------------------------------------- the command

def _big_sitemap(n: int) -> bytes:
    """Entries over several 64 KiB chunks: the common shapes, with now and then an entry the
    fast path leaves to the extension pass, and values the rules drop."""
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}" '
           f'xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}">']
    for i in range(n):
        page = f"{BASE}p/{i}"
        bad = "/relative.jpg" if i % 97 == 0 else f"{BASE}i/{i}.jpg"
        lang = "english" if i % 89 == 0 else "de"
        odd = (f"<image:image><image:loc>{BASE}c/{i}.jpg</image:loc><image:caption>c"
               "</image:caption></image:image>" if i % 1000 == 999 else "")
        out.append(f"<url><loc>{page}</loc><lastmod>2024-03-05</lastmod>\n"
                   f"  <image:image><image:loc>{bad}</image:loc></image:image>{odd}\n"
                   f'  <xhtml:link rel="alternate" hreflang="{lang}" href="{BASE}de/{i}"/>'
                   f"<xhtml:link rel='alternate' hreflang='en' href='{page}'/></url>")
    out.append("</urlset>\n")
    return "\n".join(out).encode()


@pytest.mark.slow
def test_the_command_writes_the_same_both_ways_and_check_accepts_it(tmp_path: Path) -> None:
    src = tmp_path / "in.xml"
    src.write_bytes(_big_sitemap(3000))
    results = []
    for mode in ("", "1"):
        out = tmp_path / f"out{mode}" / "sitemap.xml"
        out.parent.mkdir()
        env = {**__import__("os").environ, ENV: mode}
        r = run(str(src), "-o", str(out), "--base-url", BASE, "--max-urls", "1000", env=env)
        assert r.returncode == 0, r.stderr
        files = sorted(p.name for p in out.parent.iterdir())
        results.append((r.stderr.replace(str(out.parent).encode(), b"OUT"),
                        [(name, (out.parent / name).read_bytes()) for name in files]))
        checked = run("check", str(out), "--follow", "--base-url", BASE)
        assert checked.returncode == 0, checked.stderr
    assert results[0] == results[1]
    stderr = results[0][0].decode()
    assert "warnings: 31 bad images extension, 34 bad alternates extension" in stderr
    assert re.search(r"in\.xml:295: warning: images\[0\]\.loc: not an absolute URL", stderr)


_REAL = [p for folder in ("schema-probes", "sitemap.js-mocks")
         for p in sorted((CONFORMANCE / folder).glob("*.xml"))] if CONFORMANCE.exists() else []


@pytest.mark.slow
@pytest.mark.parametrize("path", _REAL or [None], ids=[p.name for p in _REAL] or ["absent"])
def test_real_sitemaps_give_the_same_both_ways(path: Path | None, tmp_path: Path) -> None:
    if path is None:
        pytest.skip(f"conformance material not present: {CONFORMANCE} (../shared is optional)")
    results = []
    for mode in ("", "1"):
        out = tmp_path / f"out{mode}.xml"
        env = {**__import__("os").environ, ENV: mode}
        r = run(str(path), "-o", str(out), "--base-url", "https://www.example.com/",
                "--no-scope-check", env=env)
        results.append((r.returncode, r.stderr.replace(str(out).encode(), b"OUT"),
                        out.read_bytes() if out.exists() else None))
    assert results[0] == results[1]


# ---------------------------------------------------------------------------- merging

_COPIES = st.lists(st.tuples(
    st.builds(lambda i, a: Extensions(images=tuple(Image(f"{BASE}{k}.jpg") for k in i),
                                      alternates=tuple(Alternate("de", f"{BASE}{k}") for k in a)),
              st.lists(st.integers(0, 3), max_size=2), st.lists(st.integers(0, 3), max_size=2)),
    st.sampled_from([None, date(2024, 1, 1), date(2024, 1, 2)])), min_size=1, max_size=4)


@SETTINGS
@given(_COPIES)
def test_a_url_merged_from_copies_takes_each_kind_from_the_newest(
        copies: list[tuple[Extensions, date | None]]) -> None:
    """A single copy is kept as it is (no rebuilding per URL); more copies are decided per
    kind: the newest lastmod wins, a tie (or no date) goes to the first copy that has it."""
    merger = ExtensionMerger()
    for ext, lastmod in copies:
        merger.add(ext, lastmod)
    expected = {}
    for kind in ("images", "alternates"):
        best: tuple[tuple[Any, ...], date | None] | None = None
        for ext, lastmod in copies:
            value = getattr(ext, kind)
            if value and (best is None or lastmod is not None and (
                    best[1] is None or lastmod > best[1])):
                best = (value, lastmod)
        expected[kind] = best[0] if best else ()
    value = merger.value()
    assert (value.images, value.alternates) == (expected["images"], expected["alternates"])
    if len(copies) == 1 and copies[0][0]:
        assert value is copies[0][0]
