"""``ragauge compare``: two runs or results, question by question."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from ragauge.api.defaults import DEFAULT_ALPHA, DEFAULT_FORMAT, DEFAULT_K, DEFAULT_SEED, SEQUENTIAL_METRIC
from ragauge.cli.options import (
    auto_labels_option,
    grades_option,
    parse_ks,
    texts_options,
    unjudged_option,
    write_output,
)
from ragauge.cli.report import no_color_option, terminal_style
from ragauge.cli.tracking import log_to_mlflow, mlflow_option
from ragauge.reports.registry import formats

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged


@click.command("compare")
@click.argument("base", type=click.Path(path_type=Path), required=False)
@click.argument("new", type=click.Path(path_type=Path), required=False)
@click.option("--golden", type=click.Path(path_type=Path), help="Golden set, needed when BASE/NEW are run files.")
@click.option("--retriever", "retrievers", multiple=True,
              help="Call this retriever instead of reading BASE / NEW; give it twice (base, then new).")
@click.option("--sequential", is_flag=True,
              help="With two --retriever: ask the questions in a seeded random order and stop as soon as the verdict "
                   "on --metric is certain at --alpha (an anytime-valid confidence sequence).")
@click.option("--metric", default=SEQUENTIAL_METRIC, show_default=True,
              help="The metric a --sequential comparison decides on.")
@click.option("--seed", default=DEFAULT_SEED, show_default=True,
              help="The question order of a --sequential comparison.")
@click.option("-k", "ks", default=str(DEFAULT_K), show_default=True, help="Cutoff(s) for the default metrics.")
@click.option("--metrics", help="Comma-separated metric specs to compare.")
@click.option("--fetch", type=int, help="Keep each query's first N raw hits before deduplication.")
@click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator.")
@click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex.")
@unjudged_option()
@grades_option()
@texts_options
@auto_labels_option()
@click.option("--allow-different-golden", is_flag=True, help="Compare only the questions both results share.")
@click.option("--alpha", default=DEFAULT_ALPHA, show_default=True, help="Significance level for the verdicts.")
@click.option("--format", "fmt", type=click.Choice(formats("comparison")), default=DEFAULT_FORMAT,
              show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
@no_color_option()
@mlflow_option
def compare_command(base: Path | None, new: Path | None, golden: Path | None, retrievers: tuple[str, ...],
                    sequential: bool, metric: str, seed: int, ks: str, metrics: str | None, fetch: int | None,
                    doc_id_sep: str | None, doc_id_pattern: str | None, unjudged: Unjudged, grades: str | None,
                    corpus: Path | None, tokenizer: str | None, auto_labels: Path | None, allow_different_golden: bool,
                    alpha: float, fmt: str,
                    output: Path | None, no_color: bool, mlflow: bool | None) -> None:
    """Compare two runs (or saved results) of the same golden set, question by question.

    For each metric: both means, the difference with its 95% interval and p-value from the
    betting test (valid for any per-question differences at every n), Holm-corrected over the
    metrics and, apart, over tags x metrics, better/worse/tied counts, the minimum detectable
    effect at 80% power and a verdict; then per-tag differences, the questions that got worse, latency
    and cost. Exit 2 when the results cannot be compared fairly (different golden sets or
    contracts, too few shared questions). With --auto-labels (from 'golden assess', both runs'
    top k assessed) the golden set may leave questions unlabelled ("relevant": null): the tests
    above read the human-labelled questions, and beside them each metric's difference is
    estimated by prediction-powered inference (interval valid at every n, effective labels,
    the assessor's agreement); with no human label, no verdict.

    \b
    Examples:
      ragauge compare runs/base.jsonl runs/new.jsonl --golden golden.jsonl -k 5
      ragauge compare base.json new.json --format markdown >> "$GITHUB_STEP_SUMMARY"
      ragauge compare --golden golden.jsonl --retriever bm25:corpus.jsonl --retriever hybrid:corpus.jsonl --sequential
      ragauge compare runs/base.jsonl runs/new.jsonl --golden golden.jsonl -k 10 --auto-labels auto.jsonl
    """
    from ragauge.api.compare import compare
    from ragauge.api.report import render
    from ragauge.config import eval_grades
    from ragauge.errors import InputError

    grades = grades if grades is not None else eval_grades(None)
    style = terminal_style(output, no_color) if fmt == "text" else {}  # fitted to the terminal, coloured there

    if retrievers:
        if len(retrievers) != 2 or base is not None or golden is None:
            raise InputError("give --golden and --retriever twice (base, then new), without BASE / NEW",
                             hint="ragauge compare --golden golden.jsonl --retriever SPEC_A --retriever SPEC_B")
        if sequential:
            if auto_labels is not None:
                raise InputError("a --sequential comparison decides on human labels only: --auto-labels does not "
                                 "go with it", hint="compare the two retrievers without --sequential")
            from ragauge.api.compare import compare_sequential

            found = compare_sequential(golden, retrievers[0], retrievers[1], metric=metric, alpha=alpha, seed=seed,
                                       fetch=fetch, corpus=corpus)
            write_output(render(found, fmt, **style), output)
            log_to_mlflow(found, mlflow, None)
            return
        from ragauge.api.evaluate import evaluate

        runs = [evaluate(golden, spec, k=parse_ks(ks), metrics=metrics, fetch=fetch,
                                 doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                                 corpus=corpus, grades=grades, auto_labels=auto_labels) for spec in retrievers]
        result = compare(runs[0], runs[1], alpha=alpha)
        write_output(render(result, fmt, **style), output)
        log_to_mlflow(result, mlflow, None)
        return
    if sequential:
        raise InputError("--sequential compares two retrievers: give --golden and --retriever twice",
                         hint="a sequential comparison asks the questions itself; runs already hold every answer")
    if base is None or new is None:
        raise InputError("give BASE and NEW (runs or saved results), or --retriever twice",
                         hint="ragauge compare runs/base.jsonl runs/new.jsonl --golden golden.jsonl")
    result = compare(base, new, golden=golden, metrics=metrics, k=parse_ks(ks), fetch=fetch, doc_id_sep=doc_id_sep,
                     doc_id_pattern=doc_id_pattern, allow_different_golden=allow_different_golden, alpha=alpha,
                     unjudged=unjudged, corpus=corpus, tokenizer=tokenizer, grades=grades, auto_labels=auto_labels)
    write_output(render(result, fmt, **style), output)
    log_to_mlflow(result, mlflow, None)
