"""Writing a record to MLflow: one run per record, child records nested under their parent.

The tracking URI is the one given, else the one the user's MLflow already uses
(``MLFLOW_TRACKING_URI``, or MLflow's default store); the experiment the one named, else
``MLFLOW_EXPERIMENT_NAME`` / ``MLFLOW_EXPERIMENT_ID``, else MLflow's default experiment. It goes
through an ``MlflowClient`` of its own, so no active run or global tracking URI of the caller's
MLflow is changed. MLflow's errors become InputError with the tracking URI's password redacted.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError, MissingExtra
from ragauge.redact import redact, url_secrets
from ragauge.tracking.record import Record

if TYPE_CHECKING:
    from mlflow.tracking import MlflowClient

PARENT_TAG = "mlflow.parentRunId"
"""The tag MLflow nests a run under its parent by."""
PARAMS_PER_BATCH = 100
METRICS_PER_BATCH = 1000


def client(tracking_uri: str | None = None) -> MlflowClient:
    """An MLflow client for ``tracking_uri`` (None: MLflow's own choice); MissingExtra without MLflow."""
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise MissingExtra("mlflow", "mlflow", "logging to MLflow") from None
    with _errors(tracking_uri):
        return MlflowClient(tracking_uri=tracking_uri)


def write(record: Record, *, experiment: str | None = None, tracking_uri: str | None = None) -> str:
    """Log ``record`` (and its children, nested) as MLflow runs; the top run's id."""
    mlflow = client(tracking_uri)
    with _errors(tracking_uri):
        return _write(mlflow, experiment_id(mlflow, experiment), record, None)


def experiment_id(mlflow: MlflowClient, name: str | None) -> str:
    """The id of experiment ``name`` (created when there is none), else of the experiment
    ``MLFLOW_EXPERIMENT_NAME`` or ``MLFLOW_EXPERIMENT_ID`` names, else MLflow's default ("0")."""
    name = name or os.environ.get("MLFLOW_EXPERIMENT_NAME")
    if not name:
        return os.environ.get("MLFLOW_EXPERIMENT_ID") or "0"
    found = mlflow.get_experiment_by_name(name)
    if found is None:
        made: str = mlflow.create_experiment(name)
        return made
    if found.lifecycle_stage == "deleted":
        raise InputError(f"the MLflow experiment {name!r} is deleted",
                         hint=f"restore it (mlflow experiments restore --experiment-id {found.experiment_id}) "
                              "or log to another experiment")
    created: str = found.experiment_id
    return created


def _write(mlflow: MlflowClient, experiment: str, record: Record, parent: str | None) -> str:
    from mlflow.entities import Metric, Param
    from mlflow.tracking.context.registry import resolve_tags

    tags = resolve_tags({**record.tags, **({PARENT_TAG: parent} if parent else {})})
    run_id: str = mlflow.create_run(experiment, run_name=record.name, tags=tags).info.run_id
    try:
        stamp = int(time.time() * 1000)
        params = [Param(k, v) for k, v in record.params.items()]
        for start in range(0, len(params), PARAMS_PER_BATCH):
            mlflow.log_batch(run_id, params=params[start:start + PARAMS_PER_BATCH])
        metrics = [Metric(k, v, stamp, 0) for k, v in record.metrics.items()]
        for start in range(0, len(metrics), METRICS_PER_BATCH):
            mlflow.log_batch(run_id, metrics=metrics[start:start + METRICS_PER_BATCH])
        if record.artifacts:
            with tempfile.TemporaryDirectory(prefix="ragauge-mlflow-") as folder:
                for artifact in record.artifacts:
                    path = Path(folder) / artifact.name
                    with path.open("w", encoding="utf-8", newline="") as fh:
                        for piece in artifact.text():
                            fh.write(piece)
                    mlflow.log_artifact(run_id, str(path))
        for child in record.children():
            _write(mlflow, experiment, child, run_id)
    except BaseException:
        mlflow.set_terminated(run_id, "FAILED")
        raise
    mlflow.set_terminated(run_id, "FINISHED")
    return run_id


@contextmanager
def _errors(tracking_uri: str | None) -> Iterator[None]:
    """MLflow's exceptions (and a store it cannot reach) as InputError, their text redacted."""
    from mlflow.exceptions import MlflowException

    try:
        yield
    except (MlflowException, OSError) as exc:
        secrets = url_secrets(tracking_uri) if tracking_uri else []
        raise InputError(f"MLflow: {redact(_first_line(exc), secrets)}",
                         hint="check the tracking URI (MLFLOW_TRACKING_URI, [mlflow] tracking_uri or "
                              "tracking_uri=) and that its server or store is reachable") from None


def _first_line(exc: Any) -> str:
    text = str(getattr(exc, "message", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
