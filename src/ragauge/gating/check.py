"""Check an evaluation against a baseline under the gate rules (pure: no files, no clock)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragauge.core.notes import LOUD
from ragauge.errors import InputError
from ragauge.evaluation.options import contract_differences
from ragauge.evaluation.result import Evaluation
from ragauge.evaluation.tags import group_by_tag, mean_of
from ragauge.gating.baseline import Baseline
from ragauge.gating.config import GateRules
from ragauge.metrics.spec import lower_is_better
from ragauge.stats.holm import holm
from ragauge.stats.paired import EPS, METHOD, PairedTest, count_scale, one_sided_p, paired_test
from ragauge.stats.power import (
    DEFAULT_POWER,
    Differences,
    minimum_detectable_effect,
    noise_allowance,
    noise_exceedance,
    one_sided_power,
    questions_for_allowance,
    required_questions,
)

GATE_VERSION = 1
SHOWN = 10


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


def _values(ev: Evaluation, m: str, ids: Sequence[str]) -> list[float]:
    """Every row's value of ``m``; InputError naming the first question without one (a rule would
    pass on it: a comparison with NaN is False). A result that ``gate`` scores has them all."""
    values: list[float] = ev.column(m).tolist()
    missing = next((qid for qid, v in zip(ids, values) if v != v), None)
    if missing is not None:
        raise InputError(f"question {missing!r} has no value of {m} to gate",
                         hint="gate a result scored on every gated metric (ragauge gate scores the run itself)")
    return values


@dataclass(frozen=True)
class _Tested:
    """A tested metric rule waiting for its family's correction: its text, the figures in words, the
    questions behind it, whether the mean dropped past the allowance, its test and one-sided p-value."""

    metric: str
    rule: str
    message: str
    questions: list[dict[str, Any]]
    dropped: bool
    test: PairedTest
    p: float


def _metric_rule(m: str, allowed: float, ev: Evaluation, ids: Sequence[str], base: Baseline,
                 rules: GateRules) -> RuleOutcome | _Tested:
    lower = lower_is_better(m)  # a count of calls: a rise is the regression
    sign = -1.0 if lower else 1.0
    rule = (_RULE_TEXT_LOWER if lower else _RULE_TEXT)[rules.fail_if].format(m=m, allowed=allowed)
    if m not in base.metrics:
        return RuleOutcome("metric", rule, False, f"{m} is not in the baseline",
                           [{"hint": "gate only the metrics the baseline holds, or re-baseline with them: "
                                     "ragauge baseline update GOLDEN --run RUN --baseline PATH --reason '...'"}])
    old, new = base.metrics[m], ev.summary[m]
    if not (math.isfinite(old) and math.isfinite(new)):  # a comparison with NaN is False: never a pass
        return RuleOutcome("metric", rule, False, f"{m}: baseline {old:.4f}, now {new:.4f}: no value to compare "
                                                  "(no answerable question)")
    stored = base.queries
    paired = [(qid, stored[qid][m], value) for qid, value in zip(ids, _values(ev, m, ids)) if m in stored.get(qid, {})]
    worse = sorted((sign * (new_v - old_v), qid, old_v, new_v) for qid, old_v, new_v in paired
                   if sign * (new_v - old_v) < -EPS)
    questions = [{"id": qid, "baseline": old_v, "now": new_v, "diff": new_v - old_v}
                 for _, qid, old_v, new_v in worse[:SHOWN]]
    if len(worse) > SHOWN:
        questions.append({"more": len(worse) - SHOWN})
    message = f"{m}: baseline {old:.4f}, now {new:.4f} ({new - old:+.4f})"
    dropped = sign * (old - new) > allowed + EPS
    if not rules.tests:
        return RuleOutcome("metric", rule, not dropped, message, questions if dropped else [])
    if not paired:  # a test on no pairs could only say "not significant": never a pass
        return RuleOutcome("metric", rule, False, message + "; the baseline holds no per-question values for the "
                           "paired test this rule needs", [{"hint": "re-baseline: ragauge baseline update ..."}])
    olds, news = np.array([o for _, o, _ in paired]), np.array([n for _, _, n in paired])
    scale = count_scale(olds, news) if lower else 1.0  # the test reads quality: a count negated
    test = paired_test(sign * olds, sign * news, confidence=1.0 - rules.alpha, scale=scale)
    if rules.fail_if == "not_shown_no_worse":
        p = one_sided_p(test, -allowed, "greater", rules.alpha)
    else:
        p = one_sided_p(test, 0.0, "less", rules.alpha)
    return _Tested(m, rule, message, questions, dropped, test, p)


_RULE_TEXT = {
    "drop": "{m} may drop at most {allowed:.4f} below the baseline",
    "significant": "{m} must not drop significantly below the baseline",
    "drop_and_significant": "{m} may not drop significantly and by more than {allowed:.4f} below the baseline",
    "not_shown_no_worse": "{m} must be shown to be no worse than {allowed:.4f} below the baseline",
}


_RULE_TEXT_LOWER = {
    "drop": "{m} may rise at most {allowed:.4f} above the baseline",
    "significant": "{m} must not rise significantly above the baseline",
    "drop_and_significant": "{m} may not rise significantly and by more than {allowed:.4f} above the baseline",
    "not_shown_no_worse": "{m} must be shown to be no higher than {allowed:.4f} above the baseline",
}
"""The rules' words for a metric where lower is better (``metrics.spec.lower_is_better``)."""


