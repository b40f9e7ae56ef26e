"""Text sitemaps (sitemaps.org): one URL per line, UTF-8, nothing else."""

from __future__ import annotations

from ..model.batch import Batch
from .base import Format

__all__ = ["TEXT"]


class TextFormat(Format):
    name = "text"
    extension = ".txt"
    limits = "text"  # a text sitemap in a file; an extraction to stdout (limits.output_profile)

    def header(self) -> str:
        return ""

    def footer(self) -> str:
        return ""

    def entries(self, batch: Batch) -> list[str]:
        return [loc + "\n" for loc in batch.locs]

    def block(self, batch: Batch) -> str:
        return "\n".join(batch.locs) + "\n"


TEXT = TextFormat()
