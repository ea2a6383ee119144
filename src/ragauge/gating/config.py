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

from ragauge.config import key_line, read_table
from ragauge.core.numbers import CORRELATION, COUNT, PROBABILITY, Range, check_number
from ragauge.errors import InputError
from ragauge.metrics.spec import DEFAULT_K, parse_metric, value_range
from ragauge.stats import DEFAULT_ALPHA, DEFAULT_CORRELATION

DEFAULT_METRICS = ("hit@5", "recall@5", "mrr", "ndcg@5")
DEFAULT_ALLOWED_DROP = 0.02
FAIL_IF = {
    "drop": "the mean drops by more than the allowance",
    "significant": "the per-question change is a significant drop (one-sided test at alpha), of any size",
    "drop_and_significant": "the mean drops by more than the allowance and the drop is significant (one-sided)",
    "not_shown_no_worse": "the new run is not shown to be no worse than -allowance (non-inferiority, one-sided)",
}
"""What a metric rule may fail on: ``fail_if`` in ``[gate]``. The tests are the paired tests of
``stats.paired``, run on the baseline's stored per-question values."""
FAIL_STRICTNESS = {"drop_and_significant": 0, "drop": 1, "significant": 1, "not_shown_no_worse": 2}
"""Which ``fail_if`` fails more runs: a change to one of no greater strictness loosens the gate
("drop" and "significant" each pass what the other fails, so a switch between them loosens too)."""
KNOWN = ("metrics", "tag_floors", "critical", "critical_k", "fail_if", "significant_only", "alpha", "strict_power",
         "correlation")


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
    correlation: float = 0.5
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
                   tuple(str(c) for c in d.get("critical", [])), int(d.get("critical_k", 5)), str(fail_if),
                   float(d.get("alpha", DEFAULT_ALPHA)), bool(d.get("strict_power", False)),
                   float(d.get("correlation", DEFAULT_CORRELATION)),
                   source)

    def loosened_from(self, stored: GateRules) -> list[str]:
        """How these rules let through what ``stored`` would fail, in words (empty: they are as
        strict or stricter): a gated metric dropped or allowed a larger drop, a tag floor removed or
        lowered, a critical question removed or its k raised, a weaker ``fail_if``, an alpha that
        makes a tested rule harder to fail, ``strict_power`` turned off."""
        out = [f"{m} is no longer gated" for m in stored.metrics if m not in self.metrics]
        out += [f"{m} may drop {self.metrics[m]:.4f} (was {a:.4f})" for m, a in stored.metrics.items()
                if m in self.metrics and self.metrics[m] > a + 1e-12]
        for tag, floors in stored.tag_floors.items():
            for m, f in floors.items():
                now = self.tag_floors.get(tag, {}).get(m)
                if now is None or now < f - 1e-12:
                    change = "removed" if now is None else f"{now:.4f} (was {f:.4f})"
                    out.append(f"tag {tag!r} floor of {m} {change}")
        out += [f"critical question {q!r} removed" for q in stored.critical if q not in self.critical]
        if stored.critical and self.critical_k > stored.critical_k:
            out.append(f"critical_k {self.critical_k} (was {stored.critical_k})")
        if self.fail_if != stored.fail_if and FAIL_STRICTNESS[self.fail_if] <= FAIL_STRICTNESS[stored.fail_if]:
            out.append(f"fail_if {self.fail_if!r} (was {stored.fail_if!r})")
        elif self.fail_if == stored.fail_if and self.tests:
            harder = self.alpha < stored.alpha if self.fail_if != "not_shown_no_worse" else self.alpha > stored.alpha
            if harder:
                out.append(f"alpha {self.alpha:g} (was {stored.alpha:g})")
        if stored.strict_power and not self.strict_power:
            out.append("strict_power turned off")
        return out

    @property
    def needed_metrics(self) -> list[str]:
        """Every metric a check reads, gated metrics first."""
        names = list(self.metrics)
        for floors in self.tag_floors.values():
            names += [m for m in floors if m not in names]
        return names


def _number(value: Any, what: str, allowed: Range, path: Path, *keys: str) -> float:
    return check_number(value, what, allowed, where=key_line(path, *keys))


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
    metrics_raw = gate.get("metrics", {m: DEFAULT_ALLOWED_DROP for m in DEFAULT_METRICS})
    if isinstance(metrics_raw, list):
        metrics_raw = {m: DEFAULT_ALLOWED_DROP for m in metrics_raw}
    if not isinstance(metrics_raw, dict):
        raise InputError("'gate.metrics' must map metric specs to allowed drops", where=where,
                         hint='metrics = { "ndcg@10" = 0.02 }')
    metrics = {str(parse_metric(m)): _number(v, f"allowed drop of {m}", value_range(str(parse_metric(m))), path, m)
               for m, v in metrics_raw.items()}
    floors: dict[str, dict[str, float]] = {}
    tag_floors = gate.get("tag_floors", {})
    if not isinstance(tag_floors, dict):
        raise InputError("'gate.tag_floors' must map tags to { metric = minimum }", where=key_line(path, "tag_floors"),
                         hint='tag_floors = { networking = { "recall@10" = 0.8 } }')
    for tag, rules in tag_floors.items():
        if not isinstance(rules, dict):
            raise InputError(f"tag_floors.{tag} must map metric specs to minimums", where=key_line(path, tag))
        floors[tag] = {str(parse_metric(m)): _number(v, f"floor of {tag}/{m}", value_range(str(parse_metric(m))),
                                                     path, m) for m, v in rules.items()}
    critical = gate.get("critical", [])
    if not isinstance(critical, list) or not all(isinstance(c, str) for c in critical):
        raise InputError("'gate.critical' must be a list of question ids", where=key_line(path, "critical"))
    k = int(_number(gate.get("critical_k", 5), "'gate.critical_k'", COUNT, path, "critical_k"))
    fail_if = _fail_if(gate, path)
    alpha = _number(gate.get("alpha", DEFAULT_ALPHA), "'gate.alpha'", PROBABILITY, path, "alpha")
    strict = _flag(gate, "strict_power", path)
    rho = _number(gate.get("correlation", 0.5), "'gate.correlation'", CORRELATION, path, "correlation")
    return GateRules(metrics, floors, tuple(critical), k, fail_if, alpha, strict, rho, where)


def _flag(gate: dict[str, Any], key: str, path: Path) -> bool:
    value = gate.get(key, False)
    if not isinstance(value, bool):
        raise InputError(f"'gate.{key}' must be true or false, got {value!r}", where=key_line(path, key))
    return value


def _fail_if(gate: dict[str, Any], path: Path) -> str:
    """``fail_if``, or the older ``significant_only = true`` (= "drop_and_significant"); not both."""
    if "significant_only" in gate:
        if "fail_if" in gate:
            raise InputError("'gate.significant_only' and 'gate.fail_if' both given", where=key_line(path, "fail_if"),
                             hint='keep fail_if (significant_only = true is fail_if = "drop_and_significant")')
        return "drop_and_significant" if _flag(gate, "significant_only", path) else "drop"
    value = gate.get("fail_if", "drop")
    if not isinstance(value, str) or value not in FAIL_IF:
        raise InputError(f"'gate.fail_if' must be one of {', '.join(FAIL_IF)}, got {value!r}",
                         where=key_line(path, "fail_if"), hint='fail_if = "drop_and_significant"')
    return str(value)
