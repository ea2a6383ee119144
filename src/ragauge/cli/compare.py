"""``ragauge compare``: two runs or results, question by question."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragauge.cli.options import parse_ks, texts_options, unjudged_option, write_output

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged


@click.command("compare")
@click.argument("base", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option("--golden", type=click.Path(path_type=Path), help="Golden set, needed when BASE/NEW are run files.")
@click.option("-k", "ks", default="5", show_default=True, help="Cutoff(s) for the default metrics.")
@click.option("--metrics", help="Comma-separated metric specs to compare.")
@click.option("--fetch", type=int, help="Keep each query's first N raw hits before deduplication.")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@unjudged_option()
@texts_options
@click.option("--allow-different-golden", is_flag=True, help="Compare only the questions both results share.")
@click.option("--alpha", default=0.05, show_default=True, help="Significance level for the verdicts.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown", "html"]), default="text",
              show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def compare_command(base: Path, new: Path, golden: Path | None, ks: str, metrics: str | None, fetch: int | None,
                    doc_id_sep: str | None, doc_id_pattern: str | None, unjudged: Unjudged, corpus: Path | None,
                    tokenizer: str | None, allow_different_golden: bool, alpha: float, fmt: str,
                    output: Path | None) -> None:
    """Compare two runs (or saved results) of the same golden set, question by question.

    For each metric: both means, the difference with its 95% interval and p-value from a paired
    test chosen for the metric's values (paired t; McNemar with Tango's interval for 0/1 values),
    Holm-corrected over metrics x tags, better/worse/tied counts, the minimum detectable effect
    at 80% power and a verdict; then per-tag differences, the questions that got worse, latency
    and cost. Exit 2 when the results cannot be compared fairly (different golden sets or
    contracts, too few shared questions).

    \b
    Examples:
      ragauge compare runs/base.jsonl runs/new.jsonl --golden golden.jsonl -k 5
      ragauge compare base.json new.json --format markdown >> "$GITHUB_STEP_SUMMARY"
    """
    from ragauge.comparison import compare
    from ragauge.reports.comparison import render_comparison

    result = compare(base, new, golden=golden, metrics=metrics, k=parse_ks(ks), fetch=fetch, doc_id_sep=doc_id_sep,
                     doc_id_pattern=doc_id_pattern, allow_different_golden=allow_different_golden, alpha=alpha,
                     unjudged=unjudged, corpus=corpus, tokenizer=tokenizer)
    write_output(render_comparison(result, fmt), output)
