"""The gate with automatic labels (``--auto-labels``): a golden set in which only some questions carry
human labels, the run scored as ``predicted.evaluate`` scores it, against a baseline measured with the
same assessor's labels.

**What decides.** A metric rule on a share metric is decided on the prediction-powered difference now -
baseline (``predicted.difference.estimate``: ``stats.ppi.ppi_difference``'s betting interval, valid at
every n) over the questions both hold values of: ``fail_if = "drop"`` on its estimate against the
allowance; ``"significant"`` when its one-sided upper bound at ``alpha / m`` is below 0, ``m`` the
tested metric rules (Bonferroni: the prediction-powered test gives an interval, not a p-value, so
Holm's step-down, which the gate applies to p-values, cannot be run; the human-only tests in the family
-- counts of calls, metrics without a PPI estimate -- are corrected the same way, ``p * m``);
``"drop_and_significant"`` when both; ``"not_shown_no_worse"`` passes when its one-sided lower bound at
``alpha`` is above ``-allowance`` (an intersection-union test: no correction). A one-sided bound at
level ``a`` is the end of the two-sided interval at ``2a`` (each end of the betting interval fails
with chance at most half its level). The interval is PPI's even where it comes out wider than the
human-only one: choosing the narrower after seeing both would not be valid. The human-only figure
(the mean difference and paired test on the labelled questions) is shown beside it. Counts of calls
and judged@k, and a metric with fewer than 2 labelled questions or no unlabelled one, are decided on
the human labels alone. Tag floors and critical questions read the human labels only.

**Refused** (InputError, exit 2): no question carries a human label (automatic labels are never a
measurement alone); a baseline measured with automatic labels gated without them, or the reverse; a
baseline measured with another assessor's or calibration's labels (``AutoLabels.identity``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragauge.core.notes import LOUD
from ragauge.errors import InputError, flag
from ragauge.evaluation.result import Evaluation
from ragauge.formats.autolabels import AutoLabels
from ragauge.gating.baseline import Baseline
from ragauge.gating.config import GateRules
from ragauge.gating.outcome import RuleOutcome
from ragauge.gating.rules.kind import Context
from ragauge.gating.rules.metric import Measured, Tested, decide, metric_rule
from ragauge.predicted import METHOD, TARGET_TEXT
from ragauge.predicted.difference import Values, automatic_of, estimate, pairs
from ragauge.predicted.evaluate import METHOD_TEXT, estimable
from ragauge.stats.paired import EPS

RENEW = "ragauge baseline update GOLDEN --run RUN --baseline PATH --auto-labels AUTO --reason '...'"


def check_labels(baseline: Baseline, labels: AutoLabels | Mapping[str, Any] | None) -> None:
    """InputError when ``labels`` (automatic labels, or the ``auto_labels`` of an evaluation's
    ``meta["ppi"]``; None: none) are not the labels ``baseline`` was measured with: given for a
    baseline measured without them, missing for one measured with them, or another assessor's or
    calibration's (their values would not be one function of the question)."""
    recorded = baseline.auto_labels
    where = str(baseline.path)
    if labels is None and recorded is not None:
        raise InputError(f"the baseline was measured with automatic labels ({recorded['assessor']}, from "
                         f"{recorded.get('path')}): gated without them, its figures are not this run's to compare",
                         where=where, hint=f"add {flag('auto_labels', str(recorded.get('path') or 'AUTO'))} (the "
                                           "labels it was measured with), or re-baseline without them: ragauge "
                                           "baseline update GOLDEN --run RUN --baseline PATH --reason '...'")
    if labels is None:
        return
    identity, assessor, source = ((labels.identity, labels.assessor, labels.source) if isinstance(labels, AutoLabels)
                                  else (labels["identity"], labels["assessor"], labels.get("path")))
    if recorded is None:
        raise InputError("the baseline was measured without automatic labels: the run's prediction-powered "
                         "difference needs the baseline's automatic values", where=where,
                         hint=f"re-baseline with the labels: {RENEW}; or gate without "
                              f"{flag('auto_labels', str(source or 'AUTO'))}")
    if identity != recorded["identity"]:
        raise InputError(f"the baseline was measured with other automatic labels ({recorded['assessor']}, from "
                         f"{recorded.get('path')}) than {source} ({assessor}, or another calibration): "
                         "their values are not one function of the question, so they cannot be paired",
                         where=source, hint="gate with the labels the baseline was measured with (a document of the "
                                            "run's top k they never graded counts as not relevant in its automatic "
                                            "values; the gate stays valid), or re-baseline the baseline's run with "
                                            f"these: {RENEW}")


