"""A sequential gate: call the retriever question by question (in a seeded random order) against the
baseline's stored per-question values, and stop as soon as every tested metric rule is decided.

Each rule is an anytime-valid one-sided test (``stats.sequential.first_crossing``), checked after every
question, so stopping early does not inflate its error rate:

- ``fail_if = "significant"``: the rule fails once a drop (mean difference below 0) is shown at
  alpha / m (Bonferroni over the m rules that fail on a drop: a sequential Holm would need every
  rule's whole path); ``"drop_and_significant"``: once shown and the mean has dropped by more than
  the allowance. Either passes when the questions run out without it.
- ``"not_shown_no_worse"``: the rule passes once "no worse than -allowance" is shown at alpha (an
  intersection-union test: no correction); it fails when the questions run out first.

The gate stops at the first failed rule, or when every non-inferiority rule is shown and no other
rule remains open, or when the questions run out. The plain ``"drop"`` rule tests nothing and tag
floors need every question of their tag: a sequential gate refuses them (InputError).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.errors import InputError
from ragauge.gating.config import GateRules
from ragauge.gating.outcome import GateResult, RuleOutcome
from ragauge.gating.rules.critical import critical_rule
from ragauge.metrics.spec import refuse_counts
from ragauge.stats import DEFAULT_SEED

METHOD = ("anytime-valid one-sided tests by betting (confidence sequences), checked after every question; "
          "Bonferroni over the rules that fail on a drop")


def decide(d: np.ndarray, fail_if: str, allowed: float, alpha: float, level: float) -> tuple[bool, int] | None:
    """A rule's verdict on the differences ``d`` in the order asked: ``(passed, at question)``, or
    None while undecided. Non-inferiority passes at the first question after which "no worse than
    -allowed" is shown at ``alpha``; "significant" fails at the first drop shown at ``level``;
    "drop_and_significant" fails at the first question, from that one on, where the mean has also
    dropped past the allowance (a drop shown never stops being shown)."""
    from ragauge.stats.sequential import first_crossing

    if fail_if == "not_shown_no_worse":
        at = first_crossing(d, -allowed, alpha, upward=True)
        return None if at is None else (True, at)
    at = first_crossing(d, 0.0, level, upward=False)
    if at is not None and fail_if == "drop_and_significant":
        means = np.cumsum(d) / np.arange(1, len(d) + 1)
        beyond = np.flatnonzero(means[at - 1:] < -allowed)
        at = at + int(beyond[0]) if len(beyond) else None
    return None if at is None else (False, at)


def gate_sequential(golden: Any, retriever: Any, baseline: str | Path, *, rules: GateRules | str | Path | None = None,
                    seed: int = DEFAULT_SEED, fetch: int | None = None, concurrency: int | None = None,
                    timeout: float | None = None, retries: int | None = None, batch: int | None = None,
                    doc_id_key: str | None = None,
                    config: Mapping[str, Any] | None = None) -> GateResult:
    """Gate ``retriever`` (a spec, a function ``fn(query, n)`` or a framework object) against the
    baseline file question by question, stopping as soon as the verdict is certain (see the module
    docstring). ``meta["sequential"]`` says how many questions were asked and retriever calls made.
    A golden set or contract that is not the baseline's fails the gate as ``gate`` fails it (one failed
    outcome, ``gating.check.golden_changed`` / ``contract_changed``: exit 1, not a refusal); critical
    questions are asked first."""
    from ragauge.comparison.sequential import ask
    from ragauge.data.golden import GoldenSet
    from ragauge.evaluation.options import EvalOptions
    from ragauge.formats.golden import as_golden
    from ragauge.gating.baseline import read_baseline
    from ragauge.gating.check import contract_changed, golden_changed
    from ragauge.gating.run import _rules
    from ragauge.runner.live import call_options, executor_options, open_any
    found = read_baseline(Path(baseline))
    if found.auto_labels is not None:
        raise InputError("a sequential gate decides on human labels only, and this baseline was measured with "
                         f"automatic labels ({found.auto_labels['assessor']})", where=str(found.path),
                         hint="gate the run without --sequential, with the labels the baseline was measured with")
    rules = _rules(rules, found)
    if not rules.tests:
        raise InputError('a sequential gate needs tested rules: fail_if = "significant", "drop_and_significant" '
                         'or "not_shown_no_worse" (the plain "drop" rule tests nothing)')
    if rules.tag_floors:
        raise InputError("a sequential gate cannot check tag floors (each needs every question of its tag)",
                         hint="gate without --sequential, or move the floors to another gate")
    gold = as_golden(golden)
    def meta(retriever: Any, **sequential: Any) -> dict[str, Any]:
        return {"baseline": str(found.path), "baseline_created": found.data.get("created"),
                "baseline_reason": found.data.get("reason"), "rules": rules.to_dict(), "rules_source": rules.source,
                "retriever": retriever, "method": METHOD, "warnings": [], "sequential": {"seed": seed, **sequential}}

    changed_golden = golden_changed(gold.content_hash, found)
    if changed_golden is not None:  # fails as gate fails it, before any question is asked
        return GateResult([changed_golden], meta(None, asked=0, available=0, calls=0))
    stored = found.queries
    metrics = list(rules.metrics)
    refuse_counts(metrics, "a sequential gate")
    missing = [m for m in metrics if m not in found.metrics]
    if missing:
        raise InputError(f"{', '.join(missing)} not in the baseline", hint="re-baseline with the gated metrics")
    depth = fetch if fetch is not None else found.contract.get("fetch")
    scoring = EvalOptions(metrics=metrics, fetch=depth)
    questions = [q for q in gold if q.answerable and all(m in stored.get(q.id, {}) for m in metrics)]
    if len(questions) < 2:
        raise InputError("the baseline holds per-question values for fewer than 2 answerable questions",
                         hint="re-baseline: ragauge baseline update ...")
    tested = [questions[i] for i in np.random.default_rng(seed).permutation(len(questions))]
    critical = set(rules.critical)
    # critical questions are asked first, but the tests read the questions in the random order only (a
    # hand-picked start would break their validity): each reads the longest asked prefix of it
    order = [q for q in tested if q.id in critical] + [q for q in tested if q.id not in critical]
    first = sum(q.id in critical for q in order)  # every critical question is asked before any stop
    drop_rules = [m for m in metrics if rules.fail_if != "not_shown_no_worse"]
    level = rules.alpha / max(1, len(drop_rules))
    adapter, opened = open_any(retriever, call_options(doc_id_key, timeout, config))
    executor = executor_options(depth, concurrency, retries)  # None: ExecutorOptions' defaults
    diffs: dict[str, dict[str, float]] = {m: {} for m in metrics}
    decided: dict[str, tuple[bool, int]] = {}  # metric -> (passed, at question)
    evaluations = []
    asked = calls = 0
    try:
        size = batch or executor.concurrency
        for start in range(0, len(order), size):
            part = GoldenSet.from_queries(order[start:start + size])
            scored = ask(part, adapter, executor, scoring)
            calls += len(part)
            evaluations.append(scored)
            changed_contract = contract_changed(scored.meta["contract"], found) if found.contract else None
            if changed_contract is not None:  # fails as gate fails it, after the batch that said so
                return GateResult([changed_contract], meta(adapter.describe(), asked=asked + len(part),
                                                            available=len(questions), calls=calls))
            values = {m: dict(zip(scored.row_ids, scored.column(m).tolist())) for m in metrics}
            for q in part:
                for m in metrics:
                    diffs[m][q.id] = values[m][q.id] - stored[q.id][m]
            asked += len(part)
            ready = next((i for i, q in enumerate(tested) if q.id not in diffs[metrics[0]]), len(tested))
            for m in metrics:
                if m in decided:
                    continue
                verdict = decide(np.array([diffs[m][q.id] for q in tested[:ready]]), rules.fail_if,
                                 rules.metrics[m], rules.alpha, level)
                if verdict is not None:
                    decided[m] = verdict
            if asked >= first and (any(not ok for ok, _ in decided.values()) or (
                    rules.fail_if == "not_shown_no_worse" and len(decided) == len(metrics))):
                break
        described = adapter.describe()
    finally:
        if opened:
            adapter.close()
    outcomes = []
    for m in metrics:
        d = np.array([diffs[m][q.id] for q in tested if q.id in diffs[m]])
        rule = f"{m}: " + {"significant": "no drop shown", "drop_and_significant": "no drop beyond "
                           f"{rules.metrics[m]:.4f} shown", "not_shown_no_worse": "shown no worse than "
                           f"-{rules.metrics[m]:.4f}"}[rules.fail_if] + " (sequential)"
        if m in decided:
            ok, at = decided[m]
            said = (f"shown no worse after {at} question(s)" if ok else
                    f"a drop shown after {at} question(s) (mean {float(d[:at].mean()):+.4f})")
        else:
            ok = rules.fail_if != "not_shown_no_worse"
            span = (f"all {len(d)} question(s)" if asked == len(questions) else
                    f"the {len(d)} question(s) asked before the gate stopped")
            said = (f"no drop shown in {span} (mean {float(d.mean()):+.4f})" if ok else
                    f"not shown no worse in {span} (mean {float(d.mean()):+.4f})")
        outcomes.append(RuleOutcome("metric", rule, ok, said))
    for qid in rules.critical:  # asked first: its evaluation is one of the batches'
        holder = next((e for e in evaluations if qid in e.positions), evaluations[0])
        outcomes.append(critical_rule(qid, rules.critical_k, holder))
    return GateResult(outcomes, meta(described, asked=asked, available=len(questions), calls=calls,
                                     alpha_per_drop_rule=level))