def _settle(pending: list[RuleOutcome | _Tested], rules: GateRules) -> list[RuleOutcome]:
    """The tested metric rules decided together. Rules that fail on a significant drop are one
    family: Holm's correction over them keeps the chance that a change of equal quality fails
    any of them at most alpha. Non-inferiority rules pass only when every one is shown (an
    intersection-union test), which needs no correction."""
    tested = [x for x in pending if isinstance(x, _Tested)]
    adjusted = dict(zip((id(x) for x in tested), holm([x.p for x in tested])))
    family = len(tested)
    out: list[RuleOutcome] = []
    for x in pending:
        if isinstance(x, RuleOutcome):
            out.append(x)
            continue
        failed, detail = _decide(x, adjusted[id(x)], family, rules)
        out.append(RuleOutcome("metric", x.rule, not failed, f"{x.message}; {detail}", x.questions if failed else []))
    return out


def _decide(x: _Tested, p_holm: float, family: int, rules: GateRules) -> tuple[bool, str]:
    """Whether a tested rule fails, and its figures in words."""
    test, p = x.test, x.p
    where = f"betting test, n = {test.n}, {test.better} better / {test.worse} worse"
    if test.changed < test.n and test.changed <= 20:
        where += f" (only {test.changed} of {test.n} questions changed)"
    if rules.fail_if == "not_shown_no_worse":
        shown = p < rules.alpha
        return (not shown, f"non-inferiority p = {p:.4f} ({where}): " +
                ("shown no worse than the margin" if shown else
                 f"not shown to be no worse than the margin at alpha {rules.alpha}"))
    significant = p_holm < rules.alpha
    corrected = f", Holm over {family} rules: {p_holm:.4f}" if family > 1 else ""
    detail = f"one-sided p = {p:.4f}{corrected} for a drop ({where})"
    if rules.fail_if == "significant":
        return significant, detail + (": a significant drop" if significant else ": no significant drop")
    if not x.dropped:
        return False, detail + ": within the allowance"
    return significant, detail + (": a significant drop beyond the allowance" if significant else
                                  ": the drop is not significant, so it passes")


