"""A new user's first day (session 17's hunt): the command's messages name the option the user
typed, and the library's entry points refuse a wrong value with the library's own error."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from feed2sitemap import Record, convert, write
from feed2sitemap.errors import OptionError

from .conftest import run

BASE = "https://example.com/"


def test_an_unreadable_remove_list_is_named_by_its_option(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n")
    done = run("urls.txt", "--remove", "gone.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (b"feed2sitemap: --remove: cannot read gone.txt: "
                           b"No such file or directory\n")


@pytest.mark.parametrize("parameter, value", [
    ("defaults", {"changefreq": "daily"}), ("writing", {"gzip_level": 9}), ("limits", 1000),
    ("report", "x"), ("publish", None), ("reading", None), ("web", {"timeout": 3}),
    ("news", "The Times"), ("progress", "x"), ("channel", "x")])
def test_convert_refuses_an_option_group_of_the_wrong_type(tmp_path: Path, parameter: str,
                                                           value: object) -> None:
    """A dict or a string where an option group goes is the library's OptionError naming the
    parameter, before anything is read or written: not an AttributeError from deep inside,
    and not a run that reads `news="The Times"` as a News sitemap and writes nothing."""
    (tmp_path / "urls.txt").write_text(f"{BASE}a\n")
    with pytest.raises(OptionError) as caught:
        convert([str(tmp_path / "urls.txt")], str(tmp_path / "out.xml"), **{parameter: value})
    assert caught.value.parameter == parameter
    assert f"`{parameter}`: must be a " in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["urls.txt"]


@pytest.mark.parametrize("call", [
    lambda out: convert(None, out),  # type: ignore[arg-type]
    lambda out: write(None, out),  # type: ignore[arg-type]
    lambda out: write(Record(BASE), out),  # type: ignore[arg-type]
    lambda out: write([Record(BASE)], out, limits=5000),  # type: ignore[arg-type]
    lambda out: write([Record(BASE)], out, writing={"gzip": True}),  # type: ignore[arg-type]
], ids=["convert-None", "write-None", "write-one-Record", "write-limits", "write-writing"])
def test_write_and_convert_refuse_what_is_not_a_sequence_or_a_group(
        tmp_path: Path, call: Callable[[str], object]) -> None:
    with pytest.raises(OptionError, match="must be a"):
        call(str(tmp_path / "out.xml"))
    assert list(tmp_path.iterdir()) == []
