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
from ragauge.runner.either import run_or_retriever

if TYPE_CHECKING:
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
         config: Mapping[str, Any] | None = None, progress: Progress | None = None) -> GateResult:
    """Check ``run``, or the answers of ``retriever=`` (asked for ``fetch`` hits, default
    ``ExecutorOptions.fetch``; ``concurrency``, ``timeout``, ``retries``, ``config`` and
    ``progress`` as ``run_retriever`` takes them), against the ``baseline`` file under ``rules``
    (None: the rules the baseline recorded). The scoring contract is ``gating.run.gate``'s;
    ``result.passed`` says whether every rule held, and nothing is raised for a broken rule."""
    path = _baseline(baseline)
    g, r, depth, _ = run_or_retriever(golden, run, retriever, fetch, "gate", concurrency=concurrency,
                                      timeout=timeout, retries=retries, config=config, progress=progress)
    return gating.gate(g, r, path, rules=rules, fetch=depth, doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern,
                       unjudged=unjudged, corpus=corpus, tokenizer=tokenizer, grades=grades)


def update_baseline(golden: Any, run: Any = None, baseline: str | Path | None = None, *, reason: str | None,
                    accept_drop: bool = False, retriever: Any = None, rules: GateRules | str | Path | None = None,
                    fetch: int | None = None, doc_id_sep: str | None = None, doc_id_pattern: str | None = None,
                    unjudged: Unjudged = "non-relevant", corpus: str | Path | None = None,
                    tokenizer: str | None = None, grades: str | Mapping[float, float] | None = None,
                    concurrency: int | None = None, timeout: float | None = None, retries: int | None = None,
                    config: Mapping[str, Any] | None = None, progress: Progress | None = None) -> dict[str, Any]:
    """Store the scores of ``run``, or of ``retriever=``'s answers (as :func:`gate` calls it), as the
    new ``baseline`` with its history line (``gating.run.update_baseline``: refused without a
    ``reason``, and on a drop unless ``accept_drop``). Returns the record written."""
    path = _baseline(baseline)
    if not reason or not reason.strip():  # refuse before calling the retriever
        raise InputError("a baseline update needs a reason",
                         hint="add " + flag("reason", '"why these numbers are the new bar"'))
    g, r, depth, _ = run_or_retriever(golden, run, retriever, fetch, "update_baseline", concurrency=concurrency,
                                      timeout=timeout, retries=retries, config=config, progress=progress)
    return gating.update_baseline(g, r, path, reason=reason, accept_drop=accept_drop, rules=rules, fetch=depth,
                                  doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern, unjudged=unjudged,
                                  corpus=corpus, tokenizer=tokenizer, grades=grades)
