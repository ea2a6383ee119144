"""Check an evaluation against a baseline under the gate rules (pure: no files, no clock)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragauge.evaluation.diagnose import LOUD
from ragauge.evaluation.options import contract_differences
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.evaluation.tags import group_by_tag, mean_of
from ragauge.gating.baseline import Baseline
from ragauge.gating.config import GateRules
from ragauge.stats.randomization import sign_flip_p_value

GATE_VERSION = 1
SHOWN = 10
EPS = 1e-12


@dataclass(frozen=True)
class RuleOutcome:
    """One rule: what it demands, whether it held, the numbers, and the questions behind a failure."""

    kind: str
    rule: str
    passed: bool
    message: str
    questions: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rule": self.rule, "passed": self.passed, "message": self.message,
                "questions": self.questions}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RuleOutcome:
        return cls(str(d["kind"]), str(d["rule"]), bool(d["passed"]), str(d["message"]), list(d.get("questions", [])))


@dataclass(frozen=True)
class GateResult:
    outcomes: list[RuleOutcome]
    meta: dict[str, Any]

    @property
    def passed(self) -> bool:
        return all(o.passed for o in self.outcomes)

    @property
    def failures(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if not o.passed]

    def to_dict(self) -> dict[str, Any]:
        return {"ragauge_gate": GATE_VERSION, "passed": self.passed,
                "outcomes": [o.to_dict() for o in self.outcomes], "meta": self.meta}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GateResult:
        """The inverse of ``to_dict``; InputError for another version."""
        if d.get("ragauge_gate") != GATE_VERSION:
            from ragauge.errors import InputError

            raise InputError(f"not a ragauge gate result (version {d.get('ragauge_gate')!r})")
        return cls([RuleOutcome.from_dict(o) for o in d["outcomes"]], dict(d["meta"]))


def _metric_rule(m: str, allowed: float, ev: Evaluation, base: Baseline, rules: GateRules) -> RuleOutcome:
    rule = f"{m} may drop at most {allowed:.4f} below the baseline"
    if m not in base.metrics:
        return RuleOutcome("metric", rule, False, f"{m} is not in the baseline",
                           [{"hint": "re-baseline with the gated metrics: ragauge baseline update ..."}])
    old, new = base.metrics[m], ev.summary[m]
    if not (math.isfinite(old) and math.isfinite(new)):  # a comparison with NaN is False: never a pass
        return RuleOutcome("metric", rule, False, f"{m}: baseline {old:.4f}, now {new:.4f}: no value to compare "
                                                  "(no answerable question)")
    drop = old - new
    paired = [(q.id, base.queries[q.id][m], q.values[m]) for q in ev.queries if m in base.queries.get(q.id, {})]
    worse = sorted((new_v - old_v, qid, old_v, new_v) for qid, old_v, new_v in paired if new_v < old_v - EPS)
    questions = [{"id": qid, "baseline": old_v, "now": new_v, "diff": d} for d, qid, old_v, new_v in worse[:SHOWN]]
    message = f"{m}: baseline {old:.4f}, now {new:.4f} ({new - old:+.4f})"
    failed = drop > allowed + EPS
    if failed and rules.significant_only:
        if not paired:  # a test on no pairs could only say "not significant": never a pass
            return RuleOutcome("metric", rule, False, message + "; the baseline holds no per-question values to "
                               "test the drop's significance", [{"hint": "re-baseline: ragauge baseline update ..."}])
        diffs = np.array([n - o for _, o, n in paired])
        p = sign_flip_p_value(diffs)
        message += f"; randomization p = {p:.4f} (alpha {rules.alpha})"
        failed = p < rules.alpha
        if not failed:
            message += ": the drop is not significant, so it passes"
    return RuleOutcome("metric", rule, not failed, message, questions if failed else [])


def _floor_rule(tag: str, m: str, floor: float, qs: list[QueryScore]) -> RuleOutcome:
    rule = f"tag {tag!r}: {m} must stay >= {floor:.4f}"
    if not qs:
        return RuleOutcome("tag_floor", rule, False, f"no answerable question has tag {tag!r}")
    value = mean_of([q.values[m] for q in qs])
    failed = value < floor - EPS
    lowest = sorted(qs, key=lambda q: (q.values[m], q.id))[:SHOWN]
    questions = [{"id": q.id, "now": q.values[m], "first_relevant_rank": q.first_relevant_rank} for q in lowest]
    return RuleOutcome("tag_floor", rule, not failed, f"tag {tag!r} (n={len(qs)}): {m} = {value:.4f}",
                       questions if failed else [])


def _critical_rule(qid: str, k: int, ev: Evaluation) -> RuleOutcome:
    rule = f"critical question {qid!r} keeps a relevant document in the top {k}"
    position = ev.positions.get(qid)
    if position is None:
        return RuleOutcome("critical", rule, False, f"{qid!r} is not an answerable question of the golden set")
    q = ev.queries[position]
    rank = q.first_relevant_rank
    ok = rank is not None and rank <= k
    where = f"first relevant at rank {rank}" if rank else "no relevant document retrieved"
    details = {"id": qid, "query": q.query, "first_relevant_rank": rank, "expected": list(q.relevant),
               "returned": [r.doc_id for r in q.top[:k]]}
    return RuleOutcome("critical", rule, ok, f"{qid}: {where}", [] if ok else [details])


def check_gate(evaluation: Evaluation, baseline: Baseline, rules: GateRules) -> GateResult:
    """Every rule's outcome. A changed golden set or contract fails the gate on its own: the
    numbers would not be comparable, so the baseline must be renewed explicitly."""
    meta = {"baseline": str(baseline.path), "baseline_created": baseline.data.get("created"),
            "baseline_reason": baseline.data.get("reason"), "rules": rules.to_dict(),
            "rules_source": rules.source, "run": evaluation.meta["run"], "golden": evaluation.meta["golden"],
            "warnings": [w for w in evaluation.warnings if w.startswith(LOUD)]}  # numbers that would mislead
    renew = "re-baseline explicitly: ragauge baseline update GOLDEN --run RUN --baseline PATH --reason '...'"
    if evaluation.meta["golden"]["hash"] != baseline.golden_hash:
        return GateResult([RuleOutcome("golden", "the golden set is the one the baseline was measured on", False,
                                       f"the golden set changed since the baseline ({baseline.golden_hash[:19]}... -> "
                                       f"{evaluation.meta['golden']['hash'][:19]}...); {renew}")], meta)
    contract = evaluation.meta["contract"]
    changed = contract_differences(contract, baseline.contract)
    if changed:
        return GateResult([RuleOutcome("contract", "the metric contract is the baseline's", False,
                                       f"{', '.join(changed)} differ from the baseline's; "
                                       f"use the same options or {renew}")],
                          meta)
    outcomes = [_metric_rule(m, a, evaluation, baseline, rules) for m, a in rules.metrics.items()]
    groups = group_by_tag(evaluation.queries)
    outcomes += [_floor_rule(t, m, f, groups.get(t, [])) for t, fl in rules.tag_floors.items() for m, f in fl.items()]
    outcomes += [_critical_rule(q, rules.critical_k, evaluation) for q in rules.critical]
    return GateResult(outcomes, meta)