def check_measured(evaluation: Evaluation, what: str) -> None:
    """InputError when no question of a prediction-powered evaluation carries a human label: ``what``
    (a gate, a baseline) never rests on automatic labels alone."""
    ppi = automatic_of(evaluation)
    if ppi is not None and not ppi["questions"]["labelled"]:
        raise InputError(f"no question of the golden set carries a human label and a relevant document: {what} "
                         f"cannot rest on automatic labels alone (what the assessor "
                         f"{ppi['auto_labels']['assessor']} says is not a measurement)",
                         where=evaluation.meta["golden"].get("path"),
                         hint="label a random sample of the questions (ragauge golden pool, ragauge golden judge), "
                              "then use the automatic labels beside them")


def baseline_values(baseline: Baseline) -> Values:
    """The baseline's values as a difference pairs them: its stored human values per labelled question,
    its automatic values per question (InputError for a baseline measured without automatic labels)."""
    recorded = baseline.auto_labels
    if recorded is None:
        raise InputError("the baseline was measured without automatic labels", where=str(baseline.path),
                         hint=f"re-baseline with the labels: {RENEW}")
    return Values(baseline.queries, recorded["automatic"], list(recorded["unlabelled"]), recorded["identity"],
                  recorded["assessor"])


def _levels(rules: GateRules, family: int) -> dict[str, float]:
    """The two-sided level whose interval ends are the decision's one-sided bounds."""
    if rules.fail_if in ("significant", "drop_and_significant"):
        return {"decision": 2.0 * rules.alpha / family}
    if rules.fail_if == "not_shown_no_worse":
        return {"decision": 2.0 * rules.alpha}
    return {}


def check_metric_rules(ctx: Context) -> tuple[list[RuleOutcome], dict[str, Any]]:
    """The metric rules decided as the module docstring says, and ``meta["ppi"]`` of the gate: per
    metric decided by PPI, the human-only difference and interval beside the PPI estimate, its
    interval at alpha and the decision's bounds (``decision``)."""
    ev, base, rules = ctx.evaluation, ctx.baseline, ctx.rules
    pending = [metric_rule(m, a, ev, ctx.ids, base, rules) for m, a in rules.metrics.items()]
    family = max(1, sum(isinstance(x, Tested) for x in pending))
    ppi = automatic_of(ev) or {}
    old, now = baseline_values(base), Values.of(ev)
    held = next(iter(old.automatic.values()), {})
    figures: dict[str, dict[str, Any]] = {}
    out: list[RuleOutcome] = []
    for x in pending:
        if isinstance(x, RuleOutcome):
            out.append(x)
            continue
        entry = (estimate(old, now, x.metric, rules.alpha, _levels(rules, family))
                 if estimable(x.metric) and x.metric in ppi["metrics"] and x.metric in held else None)
        if entry is not None:
            if "at" in entry:
                entry["decision"] = entry.pop("at")["decision"]
            figures[x.metric] = entry
        out.append(_outcome(x, entry, family, rules))
    labelled, unlabelled = pairs(old, now)
    correction = (f"Bonferroni over the {family} tested metric rule(s): the prediction-powered tests give "
                  "intervals, not p-values, so each rule is decided at alpha / "
                  f"{family} (one-sided), a human-only one at p x {family}"
                  if rules.fail_if in ("significant", "drop_and_significant") else
                  "none: non-inferiority rules pass only when every one is shown (intersection-union)"
                  if rules.fail_if == "not_shown_no_worse" else "none: the plain rule tests nothing")
    meta = {"version": 1, "method": METHOD, "method_text": METHOD_TEXT[METHOD], "alpha": rules.alpha,
            "target": "population", "target_text": TARGET_TEXT["population"],
            "auto_labels": {k: ppi["auto_labels"][k] for k in ("assessor", "identity", "golden")},
            "questions": {"labelled": len(labelled), "unlabelled": len(unlabelled)},
            "agreement": ppi.get("agreement"), "correction": correction,
            "unassessed": {"baseline": (base.auto_labels or {}).get("unassessed"),
                           "gated": (ppi.get("coverage") or {}).get("unassessed")},
            "human_only": [m for m in rules.metrics if m not in figures or "estimate" not in figures[m]],
            "metrics": figures}
    return out, meta


