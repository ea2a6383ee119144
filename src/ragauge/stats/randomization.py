"""Paired randomization (sign-flip) test for a difference of means."""

from __future__ import annotations

import numpy as np

DEFAULT_PERMUTATIONS = 10_000
_CHUNK_CELLS = 8_000_000


def sign_flip_p_value(diffs: np.ndarray, permutations: int = DEFAULT_PERMUTATIONS, seed: int = 0) -> float:
    """Two-sided p-value of H0 "the two runs are exchangeable per question".

    Under H0 each paired difference is equally likely to have either sign; the p-value is
    (1 + #{|mean of sign-flipped diffs| >= |observed mean|}) / (1 + permutations), so it is
    never 0. Questions with a zero difference carry no information and are dropped; with no
    non-zero difference the p-value is 1.
    """
    d = np.asarray(diffs, dtype=np.float64)
    d = d[d != 0.0]
    if len(d) == 0:
        return 1.0
    rng = np.random.default_rng(seed)
    observed = abs(d.sum())
    total = d.sum()
    n = len(d)
    hits = 0
    step = max(1, _CHUNK_CELLS // n)
    tol = 1e-12 * max(1.0, float(np.abs(d).sum()))
    for lo in range(0, permutations, step):
        rows = min(step, permutations - lo)
        bits = np.unpackbits(rng.integers(0, 256, size=(rows, (n + 7) // 8), dtype=np.uint8), axis=1)[:, :n]
        # flipping the sign of the questions whose bit is 0: sum(s*d) = 2*sum(d[bit==1]) - sum(d)
        stats = 2.0 * (bits.astype(np.float64) @ d) - total
        hits += int(np.count_nonzero(np.abs(stats) >= observed - tol))
    return (hits + 1) / (permutations + 1)


def holm(p_values: list[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given), capped at 1 and monotone."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
