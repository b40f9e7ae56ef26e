from __future__ import annotations

from xml.parsers import expat

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap.xmlutil import EntitiesForbidden, safe_expat_parser, xml_escape


def test_all_five_characters_are_escaped() -> None:
    assert xml_escape("""a&b<c>d'e"f""") == "a&amp;b&lt;c&gt;d&apos;e&quot;f"


def test_escaping_happens_once() -> None:
    assert xml_escape("&amp;") == "&amp;amp;"


def _parse_text(doc: str) -> str:
    parts: list[str] = []
    p = expat.ParserCreate()
    p.CharacterDataHandler = parts.append
    p.Parse(doc.encode("utf-8"), True)
    return "".join(parts)


@given(st.text())
def test_escaped_text_reads_back_as_the_original(text: str) -> None:
    escaped = xml_escape(text)
    allowed = "".join(
        ch if ch in "\t\n\r" or (" " <= ch <= "\ud7ff") or ("\ue000" <= ch <= "\ufffd")
        or ch > "\uffff" else "\ufffd" for ch in text)
    # XML normalises line ends on reading: \r\n and \r become \n
    expected = allowed.replace("\r\n", "\n").replace("\r", "\n")
    assert _parse_text(f"<a>{escaped}</a>") == expected


@given(st.text())
def test_escaped_text_is_safe_in_attributes(text: str) -> None:
    p = expat.ParserCreate()
    seen: list[str] = []
    p.StartElementHandler = lambda name, attrs: seen.append(attrs["v"])
    p.Parse(f"<a v='{xml_escape(text)}'/>".encode(), True)
    assert len(seen) == 1


@pytest.mark.parametrize("doc", [
    b'<!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>',
    b'<!DOCTYPE x [<!ENTITY a SYSTEM "file:///etc/passwd">]><x>&a;</x>',
    b'<!DOCTYPE x [<!ENTITY % p SYSTEM "http://example.com/e.dtd"> %p;]><x/>',
    b'<!DOCTYPE x SYSTEM "http://example.com/x.dtd"><x>&undefined;</x>',
    b'<!DOCTYPE x [<!ENTITY a "1"><!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>',
])
def test_entity_declarations_and_external_entities_are_refused(doc: bytes) -> None:
    with pytest.raises(EntitiesForbidden):
        safe_expat_parser().Parse(doc, True)


def test_a_plain_doctype_is_allowed() -> None:
    safe_expat_parser().Parse(b'<!DOCTYPE x><x>a &amp; b</x>', True)
