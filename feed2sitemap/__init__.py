"""feed2sitemap: turn RSS/Atom feeds, URL lists and old sitemaps into correct sitemaps."""

from __future__ import annotations

from importlib import import_module

# Nothing here imports more than the interpreter has already loaded (typing alone costs 20 ms):
# the console script imports this package before its Ctrl-C handler can be in place.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .check.report import SiteReport, report
    from .errors import (
        Feed2SitemapError,
        InputError,
        LimitError,
        OptionError,
        OutputError,
        Problem,
        RemovalsRefused,
        UnsupportedFormat,
    )
    from .files.outputs import FileInfo
    from .model.batch import Batch, batched, unbatched
    from .model.filters import Filters, Threshold
    from .model.limits import PROFILES, Profile
    from .model.options import (
        Channel,
        Defaults,
        Limits,
        NewsSitemap,
        ReadOptions,
        SiteOptions,
        WriteOptions,
    )
    from .model.record import CHANGEFREQS, Record
    from .model.report import Progress, Report, Submitted
    from .model.scope import Scope
    from .pipeline.merging import MergeCounts
    from .pipeline.removals import Removals
    from .run.converting import convert
    from .run.diff import Diff, diff
    from .run.publish import Publish
    from .run.reading import Web, read, read_batches
    from .run.writing import Summary, write, write_batches
    from .web.indexnow import IndexNow

# The public names and the module each lives in: imported when first used, so that the command
# starts without paying for what a run does not need (see cli/entry.py).
_WHERE = {
    "Filters": "model.filters", "Threshold": "model.filters", "Removals": "pipeline.removals",
    "RemovalsRefused": "errors", "Diff": "run.diff", "diff": "run.diff",
    "Batch": "model.batch", "batched": "model.batch", "unbatched": "model.batch",
    "convert": "run.converting", "Feed2SitemapError": "errors", "InputError": "errors",
    "LimitError": "errors", "OptionError": "errors", "OutputError": "errors", "Problem": "errors",
    "UnsupportedFormat": "errors", "IndexNow": "web.indexnow", "Submitted": "model.report",
    "PROFILES": "model.limits", "Profile": "model.limits", "MergeCounts": "pipeline.merging",
    "Channel": "model.options", "Defaults": "model.options", "Limits": "model.options",
    "ReadOptions": "model.options", "WriteOptions": "model.options", "SiteOptions": "model.options",
    "NewsSitemap": "model.options", "FileInfo": "files.outputs", "Publish": "run.publish",
    "Web": "run.reading", "read": "run.reading", "read_batches": "run.reading",
    "CHANGEFREQS": "model.record", "Record": "model.record", "Progress": "model.report",
    "Report": "model.report", "Scope": "model.scope", "Summary": "run.writing",
    "write": "run.writing", "write_batches": "run.writing", "report": "check.report",
    "SiteReport": "check.report",
}
__all__ = [
    "CHANGEFREQS", "PROFILES", "Batch", "Channel", "Defaults", "Diff", "Feed2SitemapError",
    "FileInfo", "Filters", "IndexNow", "InputError", "LimitError", "Limits", "MergeCounts",
    "NewsSitemap", "OptionError", "OutputError", "Problem", "Profile", "Progress", "Publish",
    "ReadOptions", "Record", "Removals", "RemovalsRefused", "Report", "Scope", "SiteOptions",
    "SiteReport", "Submitted", "Summary", "Threshold", "UnsupportedFormat", "Web", "WriteOptions",
    "__version__", "batched", "convert", "diff", "read", "read_batches", "report", "unbatched",
    "write", "write_batches",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(import_module(f".{module}", __name__), name)
        globals()[name] = value
        return value
    # __version__ on demand: importlib.metadata costs 30 ms at every start of the command
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("feed2sitemap")
        except PackageNotFoundError:  # a source tree that was not installed
            return "0.0.0+unknown"
    raise AttributeError(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