def gate_power(m: str, allowed: float, ev: Evaluation, base: Baseline, rules: GateRules) -> dict[str, Any]:
    """What the golden set can resolve for one metric rule, simulated for the gate's own betting
    test from the baseline's per-question values (the evaluation's when the baseline has none)
    under the one-run model of ``stats.power.Differences.one_run``: the minimum detectable effect
    (two-sided, as ``compare`` and ``power`` report it: one function answers all three), and for
    the plain rule the chance that a change of equal quality fails it and the questions that would
    bring that to alpha. ``warning`` says when the set is too small for the rule: the plain rule
    fails on noise more often than alpha; a tested rule with an allowance catches a true drop of
    the allowance (or shows an unchanged run no worse than the margin) less than 80% of the time."""
    stored = [row[m] for row in base.queries.values() if m in row]
    values = np.array(stored) if stored else ev.column(m)
    n = len(values)
    scale = count_scale(values) if lower_is_better(m) else 1.0  # a count: its model on [0, 1]
    values, allowed_raw, allowed = values / scale, allowed, allowed / scale
    model = Differences.best(n, None, values, rules.correlation)
    mde = minimum_detectable_effect(model, n, rules.alpha)
    mde = None if mde is None else mde * scale
    out: dict[str, Any] = {"metric": m, "n": n, "sd_diff": model.sd, "mde": mde, "warning": None}
    questions = f"{n} question{'s' if n != 1 else ''}"
    shown = "no change is detectable" if mde is None else f"the smallest change it detects (80% power) is ±{mde:.4f}"
    detect = required_questions(model, allowed, rules.alpha) if allowed > 0 else None
    out["needed_to_detect"] = detect  # the figure 'ragauge power --effect ALLOWED' gives for the same run
    needs = (f"; detecting a change of {allowed_raw:.4f} with 80% power needs "
             f"{f'{detect:,}' if detect else 'more than 100,000'} questions (as ragauge power --effect {allowed_raw:g} "
             "says)") if allowed > 0 else ""
    if rules.fail_if == "drop":
        chance = noise_exceedance(allowed, model, n)
        out["false_alarm"] = chance
        if chance > rules.alpha:
            needed = questions_for_allowance(allowed, model, rules.alpha)
            out["warning"] = (
                f"{LOUD}{m}: with {questions} a change of equal quality drops it by more than {allowed_raw:.4f} in "
                f"{chance:.0%} of runs, so this rule fails on noise; allow a drop of at least "
                f"{noise_allowance(model, n, rules.alpha) * scale:.4f}, grow the golden set to "
                f"{needed if needed else 'more than 100,000'} questions, or set fail_if = "
                f"\"drop_and_significant\" to fail only on drops it can tell from noise ({shown}{needs})")
    elif mde is None and rules.fail_if != "not_shown_no_worse":
        out["warning"] = (f"{LOUD}{m}: with {questions} the test cannot tell any change from noise, so this rule "
                          f"can never fail; add questions")
    elif rules.fail_if in ("drop_and_significant", "not_shown_no_worse"):
        test = "drop" if rules.fail_if == "drop_and_significant" else "no-worse"
        chance = one_sided_power(allowed, model, n, rules.alpha, test)
        out["power"] = chance
        if chance < DEFAULT_POWER:
            what = ("catches a true drop of" if test == "drop" else
                    "shows an unchanged run no worse than the margin of")
            out["warning"] = (f"{LOUD}{m}: with {questions} this rule {what} {allowed_raw:.4f} in only {chance:.0%} of "
                              f"runs ({shown}); allow more, or add questions")
    return out


def _floor_rule(tag: str, m: str, floor: float, ev: Evaluation, ids: Sequence[str], rows: list[int]) -> RuleOutcome:
    """The tag floor over the rows numbered ``rows`` (the tag's questions), read from the columns."""
    lower = lower_is_better(m)  # a count of calls: the floor is a ceiling
    rule = f"tag {tag!r}: {m} must stay {'<=' if lower else '>='} {floor:.4f}"
    if not rows:
        return RuleOutcome("tag_floor", rule, False, f"no answerable question has tag {tag!r}")
    values, ranks = _values(ev, m, ids), ev.first_ranks.tolist()
    value = mean_of([values[i] for i in rows])
    failed = value > floor + EPS if lower else value < floor - EPS
    ordered = sorted(rows, key=lambda i: (-values[i] if lower else values[i], ids[i]))
    questions: list[dict[str, Any]] = [{"id": ids[i], "now": values[i], "first_relevant_rank": ranks[i] or None}
                                       for i in ordered[:SHOWN]]
    if len(ordered) > SHOWN:
        questions.append({"more": len(ordered) - SHOWN})
    return RuleOutcome("tag_floor", rule, not failed, f"tag {tag!r} (n={len(rows)}): {m} = {value:.4f}",
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
    # the rules read the columns, not the rows: a fresh evaluation makes a row each time one is read
    ids = evaluation.row_ids
    outcomes = _settle([_metric_rule(m, a, evaluation, ids, baseline, rules) for m, a in rules.metrics.items()],
                       rules)
    groups = group_by_tag(range(len(ids)), evaluation.row_tags.__getitem__)
    outcomes += [_floor_rule(t, m, f, evaluation, ids, groups.get(t, []))
                 for t, fl in rules.tag_floors.items() for m, f in fl.items()]
    outcomes += [_critical_rule(q, rules.critical_k, evaluation) for q in rules.critical]
    return GateResult(outcomes, meta)
