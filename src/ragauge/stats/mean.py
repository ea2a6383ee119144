"""An interval for one mean (a metric over a tag's questions), chosen like the paired tests.

0/1 values (hit@k): Wilson's score interval, valid for small n and for means at 0 or 1. Other
values: Student's t interval, mean +- t(1 - a/2, n - 1) * sd / sqrt(n), clipped to [0, 1] (every
metric's range); values that do not vary give that value alone from 6 values on (the exact
sign test's reach at 95%), [0, 1] below. Fewer than 2 values: (nan, nan).
"""

from __future__ import annotations

import math

import numpy as np

from ragauge.stats.paired import smallest_exact_p

WILSON = "Wilson score"
STUDENT = "Student t"


def mean_method(values: np.ndarray) -> str:
    return WILSON if bool(np.all((values == 0.0) | (values == 1.0))) else STUDENT


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The interval of ``mean_method(values)`` for the mean of ``values``."""
    from scipy import special

    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n < 2:
        return (math.nan, math.nan)
    mean = float(values.mean())
    if mean_method(values) == WILSON:
        z = float(special.ndtri(0.5 + confidence / 2.0))
        centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n))
        return (max(0.0, centre - half), min(1.0, centre + half))
    sd = float(values.std(ddof=1))
    if sd <= 1e-12:
        return (mean, mean) if smallest_exact_p(n) < 1.0 - confidence else (0.0, 1.0)
    half = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0)) * sd / math.sqrt(n)
    return (max(0.0, mean - half), min(1.0, mean + half))
