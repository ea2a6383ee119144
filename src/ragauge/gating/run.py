"""The gate and baseline operations end to end: evaluate under the rules, then check or store."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ragauge.data.golden import GoldenSet
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.options import EvalOptions
from ragauge.evaluation.result import Evaluation
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import RunStream, scored_run
from ragauge.gating.baseline import Baseline, read_baseline, write_baseline
from ragauge.gating.check import GateResult, check_gate
from ragauge.gating.config import GateRules, load_rules
from ragauge.metrics.judged import Unjudged


def _rules(rules: GateRules | str | Path | None) -> GateRules:
    """Rules as given, read from a ragauge.toml / pyproject.toml path, or the defaults for None."""
    return rules if isinstance(rules, GateRules) else load_rules(None if rules is None else Path(rules))


def _evaluate(golden: GoldenSet, run: Run | RunStream, rules: GateRules, extra: list[str],
              options: EvalOptions) -> Evaluation:
    metrics = list(dict.fromkeys([*rules.needed_metrics, *extra]))
    return score_run(golden, run, replace(options, metrics=metrics))


def gate(golden: Any, run: Any, baseline: str | Path, *, rules: GateRules | str | Path | None = None,
         fetch: int | None = None, doc_id_sep: str | None = None, doc_id_pattern: str | None = None,
         unjudged: Unjudged = "non-relevant", corpus: str | Path | None = None,
         tokenizer: str | None = None) -> GateResult:
    """Evaluate ``run`` (a run file, a large one read in blocks in bounded memory as ``evaluate_run``
    reads it; a Run or ``{qid: [doc]}`` data) against ``golden`` on the gated
    metrics and the baseline's, and check it against the baseline file under ``rules`` (GateRules,
    a config file path, or None for the defaults: a 0.02 drop of hit@5, recall@5, mrr, ndcg@5).
    ``result.passed`` says whether every rule held; nothing is raised for a failed rule. ``unjudged``
    is part of the contract: a baseline measured under another rule fails the gate. ``corpus`` and
    ``tokenizer`` are those of ``evaluate_run`` (span labels, tokenizer-counted budgets)."""
    rules = _rules(rules)
    found: Baseline = read_baseline(Path(baseline))
    options = EvalOptions(fetch=fetch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                          corpus=corpus, tokenizer=tokenizer)
    evaluation = _evaluate(as_golden(golden), scored_run(run), rules, list(found.metrics), options)
    return check_gate(evaluation, found, rules)


def update_baseline(golden: Any, run: Any, baseline: str | Path, *, reason: str | None,
                    accept_drop: bool = False, rules: GateRules | str | Path | None = None,
                    fetch: int | None = None, doc_id_sep: str | None = None,
                    doc_id_pattern: str | None = None, unjudged: Unjudged = "non-relevant",
                    corpus: str | Path | None = None, tokenizer: str | None = None) -> dict[str, Any]:
    """Evaluate ``run`` on the gated metrics and store it as the new baseline, with its history line.

    Refused (InputError) without a non-empty ``reason``, and, unless ``accept_drop``, when any
    metric is lower than in the current baseline or has left the gated set (the accepted drops are
    recorded). Returns the record written."""
    if not reason or not reason.strip():  # refuse before spending time on the evaluation
        raise InputError("a baseline update needs a reason", hint='add --reason "why these numbers are the new bar"')
    rules = _rules(rules)
    options = EvalOptions(fetch=fetch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                          corpus=corpus, tokenizer=tokenizer)
    evaluation = _evaluate(as_golden(golden), scored_run(run), rules, [], options)
    return write_baseline(Path(baseline), evaluation, rules, reason=reason, accept_drop=accept_drop)
