"""What a sweep logs: a parent run for the sweep (its settings, the selection, the holdout check,
the page and ``sweep.json``) and one child run per configuration (its spec and options, its means and
its tests against the reference, latency and index cost; with the sweep's folder, also its
evaluation: per-tag means, counts, the eval report and the result JSON)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.tracking.comparison import delta_metrics
from ragauge.tracking.evaluation import evaluation_artifacts, evaluation_metrics, evaluation_params
from ragauge.tracking.record import Artifact, Record, description, metrics, params, run_name, tags

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.experiments.result import ConfigRow, SweepResult


def shared_params(result: SweepResult) -> dict[str, str]:
    """What every run of the sweep shares: ``golden.*``, ``corpus.*``, ``contract.*``, ``fetch``,
    ``concurrency``, ``tokenizer``, ``metrics``, ``primary``, ``reference`` and ``alpha``."""
    meta = result.meta
    found = params(("golden",), meta.get("golden") or {})
    found.update(params(("corpus",), meta.get("corpus") or {}))
    found.update(params(("contract",), meta.get("contract") or {}))
    found.update(params((), {k: meta[k] for k in ("fetch", "concurrency", "tokenizer") if k in meta}))
    found.update(params((), {"metrics": list(result.metrics), "primary": result.primary,
                             "reference": result.reference, "alpha": result.alpha}))
    return found


def sweep_record(result: SweepResult, name: str | None = None, *, folder: str | Path | None = None,
                 golden: Any = None) -> Record:
    """The parent run of a sweep and, as its children, one run per configuration
    (:func:`configuration_record`). With ``folder`` (the sweep's output folder, which holds its runs)
    each configuration's run is scored again over ``golden`` (default: the golden set the sweep
    recorded) for its per-tag means and its reports; without it a child holds the sweep's row."""
    found = shared_params(result)
    numbers = metrics(("questions",), result.meta.get("questions") or {}, specs=False)
    numbers.update(metrics(("seconds",), result.meta.get("seconds") or {}, specs=False))
    numbers.update(metrics((), {"configurations": len(result.rows)}, specs=False))
    more = {"best": result.selection.best}
    if result.selection.winner is not None:
        more["winner"] = result.selection.winner
    held = result.holdout
    if held is not None:
        found.update(params(("holdout",), {"rule": held.rule, "chosen": held.chosen}))
        numbers.update(metrics(("holdout",), {"tune": held.tune, "held_out": held.held_out}, specs=False))
        numbers.update(metrics(("holdout",), held.means))
        numbers.update(metrics(("holdout", "tuned"), held.tuned))
        numbers.update(metrics(("holdout", "reference"), held.reference_means))
        for metric, d in held.deltas.items():
            numbers.update(delta_metrics(("holdout",), metric, d))
        more["chosen"] = held.chosen
    if result.halving is not None:
        h = result.halving
        found.update(params(("halving",), {"budget": h.budget, "factor": h.factor}))
        numbers.update(metrics(("halving",), {"retrievals": h.retrievals, "full": h.full, "confirmed": h.confirmed},
                               specs=False))
    note = "\n".join([result.selection.statement, *result.notes])
    return Record("sweep", run_name(name or f"sweep {Path(str(_golden_path(result) or 'golden')).name}"), found,
                  numbers, {**tags("sweep", **more), **description(note)}, _sweep_artifacts(result),
                  partial(_children, result, folder, golden))


def configuration_record(result: SweepResult, row: ConfigRow, evaluation: Evaluation | None = None) -> Record:
    """One configuration's run: ``configuration`` (its name), ``retriever`` (its spec),
    ``retriever.kind``, ``options.*``, ``run.path`` (in the sweep's folder), ``is_reference`` and
    the sweep's shared parameters; its means (``ndcg_at_10``), its paired test against the reference
    (``diff.ndcg_at_10``, ``p_adjusted.ndcg_at_10``, ... as a comparison logs them; none for the
    reference itself), ``latency_ms.p50`` / ``p95``, ``index_seconds``, ``index_bytes``, ``errors``,
    ``pareto`` (1 on the frontier), ``ceiling.*``, ``rerank_ms.*`` and, for a configuration successive
    halving dropped, ``dropped`` (the round) and ``sample``. With ``evaluation`` (its run scored
    again) also what an evaluation logs, its means on the sweep's questions staying the row's."""
    found = evaluation_params(evaluation) if evaluation is not None else {}
    found.update(shared_params(result))
    found.update(params((), {"configuration": row.name, "retriever": row.spec, "retriever.kind": row.retriever,
                             "is_reference": row.name == result.reference}))
    found.update(params(("options",), row.options))
    found.update(params(("run",), {"path": row.run}))
    numbers = evaluation_metrics(evaluation) if evaluation is not None else {}
    numbers.update(metrics((), row.means))
    for metric, d in row.deltas.items():
        numbers.update(delta_metrics((), metric, d))
    numbers.update(metrics(("latency_ms",), row.latency_ms or {}, specs=False))
    numbers.update(metrics((), {"index_seconds": row.index_seconds, "index_bytes": row.index_bytes,
                                "errors": row.errors, "pareto": row.pareto, "dropped": row.dropped,
                                "sample": row.sample}, specs=False))
    numbers.update(metrics(("ceiling",), row.ceiling or {}))
    numbers.update(metrics(("rerank_ms",), row.rerank_ms or {}, specs=False))
    more = {"sweep_reference": result.reference}
    if result.selection.winner == row.name:
        more["winner"] = "true"
    artifacts = evaluation_artifacts(evaluation) if evaluation is not None else ()
    return Record("configuration", run_name(row.name), found, numbers, tags("configuration", **more), artifacts)


def _children(result: SweepResult, folder: str | Path | None, golden: Any) -> Iterator[Record]:
    if folder is None:
        for row in result.rows:
            yield configuration_record(result, row)
        return
    from ragauge.experiments.drilldown import configuration_evaluations

    for row, evaluation in configuration_evaluations(result, golden if golden is not None else _golden_path(result),
                                                     folder):
        yield configuration_record(result, row, evaluation)


def _golden_path(result: SweepResult) -> Any:
    return (result.meta.get("golden") or {}).get("path")


def _sweep_artifacts(result: SweepResult) -> tuple[Artifact, ...]:
    """The sweep's page (as ``ragauge sweep --format html`` renders it, without the links to each
    configuration's report, which are the child runs' own) and ``sweep.json``."""
    from ragauge.reports.registry import render

    return (Artifact("sweep.html", lambda: [render("sweep", result, "html")]),
            Artifact("sweep.json", lambda: [render("sweep", result, "json")]))
