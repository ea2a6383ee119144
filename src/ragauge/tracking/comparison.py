"""What a comparison logs: both sides and the contract as parameters, each metric's means, difference,
interval and tests (overall and per tag) as metrics, the report and the JSON as artifacts; and a
sequential comparison's decision."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragauge.tracking.evaluation import source_params
from ragauge.tracking.names import key
from ragauge.tracking.record import Artifact, Record, description, metrics, params, run_name, tags

if TYPE_CHECKING:
    from ragauge.comparison.result import Comparison, MetricDelta
    from ragauge.comparison.sequential import SequentialComparison

SETTINGS = ("alpha", "confidence", "power", "correction", "method")
"""The comparison's own settings, logged as parameters of those names."""


def delta_metrics(prefix: tuple[str, ...], metric: str, d: MetricDelta) -> dict[str, float]:
    """One metric's paired test as metrics under ``prefix``: ``base.M``, ``new.M``, ``diff.M``,
    ``ci_low.M``, ``ci_high.M``, ``p_value.M``, ``p_adjusted.M``, ``better.M``, ``worse.M``,
    ``tied.M``, ``n.M`` and ``mde.M`` (when the questions could detect anything)."""
    fields = {"base": d.base, "new": d.new, "diff": d.diff, "ci_low": d.ci[0], "ci_high": d.ci[1],
              "p_value": d.p_value, "p_adjusted": d.p_adjusted, "better": d.better, "worse": d.worse,
              "tied": d.tied, "n": d.n, "mde": d.mde}
    found: dict[str, float] = {}
    for name, number in fields.items():
        found.update(metrics((*prefix, name), {metric: number}))
    return found


def comparison_record(result: Comparison, name: str | None = None) -> Record:
    """The run of a comparison (new against base), named ``name`` or ``BASE vs NEW`` after the two
    runs; each metric's verdict is a tag (``ragauge.verdict.hit_at_5``)."""
    meta = result.meta
    found = {**source_params(meta.get("base") or {}, ("base",)), **source_params(meta.get("new") or {}, ("new",))}
    found.update(params(("contract",), meta.get("contract") or {}))
    found.update(params((), {k: meta[k] for k in SETTINGS if k in meta}))
    numbers = metrics((), {k: meta[k] for k in ("paired_questions",) if k in meta}, specs=False)
    for metric, d in result.metrics.items():
        numbers.update(delta_metrics((), metric, d))
    for tag, deltas in result.by_tag.items():
        for metric, d in deltas.items():
            numbers.update(delta_metrics(("tag", tag), metric, d))
    for section, logged in (("latency", "latency_ms"), ("cost", "cost")):
        for side in ("base", "new"):
            numbers.update(metrics((logged, side), _mapping(getattr(result, section).get(side)), specs=False))
    verdicts = {key("verdict", metric=metric): d.verdict for metric, d in result.metrics.items()}
    return Record("comparison", run_name(name or _versus(meta)), found, numbers,
                  {**tags("comparison", **verdicts), **description("\n".join(result.notes))},
                  _artifacts(result, "comparison", "html"))


def sequential_record(result: SequentialComparison, name: str | None = None) -> Record:
    """The run of a sequential comparison: its settings and both retrievers as parameters; the
    difference on its metric, the interval, the questions asked and the calls made as metrics;
    the decision and the verdict as tags."""
    d = result.to_dict()
    found = params((), {k: d[k] for k in ("metric", "method", "alpha", "seed")})
    found.update(params(("base",), {"retriever": d["base"]} if not isinstance(d["base"], Mapping) else d["base"]))
    found.update(params(("new",), {"retriever": d["new"]} if not isinstance(d["new"], Mapping) else d["new"]))
    numbers = metrics((), {k: d[k] for k in ("available", "asked", "calls")}, specs=False)
    numbers.update(metrics(("diff",), {result.metric: d["diff"]}))
    numbers.update(metrics(("ci_low",), {result.metric: d["ci"][0]}))
    numbers.update(metrics(("ci_high",), {result.metric: d["ci"][1]}))
    decided = {"decided": str(d["decided"])} if d["decided"] is not None else {}
    return Record("sequential", run_name(name or f"{result.metric} sequential"), found, numbers,
                  {**tags("sequential", verdict=result.verdict, **decided), **description("\n".join(result.notes))},
                  _artifacts(result, "sequential", "markdown"))


def _artifacts(result: Any, kind: str, page: str) -> tuple[Artifact, ...]:
    """The result's ``page`` report (html or markdown) and its JSON, named after ``kind``."""
    from ragauge.reports.registry import render

    suffix = {"html": "html", "markdown": "md"}[page]
    return (Artifact(f"{kind}.{suffix}", lambda: [render(kind, result, page)]),
            Artifact(f"{kind}.json", lambda: [render(kind, result, "json")]))


def _mapping(item: Any) -> Mapping[str, Any]:
    return item if isinstance(item, Mapping) else {}


def _versus(meta: Mapping[str, Any]) -> str:
    def side(name: str) -> str:
        run = (meta.get(name) or {}).get("run") or {}
        return str(run.get("path") or name)

    return f"{side('base')} vs {side('new')}"
