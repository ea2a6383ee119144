"""The record of any result a tracker logs: one builder per result kind (the kinds of
``reports.registry``), the one table ``record`` reads."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import Any

from ragauge.errors import InputError
from ragauge.tracking.record import Record

BUILDERS: dict[str, str] = {
    "evaluation": "ragauge.tracking.evaluation:evaluation_record",
    "comparison": "ragauge.tracking.comparison:comparison_record",
    "sequential": "ragauge.tracking.comparison:sequential_record",
    "sweep": "ragauge.tracking.sweep:sweep_record",
}
"""Result kind -> ``module:function`` building its record from the result and a run name."""


def record(result: Any, name: str | None = None, *, folder: str | Path | None = None, golden: Any = None) -> Record:
    """The record of ``result`` (an Evaluation, Comparison, SequentialComparison or SweepResult),
    its top run named ``name`` (None: after what was measured). ``folder`` and ``golden`` are a
    sweep's (``tracking.sweep.sweep_record``); InputError when given for another kind, or for a
    result of a kind no tracker logs."""
    from ragauge.reports.registry import kind_of

    kind = kind_of(result)
    if kind not in BUILDERS:
        raise InputError(f"a {type(result).__name__} is not logged to a tracker",
                         hint="log an Evaluation, a Comparison, a SequentialComparison or a SweepResult")
    module, _, function = BUILDERS[kind].partition(":")
    build = getattr(import_module(module), function)
    if kind == "sweep":
        found: Record = build(result, name, folder=folder, golden=golden)
        return found
    if folder is not None or golden is not None:
        raise InputError("folder and golden go with a sweep result",
                         hint="an evaluation or comparison is logged as it is")
    found = build(result, name)
    return found
