"""``ragauge golden import FORMAT PATH...`` and ``ragauge golden import-trec``: golden sets from other tools."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import BEIR_SPLIT, TOPIC_FIELD
from ragauge.cli.report import no_color_option, warn
from ragauge.core.escape import terminal

FORMAT_NAMES = ("trec", "msmarco", "beir", "ragas", "llamaindex", "deepeval")
_output = click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
                       help="Golden set JSONL to write.")
_topic_field = click.option("--topic-field", type=click.Choice(["title", "desc", "title+desc"]),
                            help=f"trec: the topic field that is the question (default {TOPIC_FIELD}).")


def _import(fmt: str, paths: tuple[Path, ...], output: Path, no_color: bool, **options: object) -> None:
    from ragauge.api.golden import import_golden
    from ragauge.errors import where

    result = import_golden(fmt, list(paths), output, **options)  # type: ignore[arg-type]
    for note in result.notes:
        warn(terminal(note), no_color)
    for f in result.report.findings:
        place = where(output, f.line) if f.line is not None else str(output)
        click.echo(f"{terminal(f.severity.upper())} {terminal(place)}: [{terminal(f.code)}] {terminal(f.message)}",
                   err=True)
    g = result.golden
    answerable = sum(q.answerable for q in g)
    click.echo(f"wrote {len(g)} questions ({answerable} answerable, {len(g) - answerable} no-answer) to "
               f"{terminal(output)}", err=True)
    if result.corpus_rows:
        click.echo(f"wrote {result.corpus_rows} passages to {terminal(options['corpus_out'])}", err=True)


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(FORMAT_NAMES))
@click.argument("paths", metavar="PATH...", nargs=-1, required=True, type=click.Path(path_type=Path))
@_output
@click.option("--corpus", type=click.Path(path_type=Path),
              help="ragas, deepeval, llamaindex: label the corpus documents that contain each passage "
                   "(default: content-hash ids).")
@click.option("--corpus-out", type=click.Path(path_type=Path),
              help="ragas, deepeval, llamaindex: write the passages (or nodes) as a corpus JSONL to index.")
@_topic_field
@click.option("--relevant", type=click.Choice(["context", "source-file"]),
              help="deepeval: label each golden by its context passages (default) or its source_file.")
@click.option("--split", help=f"beir: which qrels/<split>.tsv to read (default {BEIR_SPLIT}).")
@no_color_option("the notes")
def import_command(fmt: str, paths: tuple[Path, ...], output: Path, corpus: Path | None, corpus_out: Path | None,
                   topic_field: str | None, relevant: str | None, split: str | None, no_color: bool) -> None:
    """Turn a golden set from another tool into a ragauge golden set.

    \b
    FORMAT and PATH...:
      trec TOPICS QRELS       TREC topics (<top> blocks, or id<TAB>text) and qrels
      msmarco QUERIES QRELS   queries.tsv (id<TAB>text) and qrels (qid 0 docid rel)
      beir FOLDER             queries.jsonl and qrels/<split>.tsv
      ragas FILE              a test set: user_input, reference_contexts (JSONL or JSON)
      llamaindex FILE         EmbeddingQAFinetuneDataset JSON: queries, corpus, relevant_docs
      deepeval FILE           goldens: input, context, source_file (JSON or JSONL)

    Passages given as text (ragas, deepeval) or as node ids (llamaindex) are labelled with the
    --corpus documents that contain them, or get content-hash ids with a loud note. Malformed
    input, ids given twice and a result that fails 'golden validate' are refused (exit 2, with
    file:line); warnings are printed.

    \b
    Examples:
      ragauge golden import trec topics.301-350.txt qrels.301-350.txt -o golden.jsonl
      ragauge golden import ragas testset.jsonl --corpus corpus.jsonl -o golden.jsonl
      ragauge golden import llamaindex qa_dataset.json --corpus-out nodes.jsonl -o golden.jsonl
    """
    _import(fmt, paths, output, no_color, corpus=corpus, corpus_out=corpus_out, topic_field=topic_field,
            relevant=relevant, split=split)


@click.command("import-trec")
@click.argument("topics", type=click.Path(path_type=Path))
@click.argument("qrels", type=click.Path(path_type=Path))
@_output
@_topic_field
@no_color_option("the notes")
def import_trec_command(topics: Path, qrels: Path, output: Path, topic_field: str | None, no_color: bool) -> None:
    """Turn TREC topics and qrels into a golden set (as 'golden import trec').

    Topics are <top> blocks (<num>, <title>, <desc>, <narr>) or id<TAB>text lines; qrels are
    'qid iter docno rel'. Judged topics become questions (grade 0 judgements kept); topics
    without a judgement are left out with a note.

    \b
    Example:
      ragauge golden import-trec topics.301-350.txt qrels.301-350.txt --topic-field desc -o golden.jsonl
    """
    _import("trec", (topics, qrels), output, no_color, topic_field=topic_field)
