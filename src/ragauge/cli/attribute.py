"""``ragauge attribute``: search or model? Link each question's retrieval outcome to its answer verdict."""

from __future__ import annotations

from pathlib import Path

import click

from ragauge.api.defaults import CALL_TIMEOUT, DEFAULT_FORMAT
from ragauge.api.metrics import DEFAULT_K
from ragauge.cli.options import parse_ks, write_output
from ragauge.errors import InputError
from ragauge.reports.registry import formats


@click.command("attribute")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--run", "run_path", required=True, type=click.Path(path_type=Path),
              help="The run: what the retriever returned for each question (ragauge JSONL or TREC).")
@click.option("--answers", "answers_path", required=True, type=click.Path(path_type=Path),
              help='Answer verdicts, JSONL: {"id": ..., "verdict": "good"|"bad"} or {"id": ..., "score": 0.8}, '
                   'optional "answer" (text) and "source".')
@click.option("-k", "k", default=str(DEFAULT_K), show_default=True, help="Found = a relevant document in the top k.")
@click.option("--threshold", type=float, help="A score >= this is a good answer (for lines with a score).")
@click.option("--run-format", type=click.Choice(["auto", "jsonl", "trec"]), default="auto", show_default=True,
              help="The run file's format; auto reads it from the first line (a TREC line, or JSON).")
@click.option("--fetch", type=int, help="Keep each question's first N raw hits before deduplication.")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@click.option("--judge-endpoint", help="Optional: an OpenAI-compatible endpoint (e.g. http://localhost:8080/v1) "
                                       "that judges answers with text and no verdict; key from "
                                       "$RAGAUGE_JUDGE_API_KEY.")
@click.option("--judge-model", help="The model the judge endpoint runs.")
@click.option("--judge-timeout", default=CALL_TIMEOUT, show_default=True, help="Seconds per judge call.")
@click.option("--corpus", type=click.Path(path_type=Path),
              help="With --judge-endpoint: the corpus the run searched, for the retrieved documents' texts.")
@click.option("--format", "fmt", type=click.Choice(formats("attribution")), default=DEFAULT_FORMAT, show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def attribute_command(golden: Path, run_path: Path, answers_path: Path, k: str, threshold: float | None,
                      run_format: str, fetch: int | None, doc_id_sep: str | None, doc_id_pattern: str | None,
                      judge_endpoint: str | None, judge_model: str | None, judge_timeout: float,
                      corpus: Path | None, fmt: str, output: Path | None) -> None:
    """Search or model? Split what went wrong between retrieval and the answer.

    Each answerable question lands in one cell: not found in the top k and answer bad (fix
    retrieval), found but answer bad (fix the prompt or the model), not found but answer good
    (check the label, or the model's own knowledge), found and good. Overall and per tag, with
    the question ids in each cell; no-answer questions get a table of their own. Verdicts come
    from anywhere (user feedback, a review, any LLM-as-judge tool); ragauge never needs an LLM.
    With --judge-endpoint, answers that have text and no verdict are judged by an
    OpenAI-compatible server: is the answer supported by the retrieved documents?

    \b
    Examples:
      ragauge attribute golden.jsonl --run run.jsonl --answers answers.jsonl -k 5
      ragauge attribute golden.jsonl --run run.jsonl --answers judged.jsonl --threshold 0.7 --format markdown
      ragauge attribute golden.jsonl --run run.jsonl --answers answers.jsonl --corpus corpus.jsonl \\
          --judge-endpoint http://localhost:8080/v1 --judge-model qwen2.5-7b-instruct
    """
    from ragauge import JudgeOptions
    from ragauge.api.attribute import attribute
    from ragauge.api.files import read_run
    from ragauge.api.report import render

    ks = parse_ks(k)
    if len(ks) != 1:
        raise InputError(f"attribute takes one cutoff, got -k {k}", hint="e.g. -k 5")
    if (judge_endpoint is None) != (judge_model is None):
        raise InputError("--judge-endpoint and --judge-model go together",
                         hint="e.g. --judge-endpoint http://localhost:11434/v1 --judge-model llama3.1:8b")
    if corpus is not None and judge_endpoint is None:
        raise InputError("--corpus goes with --judge-endpoint (the judge reads the documents' texts from it)")
    judge = None
    if judge_endpoint is not None:
        judge = JudgeOptions(judge_endpoint, judge_model or "", timeout=judge_timeout)
    result = attribute(golden, read_run(run_path, run_format), answers_path, k=ks[0], threshold=threshold,
                       fetch=fetch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, judge=judge, corpus=corpus)
    write_output(render(result, fmt), output)
    if fmt != "text" or output is not None:  # the report may sit in a file: say loudly what misleads
        from ragauge.api.report import loud_warnings
        from ragauge.core.escape import terminal

        for note in loud_warnings(result):
            click.echo(terminal(note), err=True)
