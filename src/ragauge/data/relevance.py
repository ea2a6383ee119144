"""The one relevance rule, in a module of its own so the lightest import can reach it."""

from __future__ import annotations

RELEVANCE_LEVEL = 1
"""A document is relevant when its grade is >= 1 (trec_eval's default relevance level)."""


def is_relevant(grade: float | None) -> bool:
    """The one relevance rule: a judged grade >= ``RELEVANCE_LEVEL``."""
    return grade is not None and grade >= RELEVANCE_LEVEL
