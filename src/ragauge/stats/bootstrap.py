"""Percentile bootstrap intervals for a mean, vectorized and seeded."""

from __future__ import annotations

import numpy as np

DEFAULT_RESAMPLES = 10_000
_CHUNK_CELLS = 4_000_000  # resamples x questions per block, bounds memory


def bootstrap_means(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = 0) -> np.ndarray:
    """Means of ``resamples`` bootstrap resamples (with replacement, same size) of ``values``.

    When ``values`` holds few distinct numbers (binary metrics, most paired differences) each
    resample is drawn as multinomial counts over the distinct values, which is exact and fast;
    otherwise indices are drawn in blocks that bound memory.
    """
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    rng = np.random.default_rng(seed)
    if n == 0:
        return np.zeros(resamples)
    uniq, counts = np.unique(values, return_counts=True)
    if len(uniq) <= 256:
        draws = rng.multinomial(n, counts / n, size=resamples)
        return np.asarray((draws @ uniq) / n, dtype=np.float64)
    out = np.empty(resamples)
    step = max(1, _CHUNK_CELLS // n)
    for lo in range(0, resamples, step):
        hi = min(resamples, lo + step)
        idx = rng.integers(0, n, size=(hi - lo, n), dtype=np.int32 if n < 2**31 else np.int64)
        out[lo:hi] = values[idx].mean(axis=1)
    return out


def bootstrap_ci(values: np.ndarray, confidence: float = 0.95, resamples: int = DEFAULT_RESAMPLES,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (a paired difference, for two runs).

    Returns (nan, nan) for no values. The interval is the (1-c)/2 and (1+c)/2 quantiles of the
    resampled means.
    """
    if len(values) == 0:
        return (float("nan"), float("nan"))
    means = bootstrap_means(values, resamples, seed)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)
