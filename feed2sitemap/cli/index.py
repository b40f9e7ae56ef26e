"""`feed2sitemap index`: list the parts a partitioned job wrote (scale/partition.py) in one
index."""

from __future__ import annotations

import os
from typing import Optional, Union

import click

from ..model.limits import PROFILES
from ..model.options import Limits, WriteOptions
from ..model.report import Progress, Report
from ..scale.indexing import is_manifest, open_regular, read_manifest, write_index
from ..scale.partition import PartManifest
from .common import PROG, PROGRESS_KEY, Command, removal_lines, say, summary_lines


@click.command("index", cls=Command, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("sources", nargs=-1, required=True, metavar="MANIFEST_OR_PART...")
@click.option("-o", "--output", metavar="FILE", required=True,
              help="The index to write (.gz: gzip-compressed); parts are moved beside it.")
@click.option("--base-url", metavar="URL", required=True,
              help="Public URL of the output's directory: each part is listed as URL + name.")
@click.option("--profile", type=click.Choice(sorted(PROFILES)), default="sitemaps",
              show_default=True, help="Limits the parts must obey, and the index's own.")
@click.option("--gzip-level", type=click.IntRange(0, 9), metavar="0-9",
              help="Compression level of a .gz index (default 6).")
@click.option("--no-atomic", "no_atomic", is_flag=True,
              help="Overwrite files in place instead of renaming temporaries over them.")
@click.option("--lock-timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              metavar="SECONDS", help="How long to wait for another run in the directory.")
@click.option("-q", "--quiet", is_flag=True, help="No summary; errors only.")
def index_command(sources: tuple[str, ...], output: str, base_url: str, profile: str,
                  gzip_level: Optional[int], no_atomic: bool, lock_timeout: float,
                  quiet: bool) -> None:
    """Write a sitemap index listing the parts a partitioned job wrote (STEM-P-K.xml[.gz]).

    Each MANIFEST_OR_PART is a manifest (JSON Lines, one part a line, names relative to the
    manifest's directory) or a part itself, then read for its URL count, size and newest
    lastmod. Parts elsewhere are moved beside the index; the replaced index's parts that are no
    longer listed are removed. Exit status: 0 written, 1 bad parts (nothing changed), 2 usage.
    """
    parts: list[Union[PartManifest, str]] = []
    for source in sources:
        open_regular(source).close()  # (an InputError saying what it is, when not a file)
        if is_manifest(source):
            parts += read_manifest(source)
        else:
            parts.append(source)
    report = Report(on_message=None if quiet else say)
    progress = click.get_current_context().meta.setdefault(PROGRESS_KEY, Progress())
    summary = write_index(parts, output, base_url=base_url, directory=os.getcwd(),
                          limits=Limits(profile), report=report, progress=progress,
                          writing=WriteOptions(gzip_level=gzip_level, atomic=not no_atomic,
                                               lock_timeout=lock_timeout))
    for line in ([] if quiet else summary_lines(summary)) + removal_lines(summary, quiet):
        say(line)


def main(args: list[str]) -> None:
    index_command.main(args, prog_name=f"{PROG} index")
