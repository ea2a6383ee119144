"""The metric rules (``[gate] metrics = { "ndcg@10" = 0.02 }``): each gated metric may drop at most its
allowance below the baseline (rise, for a count where lower is better), or, by ``fail_if``, must not
drop significantly, both, or must be shown no worse (see ``FAIL_IF``). The tested rules are one family
(Holm's correction); ``alpha``, ``strict_power`` and ``correlation`` tune the tests and the power check.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragauge.config import key_line
from ragauge.core.notes import LOUD
from ragauge.core.numbers import CORRELATION, PROBABILITY, Range, check_number
from ragauge.errors import InputError
from ragauge.gating.outcome import RuleOutcome
from ragauge.gating.rules.kind import Context, RuleKind
from ragauge.metrics.spec import lower_is_better, parse_metric, value_range
from ragauge.stats import DEFAULT_ALPHA, DEFAULT_CORRELATION
from ragauge.stats.holm import holm
from ragauge.stats.paired import EPS, PairedTest, count_scale, one_sided_p, paired_test
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

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.gating.baseline import Baseline
    from ragauge.gating.config import GateRules

SHOWN = 10
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
class Measured:
    """A metric rule measured, waiting for its decision: its text, the figures in words, the questions
    behind it (those that got worse), whether the mean dropped past the allowance."""

    metric: str
    rule: str
    message: str
    questions: list[dict[str, Any]]
    dropped: bool

    def outcome(self, failed: bool, detail: str | None = None) -> RuleOutcome:
        """The rule's outcome: ``detail`` after the figures, the questions behind it when it failed."""
        message = self.message if detail is None else f"{self.message}; {detail}"
        return RuleOutcome("metric", self.rule, not failed, message, self.questions if failed else [])


@dataclass(frozen=True)
class Tested(Measured):
    """A tested metric rule waiting for its family's correction: its test and one-sided p-value too."""

    test: PairedTest
    p: float


def metric_rule(m: str, allowed: float, ev: Evaluation, ids: Sequence[str], base: Baseline,
                rules: GateRules) -> RuleOutcome | Measured:
    """One metric rule measured on the human labels (a paired test when ``rules.tests``), or its
    outcome when there is nothing to measure (not in the baseline, no value, no pairs)."""
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
        return Measured(m, rule, message, questions, dropped)
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
    return Tested(m, rule, message, questions, dropped, test, p)


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


def _settle(pending: list[RuleOutcome | Measured], rules: GateRules) -> list[RuleOutcome]:
    """The metric rules decided: a plain rule on its mean's drop, the tested ones together. Rules
    that fail on a significant drop are one family: Holm's correction over them keeps the chance
    that a change of equal quality fails any of them at most alpha. Non-inferiority rules pass only
    when every one is shown (an intersection-union test), which needs no correction."""
    tested = [x for x in pending if isinstance(x, Tested)]
    adjusted = dict(zip((id(x) for x in tested), holm([x.p for x in tested])))
    family = len(tested)
    out: list[RuleOutcome] = []
    for x in pending:
        if isinstance(x, RuleOutcome):
            out.append(x)
        elif isinstance(x, Tested):
            out.append(x.outcome(*decide(x, adjusted[id(x)], family, rules)))
        else:
            out.append(x.outcome(x.dropped))
    return out


