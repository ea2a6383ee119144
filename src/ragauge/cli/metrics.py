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
    from ragauge.evaluation.patterns import text_docs
    from ragauge.metrics.registry import METRICS

    for f in METRICS.values():
        form = {"required": f"{f.name}@k", "optional": f"{f.name}  |  {f.name}@k", "none": f.name}[f.cutoff]
        click.echo(f"{form}    (trec_eval: {f.trec_eval})")
        for line in f.doc.splitlines():
            click.echo(f"    {line.strip()}")
        click.echo("")
        if f.budget_kernel is not None:
            click.echo(f"{f.name}@Nt    (a token budget of N words, see below; no trec_eval equivalent)")
            for line in (f.budget_kernel.__doc__ or "").strip().splitlines():
                click.echo(f"    {line.strip()}")
            click.echo("")
    from ragauge.metrics import budget

    for line in (budget.__doc__ or "").strip().splitlines():
        click.echo(line)
    click.echo("")
    for line in text_docs():
        click.echo(line)
