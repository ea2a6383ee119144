"""``--mlflow``: log a command's result to MLflow, as ``ragauge.log_mlflow`` does; on for every
command when ``ragauge.toml`` has an ``[mlflow]`` table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

FC = TypeVar("FC", bound=Callable[..., Any])


def mlflow_option(f: FC) -> FC:
    """``--mlflow/--no-mlflow``, the same on every command whose result MLflow logs."""
    return click.option(
        "--mlflow/--no-mlflow", "mlflow", default=None,
        help="Log the result as an MLflow run (needs ragauge[mlflow]) where MLFLOW_TRACKING_URI and "
             "MLFLOW_EXPERIMENT_NAME say, or as the [mlflow] table of ragauge.toml says, which turns it on "
             "(--no-mlflow: off).")(f)


def log_to_mlflow(result: Any, flag: bool | None, config: Path | None, **options: Any) -> None:
    """Log ``result`` when ``flag`` is set, or when it was not given and ``config`` (None: the
    ragauge.toml of the working directory) has an ``[mlflow]`` table, whose settings apply;
    ``options`` go to ``log_mlflow`` (a sweep's ``folder`` and ``golden``). Says the run's id on stderr."""
    if flag is False:
        return
    from ragauge.config import mlflow_settings

    settings = mlflow_settings(config)
    if flag is None and settings is None:
        return
    from ragauge.api.tracking import log_mlflow
    from ragauge.redact import redact

    settings = settings or {}
    run_id = log_mlflow(result, **settings, **options)
    where = f" at {redact(settings['tracking_uri'])}" if "tracking_uri" in settings else ""
    click.echo(f"logged to MLflow as run {run_id}{where}", err=True)
