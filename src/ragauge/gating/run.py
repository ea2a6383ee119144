"""The gate and baseline operations end to end: evaluate under the baseline's rules, then check."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ragauge.data.golden import GoldenSet
from ragauge.data.run import Run
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.options import EvalOptions
from ragauge.evaluation.result import Evaluation
from ragauge.gating.baseline import Baseline, read_baseline, update_baseline
from ragauge.gating.check import GateResult, check_gate
from ragauge.gating.config import GateRules


def _evaluate(golden: GoldenSet, run: Run, rules: GateRules, extra: list[str], options: EvalOptions) -> Evaluation:
    metrics = list(dict.fromkeys([*rules.needed_metrics, *extra]))
    return score_run(golden, run, replace(options, metrics=metrics))


def run_gate(golden: GoldenSet, run: Run, baseline_path: Path, rules: GateRules,
             options: EvalOptions = EvalOptions()) -> GateResult:
    """Evaluate ``run`` on the gated metrics (and the baseline's) and check it against the baseline."""
    baseline: Baseline = read_baseline(baseline_path)
    evaluation = _evaluate(golden, run, rules, list(baseline.metrics), options)
    return check_gate(evaluation, baseline, rules)


def run_baseline_update(golden: GoldenSet, run: Run, baseline_path: Path, rules: GateRules, *, reason: str | None,
                        accept_drop: bool = False, options: EvalOptions = EvalOptions()) -> dict[str, Any]:
    """Evaluate ``run`` on the gated metrics and store it as the new baseline (see update_baseline)."""
    from ragauge.errors import InputError

    if not reason or not reason.strip():  # refuse before spending time on the evaluation
        raise InputError("a baseline update needs a reason", hint='add --reason "why these numbers are the new bar"')
    evaluation = _evaluate(golden, run, rules, [], options)
    return update_baseline(baseline_path, evaluation, rules, reason=reason, accept_drop=accept_drop)
