"""``ragauge trec-eval``: trec_eval's command line and output, computed by ragauge's engine."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import RELEVANCE_LEVEL


@click.command("trec-eval")
@click.argument("qrels", type=click.Path(path_type=Path))
@click.argument("run", type=click.Path(path_type=Path))
@click.option("-q", "per_query", is_flag=True, help="Also print each query's values.")
@click.option("-c", "complete", is_flag=True, help="Average over all queries in the qrels (missing ones score 0).")
@click.option("-M", "max_docs", type=int, help="Keep at most N documents per query.")
@click.option("-l", "rel_level", type=int, default=RELEVANCE_LEVEL, show_default=True,
              help="Relevance level: grade >= N is relevant.")
@click.option("-m", "measures", multiple=True,
              help="Measure (official, all_trec, map, P, P.5,10, recall, ndcg, ndcg_cut, map_cut, success, ...).")
def trec_eval_command(qrels: Path, run: Path, per_query: bool, complete: bool, max_docs: int | None,
                      rel_level: int, measures: tuple[str, ...]) -> None:
    """Evaluate a TREC run as trec_eval does, printing trec_eval's output format.

    Documents are ranked by score descending, ties by docno descending; the rank column is
    ignored. Measures outside ragauge's set are reported on stderr and skipped.

    \b
    Example:
      ragauge trec-eval qrels.txt run.txt -q -m map -m ndcg_cut.10
    """
    from ragauge import TrecEvalOptions
    from ragauge.api.tools import trec_eval
    from ragauge.core.escape import terminal

    result = trec_eval(qrels, run, TrecEvalOptions(list(measures), per_query, complete, max_docs, rel_level))
    if result.unsupported:
        click.echo(f"ragauge trec-eval: not computed here: {', '.join(result.unsupported)}", err=True)
    click.echo("".join(result.lines), nl=False)
    for note in result.notes:
        click.echo(f"ragauge trec-eval: note: {terminal(note)}", err=True)
