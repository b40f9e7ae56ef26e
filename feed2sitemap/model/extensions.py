"""``Extensions``, the one extension value every run meets (a Record carries one); the item
types stay in extensions/model.py, imported only when a run meets an extension."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..extensions.model import Alternate, Foreign, Image, Mobile, News, Video

__all__ = ["EMPTY", "Extensions"]


@dataclass(frozen=True, slots=True)
class Extensions:
    """Everything a <url> carries besides its core fields; false when there is nothing."""

    images: tuple[Image, ...] = ()
    videos: tuple[Video, ...] = ()
    news: tuple[News, ...] = ()
    alternates: tuple[Alternate, ...] = ()
    mobile: tuple[Mobile, ...] = ()
    foreign: tuple[Foreign, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.images or self.videos or self.news or self.alternates or self.mobile
                    or self.foreign)

    def kinds(self) -> frozenset[str]:
        """The names of the kinds present ("images", "videos", …, "foreign")."""
        return frozenset(k for k in ("images", "videos", "news", "alternates", "mobile",
                                     "foreign") if getattr(self, k))

    def foreign_namespaces(self) -> tuple[str, ...]:
        """The namespaces of the foreign elements, each once, in order of appearance."""
        return tuple(dict.fromkeys(f.namespace for f in self.foreign))


EMPTY = Extensions()
