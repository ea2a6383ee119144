"""``ragauge power``: what a golden set can detect, and how many questions an effect needs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragauge.api.defaults import DEFAULT_ALPHA, DEFAULT_CORRELATION, DEFAULT_FORMAT, DEFAULT_K, DEFAULT_POWER
from ragauge.cli.options import grades_option, parse_ks, texts_options, unjudged_option, write_output
from ragauge.reports.registry import formats

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged


@click.command("power")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--run", "runs", type=click.Path(path_type=Path), multiple=True, required=True,
              help="A run of the golden set; give two to use their observed paired differences.")
@click.option("-k", "ks", default=str(DEFAULT_K), show_default=True, help="Cutoff(s) for the default metrics.")
@click.option("--metrics", help="Comma-separated metric specs.")
@click.option("--effect", type=float, help="A difference to plan for: how many questions it needs.")
@click.option("--alpha", default=DEFAULT_ALPHA, show_default=True, help="Significance level of the two-sided test.")
@click.option("--power", "target_power", default=DEFAULT_POWER, show_default=True,
              help="Chance of detecting the effect.")
@click.option("--correlation", default=DEFAULT_CORRELATION, show_default=True,
              help="With one run: the assumed per-question correlation between the runs you will compare.")
@click.option("--fetch", type=int, help="Keep each query's first N raw hits before deduplication.")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@texts_options
@unjudged_option()
@grades_option()
@click.option("--format", "fmt", type=click.Choice(formats("power")), default=DEFAULT_FORMAT, show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def power_command(golden: Path, runs: tuple[Path, ...], ks: str, metrics: str | None, effect: float | None,
                  alpha: float, target_power: float, correlation: float, fetch: int | None, doc_id_sep: str | None,
                  doc_id_pattern: str | None, corpus: Path | None, tokenizer: str | None, unjudged: Unjudged,
                  grades: str | None, fmt: str, output: Path | None) -> None:
    """How small a change the golden set can detect, overall and per tag.

    For each metric: the minimum detectable effect (MDE) at the given power of the two-sided
    betting test compare runs, simulated from the run's own per-question values (one run, with
    an assumed correlation between the runs you will compare) or from two runs' paired
    differences; with --effect, the questions that difference needs (the gate's notes give the
    same figures).

    \b
    Examples:
      ragauge power golden.jsonl --run runs/bm25.jsonl --metrics recall@5 --effect 0.02
      ragauge power golden.jsonl --run base.jsonl --run new.jsonl -k 10
    """
    from ragauge.api.compare import power
    from ragauge.api.report import render
    from ragauge.config import eval_grades
    from ragauge.errors import InputError

    if len(runs) > 2:
        raise InputError(f"--run takes one or two runs, got {len(runs)}", hint="--run BASE [--run NEW]")
    report = power(golden, runs[0], new=runs[1] if len(runs) == 2 else None, metrics=metrics, k=parse_ks(ks),
                   effect=effect, alpha=alpha, target_power=target_power, correlation=correlation, fetch=fetch,
                   doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, corpus=corpus, tokenizer=tokenizer,
                   unjudged=unjudged,
                   grades=grades if grades is not None else eval_grades(None))
    write_output(render(report, fmt), output)
