"""``ragauge run import-traces``: OpenTelemetry traces (OpenInference) as a run file; the trace
options ``eval --traces`` shares."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ragauge.cli.report import no_color_option, warn
from ragauge.core.escape import terminal

DOC_ID_KEY_HELP = ("The key of each document's document.metadata that holds its document id "
                   "(LangChain documents carry no document.id in a trace); default: document.id.")


def trace_options(doc_id_key: bool = True) -> Callable[[Any], Any]:
    """``--id-attribute``, ``--chunk-ids``, ``--skip-unmatched`` (and ``--doc-id-key`` unless the
    command has it already, as ``eval`` has for its retrievers)."""
    options = [
        click.option("--id-attribute", metavar="KEY",
                     help="The span attribute holding the question id (session.id, ragauge.question_id, or "
                          "metadata.question_id for a field of a JSON attribute); default: match each trace's "
                          "query (root span's input.value, else its first retriever's) to the golden queries."),
        *([click.option("--doc-id-key", metavar="KEY", help=DOC_ID_KEY_HELP)] if doc_id_key else []),
        click.option("--chunk-ids", is_flag=True,
                     help="document.id is a chunk id: fold chunks into documents with --doc-id-sep or "
                          "--doc-id-pattern when scoring."),
        click.option("--skip-unmatched", is_flag=True,
                     help="Drop the traces that match no question (counted in a warning) instead of refusing them."),
    ]

    def decorate(f: Any) -> Any:
        for option in reversed(options):
            f = option(f)
        return f

    return decorate


def show_notes(imported: Any, no_color: bool) -> None:
    """The import's warnings and notes (traces dropped or skipped, questions without a trace), in yellow."""
    for note in imported.notes():
        warn(terminal(note), no_color)


@click.command("run import-traces")
@click.argument("files", metavar="FILE...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--golden", type=click.Path(path_type=Path), required=True,
              help="The golden set whose questions the traces answer.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True, help="Run file to write (JSONL).")
@trace_options()
@no_color_option("the warnings")
def import_traces_command(files: tuple[Path, ...], golden: Path, output: Path, id_attribute: str | None,
                          doc_id_key: str | None, chunk_ids: bool, skip_unmatched: bool, no_color: bool) -> None:
    """Turn OpenTelemetry traces into a run file: one multi-call line per trace.

    FILE... are OTLP JSON files as the OpenTelemetry Collector's file exporter writes them (one
    request a line; a folder stands for its files), from an application traced with an
    OpenInference instrumentor. Each trace's retriever spans (and reranker spans: stages
    "first" and "rerank") become its calls, in start-time order; the trace is matched to a
    question by --id-attribute when given (never by its text then), else by its query text. A
    trace that matches no question, or a second trace for one question, is refused (exit 2,
    with file:line); --skip-unmatched drops the unmatched ones with a warning. Traces without a
    retriever span are skipped and counted.

    \b
    Examples:
      ragauge run import-traces traces.jsonl --golden golden.jsonl -o runs/app.jsonl
      ragauge run import-traces otel/ --golden golden.jsonl --doc-id-key source -o runs/app.jsonl
      ragauge run import-traces traces.jsonl --golden golden.jsonl --id-attribute session.id -o runs/app.jsonl
    """
    from ragauge.api.traces import import_traces

    imported = import_traces(list(files), golden, id_attribute=id_attribute, doc_id_key=doc_id_key,
                             chunk_ids=chunk_ids, skip_unmatched=skip_unmatched, output=output)
    show_notes(imported, no_color)
    read = imported.meta["traces"]["read"]
    click.echo(f"wrote {len(imported.results)} questions from {read} traces to {terminal(output)}", err=True)
