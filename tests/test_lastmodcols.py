"""The common lastmod forms read a column at a time (model/lastmods.py) against parse_lastmod, the
rule they must follow: what they accept they read as it reads, what they are unsure of they
leave to it."""

from __future__ import annotations

from datetime import datetime
from typing import Optional

from hypothesis import given
from hypothesis import strategies as st

from feed2sitemap.model import lastmods as lastmodcols
from feed2sitemap.model.rules import parse_common_lastmods, parse_lastmod, parse_lastmod_column

_COMMON_TEXTS = st.builds(
    lambda y, mo, d, time, zone: f"{y:04d}-{mo:02d}-{d:02d}" + (f"T{time}{zone}" if time else ""),
    st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32),
    st.sampled_from(["", "00:00:00", "23:59:59", "24:00:00", "12:60:00", "07:08:09"]),
    st.sampled_from(["Z", "+00:00", "-00:00", "+14:00", "-14:00", "+14:01", "+13:59", "+05:30",
                     "-09:60", "+15:00", "+99:00"]),
)


@given(st.lists(_COMMON_TEXTS, max_size=12))
def test_common_lastmods_in_bulk_are_what_parse_lastmod_gives(texts: list[str]) -> None:
    got = parse_common_lastmods(texts)
    for text, value in got.items():
        want = parse_lastmod(text)
        assert (value, type(value)) == (want, type(want))
        if isinstance(want, datetime):
            assert value.utcoffset() == want.utcoffset()


def test_a_usual_lastmod_column_is_parsed_in_bulk() -> None:
    texts = ["2024-03-05", "2024-03-05T10:15:00+01:00", "2023-12-31T23:59:59Z", "2022-01-01"]
    assert parse_common_lastmods(texts) == {t: parse_lastmod(t) for t in texts}
    # a 30 February leaves its group to be parsed one by one, and parse_lastmod refuses it
    assert parse_common_lastmods(["2024-02-30", "2024-02-28"]) == {}


# The column-at-a-time proof of the common forms (lastmodcols._laid_out) may only accept what the
# regexes accept: texts made from the layouts' own characters with one spot changed at random.
_SPOTS = st.sampled_from("0123456789+-:TZ\n x١")  # (١: an Arabic-Indic digit, which \d matches)


@given(st.lists(st.tuples(st.sampled_from(sorted(lastmodcols._LAYOUTS)), st.integers(0, 24), _SPOTS,
                          st.integers(1000, 9999)), min_size=1, max_size=6))
def test_the_column_proof_accepts_only_what_the_regexes_accept(
        specs: list[tuple[int, int, str, int]]) -> None:
    size = specs[0][0]
    fill = {10: "2024-03-05", 20: "2024-03-05T10:15:00Z", 25: "2024-03-05T10:15:00+01:00"}
    texts = []
    for _, spot, char, year in specs:
        text = str(year) + fill[size][4:]
        spot %= size
        texts.append(text[:spot] + char + text[spot + 1:])
    joined = "\n".join(texts) + "\n"
    shape = lastmodcols._common_shape(size == 10)
    if lastmodcols._laid_out(joined, len(texts), lastmodcols._LAYOUTS[size]):
        assert shape.fullmatch(joined) is not None
    for text, value in parse_common_lastmods(texts).items():
        assert (value, type(value)) == (parse_lastmod(text), type(parse_lastmod(text)))


def test_the_usual_columns_are_proved_without_the_regexes() -> None:
    for texts in (["2024-03-05", "1999-12-31"], ["2024-03-05T10:15:00Z"] * 2,
                  ["2024-03-05T10:15:00+01:00", "2024-03-05T10:15:00-09:59"]):
        layout = lastmodcols._LAYOUTS[len(texts[0])]
        assert lastmodcols._laid_out("\n".join(texts) + "\n", len(texts), layout)
    # an offset of ten hours or more, a year 0999, a "1000-01-01" time: the regexes judge
    for text in ("2024-03-05T10:15:00+10:00", "0999-03-05", "1000-01-01T00:00:00Z"):
        assert not lastmodcols._laid_out(text + "\n", 1, lastmodcols._LAYOUTS[len(text)])


def _same(got: object, want: object) -> bool:
    """Equal, of the same type, and (for times) at the same offset: what a writer shows."""
    if (got, type(got)) != (want, type(want)):
        return False
    return not isinstance(want, datetime) or got.utcoffset() == want.utcoffset()  # type: ignore[attr-defined]


