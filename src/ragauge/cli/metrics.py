"""``ragauge metrics``: the metric registry with each metric's exact contract."""

from __future__ import annotations

import click


@click.command("metrics")
def metrics_command() -> None:
    """List every metric ragauge computes, with its formula and edge cases, then the failure
    patterns a miss is classified by, each with its exact rule and its fix.

    \b
    Example:
      ragauge metrics
    """
    from ragauge.api.metrics import metric_reference

    click.echo(metric_reference(), nl=False)
