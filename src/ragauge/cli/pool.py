"""``ragauge golden pool``: pool several systems' top documents for judging."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import DEFAULT_ALPHA, DEFAULT_DEPTH, DEFAULT_FORMAT, VERDICT_METRIC
from ragauge.cli.run import with_call_options
from ragauge.core.escape import terminal
from ragauge.reports.registry import formats


@click.command("pool")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--retriever", "retrievers", multiple=True,
              help="A retriever to call and pool (bm25:PATH, dense:PATH, http(s)://URL, ...); repeatable.")
@click.option("--run", "runs", type=click.Path(path_type=Path), multiple=True,
              help="A run file (ragauge JSONL or TREC) to pool; repeatable.")
@click.option("--depth", type=int, default=DEFAULT_DEPTH, show_default=True, help="Documents pooled from each system.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Pool file to write (JSONL).")
@click.option("--fetch", type=int, help="Hits asked of each retriever (default: twice --depth, at least 20).")
@with_call_options
@click.option("--doc-id-key", help="Metadata key holding the document id in framework objects.")
@click.option("--config", "config_path", type=click.Path(path_type=Path),
              help="ragauge.toml with a [retriever] section (HTTP headers, body, hits path).")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@click.option("--for-verdict", "for_verdict", type=click.Path(path_type=Path), nargs=2, metavar="BASE NEW",
              help="Pool these two runs for the verdict of comparing them: judging serves first the pairs whose "
                   "label could move it, and says when it is certain.")
@click.option("--metric", default=VERDICT_METRIC, show_default=True,
              help="With --for-verdict: the metric compared (a cutoff no deeper than --depth).")
@click.option("--alpha", type=float, default=DEFAULT_ALPHA, show_default=True,
              help="With --for-verdict: the comparison's significance level.")
@click.option("--format", "fmt", type=click.Choice(formats("pool")), default=DEFAULT_FORMAT, show_default=True,
              help="The summary's format.")
def pool_command(golden: Path, retrievers: tuple[str, ...], runs: tuple[Path, ...], depth: int, output: Path,
                 fetch: int | None, concurrency: int, timeout: float, retries: int, doc_id_key: str | None,
                 config_path: Path | None, doc_id_sep: str | None, doc_id_pattern: str | None,
                 for_verdict: tuple[Path, Path] | None, metric: str, alpha: float, fmt: str) -> None:
    """Pool the top documents of several retrievers and runs for judging.

    For each question: the union of every system's first --depth documents (chunk hits folded
    into documents, as the metrics count them), minus the documents it already judges (any
    grade, 0 included), with the systems that returned each and at what rank. GOLDEN may be a
    golden set or a candidates file from 'golden add' (null "relevant"; rejected ones skipped).
    The summary says, per question and overall, how many candidates came from how many systems.

    --for-verdict BASE NEW pools the two runs for the verdict of comparing them on --metric (the
    betting test of 'compare'): the candidates are ordered by how much their label could move it,
    'golden judge' serves them in that order (recomputed after each judgement) and says when the
    verdict is certain, i.e. no label of the pairs left can change it.

    \b
    Examples:
      ragauge golden pool golden.jsonl --retriever bm25:corpus.jsonl --run runs/dense.jsonl --depth 10 -o pool.jsonl
      ragauge golden pool candidates.jsonl --run runs/a.jsonl --run runs/b.jsonl -o pool.jsonl
      ragauge golden pool golden.jsonl --for-verdict runs/a.jsonl runs/b.jsonl --metric ndcg@10 -o pool.jsonl
    """
    from ragauge.api.golden import pool_golden
    from ragauge.api.report import render
    from ragauge.api.run import Progress, terminal_progress
    from ragauge.cli.options import write_output
    from ragauge.config import retriever_config
    from ragauge.redact import redact

    def progress(name: str) -> Progress:
        return Progress(on_result=terminal_progress(redact(name).split("?")[0]))

    result = pool_golden(golden, retrievers=list(retrievers), runs=[str(r) for r in runs], output=output,
                         depth=depth, fetch=fetch, concurrency=concurrency, timeout=timeout, retries=retries,
                         doc_id_key=doc_id_key, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern,
                         config=retriever_config(config_path) if retrievers else None, progress=progress,
                         for_verdict=[str(r) for r in for_verdict] if for_verdict else None, verdict_metric=metric,
                         alpha=alpha)
    write_output(render(result, fmt), None)
    click.echo(f"wrote the pool of {len(result.pool.questions)} questions to {terminal(output)}", err=True)
