"""``ragauge eval``: score a run (or a live retriever) against a golden set."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ragauge.api.metrics import DEFAULT_K
from ragauge.cli.history import history_option
from ragauge.cli.options import SectionedCommand, auto_labels_option, grades_option, parse_ks, unjudged_option
from ragauge.cli.report import emit, report_options
from ragauge.cli.run import calling, retriever_options
from ragauge.cli.traces import show_notes, trace_options
from ragauge.cli.tracking import log_to_mlflow, mlflow_option
from ragauge.errors import InputError

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged


SECTIONS = (
    ("Input", ("run_path", "run_format", "corpus", "doc_id_sep", "doc_id_pattern")),
    ("Retriever (instead of --run)", ("spec", "save_run", "fetch", "concurrency", "timeout", "retries", "on_error",
                                      "doc_id_key", "config_path")),
    ("Traces (instead of --run)", ("traces", "id_attribute", "chunk_ids", "skip_unmatched")),
    ("Metrics", ("ks", "metrics", "unjudged", "grades", "tokenizer", "mix_synthetic", "auto_labels")),
    ("Output", ("fmt", "output", "worst", "no_color", "record", "history_path", "label", "mlflow")),
)
"""``eval --help``'s option groups (cli.options.SectionedCommand); an option in none is listed last."""


@click.command("eval", cls=SectionedCommand, sections=SECTIONS)
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--run", "run_path", type=click.Path(path_type=Path),
              help="Run file: ragauge JSONL or TREC (qid Q0 docno rank score tag).")
@click.option("--retriever", "spec", help="Call this retriever instead of reading a run (see 'ragauge run --help').")
@click.option("--save-run", type=click.Path(path_type=Path), help="With --retriever: keep the run in this file.")
@click.option("--run-format", type=click.Choice(["auto", "jsonl", "trec"]), default="auto", show_default=True,
              help="The run file's format; auto reads it from the first line (a TREC line, or JSON).")
@click.option("--traces", type=click.Path(path_type=Path), multiple=True,
              help="Read OpenTelemetry traces (OTLP JSON, OpenInference) instead of a run: a file or a folder, "
                   "repeatable; --doc-id-key then names the document.metadata key holding the document id "
                   "(default: document.id). See 'ragauge run import-traces --help'.")
@trace_options(doc_id_key=False)
@click.option("-k", "ks", default=str(DEFAULT_K), show_default=True,
              help="Cutoff(s) for the default metrics hit@k, recall@k, mrr, ndcg@k; e.g. 1,5,10.")
@click.option("--metrics", help="Comma-separated metric specs instead, e.g. hit@1,recall@10,mrr,ndcg@10.")
@retriever_options
@click.option("--corpus", type=click.Path(path_type=Path),
              help="The indexed corpus (.jsonl, .jsonl.gz or a folder): relevant ids missing from it are stale "
                   "labels, not misses (automatic with a --retriever that knows its documents), and its texts "
                   "explain misses (the exact-term and vocabulary-gap patterns).")
@click.option("--tokenizer", help="Count token budgets (recall@2000t) in this tokenizer's tokens of each hit's text "
                                  "in --corpus: minilm, or hf:PATH (a Hugging Face tokenizer.json); default: the "
                                  "run's word lengths.")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@unjudged_option()
@grades_option()
@click.option("--mix-synthetic", is_flag=True,
              help='Average questions an LLM wrote ("source": "synthetic") together with the others; by default '
                   "they are scored apart and the means cover the real questions.")
