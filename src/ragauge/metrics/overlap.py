"""Rank-biased overlap (Webber, Moffat & Zobel, "A similarity measure for indefinite rankings", ACM
TOIS 2010): how alike two ranked lists are, without any label. Used to say how much a reranker
changed its first stage's list, and how much a new run changed the base's.

``rbo(a, b, p)`` is the extrapolated RBO_ext of the paper's Eq. 32 for two lists of distinct ids
(ragauge's lists are folded into documents, so ids are distinct), of equal or unequal length: the
agreement at each depth d (the share of the top d that both lists hold) weighted by p^(d-1), the
lists' unseen tails assumed to agree as they did at the shorter list's end. 1 for identical lists, 0
for disjoint ones; 1 when both are empty and 0 when only one is. ``p`` sets how top-heavy it is:
with p = 0.9 the first 10 ranks carry about 86% of the weight.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_P = 0.9
"""The persistence ragauge reports RBO with (top-weighted: the first 10 ranks weigh about 86%)."""


def rbo(a: Sequence[str], b: Sequence[str], p: float = DEFAULT_P) -> float:
    """RBO_ext of the ranked lists ``a`` and ``b`` (distinct ids each) at persistence ``p`` in (0, 1)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p!r}")
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, length = len(short), len(long)
    seen_short: set[str] = set()
    seen_long: set[str] = set()
    overlap = 0
    total = 0.0  # sum over d of (X_d / d) p^d
    tail = 0.0  # sum over d > s of X_s (d - s) / (s d) p^d
    x_s = 0
    for d in range(1, length + 1):
        item = long[d - 1]
        if d <= s:
            mine = short[d - 1]
            if mine == item:
                overlap += 1
            else:
                overlap += (mine in seen_long) + (item in seen_short)
            seen_short.add(mine)
            seen_long.add(item)
            if d == s:
                x_s = overlap
        else:
            overlap += item in seen_short
            tail += x_s * (d - s) / (s * d) * p ** d
        total += overlap / d * p ** d
    return (1.0 - p) / p * (total + tail) + ((overlap - x_s) / length + x_s / s) * p ** length
