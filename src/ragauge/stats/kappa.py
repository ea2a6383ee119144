"""Cohen's kappa: how much two annotators agree beyond what chance would give.

For two annotators who labelled the same n items with categories c::

    p_o = (items labelled alike) / n
    p_e = sum over c of (share of items A put in c) * (share of items B put in c)
    kappa = (p_o - p_e) / (1 - p_e)

Unweighted (every disagreement counts the same), as ``sklearn.metrics.cohen_kappa_score`` with
its default weights. Kappa is **undefined** when there is no item (n = 0) or when p_e = 1, which
happens exactly when both annotators put every item in one and the same category (they agree,
but there is nothing to tell apart from chance); :func:`cohen_kappa` then returns None and the
reason, never NaN.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Kappa:
    """Kappa over ``n`` items and the observed agreement ``agreement`` (p_o); ``value`` is None when
    kappa is undefined, and ``reason`` says why."""

    n: int
    agreement: float | None
    value: float | None
    reason: str | None = None


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> Kappa:
    """Cohen's kappa of two equally long label sequences (``a[i]`` and ``b[i]`` label item i)."""
    if len(a) != len(b):
        raise ValueError(f"the two annotators label {len(a)} and {len(b)} items: one label each per item")
    n = len(a)
    if n == 0:
        return Kappa(0, None, None, "no item judged by both")
    observed = sum(x == y for x, y in zip(a, b)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[c] * count_b[c] for c in count_a) / (n * n)
    if expected >= 1.0:
        return Kappa(n, observed, None, f"both gave every item the same label ({next(iter(count_a))!r})")
    return Kappa(n, observed, (observed - expected) / (1.0 - expected))


def weighted_kappa(a: Sequence[float], b: Sequence[float], categories: Sequence[float] | None = None) -> Kappa:
    """Cohen's kappa with linear weights for ordered grades (``sklearn.metrics.cohen_kappa_score`` with
    ``weights="linear"``): with the categories c_0 < ... < c_{L-1} (``categories``, default every grade
    either annotator gave) and w_ij = |i - j| / (L - 1), kappa_w = 1 - sum w_ij O_ij / sum w_ij E_ij,
    O the observed and E the chance (product of the margins) shares of items graded c_i by ``a`` and
    c_j by ``b``. With two categories it is :func:`cohen_kappa`. Undefined (None and the reason) with
    no item or when sum w E = 0 (both gave every item one and the same grade)."""
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"the two annotators label {len(a)} and {len(b)} items: one label each per item")
    n = len(a)
    if n == 0:
        return Kappa(0, None, None, "no item judged by both")
    levels = sorted(set(a) | set(b)) if categories is None else sorted(categories)
    index = {c: i for i, c in enumerate(levels)}
    x = np.array([index[v] for v in a])
    y = np.array([index[v] for v in b])
    size = len(levels)
    observed = np.zeros((size, size))
    np.add.at(observed, (x, y), 1.0)
    observed /= n
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    grid = np.arange(size)
    weights = np.abs(grid[:, None] - grid[None, :]) / max(size - 1, 1)
    agreement = float(np.trace(observed))
    chance = float((weights * expected).sum())
    if chance <= 0.0:
        return Kappa(n, agreement, None, f"both gave every item the same label ({a[0]!r})")
    return Kappa(n, agreement, 1.0 - float((weights * observed).sum()) / chance)
