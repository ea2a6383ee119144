"""``evaluate``: score a run, or a retriever called on the spot, against a golden set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.metrics.spec import DEFAULT_K
from ragauge.metrics.spec import parse_metric as parse_metric
from ragauge.predicted.evaluate import evaluate_run as evaluate_run

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.formats.autolabels import AutoLabels
    from ragauge.metrics.judged import Unjudged
    from ragauge.metrics.spec import MetricSpec
    from ragauge.runner.calls import Progress

__all__ = ["evaluate", "evaluate_run", "parse_metric"]

def evaluate(golden: Any, retriever: Any = None, *, run: Any = None, run_format: str = "auto",
             k: int | Sequence[int] = DEFAULT_K, metrics: Sequence[str | MetricSpec] | str | None = None,
             fetch: int | None = None, concurrency: int | None = None, timeout: float | None = None,
             retries: int | None = None, on_error: str = "zero", save_run: str | Path | None = None,
             resume: bool = False, doc_id_key: str | None = None, doc_id_sep: str | None = None,
             doc_id_pattern: str | None = None, config: Mapping[str, Any] | None = None,
             unjudged: Unjudged = "non-relevant", corpus: str | Path | Mapping[str, str] | None = None,
             tokenizer: str | None = None, mix_synthetic: bool = False,
             grades: str | Mapping[float, float] | None = None, progress: Progress | None = None,
             auto_labels: str | Path | AutoLabels | None = None) -> Evaluation:
    """Score ``golden`` against exactly one of ``retriever`` or ``run=``.

    With ``retriever`` (a spec string, a function ``fn(query, n)``, a framework object or an
    adapter) every question is asked for ``fetch`` hits (default ``ExecutorOptions.fetch``) as
    :func:`run_retriever` asks, keeping the run in ``save_run`` when given; failed questions score 0
    (``on_error="zero"``) or are left out of the means (``"skip"``). When the adapter lists its
    documents, relevant ids missing from the index are stale labels, not misses; ``corpus`` (a
    file, folder or ``{doc_id: text}``) adds the text-based failure patterns, and by default is the
    corpus a built-in retriever indexed.

    With ``run=`` (a run file in ``run_format`` auto, jsonl or trec; a Run; ``{qid: [doc, ...]}``)
    the options are those of ``evaluate_run``; ``fetch`` then cuts each question's raw hits
    (default: all). The options that only a retriever call has (``save_run``, ``resume``,
    ``concurrency``, ``timeout``, ``retries``, ``doc_id_key``, ``config``, ``progress``) are
    refused with a run.

    With ``auto_labels`` (a ``golden assess`` output) the golden set may leave questions unlabelled
    (``"relevant": null``): each metric's prediction-powered estimate and interval stand beside the
    human-only ones in ``meta["ppi"]`` (``ragauge.predicted.evaluate``)."""
    options: dict[str, Any] = {
        "metrics": metrics, "k": k, "doc_id_sep": doc_id_sep, "doc_id_pattern": doc_id_pattern,
        "on_error": "skip" if on_error == "skip" else "zero", "unjudged": unjudged,
        "mix_synthetic": mix_synthetic, "tokenizer": tokenizer, "grades": grades, "auto_labels": auto_labels,
    }
    from ragauge.runner.either import run_or_retriever, scoring_sources

    if auto_labels is not None and retriever is not None:  # the retriever is asked every question, labelled or not
        from ragauge.formats.golden import as_golden

        golden = as_golden(golden, unlabelled=True)
    golden, run, depth, done = run_or_retriever(
        golden, run, retriever, fetch, "evaluate", save_run=save_run, on_error=on_error, resume=resume,
        concurrency=concurrency, timeout=timeout, retries=retries, doc_id_key=doc_id_key, config=config,
        progress=progress)
    if done is None:
        if isinstance(run, (str, Path)):
            from ragauge.formats.runs import run_source

            run = run_source(Path(run), run_format)
        return evaluate_run(golden, run, fetch=depth, corpus=corpus, **options)
    return evaluate_run(golden, run, fetch=depth, **scoring_sources(done, corpus), **options)
