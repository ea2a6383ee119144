"""Check an evaluation against a baseline under the gate rules (pure: no files, no clock): the golden
set and the contract first, then every rule kind of ``gating.rules.registry`` in turn."""

from __future__ import annotations

from typing import Any

from ragauge.core.notes import LOUD
from ragauge.errors import InputError
from ragauge.evaluation.options import contract_differences
from ragauge.evaluation.result import Evaluation
from ragauge.gating.baseline import Baseline
from ragauge.gating.config import GateRules
from ragauge.gating.outcome import GATE_VERSION as GATE_VERSION
from ragauge.gating.outcome import GateResult as GateResult
from ragauge.gating.outcome import RuleOutcome as RuleOutcome
from ragauge.gating.predicted import check_labels, check_measured, check_metric_rules, notes
from ragauge.gating.rules.kind import Context
from ragauge.gating.rules.metric import SHOWN as SHOWN
from ragauge.gating.rules.metric import gate_power as gate_power
from ragauge.gating.rules.registry import RULE_KINDS
from ragauge.predicted.evaluate import WIDER
from ragauge.stats.paired import METHOD

RENEW = "re-baseline explicitly: ragauge baseline update GOLDEN --run RUN --baseline PATH --reason '...'"


def golden_changed(golden_hash: str, baseline: Baseline) -> RuleOutcome | None:
    """The failed outcome that ends a gate whose golden set is not the baseline's (None when it is):
    the numbers would not be comparable, so the baseline must be renewed explicitly. Every gate,
    sequential or not, fails so (exit 1), rather than refusing its input."""
    if golden_hash == baseline.golden_hash:
        return None
    return RuleOutcome("golden", "the golden set is the one the baseline was measured on", False,
                       f"the golden set changed since the baseline ({baseline.golden_hash[:19]}... -> "
                       f"{golden_hash[:19]}...); {RENEW}")


def contract_changed(contract: dict[str, Any], baseline: Baseline) -> RuleOutcome | None:
    """The failed outcome that ends a gate whose metric contract is not the baseline's (None when it
    is), as :func:`golden_changed`."""
    changed = contract_differences(contract, baseline.contract)
    if not changed:
        return None
    return RuleOutcome("contract", "the metric contract is the baseline's", False,
                       f"{', '.join(changed)} differ from the baseline's; use the same options or {RENEW}")


def check_gate(evaluation: Evaluation, baseline: Baseline, rules: GateRules) -> GateResult:
    """Every rule's outcome. A changed golden set or contract fails the gate on its own: the
    numbers would not be comparable, so the baseline must be renewed explicitly. With automatic
    labels (a prediction-powered ``evaluation``, a baseline measured with them) the metric rules
    decide as ``gating.predicted`` says, and what it refuses is InputError."""
    ppi = evaluation.meta.get("ppi")
    if ppi is not None or baseline.auto_labels is not None:
        check_measured(evaluation, "a gate")
        check_labels(baseline, ppi["auto_labels"] if ppi is not None else None)
    meta = {"baseline": str(baseline.path), "baseline_created": baseline.data.get("created"),
            "baseline_reason": baseline.data.get("reason"), "rules": rules.to_dict(),
            "rules_source": rules.source, "run": evaluation.meta["run"], "golden": evaluation.meta["golden"],
            "warnings": [w for w in evaluation.warnings if w.startswith(LOUD)]}  # numbers that would mislead
    not_comparable = golden_changed(evaluation.meta["golden"]["hash"], baseline) or contract_changed(
        evaluation.meta["contract"], baseline)
    if not_comparable is not None:
        return GateResult([not_comparable], meta)
    power = [gate_power(m, a, evaluation, baseline, rules) for m, a in rules.metrics.items()
             if m in baseline.metrics and m in evaluation.metrics]
    meta["power"] = power
    meta["method"] = METHOD if rules.tests else "the mean's drop against the allowance (no test)"
    if rules.tests and rules.fail_if != "not_shown_no_worse":
        meta["correction"] = f"holm over the {len(rules.metrics)} tested metric rules"
    too_small = [p["warning"] for p in power if p["warning"]]
    if too_small and rules.strict_power:
        raise InputError("the golden set is too small for the gate's rules (strict_power = true): "
                         + "; ".join(w.removeprefix(LOUD) for w in too_small),
                         where=rules.source, hint="change the rule as suggested, or set strict_power = false")
    meta["warnings"] += too_small
    context = Context(evaluation, baseline, rules)
    if ppi is None:
        return GateResult([o for kind in RULE_KINDS for o in kind.check(context)], meta)
    outcomes, meta["ppi"] = check_metric_rules(context)  # on the prediction-powered difference
    meta["correction"] = meta["ppi"]["correction"]
    meta["warnings"] = [w for w in meta["warnings"] if not w.startswith(WIDER)] + notes(meta["ppi"])
    return GateResult([*outcomes, *(o for kind in RULE_KINDS if kind.name != "metric" for o in kind.check(context))],
                      meta)
