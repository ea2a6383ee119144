"""The comparison result: one value model that reports render."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COMPARISON_VERSION = 1


@dataclass(frozen=True)
class MetricDelta:
    """One metric over one set of paired questions (all, or one tag).

    ``ci95`` is the paired bootstrap interval of the mean difference (new - base); ``p_value``
    the two-sided sign-flip randomization test; ``p_adjusted`` Holm-corrected across every
    metric x tag tested in the same comparison.
    """

    n: int
    base: float
    new: float
    diff: float
    ci95: tuple[float, float]
    p_value: float
    p_adjusted: float
    better: int
    worse: int
    tied: int
    verdict: str

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "base": self.base, "new": self.new, "diff": self.diff, "ci95": list(self.ci95),
                "p_value": self.p_value, "p_adjusted": self.p_adjusted, "better": self.better,
                "worse": self.worse, "tied": self.tied, "verdict": self.verdict}


@dataclass(frozen=True)
class Comparison:
    metrics: dict[str, MetricDelta]
    by_tag: dict[str, dict[str, MetricDelta]]
    worse_queries: list[dict[str, Any]]
    latency: dict[str, Any]
    cost: dict[str, Any]
    notes: list[str]
    meta: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ragauge_comparison": COMPARISON_VERSION,
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "by_tag": {t: {k: v.to_dict() for k, v in d.items()} for t, d in self.by_tag.items()},
            "worse_queries": self.worse_queries,
            "latency": self.latency,
            "cost": self.cost,
            "notes": self.notes,
            "meta": self.meta,
        }
