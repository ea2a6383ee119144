"""``ragauge gate`` and ``ragauge baseline update``: a CI gate with reviewed baselines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ragauge.api.defaults import DEFAULT_FORMAT, DEFAULT_SEED
from ragauge.cli.options import auto_labels_option, grades_option, texts_options, unjudged_option, write_output
from ragauge.cli.report import no_color_option
from ragauge.cli.run import call_options
from ragauge.reports.registry import formats
from ragauge.runner.options import ExecutorOptions

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged


def _run_options(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed([
        click.argument("golden", type=click.Path(path_type=Path)),
        click.option("--run", "run_path", type=click.Path(path_type=Path), help="Run file (JSONL or TREC)."),
        click.option("--retriever", "spec", help="Call this retriever instead of reading a run (fetches --fetch, "
                                                 f"default {ExecutorOptions.fetch}; HTTP settings from the [retriever] "
                                                 "table of --config)."),
        click.option("--baseline", "baseline_path", required=True, type=click.Path(path_type=Path),
                     help="Baseline JSON file, e.g. eval/baseline.json."),
        click.option("--config", "config_path", type=click.Path(path_type=Path),
                     help="Rules file (ragauge.toml or pyproject.toml); default: found in the working directory."),
        click.option("--fetch", type=int, help="Keep each query's first N raw hits before deduplication."),
        *call_options("With --retriever: "),
        click.option("--doc-id-sep", help="Map chunk ids to document ids: the text before this separator."),
        click.option("--doc-id-pattern", help="Map chunk ids to document ids: the first group of this regex."),
        unjudged_option(),
        grades_option(),
        auto_labels_option(),
        texts_options,
        no_color_option("the warnings"),
    ]):
        f = option(f)
    return f


def _checked(run_path: Path | None, spec: str | None, config_path: Path | None) -> Any:
    """The rules of --config (or the config found here; None: the rules the baseline recorded),
    after checking exactly one of --run and --retriever is given."""
    from ragauge.api.gate import rules_in
    from ragauge.config import find_config
    from ragauge.errors import InputError

    if (run_path is None) == (spec is None):
        raise InputError("give either --run FILE or --retriever SPEC", hint="e.g. --retriever bm25:corpus.jsonl")
    return rules_in(config_path or find_config())


def _call(verb: Callable[..., Any], golden: Path, run_path: Path | None, spec: str | None, baseline_path: Path,
          config_path: Path | None, concurrency: int, timeout: float, retries: int, no_color: bool,
          **options: Any) -> Any:
    """``verb`` (``ragauge.gate`` or ``ragauge.update_baseline``) over the run file, or over the
    retriever's answers with a progress line and the notes of ``ragauge run``."""
    if spec is None:
        return verb(golden, run_path, baseline_path, **options)
    from ragauge.cli.run import calling
    from ragauge.config import retriever_config

    with calling(spec, timeout=timeout, no_color=no_color) as progress:
        return verb(golden, None, baseline_path, retriever=spec, concurrency=concurrency, timeout=timeout,
                    retries=retries, config=retriever_config(config_path), progress=progress, **options)


@click.command("gate")
@_run_options
@click.option("--sequential", is_flag=True,
              help="With --retriever: ask the questions in a seeded random order and stop as soon as every tested "
                   "rule is decided (anytime-valid tests; needs fail_if significant, drop_and_significant or "
                   "not_shown_no_worse, and no tag floors).")
@click.option("--seed", default=DEFAULT_SEED, show_default=True,
              help="The question order of a --sequential gate.")
