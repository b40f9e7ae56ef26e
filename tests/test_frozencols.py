"""urlextfast.made: a column of frozen dataclass instances made in C is what the constructor
makes, row by row, and it refuses the classes it cannot make that way."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from feed2sitemap.extensions.model import Alternate, Image
from feed2sitemap.model.extensions import Extensions
from feed2sitemap.readers.urlextfast import made


def test_the_instances_equal_the_constructors_and_stay_frozen() -> None:
    locs = [f"https://example.com/{i}.jpg" for i in range(5)]
    images = made(Image, 5, loc=iter(locs), title=["t"] * 5)
    assert images == [Image(loc, title="t") for loc in locs]
    assert all(type(im) is Image for im in images)
    assert hash(images[0]) == hash(Image(locs[0], title="t"))
    with pytest.raises(FrozenInstanceError):
        images[0].loc = "x"  # type: ignore[misc]
    alternates = made(Alternate, 2, hreflang=["de", "fr"], href=["https://a/", "https://b/"])
    assert alternates == [Alternate("de", "https://a/"), Alternate("fr", "https://b/")]
    rows = made(Extensions, 2, images=[tuple(images[:2]), ()], alternates=[(), (alternates[0],)])
    assert rows == [Extensions(images=tuple(images[:2])), Extensions(alternates=(alternates[0],))]
    assert [bool(r) for r in rows] == [True, True] and made(Extensions, 0) == []


@dataclass(slots=True)
class Mutable:
    a: int


@dataclass(frozen=True)
class Unslotted:
    a: int


@dataclass(frozen=True, slots=True)
class Checked:
    a: int

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("negative")


@dataclass(frozen=True, slots=True)
class Factory:
    a: list[int] = field(default_factory=list)


@pytest.mark.parametrize("cls", [Mutable, Unslotted, Checked, int])
def test_classes_it_cannot_make_are_refused(cls: type) -> None:
    with pytest.raises(TypeError):
        made(cls, 1, a=[1])


def test_a_missing_column_without_default_and_an_unknown_field_are_refused() -> None:
    with pytest.raises(TypeError, match="no column for loc"):
        made(Image, 1, title=["t"])
    with pytest.raises(TypeError, match="no field"):
        made(Image, 1, loc=["x"], colour=["red"])
    with pytest.raises(TypeError, match="no column for a"):
        made(Factory, 1)
