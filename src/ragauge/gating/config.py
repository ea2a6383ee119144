"""Gate rules from ``ragauge.toml`` (table ``[gate]``) or ``pyproject.toml`` (``[tool.ragauge.gate]``).

Example::

    [gate]
    metrics = { "ndcg@10" = 0.02, "recall@10" = 0.03 }   # metric -> allowed absolute drop
    tag_floors = { networking = { "recall@10" = 0.8 } }  # tag -> metric -> minimum mean
    critical = ["q001", "q017"]                          # must keep a relevant document ...
    critical_k = 10                                      # ... within the top k
    fail_if = "drop"                                     # see FAIL_IF
    alpha = 0.05
    strict_power = false                                 # true: a set too small for the rule is exit 2
    correlation = 0.5                                    # assumed per-question correlation of two runs
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragauge.config import read_table
from ragauge.core.numbers import CORRELATION, COUNT, PROBABILITY, check_number
from ragauge.errors import InputError
from ragauge.gating.rules.metric import DEFAULT_ALLOWED_DROP as DEFAULT_ALLOWED_DROP
from ragauge.gating.rules.metric import DEFAULT_METRICS as DEFAULT_METRICS
from ragauge.gating.rules.metric import FAIL_IF as FAIL_IF
from ragauge.gating.rules.metric import FAIL_STRICTNESS as FAIL_STRICTNESS
from ragauge.gating.rules.registry import KNOWN as KNOWN
from ragauge.gating.rules.registry import RULE_KINDS
from ragauge.metrics.spec import DEFAULT_K
from ragauge.stats import DEFAULT_ALPHA, DEFAULT_CORRELATION


@dataclass(frozen=True)
class GateRules:
    """What the gate checks. ``metrics`` maps each gated metric to its allowed absolute drop."""

    metrics: dict[str, float] = field(default_factory=lambda: {m: DEFAULT_ALLOWED_DROP for m in DEFAULT_METRICS})
    tag_floors: dict[str, dict[str, float]] = field(default_factory=dict)
    critical: tuple[str, ...] = ()
    critical_k: int = DEFAULT_K
    fail_if: str = "drop"
    alpha: float = DEFAULT_ALPHA
    strict_power: bool = False
    correlation: float = DEFAULT_CORRELATION
    source: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.fail_if, str) or self.fail_if not in FAIL_IF:
            raise InputError(f"unknown fail_if {self.fail_if!r}", hint=f"one of: {', '.join(FAIL_IF)}")
        object.__setattr__(self, "alpha", check_number(self.alpha, "gate alpha", PROBABILITY))
        object.__setattr__(self, "correlation", check_number(self.correlation, "gate correlation", CORRELATION))
        object.__setattr__(self, "critical_k", int(check_number(self.critical_k, "gate critical_k", COUNT)))

    @property
    def tests(self) -> bool:
        """Whether the metric rules need the per-question values for a paired test."""
        return self.fail_if != "drop"

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": self.metrics, "tag_floors": self.tag_floors, "critical": list(self.critical),
                "critical_k": self.critical_k, "fail_if": self.fail_if, "alpha": self.alpha,
                "strict_power": self.strict_power, "correlation": self.correlation}

    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str | None = None) -> GateRules:
        """The inverse of ``to_dict`` (a record written before ``fail_if`` had ``significant_only``);
        InputError for a value out of range."""
        fail_if = d.get("fail_if") or ("drop_and_significant" if d.get("significant_only") else "drop")
        return cls({str(m): float(a) for m, a in dict(d.get("metrics", {})).items()},
                   {str(t): {str(m): float(f) for m, f in dict(v).items()} for t, v in
                    dict(d.get("tag_floors", {})).items()},
                   tuple(str(c) for c in d.get("critical", [])), int(d.get("critical_k", DEFAULT_K)), str(fail_if),
                   float(d.get("alpha", DEFAULT_ALPHA)), bool(d.get("strict_power", False)),
                   float(d.get("correlation", DEFAULT_CORRELATION)),
                   source)

    def loosened_from(self, stored: GateRules) -> list[str]:
        """How these rules let through what ``stored`` would fail, in words (empty: they are as
        strict or stricter), each rule kind saying it for its settings (``gating.rules``): a gated
        metric dropped or allowed a larger drop, a tag floor removed or lowered, a critical question
        removed or its k raised, a weaker ``fail_if``, an alpha that makes a tested rule harder to
        fail, ``strict_power`` turned off."""
        return [line for kind in RULE_KINDS for line in kind.loosened(self, stored)]

    @property
    def needed_metrics(self) -> list[str]:
        """Every metric a check reads, gated metrics first."""
        names = list(self.metrics)
        for floors in self.tag_floors.values():
            names += [m for m in floors if m not in names]
        return names


def rules_in(path: Path | None) -> GateRules | None:
    """The rules a config file sets, or None when there is no file or it has no gate table (the
    gate then defends the rules its baseline recorded)."""
    if path is None or not read_table(path, "gate"):
        return None
    return load_rules(path)


def load_rules(path: Path | None) -> GateRules:
    """Rules from ``path`` (or the defaults when None): each metric spec is validated."""
    if path is None:
        return GateRules()
    gate = read_table(path, "gate")
    where = str(path)
    unknown = set(gate) - set(KNOWN)
    if unknown:
        raise InputError(f"unknown gate setting(s): {', '.join(sorted(unknown))}", where=where,
                         hint=f"known: {', '.join(KNOWN)}")
    fields: dict[str, Any] = {}
    for kind in RULE_KINDS:
        fields.update(kind.read(gate, path))
    return GateRules(**fields, source=where)
