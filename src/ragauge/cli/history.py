"""``ragauge history``: each metric over time, overall and by tag, from the local history."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ragauge.api.defaults import DEFAULT_FORMAT
from ragauge.api.history import DEFAULT_HISTORY, FORMATS
from ragauge.cli.options import write_output

F = TypeVar("F", bound=Callable[..., Any])


def history_option(func: F) -> F:
    """``--history PATH``, the same on ``eval`` and ``history``."""
    return click.option("--history", "history_path", type=click.Path(path_type=Path), default=DEFAULT_HISTORY,
                        show_default=True, help="The SQLite history file.")(func)


@click.command("history")
@history_option
@click.option("--metric", "metrics", multiple=True,
              help="Only this metric (repeatable or comma-separated), e.g. recall@5; default: every one recorded.")
@click.option("--tag", "tags", multiple=True, help="Only this tag beside the overall line (repeatable).")
@click.option("--last", type=click.IntRange(min=1), help="Only the last N recorded evaluations.")
@click.option("--flips", nargs=2, metavar="A B",
              help="Also list the questions that flipped from A to B (ids, or last, prev, first).")
@click.option("--flip-metric", help="Read flips on this metric (default: the largest hit@k in both).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=DEFAULT_FORMAT, show_default=True,
              help="text: a table with a sparkline per metric; json: the raw series; html: offline line charts.")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write here instead of stdout.")
def history_command(history_path: Path, metrics: tuple[str, ...], tags: tuple[str, ...], last: int | None,
                    flips: tuple[str, str] | None, flip_metric: str | None, fmt: str, output: Path | None) -> None:
    """Show each metric over time, overall and by tag, from evaluations recorded with 'eval --record'.

    Marks labelled evaluations (such as a re-index) and those whose golden set changed
    (its content hash differs from the previous evaluation's). With --flips A B, lists the
    questions that went from a hit to a miss and back between two recorded evaluations.

    \b
    Examples:
      ragauge eval golden.jsonl --run run.jsonl -k 5 --record --label "re-index 2026-12"
      ragauge history --metric recall@5 --tag billing
      ragauge history --flips prev last
      ragauge history --format html -o history.html
    """

    from ragauge.api.history import history_report

    write_output(history_report(history_path, fmt, metrics=metrics, tags=tags, last=last, flips=flips,
                                flip_metric=flip_metric), output)
