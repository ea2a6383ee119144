"""The gate and baseline operations end to end: evaluate under the rules, then check or store."""

from __future__ import annotations

from collections.abc import Mapping, Set
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragauge.core.notes import LOUD
from ragauge.errors import InputError, flag
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.options import EvalOptions
from ragauge.evaluation.result import Evaluation
from ragauge.formats.autolabels import AutoLabels
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import scored_run
from ragauge.gating.baseline import Baseline, read_baseline, write_baseline
from ragauge.gating.check import GateResult, RuleOutcome, check_gate
from ragauge.gating.config import GateRules, load_rules
from ragauge.gating.predicted import check_labels, check_measured
from ragauge.metrics.judged import Unjudged


def _rules(rules: GateRules | str | Path | None, baseline: Baseline | None) -> GateRules:
    """Rules as given, read from a ragauge.toml / pyproject.toml path, or for None the rules the
    baseline recorded (the defaults when there is no baseline yet, or it recorded none)."""
    if rules is None:
        return (baseline.rules if baseline is not None else None) or GateRules()
    return rules if isinstance(rules, GateRules) else load_rules(Path(rules))


def _labels(auto_labels: str | Path | AutoLabels | None) -> AutoLabels | None:
    if auto_labels is None or isinstance(auto_labels, AutoLabels):
        return auto_labels
    from ragauge.formats.autolabels import read_auto_labels

    return read_auto_labels(auto_labels)


def _evaluate(golden: Any, run: Any, rules: GateRules, extra: list[str], options: EvalOptions,
              labels: AutoLabels | None) -> Evaluation:
    """The run scored on the gated metrics and ``extra``; beside ``labels``, as a prediction-powered
    evaluation of a golden set that may leave questions unlabelled (``predicted.evaluate``)."""
    options = replace(options, metrics=list(dict.fromkeys([*rules.needed_metrics, *extra])))
    if labels is None:
        return score_run(as_golden(golden), scored_run(run), options)
    from ragauge.predicted.evaluate import score_predicted

    return score_predicted(as_golden(golden, unlabelled=True), scored_run(run), options, labels)


def gate(golden: Any, run: Any, baseline: str | Path, *, rules: GateRules | str | Path | None = None,
         fetch: int | None = None, doc_id_sep: str | None = None, doc_id_pattern: str | None = None,
         unjudged: Unjudged = "non-relevant", corpus: str | Path | None = None,
         tokenizer: str | None = None, grades: str | Mapping[float, float] | None = None,
         auto_labels: str | Path | AutoLabels | None = None, known_documents: Set[str] | None = None) -> GateResult:
    """Evaluate ``run`` (a run file, a large one read in blocks in bounded memory as ``evaluate_run``
    reads it; a Run or ``{qid: [doc]}`` data) against ``golden`` on the gated
    metrics and the baseline's, and check it against the baseline file under ``rules`` (GateRules,
    a config file path, or None for the defaults: a 0.02 drop of hit@5, recall@5, mrr, ndcg@5).
    ``result.passed`` says whether every rule held; nothing is raised for a failed rule. ``unjudged``
    is part of the contract: a baseline measured under another rule fails the gate. ``corpus``,
    ``tokenizer`` and ``known_documents`` are those of ``evaluate_run`` (span labels, tokenizer-counted
    budgets, stale labels: a label that leaves the index changes the labels of the contract).

    With ``auto_labels`` (a ``golden assess`` output; the baseline measured with the same labels) the
    golden set may leave questions unlabelled and the metric rules decide on the prediction-powered
    difference (``gating.predicted``); refused (InputError) without any human label, and for labels
    that are not the baseline's (other labels, or labels on one side only)."""
    found: Baseline = read_baseline(Path(baseline))
    labels = _labels(auto_labels)
    check_labels(found, labels)  # before scoring: refused labels cost nothing
    rules = _rules(rules, found)
    stored = found.rules
    options = EvalOptions(fetch=fetch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                          corpus=corpus, tokenizer=tokenizer, grades=grades, known_documents=known_documents)
    evaluation = _evaluate(golden, run, rules, list(found.metrics), options, labels)
    result = check_gate(evaluation, found, rules)
    loosened = rules.loosened_from(stored) if stored is not None else []
    if loosened:  # looser rules are a baseline change: reviewed, with a reason and a history line
        refused = RuleOutcome("rules", "the rules are the baseline's, or stricter", False,
                              f"these rules are looser than the ones recorded in the baseline ({'; '.join(loosened)}); "
                              "loosening the gate is a baseline change: ragauge baseline update GOLDEN --run RUN "
                              "--baseline PATH --config RULES --reason '...' --accept-drop")
        return GateResult([refused, *result.outcomes], result.meta)
    if stored is not None and stored.to_dict() != rules.to_dict():
        result.meta["warnings"].append(f"{LOUD}the rules differ from (and are stricter than) the ones recorded in "
                                       "the baseline")
    return result


def update_baseline(golden: Any, run: Any, baseline: str | Path, *, reason: str | None,
                    accept_drop: bool = False, rules: GateRules | str | Path | None = None,
                    fetch: int | None = None, doc_id_sep: str | None = None,
                    doc_id_pattern: str | None = None, unjudged: Unjudged = "non-relevant",
                    corpus: str | Path | None = None, tokenizer: str | None = None,
                    grades: str | Mapping[float, float] | None = None,
                    auto_labels: str | Path | AutoLabels | None = None,
                    known_documents: Set[str] | None = None) -> dict[str, Any]:
    """Evaluate ``run`` on the gated metrics (scored as ``gate`` scores it) and store it as the new
    baseline, with its history line.

    Refused (InputError) without a non-empty ``reason``, and, unless ``accept_drop``, when any
    metric is worse than in the current baseline or has left the gated set (the accepted drops are
    recorded). With ``auto_labels`` the run is scored beside them (``predicted.evaluate``) and the
    record holds which labels and every question's automatic values (``baseline.make_record``);
    refused without any human label. Returns the record written."""
    if not reason or not reason.strip():  # refuse before spending time on the evaluation
        raise InputError("a baseline update needs a reason",
                         hint="add " + flag("reason", '"why these numbers are the new bar"'))
    path = Path(baseline)
    previous = read_baseline(path) if path.exists() else None  # read once: its rules, then its values
    rules = _rules(rules, previous)
    options = EvalOptions(fetch=fetch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                          corpus=corpus, tokenizer=tokenizer, grades=grades, known_documents=known_documents)
    evaluation = _evaluate(golden, run, rules, [], options, _labels(auto_labels))
    check_measured(evaluation, "a baseline")
    return write_baseline(path, evaluation, rules, reason=reason, previous=previous, accept_drop=accept_drop)
