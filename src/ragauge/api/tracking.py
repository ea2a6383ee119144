"""``log_mlflow``: an evaluation, a comparison or a sweep as MLflow runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["log_mlflow"]


def log_mlflow(result: Any, *, experiment: str | None = None, run_name: str | None = None,
               tracking_uri: str | None = None, folder: str | Path | None = None, golden: Any = None) -> str:
    """Log ``result`` to MLflow and return the id of the run it made.

    ``result`` is an ``Evaluation``, a ``Comparison``, a ``SequentialComparison`` or a
    ``SweepResult`` (a sweep is a parent run with one nested run per configuration). Each run holds
    parameters (the retriever spec and its recorded settings, the run and golden-set paths and
    hashes, the contract: ``contract.k``, ``contract.fetch``, ``contract.unjudged``,
    ``contract.doc_id``, ...), metrics (the means, overall and per tag: ``hit_at_5``,
    ``tag.billing.hit_at_5``; a comparison's ``diff.hit_at_5``, ``p_adjusted.hit_at_5``, ...) and
    artifacts (the HTML report and the JSON result). Metric names map ``@`` to ``_at_`` and other
    characters MLflow refuses to ``_`` plus a short hash (``ragauge.tracking.names``); every
    parameter and tag is redacted (``ragauge.redact``).

    ``tracking_uri`` defaults to the one MLflow uses (``MLFLOW_TRACKING_URI``, else MLflow's default
    store); ``experiment`` (created when missing) to ``MLFLOW_EXPERIMENT_NAME`` /
    ``MLFLOW_EXPERIMENT_ID``, else MLflow's default experiment; ``run_name`` to what was measured
    (the run file or spec, ``BASE vs NEW``, ``sweep GOLDEN``). For a sweep, ``folder`` (its output
    folder, which holds its runs) scores each configuration's run again over ``golden`` (default:
    the golden set the sweep recorded) to log its per-tag means and its reports too.

    MissingExtra without MLflow (``pip install 'ragauge[mlflow]'``); InputError for a result of
    another kind, or when MLflow refuses (the message redacted).
    """
    from ragauge.tracking.build import record
    from ragauge.tracking.mlflow import write

    return write(record(result, run_name, folder=folder, golden=golden), experiment=experiment,
                 tracking_uri=tracking_uri)
