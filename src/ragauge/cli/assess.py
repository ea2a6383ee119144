"""``ragauge golden assess``: automatic labels for the runs' top k; ``ragauge golden agreement``: the
assessor's audit against the human labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ragauge.api.defaults import ASSESS_KEY_ENV, DEFAULT_DEPTH


@click.command("assess")
@click.argument("golden", type=click.Path(path_type=Path))
@click.option("--run", "runs", type=click.Path(path_type=Path), multiple=True, required=True,
              help="A run whose top k to assess (repeatable).")
@click.option("--corpus", type=click.Path(path_type=Path), required=True,
              help="Corpus with the documents' texts (JSONL, BEIR corpus.jsonl(.gz) or a folder).")
@click.option("--assessor", required=True,
              help="minilm (bundled, offline), cross-encoder:DIR (a local ONNX cross-encoder), llm:URL (an "
                   "OpenAI-compatible chat endpoint, with --model) or python:module:function.")
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Automatic labels JSONL to write (a re-run resumes from it).")
@click.option("-k", "--k", "k", type=int, help=f"Documents of each run's top to assess [default: {DEFAULT_DEPTH}].")
@click.option("--model", help="The model an llm: assessor's endpoint runs.")
@click.option("--api-key-env", help=f"Environment variable holding an llm: endpoint's key [default: {ASSESS_KEY_ENV}] "
                                    "(never written anywhere).")
@click.option("--timeout", type=float, help="Seconds per llm: call.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="The summary's format [default: text].")
def assess_command(golden: Path, runs: tuple[Path, ...], corpus: Path, assessor: str, output: Path, k: int | None,
                   model: str | None, api_key_env: str | None, timeout: float | None, fmt: str | None) -> None:
    """Grade every (question, document) pair in the runs' top k with an automatic assessor.

    Human-labelled questions are assessed too: the scores are calibrated to grades on them (the
    cutoffs that maximise weighted kappa with the human grades) and 'golden agreement' audits the
    assessor there. A line with "relevant": null is an unlabelled question. Each label records its
    assessor (NAME@VERSION), raw score and calibration; scores are cached by the hash of (assessor,
    prompt, question, document), so a re-run with the same -o scores only what is missing. The
    llm: assessor asks an UMBRELA-style prompt (grades 0-3), one pair per call; its key is read
    from the environment only.

    \b
    Examples:
      ragauge golden assess golden.jsonl --run bm25.run.jsonl --corpus corpus.jsonl --assessor minilm -o auto.jsonl
      ragauge golden assess golden.jsonl --run a.jsonl --run b.jsonl --corpus corpus.jsonl \\
          --assessor llm:http://localhost:8080/v1 --model qwen2.5-7b-instruct -o auto.jsonl
    """
    from ragauge.api.golden import assess_golden
    from ragauge.core.escape import terminal
    from ragauge.core.jsonl import dumps

    options: dict[str, Any] = {"model": model, "timeout": timeout}
    if k is not None:
        options["k"] = k
    if api_key_env is not None:
        options["api_key_env"] = api_key_env
    report = assess_golden(golden, list(runs), corpus, assessor, output, **options)
    if fmt == "json":
        click.echo(dumps(report.to_dict(), indent=2))
    for line in report.lines():
        click.echo(terminal(line), err=True)


@click.command("agreement")
@click.option("--human", type=click.Path(path_type=Path), required=True,
              help="The golden set whose human labels are the reference.")
@click.option("--auto", type=click.Path(path_type=Path), required=True,
              help="Automatic labels from 'golden assess' (of the same golden set).")
@click.option("--min-kappa", type=float,
              help="Refuse (exit 2) an assessor whose weighted kappa is below this, e.g. 0.4.")
@click.option("--force", is_flag=True, help="Report an assessor below --min-kappa without refusing it.")
@click.option("--run", "runs", type=click.Path(path_type=Path), multiple=True,
              help="A run under test (repeatable): warns when its retriever or reranker is the assessor's model "
                   "or of its model family.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), help="The report's format [default: text].")
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def agreement_command(human: Path, auto: Path, min_kappa: float | None, force: bool, runs: tuple[Path, ...],
                      fmt: str | None, output: Path | None) -> None:
    """Audit an automatic assessor against the human labels: kappa, confusion by grade, per tag.

    Compares every automatic label of a human-labelled question with the human grade (0 for a
    document the question does not list): Cohen's kappa with linear weights on the grades, kappa
    on relevant-or-not, the confusion counts and the same per tag, each kappa with a 95% interval
    from a bootstrap over questions (a question's pairs resampled together). With --min-kappa an
    assessor below the bar is refused (exit 2) unless --force. With --run, each run's '_meta' (the
    retriever spec and settings 'ragauge run' records) is read, and a loud warning names every run
    whose retriever or reranker is the assessor's model or of its model family (MiniLM, BGE, Qwen,
    ...): such an assessor shares that system's blind spots and favours it. Agreement between
    annotators in judgements logs is 'golden judge-stats'.

    \b
    Examples:
      ragauge golden agreement --human golden.jsonl --auto auto.jsonl --min-kappa 0.4
      ragauge golden agreement --human golden.jsonl --auto auto.jsonl --run runs/dense.jsonl --run runs/bm25.jsonl
    """
    from ragauge.api.golden import assessor_agreement
    from ragauge.api.report import loud_warnings
    from ragauge.cli.options import write_output
    from ragauge.core.escape import terminal
    from ragauge.core.jsonl import dumps

    audit = assessor_agreement(human, auto, min_kappa=min_kappa, force=force, runs=[str(r) for r in runs])
    text = (dumps(audit.to_dict(), indent=2) if fmt == "json" else "\n".join(terminal(x) for x in audit.lines())) + "\n"
    write_output(text, output)
    if fmt == "json" or output is not None:  # the report may sit in a file: say loudly what misleads
        for warning in loud_warnings(audit):
            click.echo(terminal(warning), err=True)
    audit.check()
