"""The comparison result: one value model that reports render."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

COMPARISON_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1: bootstrap interval and sign-flip test, no method or MDE


@dataclass(frozen=True)
class MetricDelta:
    """One metric over one set of paired questions (all, or one tag).

    ``method`` names the paired test (``stats.paired``: paired t, or McNemar's score test with
    Tango's interval for 0/1 values); ``ci`` is its interval of the mean difference (new - base)
    at confidence 1 - alpha (``meta["confidence"]``), which excludes 0 exactly when ``p_value``
    (two-sided) is below alpha;
    ``p_adjusted`` is Holm-corrected across every metric x tag tested in the same comparison.
    ``mde`` is the smallest difference these questions could detect at 80% power (None: too few
    questions to detect anything). For a metric where lower is better (a count of calls,
    ``lower_is_better``), ``better`` counts the questions whose value fell, and the verdict reads
    a fall as better; ``diff`` and ``ci`` stay new - base.
    """

    n: int
    base: float
    new: float
    diff: float
    ci: tuple[float, float]
    p_value: float
    p_adjusted: float
    better: int
    worse: int
    tied: int
    verdict: str
    method: str = ""
    mde: float | None = None
    lower_is_better: bool = False

    def to_dict(self) -> dict[str, Any]:
        out = {"n": self.n, "base": self.base, "new": self.new, "diff": self.diff, "ci": list(self.ci),
               "p_value": self.p_value, "p_adjusted": self.p_adjusted, "better": self.better,
               "worse": self.worse, "tied": self.tied, "verdict": self.verdict, "method": self.method,
               "mde": self.mde}
        if self.lower_is_better:
            out["lower_is_better"] = True
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MetricDelta:
        """The inverse of ``to_dict`` (a null number, written for NaN, reads back as NaN)."""
        lo, hi = d["ci"] if "ci" in d else d["ci95"]  # version 1 wrote "ci95"
        mde = d.get("mde")
        return cls(int(d["n"]), _num(d["base"]), _num(d["new"]), _num(d["diff"]), (_num(lo), _num(hi)),
                   _num(d["p_value"]), _num(d["p_adjusted"]), int(d["better"]), int(d["worse"]), int(d["tied"]),
                   str(d["verdict"]), str(d.get("method", "bootstrap interval, sign-flip test")),
                   None if mde is None else float(mde), bool(d.get("lower_is_better", False)))


def _num(value: Any) -> float:
    return math.nan if value is None else float(value)


@dataclass(frozen=True)
class Comparison:
    metrics: dict[str, MetricDelta]
    by_tag: dict[str, dict[str, MetricDelta]]
    worse_queries: list[dict[str, Any]]
    latency: dict[str, Any]
    cost: dict[str, Any]
    notes: list[str]
    meta: dict[str, Any]
    patterns: dict[str, Any] = field(default_factory=dict)  # failure patterns fixed and caused (comparison.patterns)

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
            "patterns": self.patterns,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Comparison:
        """The inverse of ``to_dict``; InputError for another version."""
        if d.get("ragauge_comparison") not in READABLE_VERSIONS:
            from ragauge.errors import InputError

            raise InputError(f"not a ragauge comparison (version {d.get('ragauge_comparison')!r})")
        return cls({k: MetricDelta.from_dict(v) for k, v in d["metrics"].items()},
                   {t: {k: MetricDelta.from_dict(v) for k, v in m.items()} for t, m in d["by_tag"].items()},
                   list(d["worse_queries"]), dict(d["latency"]), dict(d["cost"]), list(d["notes"]), dict(d["meta"]),
                   dict(d.get("patterns", {})))
