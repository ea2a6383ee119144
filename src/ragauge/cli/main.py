"""Entry point: the ``ragauge`` group, and the one place errors become exit codes."""

from __future__ import annotations

import click

from ragauge._version import __version__
from ragauge.cli.compare import compare_command
from ragauge.cli.eval import eval_command
from ragauge.cli.gate import baseline_group, gate_command
from ragauge.cli.golden import golden_group
from ragauge.cli.history import history_command
from ragauge.cli.index import index_group
from ragauge.cli.metrics import metrics_command
from ragauge.cli.process import tune_for_batch
from ragauge.cli.run import run_command
from ragauge.cli.report import report_command
from ragauge.cli.trec_eval import trec_eval_command
from ragauge.errors import RagaugeError


class RagaugeGroup(click.Group):
    """Maps RagaugeError to its exit code with one clear message (a traceback only with --debug)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except RagaugeError as exc:
            if ctx.params.get("debug"):
                raise
            click.echo(f"error: {exc}", err=True)
            ctx.exit(exc.exit_code)


@click.group(cls=RagaugeGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="ragauge")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def cli(debug: bool) -> None:
    """Measure the retrieval stage of a RAG system against a golden set.

    \b
    Example:
      ragauge eval golden.jsonl --run run.jsonl -k 5
    """


cli.add_command(eval_command)
cli.add_command(run_command)
cli.add_command(compare_command)
cli.add_command(trec_eval_command)
cli.add_command(golden_group)
cli.add_command(gate_command)
cli.add_command(baseline_group)
cli.add_command(metrics_command)
cli.add_command(history_command)
cli.add_command(index_group)
cli.add_command(report_command)


def main() -> None:
    """Console entry point."""
    tune_for_batch()
    cli.main(prog_name="ragauge")