def decide(x: Tested, p_corrected: float, family: int, rules: GateRules,
           correction: str = "Holm") -> tuple[bool, str]:
    """Whether a tested rule fails, and its figures in words (``p_corrected``: its p-value corrected
    for the family of ``family`` rules by ``correction``)."""
    test, p = x.test, x.p
    where = f"betting test, n = {test.n}, {test.better} better / {test.worse} worse"
    if test.changed < test.n and test.changed <= 20:
        where += f" (only {test.changed} of {test.n} questions changed)"
    if rules.fail_if == "not_shown_no_worse":
        shown = p < rules.alpha
        return (not shown, f"non-inferiority p = {p:.4f} ({where}): " +
                ("shown no worse than the margin" if shown else
                 f"not shown to be no worse than the margin at alpha {rules.alpha}"))
    significant = p_corrected < rules.alpha
    corrected = f", {correction} over {family} rules: {p_corrected:.4f}" if family > 1 else ""
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
            needed = questions_for_allowance(allowed, model, n, rules.alpha)
            grow = (f", grow the golden set to {needed} questions" if needed else
                    " (no golden set of up to 100,000 questions would do)")
            assumed = (f" (its values do not vary on them, so the noise is taken as {model.source})"
                       if model.floor else "")
            out["warning"] = (
                f"{LOUD}{m}: with {questions}{assumed} a change of equal quality drops it by more than "
                f"{allowed_raw:.4f} in {chance:.0%} of runs, so this rule fails on noise; allow a drop of at least "
                f"{noise_allowance(model, n, rules.alpha) * scale:.4f}{grow}, or set fail_if = "
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


def check(ctx: Context) -> list[RuleOutcome]:
    """Every metric rule's outcome, the tested ones decided together (``_settle``)."""
    return _settle([metric_rule(m, a, ctx.evaluation, ctx.ids, ctx.baseline, ctx.rules)
                    for m, a in ctx.rules.metrics.items()], ctx.rules)


def read(gate: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """``metrics``, ``fail_if`` (or the older ``significant_only``), ``alpha``, ``strict_power`` and
    ``correlation`` from a ``[gate]`` table."""
    metrics_raw = gate.get("metrics", {m: DEFAULT_ALLOWED_DROP for m in DEFAULT_METRICS})
    if isinstance(metrics_raw, list):
        metrics_raw = {m: DEFAULT_ALLOWED_DROP for m in metrics_raw}
    if not isinstance(metrics_raw, dict):
        raise InputError("'gate.metrics' must map metric specs to allowed drops", where=str(path),
                         hint='metrics = { "ndcg@10" = 0.02 }')
    metrics = {str(parse_metric(m)): _number(v, f"allowed drop of {m}", value_range(str(parse_metric(m))), path, m)
               for m, v in metrics_raw.items()}
    return {"metrics": metrics, "fail_if": _fail_if(gate, path),
            "alpha": _number(gate.get("alpha", DEFAULT_ALPHA), "'gate.alpha'", PROBABILITY, path, "alpha"),
            "strict_power": flag_value(gate, "strict_power", path),
            "correlation": _number(gate.get("correlation", DEFAULT_CORRELATION), "'gate.correlation'", CORRELATION,
                                   path, "correlation")}


def loosened(now: GateRules, stored: GateRules) -> list[str]:
    """A gated metric dropped or allowed a larger drop (rise), a weaker ``fail_if``, an alpha that
    makes a tested rule harder to fail, ``strict_power`` turned off."""
    out = [f"{m} is no longer gated" for m in stored.metrics if m not in now.metrics]
    out += [f"{m} may {'rise' if lower_is_better(m) else 'drop'} {now.metrics[m]:.4f} (was {a:.4f})"
            for m, a in stored.metrics.items() if m in now.metrics and now.metrics[m] > a + 1e-12]
    if now.fail_if != stored.fail_if and FAIL_STRICTNESS[now.fail_if] <= FAIL_STRICTNESS[stored.fail_if]:
        out.append(f"fail_if {now.fail_if!r} (was {stored.fail_if!r})")
    elif now.fail_if == stored.fail_if and now.tests:
        harder = now.alpha < stored.alpha if now.fail_if != "not_shown_no_worse" else now.alpha > stored.alpha
        if harder:
            out.append(f"alpha {now.alpha:g} (was {stored.alpha:g})")
    if stored.strict_power and not now.strict_power:
        out.append("strict_power turned off")
    return out


def _number(value: Any, what: str, allowed: Range, path: Path, *keys: str) -> float:
    return check_number(value, what, allowed, where=key_line(path, *keys))


def flag_value(gate: Mapping[str, Any], key: str, path: Path) -> bool:
    """A true-or-false ``[gate]`` setting (false when absent)."""
    value = gate.get(key, False)
    if not isinstance(value, bool):
        raise InputError(f"'gate.{key}' must be true or false, got {value!r}", where=key_line(path, key))
    return value


def _fail_if(gate: Mapping[str, Any], path: Path) -> str:
    """``fail_if``, or the older ``significant_only = true`` (= "drop_and_significant"); not both."""
    if "significant_only" in gate:
        if "fail_if" in gate:
            raise InputError("'gate.significant_only' and 'gate.fail_if' both given", where=key_line(path, "fail_if"),
                             hint='keep fail_if (significant_only = true is fail_if = "drop_and_significant")')
        return "drop_and_significant" if flag_value(gate, "significant_only", path) else "drop"
    value = gate.get("fail_if", "drop")
    if not isinstance(value, str) or value not in FAIL_IF:
        raise InputError(f"'gate.fail_if' must be one of {', '.join(FAIL_IF)}, got {value!r}",
                         where=key_line(path, "fail_if"), hint='fail_if = "drop_and_significant"')
    return str(value)


KIND = RuleKind("metric", ("metrics", "fail_if", "significant_only", "alpha", "strict_power", "correlation"),
                read, check, loosened)