@auto_labels_option()
@report_options
@click.option("--record", is_flag=True, help="Append the result to the local history (see 'ragauge history').")
@history_option
@click.option("--label", help='With --record: a note for this point, e.g. "re-index 2026-12".')
@mlflow_option
def eval_command(golden: Path, run_path: Path | None, spec: str | None, save_run: Path | None, run_format: str,
                 traces: tuple[Path, ...], id_attribute: str | None, chunk_ids: bool, skip_unmatched: bool, ks: str,
                 metrics: str | None, fetch: int, concurrency: int, timeout: float, retries: int,
                 on_error: str, doc_id_key: str | None, config_path: Path | None, corpus: Path | None,
                 tokenizer: str | None, doc_id_sep: str | None, doc_id_pattern: str | None, unjudged: Unjudged,
                 grades: str | None, mix_synthetic: bool, auto_labels: Path | None, fmt: str,
                 output: Path | None, worst: int, no_color: bool, record: bool, history_path: Path,
                 label: str | None, mlflow: bool | None) -> None:
    """Score a retrieval run, or a retriever called on the spot, against a golden set.

    Means are over answerable questions; no-answer questions (empty "relevant") are
    reported apart. Chunk hits are folded into documents in first-seen order. With --run,
    --fetch cuts each question's raw hits (default: all); with --retriever it is the depth
    asked for (default 20). Every question that misses at the largest k gets a failure
    pattern and a fix ('ragauge metrics' lists them); --corpus adds the text-based ones.
    Questions an LLM wrote ("source": "synthetic", e.g. from 'golden draft') are scored
    apart: the means cover the real questions, and a by-source table shows both
    (--mix-synthetic averages them together). With --auto-labels (from 'golden assess')
    the golden set may leave questions unlabelled ("relevant": null): the means stay those
    of the human-labelled questions, and beside each the prediction-powered estimate and
    its interval (valid at every n), the effective number of human labels and the
    assessor's agreement.

    \b
    Examples:
      ragauge eval golden.jsonl --run run.jsonl -k 1,5,10
      ragauge eval golden.jsonl --retriever bm25:corpus.jsonl -k 10 --save-run runs/bm25.jsonl
      ragauge eval golden.jsonl --run run.jsonl -k 1,5 --corpus corpus.jsonl
      ragauge eval golden.jsonl --run run.trec --metrics recall@10,mrr,ndcg@10 --format json -o result.json
      ragauge eval golden.jsonl --run run.jsonl -k 1,5,10 --format html -o report.html
      ragauge eval golden.jsonl --run run.jsonl -k 5 --record --label "re-index 2026-12"
      ragauge eval golden.jsonl --traces traces.jsonl --doc-id-key source -k 5
      ragauge eval golden.jsonl --run run.jsonl -k 10 --auto-labels auto.jsonl
    """
    from ragauge.api.evaluate import evaluate

    if sum((run_path is not None, spec is not None, bool(traces))) != 1:
        raise InputError("give one of --run FILE, --retriever SPEC or --traces FILE",
                         hint="e.g. --retriever bm25:corpus.jsonl")
    if not traces and (id_attribute is not None or chunk_ids or skip_unmatched):
        raise InputError("--id-attribute, --chunk-ids and --skip-unmatched go with --traces")
    if grades is None:
        from ragauge.config import eval_grades

        grades = eval_grades(config_path)
    if save_run is not None and spec is None:
        raise InputError("--save-run goes with --retriever")
    ctx = click.get_current_context()
    history_given = ctx.get_parameter_source("history_path") not in (click.core.ParameterSource.DEFAULT, None)
    if not record and (label is not None or history_given):
        raise InputError("--history and --label go with --record", hint="add --record to append this result")
    fetch_given = ctx.get_parameter_source("fetch") not in (click.core.ParameterSource.DEFAULT, None)
    scoring: dict[str, Any] = dict(metrics=metrics, k=parse_ks(ks), doc_id_sep=doc_id_sep,
                                   doc_id_pattern=doc_id_pattern, on_error=on_error, unjudged=unjudged, corpus=corpus,
                                   mix_synthetic=mix_synthetic, tokenizer=tokenizer, grades=grades,
                                   auto_labels=auto_labels)
    if spec is not None:
        from ragauge.config import retriever_config

        with calling(spec, timeout=timeout, on_error=on_error, output=save_run, no_color=no_color) as progress:
            evaluation = evaluate(golden, spec, fetch=fetch, concurrency=concurrency, timeout=timeout,
                                  retries=retries, save_run=save_run, doc_id_key=doc_id_key,
                                  config=retriever_config(config_path), progress=progress, **scoring)
    elif traces:
        from ragauge.api.traces import import_traces

        imported = import_traces(list(traces), golden, id_attribute=id_attribute, doc_id_key=doc_id_key,
                                 chunk_ids=chunk_ids, skip_unmatched=skip_unmatched)
        show_notes(imported, no_color)
        evaluation = evaluate(golden, run=imported.run, fetch=fetch if fetch_given else None, **scoring)
    else:
        evaluation = evaluate(golden, run=run_path, run_format=run_format, fetch=fetch if fetch_given else None,
                              **scoring)
    emit(evaluation, fmt, output, worst, no_color)
    if record:
        from ragauge.api.history import record as record_in

        entry_id = record_in(history_path, evaluation, label=label)
        click.echo(f"recorded as #{entry_id} in {history_path}", err=True)
    log_to_mlflow(evaluation, mlflow, config_path)