@click.option("--format", "fmt", type=click.Choice(formats("gate")), default=DEFAULT_FORMAT,
              show_default=True)
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Write the report here instead of stdout.")
def gate_command(golden: Path, run_path: Path | None, spec: str | None, baseline_path: Path, config_path: Path | None,
                 fetch: int | None, doc_id_sep: str | None, doc_id_pattern: str | None, unjudged: Unjudged,
                 grades: str | None, auto_labels: Path | None, corpus: Path | None, tokenizer: str | None,
                 sequential: bool, seed: int, fmt: str, output: Path | None, concurrency: int, timeout: float,
                 retries: int, no_color: bool) -> None:
    """Fail (exit 1) when the run falls below the baseline under the gate rules.

    Rules (allowed drop per metric, per-tag floors, critical questions, significance) come
    from the [gate] table of ragauge.toml or [tool.ragauge] in pyproject.toml; without one,
    the gate defends the rules recorded in the baseline. Rules looser than those fail the
    gate: loosening them is a baseline update with --reason and --accept-drop.

    With --auto-labels (the 'golden assess' labels the baseline was measured with) the golden
    set may leave questions unlabelled ("relevant": null): each metric rule decides on the
    prediction-powered difference from the baseline (interval valid at every n), shown beside the
    human-only figure. Exit 2 without any human label, or with labels not the baseline's.

    \b
    Examples:
      ragauge gate golden.jsonl --run runs/new.jsonl --baseline eval/baseline.json --format markdown
      ragauge gate golden.jsonl --run runs/new.jsonl --baseline eval/baseline.json --auto-labels auto.jsonl
    """
    from ragauge.api.gate import gate, gate_sequential
    from ragauge.api.report import render
    from ragauge.errors import GateFailure, InputError

    if sequential:
        from ragauge.api.gate import rules_in
        from ragauge.config import find_config, retriever_config

        if spec is None or run_path is not None:
            raise InputError("--sequential calls the retriever itself: give --retriever SPEC, not --run",
                             hint="a run file already holds every answer: gate it without --sequential")
        if auto_labels is not None:
            raise InputError("a --sequential gate decides on human labels only: --auto-labels does not go with it",
                             hint="gate without --sequential")
        unread = [flag for flag, value in (("--grades", grades), ("--corpus", corpus), ("--tokenizer", tokenizer),
                                           ("--doc-id-sep", doc_id_sep), ("--doc-id-pattern", doc_id_pattern))
                  if value is not None] + (["--unjudged"] if unjudged != "non-relevant" else [])
        if unread:  # the sequential gate scores with the baseline's fetch only: never ignore an option in silence
            raise InputError(f"a sequential gate does not take {', '.join(unread)}",
                             hint="gate without --sequential to use them")
        result = gate_sequential(golden, spec, baseline_path, rules=rules_in(config_path or find_config()),
                                 seed=seed, fetch=fetch, concurrency=concurrency, timeout=timeout, retries=retries,
                                 config=retriever_config(config_path))
    else:
        from ragauge.config import eval_grades

        rules = _checked(run_path, spec, config_path)
        result = _call(gate, golden, run_path, spec, baseline_path, config_path, concurrency, timeout, retries,
                       no_color, rules=rules, fetch=fetch, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern,
                       unjudged=unjudged, corpus=corpus, tokenizer=tokenizer,
                       grades=grades if grades is not None else eval_grades(config_path), auto_labels=auto_labels)
    write_output(render(result, fmt), output)
    if not result.passed:
        broken = "; ".join(o.rule for o in result.failures[:3])
        more = f"; +{len(result.failures) - 3} more" if len(result.failures) > 3 else ""
        raise GateFailure(f"gate failed: {len(result.failures)} rule(s) broken ({broken}{more})")


@click.group("baseline")
def baseline_group() -> None:
    """Manage the baseline a gate defends.

    \b
    Example:
      ragauge baseline update golden.jsonl --run runs/new.jsonl --baseline eval/baseline.json --reason "new reranker"
    """


@baseline_group.command("update")
@_run_options
@click.option("--reason", help="Why these numbers are the new bar (required; recorded with your git identity).")
@click.option("--accept-drop", is_flag=True, help="Allow a baseline worse than the current one (the drop is recorded).")
def baseline_update_command(golden: Path, run_path: Path | None, spec: str | None, baseline_path: Path,
                            config_path: Path | None, fetch: int | None, doc_id_sep: str | None,
                            doc_id_pattern: str | None, unjudged: Unjudged, grades: str | None,
                            auto_labels: Path | None, corpus: Path | None, tokenizer: str | None, reason: str | None,
                            accept_drop: bool, concurrency: int, timeout: float, retries: int,
                            no_color: bool) -> None:
    """Write a new baseline (atomically) and append it to the history beside it.

    Refused without --reason; refused when any metric is worse than the current baseline
    (lower, or higher for a count such as calls) unless --accept-drop. The history file
    (baseline.history.jsonl) makes every lowering visible in review. With --auto-labels the
    baseline records which automatic labels it was measured with and every question's automatic
    values, what 'gate --auto-labels' pairs against.

    \b
    Example:
      ragauge baseline update golden.jsonl --run runs/new.jsonl --baseline eval/baseline.json --reason "BM25 -> hybrid"
    """
    from ragauge.api.gate import history_path, update_baseline

    rules = _checked(run_path, spec, config_path)
    if grades is None:
        from ragauge.config import eval_grades

        grades = eval_grades(config_path)
    record = _call(update_baseline, golden, run_path, spec, baseline_path, config_path, concurrency, timeout, retries,
                   no_color, reason=reason, accept_drop=accept_drop, rules=rules, fetch=fetch, doc_id_sep=doc_id_sep,
                   doc_id_pattern=doc_id_pattern, unjudged=unjudged, corpus=corpus, tokenizer=tokenizer,
                   grades=grades, auto_labels=auto_labels)
    values = ", ".join(f"{m}={v:.4f}" for m, v in record["metrics"].items())
    drops = f"; accepted drops: {', '.join(record['accepted_drops'])}" if record["accepted_drops"] else ""
    click.echo(f"baseline written to {baseline_path} ({values}){drops}; history: {history_path(baseline_path)}",
               err=True)
