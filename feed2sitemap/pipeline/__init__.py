"""The steps between readers and writers, each one function over batches (steps.py):
normalize, check_length, within_scope, dedupe, merge (merging.py: newest wins, its store and
its spill to disk) and apply_defaults."""

from .steps import (
    apply_defaults,
    check_fields,
    check_length,
    dedupe,
    merge,
    news_only,
    normalize,
    within_scope,
)

__all__ = ["apply_defaults", "check_fields", "check_length", "dedupe", "merge", "news_only",
           "normalize", "within_scope"]
