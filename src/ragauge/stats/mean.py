"""An interval for one mean (a metric over a tag's questions).

Every metric lies in [0, 1], so the interval is the betting interval of ``stats.betting`` on
[0, 1]: valid for any distribution of values at every n (0/1 values, a mass at 0, skew), never a
single point. Fewer than 2 values: (nan, nan) (a tag of one question has none).
"""

from __future__ import annotations

import math

import numpy as np

from ragauge.stats import betting

BETTING = betting.METHOD


def mean_method(values: np.ndarray) -> str:
    return BETTING


def mean_interval(values: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    """The betting interval for the mean of ``values`` (each in [0, 1]) at ``confidence``."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]  # a question without the value has none to give
    if len(values) < 2:
        return (math.nan, math.nan)
    return betting.interval(np.clip(values, 0.0, 1.0), 0.0, 1.0, confidence)
