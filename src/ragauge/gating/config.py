"""Gate rules from ``ragauge.toml`` (table ``[gate]``) or ``pyproject.toml`` (``[tool.ragauge.gate]``).

Example::

    [gate]
    metrics = { "ndcg@10" = 0.02, "recall@10" = 0.03 }   # metric -> allowed absolute drop
    tag_floors = { networking = { "recall@10" = 0.8 } }  # tag -> metric -> minimum mean
    critical = ["q001", "q017"]                          # must keep a relevant document ...
    critical_k = 10                                      # ... within the top k
    significant_only = false                             # fail a drop only if also significant
    alpha = 0.05
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragauge.config import key_line, read_table
from ragauge.core.numbers import COUNT, PROBABILITY, UNIT, Range, check_number
from ragauge.errors import InputError
from ragauge.metrics.spec import parse_metric

DEFAULT_METRICS = ("hit@5", "recall@5", "mrr", "ndcg@5")
DEFAULT_ALLOWED_DROP = 0.02


@dataclass(frozen=True)
class GateRules:
    """What the gate checks. ``metrics`` maps each gated metric to its allowed absolute drop."""

    metrics: dict[str, float] = field(default_factory=lambda: {m: DEFAULT_ALLOWED_DROP for m in DEFAULT_METRICS})
    tag_floors: dict[str, dict[str, float]] = field(default_factory=dict)
    critical: tuple[str, ...] = ()
    critical_k: int = 5
    significant_only: bool = False
    alpha: float = 0.05
    source: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "tag_floors": self.tag_floors, "critical": list(self.critical),
                "critical_k": self.critical_k, "significant_only": self.significant_only, "alpha": self.alpha}

    @property
    def needed_metrics(self) -> list[str]:
        """Every metric a check reads, gated metrics first."""
        names = list(self.metrics)
        for floors in self.tag_floors.values():
            names += [m for m in floors if m not in names]
        return names


def _number(value: Any, what: str, allowed: Range, path: Path, *keys: str) -> float:
    return check_number(value, what, allowed, where=key_line(path, *keys))


def load_rules(path: Path | None) -> GateRules:
    """Rules from ``path`` (or the defaults when None): each metric spec is validated."""
    if path is None:
        return GateRules()
    gate = read_table(path, "gate")
    where = str(path)
    unknown = set(gate) - {"metrics", "tag_floors", "critical", "critical_k", "significant_only", "alpha"}
    if unknown:
        raise InputError(f"unknown gate setting(s): {', '.join(sorted(unknown))}", where=where,
                         hint="known: metrics, tag_floors, critical, critical_k, significant_only, alpha")
    metrics_raw = gate.get("metrics", {m: DEFAULT_ALLOWED_DROP for m in DEFAULT_METRICS})
    if isinstance(metrics_raw, list):
        metrics_raw = {m: DEFAULT_ALLOWED_DROP for m in metrics_raw}
    if not isinstance(metrics_raw, dict):
        raise InputError("'gate.metrics' must map metric specs to allowed drops", where=where,
                         hint='metrics = { "ndcg@10" = 0.02 }')
    metrics = {str(parse_metric(m)): _number(v, f"allowed drop of {m}", UNIT, path, m)
               for m, v in metrics_raw.items()}
    floors: dict[str, dict[str, float]] = {}
    tag_floors = gate.get("tag_floors", {})
    if not isinstance(tag_floors, dict):
        raise InputError("'gate.tag_floors' must map tags to { metric = minimum }", where=key_line(path, "tag_floors"),
                         hint='tag_floors = { networking = { "recall@10" = 0.8 } }')
    for tag, rules in tag_floors.items():
        if not isinstance(rules, dict):
            raise InputError(f"tag_floors.{tag} must map metric specs to minimums", where=key_line(path, tag))
        floors[tag] = {str(parse_metric(m)): _number(v, f"floor of {tag}/{m}", UNIT, path, m) for m, v in rules.items()}
    critical = gate.get("critical", [])
    if not isinstance(critical, list) or not all(isinstance(c, str) for c in critical):
        raise InputError("'gate.critical' must be a list of question ids", where=key_line(path, "critical"))
    k = int(_number(gate.get("critical_k", 5), "'gate.critical_k'", COUNT, path, "critical_k"))
    significant = gate.get("significant_only", False)
    if not isinstance(significant, bool):
        raise InputError(f"'gate.significant_only' must be true or false, got {significant!r}",
                         where=key_line(path, "significant_only"))
    alpha = _number(gate.get("alpha", 0.05), "'gate.alpha'", PROBABILITY, path, "alpha")
    return GateRules(metrics, floors, tuple(critical), k, significant, alpha, where)
