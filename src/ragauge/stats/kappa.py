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