def _outcome(x: Measured, entry: Mapping[str, Any] | None, family: int, rules: GateRules) -> RuleOutcome:
    """One metric rule decided on its PPI figures ``entry``, or on the human labels alone without them."""
    if entry is None or "estimate" not in entry:
        why = entry["reason"] if entry is not None else "not estimated by PPI (a count of calls or judged@k)"
        if not isinstance(x, Tested):
            return x.outcome(x.dropped, f"decided on the human labels alone ({why})")
        failed, detail = decide(x, min(1.0, x.p * family), family, rules, "Bonferroni")
        return x.outcome(failed, f"{detail}; decided on the human labels alone ({why})")
    allowed = rules.metrics[x.metric]
    est, (lo, hi) = entry["estimate"], entry["interval"]
    effective = "n/a" if entry.get("effective_n") is None else f"{entry['effective_n']:.1f}"
    human = f"human-only on {entry['n']} labelled question(s)" + (f", one-sided p = {x.p:.4f}"
                                                                  if isinstance(x, Tested) else "")
    figures = (f"{human}; prediction-powered difference {est:+.4f}, {1.0 - rules.alpha:.0%} interval "
               f"[{lo:+.4f}, {hi:+.4f}] ({entry['n']} + {entry['unlabelled']} questions, {effective} effective "
               "labels)")
    dropped = -est > allowed + EPS
    if rules.fail_if == "drop":
        return x.outcome(dropped, figures + (": a drop beyond the allowance" if dropped else ": within the allowance"))
    if rules.fail_if == "not_shown_no_worse":
        bound = entry["decision"][0]
        shown = bound > -allowed + EPS
        return x.outcome(not shown, f"{figures}; its one-sided lower bound at alpha {rules.alpha:g}: {bound:+.4f}: "
                                    + ("shown no worse than the margin" if shown else
                                       "not shown to be no worse than the margin"))
    bound = entry["decision"][1]
    significant = bound < -EPS
    at = f"alpha / {family} (Bonferroni over {family} rules)" if family > 1 else f"alpha {rules.alpha:g}"
    detail = f"{figures}; its one-sided upper bound at {at}: {bound:+.4f}"
    if rules.fail_if == "significant":
        return x.outcome(significant, detail + (": a significant drop" if significant else ": no significant drop"))
    if not dropped:
        return x.outcome(False, detail + ": within the allowance")
    return x.outcome(significant, detail + (": a significant drop beyond the allowance" if significant else
                                            ": the drop is not significant, so it passes"))


def notes(ppi: Mapping[str, Any]) -> list[str]:
    """What the gate says in words of its ``meta["ppi"]``."""
    out = []
    wider = [m for m, e in ppi["metrics"].items() if e.get("wider")]
    if wider:
        out.append(f"{LOUD}the prediction-powered interval of the difference is wider than the human-only one for "
                   f"{', '.join(wider)} ({ppi['questions']['labelled']} human-labelled question(s)); the gate decides "
                   "on it all the same (choosing the narrower after seeing both would not be valid)")
    unseen = {side: n for side, n in ppi["unassessed"].items() if n}
    if unseen:
        out.append("the assessor never saw " + " and ".join(f"{n} document(s) of the {side} run's top k"
                                                           for side, n in unseen.items())
                   + " of the unlabelled questions (they count as not relevant in its values): the decision stays "
                     "valid; assessing both runs' top k (golden assess GOLDEN --run BASE --run NEW) and "
                     "re-baselining with those labels can narrow it")
    return out
