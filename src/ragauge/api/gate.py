"""``gate`` and ``update_baseline`` over a run or a retriever called on the spot; the sequential
gate; the baseline and rules they read."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError, flag
from ragauge.gating import run as gating
from ragauge.gating.baseline import history_path as history_path
from ragauge.gating.baseline import read_baseline as read_baseline
from ragauge.gating.config import load_rules as load_rules
from ragauge.gating.config import rules_in as rules_in
from ragauge.gating.sequential import gate_sequential as gate_sequential
from ragauge.runner.either import run_or_retriever, scoring_sources

if TYPE_CHECKING:
    from ragauge.formats.autolabels import AutoLabels
    from ragauge.gating.check import GateResult
    from ragauge.gating.config import GateRules
    from ragauge.metrics.judged import Unjudged
    from ragauge.runner.calls import Progress

__all__ = ["gate", "gate_sequential", "history_path", "load_rules", "read_baseline", "rules_in", "update_baseline"]


def _baseline(baseline: str | Path | None) -> str | Path:
    if baseline is None:
        raise InputError("a gate needs the baseline file it defends", hint="e.g. baseline='eval/baseline.json'")
    return baseline


def gate(golden: Any, run: Any = None, baseline: str | Path | None = None, *, retriever: Any = None,
         rules: GateRules | str | Path | None = None, fetch: int | None = None, doc_id_sep: str | None = None,
         doc_id_pattern: str | None = None, unjudged: Unjudged = "non-relevant", corpus: str | Path | None = None,
         tokenizer: str | None = None, grades: str | Mapping[float, float] | None = None,
         concurrency: int | None = None, timeout: float | None = None, retries: int | None = None,
         config: Mapping[str, Any] | None = None, progress: Progress | None = None,
         auto_labels: str | Path | AutoLabels | None = None) -> GateResult:
    """Check ``run``, or the answers of ``retriever=`` (asked for ``fetch`` hits, default
    ``ExecutorOptions.fetch``; ``concurrency``, ``timeout``, ``retries``, ``config`` and
    ``progress`` as ``run_retriever`` takes them), against the ``baseline`` file under ``rules``
    (None: the rules the baseline recorded). The scoring contract is ``gating.run.gate``'s;
    ``result.passed`` says whether every rule held, and nothing is raised for a broken rule.
    With ``auto_labels`` (the ``golden assess`` output the baseline was measured with) the golden
    set may leave questions unlabelled and the metric rules decide on the prediction-powered
    difference, shown beside the human-only one in ``result.meta["ppi"]`` (``gating.predicted``)."""
    path = _baseline(baseline)
    g, r, depth, done = run_or_retriever(_partly_labelled(golden, retriever, auto_labels), run, retriever, fetch,
                                         "gate", concurrency=concurrency, timeout=timeout, retries=retries,
                                         config=config, progress=progress)
    return gating.gate(g, r, path, rules=rules, fetch=depth, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern,
                       unjudged=unjudged, tokenizer=tokenizer, grades=grades, auto_labels=auto_labels,
                       **scoring_sources(done, corpus))


def _partly_labelled(golden: Any, retriever: Any, auto_labels: Any) -> Any:
    """The golden set a retriever is asked: with automatic labels, every question, labelled or not."""
    if auto_labels is None or retriever is None:
        return golden
    from ragauge.formats.golden import as_golden

    return as_golden(golden, unlabelled=True)


def update_baseline(golden: Any, run: Any = None, baseline: str | Path | None = None, *, reason: str | None,
                    accept_drop: bool = False, retriever: Any = None, rules: GateRules | str | Path | None = None,
                    fetch: int | None = None, doc_id_sep: str | None = None, doc_id_pattern: str | None = None,
                    unjudged: Unjudged = "non-relevant", corpus: str | Path | None = None,
                    tokenizer: str | None = None, grades: str | Mapping[float, float] | None = None,
                    concurrency: int | None = None, timeout: float | None = None, retries: int | None = None,
                    config: Mapping[str, Any] | None = None, progress: Progress | None = None,
                    auto_labels: str | Path | AutoLabels | None = None) -> dict[str, Any]:
    """Store the scores of ``run``, or of ``retriever=``'s answers (as :func:`gate` calls it), as the
    new ``baseline`` with its history line (``gating.run.update_baseline``: refused without a
    ``reason``, and on a drop unless ``accept_drop``; with ``auto_labels``, recording which labels and
    every question's automatic values, what ``gate(auto_labels=)`` pairs against). Returns the record
    written."""
    path = _baseline(baseline)
    if not reason or not reason.strip():  # refuse before calling the retriever
        raise InputError("a baseline update needs a reason",
                         hint="add " + flag("reason", '"why these numbers are the new bar"'))
    g, r, depth, done = run_or_retriever(_partly_labelled(golden, retriever, auto_labels), run, retriever, fetch,
                                         "update_baseline", concurrency=concurrency, timeout=timeout,
                                         retries=retries, config=config, progress=progress)
    return gating.update_baseline(g, r, path, reason=reason, accept_drop=accept_drop, rules=rules, fetch=depth,
                                  doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                                  tokenizer=tokenizer, grades=grades, auto_labels=auto_labels,
                                  **scoring_sources(done, corpus))
