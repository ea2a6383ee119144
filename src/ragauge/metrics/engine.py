"""Compute many metrics over many queries in one pass over shared arrays."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ragauge.metrics.judged import Unjudged
from ragauge.metrics.rankings import Rankings
from ragauge.metrics.registry import METRICS
from ragauge.metrics.spec import MetricSpec


def compute(rankings: Rankings, specs: Iterable[MetricSpec], *,
            unjudged: Unjudged = "non-relevant") -> dict[MetricSpec, np.ndarray]:
    """Per-query values (float64, one per query, in ``rankings`` order) for each spec.

    ``unjudged="unknown"`` scores condensed lists (unjudged documents left out, see
    ``metrics.judged.UNJUDGED``); families marked ``as_retrieved`` (judged@k) always see the
    ranking as retrieved."""
    specs = list(specs)
    condensed = rankings.condensed() if unjudged == "unknown" else rankings
    return {spec: METRICS[spec.name].kernel(rankings if METRICS[spec.name].as_retrieved else condensed, spec.k)
            for spec in specs}
