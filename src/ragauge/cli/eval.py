"""``ragauge eval``: score a run against a golden set."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.cli.options import parse_ks, write_output


@click.command("eval")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--run", "run_path", required=True, type=click.Path(path_type=Path),
              help="Run file: ragauge JSONL or TREC (qid Q0 docno rank score tag).")
@click.option("--run-format", type=click.Choice(["auto", "jsonl", "trec"]), default="auto", show_default=True)
@click.option("-k", "ks", default="5", show_default=True,
              help="Cutoff(s) for the default metrics hit@k, recall@k, mrr, ndcg@k; e.g. 1,5,10.")
@click.option("--metrics", help="Comma-separated metric specs instead, e.g. hit@1,recall@10,mrr,ndcg@10.")
@click.option("--fetch", type=int, help="Keep each query's first N raw hits before deduplication.")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--worst", default=15, show_default=True, help="How many of the worst questions to show (text).")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def eval_command(golden: Path, run_path: Path, run_format: str, ks: str, metrics: str | None, fetch: int | None,
                 doc_id_sep: str | None, doc_id_pattern: str | None, fmt: str, worst: int, output: Path | None) -> None:
    """Score a retrieval run against a golden set.

    Means are over answerable questions; no-answer questions (empty "relevant") are
    reported apart. Chunk hits are folded into documents in first-seen order.

    \b
    Examples:
      ragauge eval golden.jsonl --run run.jsonl -k 1,5,10
      ragauge eval golden.jsonl --run run.trec --metrics recall@10,mrr,ndcg@10 --format json -o result.json
    """
    from ragauge.data.golden import load_golden
    from ragauge.data.run import read_run
    from ragauge.evaluation.evaluate import evaluate_run

    evaluation = evaluate_run(
        load_golden(golden), read_run(run_path, run_format), metrics=metrics, k=parse_ks(ks), fetch=fetch,
        doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern,
    )
    if fmt == "json":
        from ragauge.reports.json import render_json

        text = render_json(evaluation)
    else:
        from ragauge.reports.text import render_text

        text = render_text(evaluation, worst=worst)
    write_output(text, output)
