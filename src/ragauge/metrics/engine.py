"""Compute many metrics over many queries in one pass over shared arrays."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ragauge.metrics.rankings import Rankings
from ragauge.metrics.registry import METRICS
from ragauge.metrics.spec import MetricSpec


def compute(rankings: Rankings, specs: Iterable[MetricSpec]) -> dict[MetricSpec, np.ndarray]:
    """Per-query values (float64, one per query, in ``rankings`` order) for each spec."""
    return {spec: METRICS[spec.name].kernel(rankings, spec.k) for spec in specs}
