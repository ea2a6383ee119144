"""What an evaluation logs: the retriever and the contract as parameters, the means (overall, per
tag, per source) and the counts as metrics, the HTML report and the result JSON as artifacts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ragauge.tracking.names import key
from ragauge.tracking.record import Artifact, Record, description, metrics, params, run_name, tags, text_of

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation


def source_params(meta: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> dict[str, str]:
    """What was measured, from a result's ``meta`` (or one side of a comparison's): ``retriever``
    (the spec or description its run file recorded, else the run's path), the rest of the run's own
    metadata as ``retriever.*`` (settings, fingerprint, versions), ``run.path`` / ``run.hash`` /
    ``run.format`` and ``golden.path`` / ``golden.hash`` / ``golden.questions``."""
    run = meta.get("run") or {}
    own = run.get("meta") or {}
    found = {key(*prefix, "retriever"): text_of(own.get("retriever") or run.get("path") or "")}
    found.update(params((*prefix, "retriever"), {k: v for k, v in own.items() if k != "retriever"}))
    found.update(params((*prefix, "run"), {k: v for k, v in run.items() if k != "meta"}))
    found.update(params((*prefix, "golden"), meta.get("golden") or {}))
    return found


def evaluation_metrics(result: Evaluation) -> dict[str, float]:
    """The evaluation's numbers as metrics: each mean (``hit_at_5``), per tag (``tag.billing.hit_at_5``,
    ``tag.billing.n``) and per source (``source.synthetic.hit_at_5``), ``judged_at_K``, the counts
    (``counts.answerable``, ...), latency (``latency_ms.p50``, ...), cost, index drift
    (``drift.share``, ...) and the misses by failure pattern (``failures.misses``,
    ``failures.pattern.vocabulary-gap``, ...)."""
    meta = result.meta
    found = metrics((), result.summary)
    for tag, means in result.by_tag.items():
        found.update(metrics(("tag", tag), means))
    for source, means in result.by_source.items():
        found.update(metrics(("source", source), means))
    judged = meta.get("judged") or {}
    if "k" in judged:
        found.update(metrics((), {f"judged@{judged['k']}": judged.get("mean")}))
    for section in ("counts", "latency_ms", "cost", "drift"):
        found.update(metrics((section,), meta.get(section) or {}, specs=False))
    table = result.failure_table
    if table is not None:
        failures = table.to_dict()
        found.update(metrics(("failures",), {k: failures.get(k) for k in ("misses", "ceiling")}, specs=False))
        found.update(metrics(("failures", "pattern"), {row["pattern"]: row["count"] for row in failures["rows"]},
                             specs=False))
    return found


def evaluation_params(result: Evaluation) -> dict[str, str]:
    """The parameters of an evaluation: :func:`source_params`, the contract (``contract.k``,
    ``contract.fetch``, ``contract.unjudged``, ``contract.doc_id``, ...), how synthetic questions
    were counted (``synthetic.*``) and ``ragauge_version``."""
    meta = result.meta
    found = source_params(meta)
    found.update(params(("contract",), meta.get("contract") or {}))
    found.update(params(("synthetic",), meta.get("synthetic") or {}))
    found.update(params(("ragauge_version",), meta.get("ragauge_version", "")))
    return found


def evaluation_artifacts(result: Evaluation) -> tuple[Artifact, ...]:
    """``report.html`` (the report ``ragauge eval --format html`` writes) and ``result.json`` (what
    ``--format json`` writes, which ``ragauge report`` and ``ragauge.read_result`` read back)."""
    from ragauge.reports.render import render_parts

    return (Artifact("report.html", lambda: render_parts(result, "html")),
            Artifact("result.json", lambda: render_parts(result, "json")))


def evaluation_record(result: Evaluation, name: str | None = None) -> Record:
    """The run of an evaluation, named ``name`` or after its run file or retriever spec; its
    warnings are the run's description."""
    run = result.meta.get("run") or {}
    return Record("evaluation", run_name(name or run.get("path")), evaluation_params(result),
                  evaluation_metrics(result), {**tags("evaluation"), **description("\n".join(result.warnings))},
                  evaluation_artifacts(result))
