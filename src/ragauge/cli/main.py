"""Entry point: the ``ragauge`` group, and the one place errors become exit codes."""

from __future__ import annotations

import sys

import click

from ragauge._version import __version__
from ragauge.cli.eval import eval_command
from ragauge.cli.golden import golden_group
from ragauge.cli.trec_eval import trec_eval_command
from ragauge.errors import RagaugeError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="ragauge")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def cli(debug: bool) -> None:
    """Measure the retrieval stage of a RAG system against a golden set.

    \b
    Example:
      ragauge eval golden.jsonl --run run.jsonl -k 5
    """


cli.add_command(eval_command)
cli.add_command(trec_eval_command)
cli.add_command(golden_group)


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; RagaugeError -> its exit code with one clear message, no traceback."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args
    try:
        cli.main(args=args, prog_name="ragauge", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except RagaugeError as exc:
        if debug:
            raise
        click.echo(f"error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(1)
    sys.exit(0)
