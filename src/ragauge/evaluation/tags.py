"""Questions grouped by tag, and the per-tag means: the one place tag averaging happens."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import numpy as np

T = TypeVar("T")


def group_by_tag(items: Iterable[T], tags: Callable[[T], Sequence[str]] = lambda q: q.tags) -> dict[str, list[T]]:  # type: ignore[attr-defined]
    """``tag -> members`` in first-seen tag order, members in input order; an item with several
    tags is a member of each."""
    groups: dict[str, list[T]] = {}
    for item in items:
        for tag in tags(item):
            groups.setdefault(tag, []).append(item)
    return groups


def mean_of(values: Sequence[float] | np.ndarray) -> float:
    """The plain mean; NaN for no values (an empty mean is not 0)."""
    return float(np.mean(values)) if len(values) else float("nan")