def _parsed(text: Optional[str]) -> object:
    try:
        return parse_lastmod(text) if text is not None else None
    except ValueError:
        return ValueError


@given(st.lists(_COMMON_TEXTS, min_size=1, max_size=40))
def test_a_whole_column_is_parse_lastmod_row_by_row_or_left_to_it(texts: list[str]) -> None:
    """parse_lastmod_column gives every row's value in row order, or None when any row is
    one it is unsure of (parse_column then parses each distinct text with parse_lastmod)."""
    got = parse_lastmod_column(texts)
    want = [_parsed(t) for t in texts]
    if got is not None:
        assert len(got) == len(texts)
        assert all(_same(g, w) for g, w in zip(got, want, strict=True))


def test_the_usual_sitemap_column_is_read_whole_in_row_order() -> None:
    texts = ["2024-03-05T10:15:00+00:00", "2024-03-05", "2023-12-31T23:59:59Z",
             "2022-01-01", "2024-03-05T10:15:00-09:30", "2024-03-06"] * 50
    got = parse_lastmod_column(texts)
    assert got is not None
    assert all(_same(g, parse_lastmod(t)) for g, t in zip(got, texts, strict=True))


def test_a_column_with_a_row_it_cannot_read_is_left_whole_to_parse_lastmod() -> None:
    usual = ["2024-03-05", "2024-03-05T10:15:00+00:00"]
    for odd in (None, "", " 2024-03-05", "2024-02-30", "2024-03-05T24:00:00+00:00",
                "0999-03-05", "2024+03-05", "2024-03-05T10:15:00+15:00", "2024-W10-2",
                "2024-03-05 10:15:00+00:00", "２０２４-03-05", "x" * 300):
        assert parse_lastmod_column([*usual, odd, *usual]) is None, odd


def test_a_plus_is_a_sign_only_where_the_offset_is() -> None:
    """The shape proof reads "+" as "-" to compare the layout once: a "+" anywhere but the
    offset's sign must still fail it."""
    for text in ("2024+03-05", "2024-03+05T10:15:00+01:00", "2024-03-05T10:15:00+01:00"):
        ok = lastmodcols._laid_out(text + "\n", 1, lastmodcols._LAYOUTS[len(text)])
        assert ok == (text == "2024-03-05T10:15:00+01:00"), text


_USUAL_TEXTS = st.builds(
    lambda y, mo, d, time, zone: f"{y:04d}-{mo:02d}-{d:02d}" + (f"T{time}{zone}" if time else ""),
    st.integers(1001, 9998), st.integers(1, 12), st.integers(1, 28),
    st.sampled_from(["", "00:00:00", "23:59:59", "07:08:09"]),
    st.sampled_from(["Z", "+00:00", "-00:00", "+14:00", "-14:00", "+13:59", "+05:30", "-09:59"]))


@given(st.lists(_USUAL_TEXTS, min_size=1, max_size=60))
def test_a_column_of_usual_texts_is_read_whole(texts: list[str]) -> None:
    got = parse_lastmod_column(texts)
    assert got is not None
    assert all(_same(g, parse_lastmod(t)) for g, t in zip(got, texts, strict=True))


def test_newest_of_mixed_dates_and_times_is_the_plain_max_by_instant() -> None:
    """newest_of finds each kind's newest in C; the plain rule is max by lastmod_key, the first
    of equal instants (a date is its midnight UTC), which an index's lastmod and the
    future-lastmod warning rely on."""
    from datetime import date, datetime, timedelta, timezone
    from random import Random

    from feed2sitemap.model.lastmods import lastmod_key, newest_of

    rng = Random(7)
    for _ in range(3000):
        values: list[date | datetime | None] = []
        for _ in range(rng.randint(1, 8)):
            day = rng.randint(1, 3)
            kind = rng.random()
            if kind < 0.4:
                values.append(date(2024, 1, day))
            elif kind < 0.5:
                values.append(None)
            else:
                zone = timezone(timedelta(hours=rng.choice([0, 1, -2])))
                values.append(datetime(2024, 1, day, rng.choice([0, 1, 23]), tzinfo=zone))
        present = [v for v in values if v]
        want = max(present, key=lastmod_key) if present else None
        assert newest_of(values) is want, values
