"""An interval for one mean (a metric over a tag's questions).

A share lies in [0, 1], so the interval is the betting interval of ``stats.betting`` on [0, 1]:
valid for any distribution of values at every n (0/1 values, a mass at 0, skew), never a single
point. A count of calls (``metrics.spec.lower_is_better``) lies in [0, ``high``], its caller's bound
(the largest count, ``stats.paired.count_scale``, as compare and the gate scale it). Fewer than 2
values: (nan, nan) (a tag of one question has none).
"""

from __future__ import annotations

import math

import numpy as np

from ragauge.stats import betting

BETTING = betting.METHOD


def mean_method(values: np.ndarray) -> str:
    return BETTING


def mean_interval(values: np.ndarray, confidence: float = 0.95, high: float = 1.0) -> tuple[float, float]:
    """The betting interval for the mean of ``values`` (each in [0, ``high``]) at ``confidence``."""
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]  # a question without the value has none to give
    if len(values) < 2:
        return (math.nan, math.nan)
    return betting.interval(np.clip(values, 0.0, high), 0.0, high, confidence)
