"""Entry point: the ``ragauge`` group, and the one place errors become exit codes."""

from __future__ import annotations

import errno
import os
import sys
from importlib import import_module

import click

from ragauge._version import __version__
from ragauge.cli.process import tune_collector, tune_for_batch
from ragauge.errors import RagaugeError, command_line

# name -> (module, attribute): a command's module is imported only when that command runs
# (or for --help), so ``ragauge trec-eval`` does not load the report templates of ``eval``.
# Commands in BATCH evaluate stored data in one pass and get tune_for_batch(); commands that
# keep a retriever or an embedding model busy for a long time (run, index, golden) do not, but run
# gets its collector setting (tune_collector): it keeps every answer it records.
BATCH = frozenset({"attribute", "baseline", "compare", "eval", "gate", "history", "power", "report", "trec-eval"})
COMMANDS = {
    "attribute": ("ragauge.cli.attribute", "attribute_command"),
    "baseline": ("ragauge.cli.gate", "baseline_group"),
    "compare": ("ragauge.cli.compare", "compare_command"),
    "eval": ("ragauge.cli.eval", "eval_command"),
    "gate": ("ragauge.cli.gate", "gate_command"),
    "golden": ("ragauge.cli.golden", "golden_group"),
    "history": ("ragauge.cli.history", "history_command"),
    "index": ("ragauge.cli.index", "index_group"),
    "init": ("ragauge.cli.init", "init_command"),
    "metrics": ("ragauge.cli.metrics", "metrics_command"),
    "power": ("ragauge.cli.power", "power_command"),
    "report": ("ragauge.cli.report", "report_command"),
    "run": ("ragauge.cli.run", "run_command"),
    "sweep": ("ragauge.cli.sweep", "sweep_command"),
    "trec-eval": ("ragauge.cli.trec_eval", "trec_eval_command"),
}


class RagaugeGroup(click.Group):
    """Loads commands on demand and maps RagaugeError to its exit code with one clear message
    (a traceback only with --debug). The message goes through ``redact`` first: the last line
    of defence against a password, token or key that an error quoted. A command runs inside
    ``errors.command_line()``, so the options its errors name read as flags (``errors.flag``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        command: click.Command = getattr(import_module(module), attribute)
        return command

    def resolve_command(self, ctx: click.Context,
                        args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] in BATCH:
            tune_for_batch()  # before the command's module is imported: it may import numpy
        elif args[:1] == ["run"]:
            tune_collector()  # not the memory settings: a run may keep an embedding model busy for hours
        if args[:2] == ["run", "merge"]:  # 'run' takes a GOLDEN argument, so it cannot be a group
            command: click.Command = import_module("ragauge.cli.run").merge_command
            return "run merge", command, args[2:]
        if args[:2] == ["run", "import-traces"]:
            command = import_module("ragauge.cli.traces").import_traces_command
            return "run import-traces", command, args[2:]
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> object:
        try:
            with command_line():  # errors the library raises meanwhile name --flags, not keyword=
                return super().invoke(ctx)
        except RagaugeError as exc:
            if ctx.params.get("debug"):
                raise
            click.echo(f"error: {_shown(exc)}", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:  # a second Ctrl-C, or one outside a run's own handling
            if ctx.params.get("debug"):
                raise
            click.echo("\ninterrupted", err=True)
            ctx.exit(130)
        except MemoryError:
            if ctx.params.get("debug"):
                raise
            click.echo("error: out of memory (is an input file or one of its lines far larger than expected?)",
                       err=True)
            ctx.exit(2)
        except OSError as exc:
            code = _output_failed(exc, debug=bool(ctx.params.get("debug")))
            if code is None:
                raise
            ctx.exit(code)


def _shown(exc: RagaugeError) -> str:
    """An error as the terminal gets it: where, what and the hint, each with its secrets redacted
    and escaped, so text quoted in it (a path, an id) cannot start an unindented line or send a
    control sequence."""
    from ragauge.core.escape import terminal
    from ragauge.redact import redact

    def clean(text: str) -> str:
        # a message's own continuation lines ("\n  " + text: the problems after the first) stay lines,
        # indented, so nothing quoted can print an unindented line; any other line break is escaped
        return "\n  ".join(terminal(redact(part)) for part in text.split("\n  "))

    text = f"{clean(exc.where)}: {clean(exc.message)}" if exc.where else clean(exc.message)
    return text + (f"\n  hint: {clean(exc.hint)}" if exc.hint else "")


_DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO}


def _output_failed(exc: OSError, *, debug: bool = False) -> int | None:
    """The exit code for output that cannot be written, after one message: 141 for a pipe closed
    early (``ragauge ... | head``: nothing more to say), 2 for a full or broken disk; None for any
    other OS error (and, with ``--debug``, for a disk error too: the traceback is wanted)."""
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()
        return 141
    if debug or exc.errno not in _DISK_ERRORS:
        return None
    _silence_stdout()
    click.echo(f"error: {exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else ""), err=True)
    return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


@click.group(cls=RagaugeGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="ragauge")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
def cli(debug: bool) -> None:
    """Measure the retrieval stage of a RAG system against a golden set.

    \b
    Example:
      ragauge eval golden.jsonl --run run.jsonl -k 5
    """


def main() -> None:
    """Console entry point. Output that cannot be written even before a command runs (``--help``
    into a full disk or a closed pipe) ends with one message, not a traceback."""
    try:
        cli.main(prog_name="ragauge")
    except OSError as exc:
        code = _output_failed(exc)
        if code is None:
            raise
        raise SystemExit(code) from None
