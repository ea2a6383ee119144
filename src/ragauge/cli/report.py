"""``ragauge report``: re-render a saved JSON result; and the report options ``eval`` shares with it."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ragauge.api.defaults import DEFAULT_FORMAT, WORST
from ragauge.cli.options import write_output
from ragauge.reports.registry import formats

F = TypeVar("F", bound=Callable[..., Any])


def report_options(func: F) -> F:
    """``--format``, ``-o``, ``--worst`` and ``--no-color``, the same on every command that writes a report."""
    options = [
        click.option("--format", "fmt", type=click.Choice(formats("evaluation")), default=DEFAULT_FORMAT,
                     show_default=True,
                     help="text for a terminal, markdown for a PR comment or $GITHUB_STEP_SUMMARY, html for a "
                          "self-contained page, junit for CI test listings, json to keep (and re-render later)."),
        click.option("-o", "--output", type=click.Path(path_type=Path),
                     help="Write the report here instead of stdout."),
        click.option("--worst", default=WORST, show_default=True, type=click.IntRange(min=0),
                     help="How many of the worst questions to show (text, markdown)."),
        no_color_option(),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def no_color_option(what: str = "the text report") -> Callable[[F], F]:
    """``--no-color``, on every command that colours what it prints (``what``: where the colour is)."""
    return click.option("--no-color", is_flag=True, help=f"No colour in {what} (also: the NO_COLOR variable).")


def plain_asked(no_color: bool) -> bool:
    """Whether colour is turned off: ``--no-color`` or a non-empty NO_COLOR (https://no-color.org)."""
    return no_color or bool(os.environ.get("NO_COLOR"))


def warn(text: str, no_color: bool) -> None:
    """``text`` in yellow on stderr: colour only on a terminal, never with --no-color or NO_COLOR."""
    click.echo(click.style(text, fg="yellow"), err=True, color=False if plain_asked(no_color) else None)


def terminal_style(output: Path | None, no_color: bool) -> dict[str, Any]:
    """Colour and width for the text report: colour only on a terminal, never with --no-color or a
    non-empty NO_COLOR; the width of the terminal (or $COLUMNS) when writing to stdout, none for a file."""
    if output is not None:
        return {"color": False, "width": None}
    tty = sys.stdout.isatty()
    color = tty and not plain_asked(no_color)
    width = None
    if tty or os.environ.get("COLUMNS", "").isdigit():
        import shutil

        width = max(shutil.get_terminal_size().columns, 40)
    return {"color": color, "width": width}


def emit(evaluation: Any, fmt: str, output: Path | None, worst: int, no_color: bool) -> None:
    """Render ``evaluation`` as ``fmt`` and write it to ``output`` (or stdout)."""
    from ragauge.api.report import render_parts

    options: dict[str, Any] = {"worst": worst}
    if fmt == "text":
        options.update(terminal_style(output, no_color))
    write_output(render_parts(evaluation, fmt, **options), output)
    if fmt != "text" or output is not None:  # the report may sit in a file: say loudly what misleads
        from ragauge.api.report import loud_warnings
        from ragauge.core.escape import terminal

        for warning in loud_warnings(evaluation):
            click.echo(terminal(warning), err=True)


def load_result(path: Path, corpus: Path | None = None) -> Any:
    """Read a result written by ``ragauge eval --format json`` (see evaluation.load.read_result)."""
    from ragauge.api.report import read_result

    return read_result(path, corpus)


@click.command("report")
@click.argument("result", type=click.Path(path_type=Path))
@report_options
@click.option("--corpus", type=click.Path(path_type=Path),
              help="The indexed corpus (.jsonl, .jsonl.gz or a folder): explain the misses with its texts too "
                   "(the exact-term and vocabulary-gap patterns); the scores stay as saved.")
def report_command(result: Path, fmt: str, output: Path | None, worst: int, no_color: bool,
                   corpus: Path | None) -> None:
    """Re-render a saved result (from 'ragauge eval --format json') without re-running anything.

    \b
    Examples:
      ragauge eval golden.jsonl --run run.jsonl -k 1,5,10 --format json -o result.json
      ragauge report result.json --format html -o report.html
      ragauge report result.json --format markdown >> "$GITHUB_STEP_SUMMARY"
      ragauge report result.json --format junit -o ragauge-junit.xml
      ragauge report result.json --corpus corpus.jsonl
    """
    emit(load_result(result, corpus), fmt, output, worst, no_color)
