"""A pytest helper for teams that gate retrieval quality inside their own test suite."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.gating.check import GateResult

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged


def assert_no_regression(
    golden: str | Path,
    run: str | Path | None = None,
    *,
    retrieve: Callable[[str, int], Any] | None = None,
    baseline: str | Path = "eval/baseline.json",
    config: str | Path | None = None,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    unjudged: Unjudged = "non-relevant",
) -> GateResult:
    """Check a run file (or a live ``retrieve(query, n)`` callable) against the baseline under the
    gate rules (``unjudged`` as the baseline was measured); raise AssertionError with the gate
    report when a rule fails.

    Example::

        def test_retrieval_quality():
            assert_no_regression("eval/golden.jsonl", retrieve=my_search, baseline="eval/baseline.json")
    """
    from ragauge.config import find_config
    from ragauge.data.run import Run
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import RunStream, scored_run
    from ragauge.gating.config import load_rules
    from ragauge.gating.run import gate
    from ragauge.reports.gate import render_gate_text

    if (run is None) == (retrieve is None):
        raise TypeError("pass exactly one of run= or retrieve=")
    golden_set = load_golden(golden)
    rules = load_rules(Path(config) if config else find_config())
    if retrieve is not None:
        from ragauge.retrieve.live import run_retriever

        the_run: Run | RunStream = run_retriever(golden_set, retrieve, fetch=fetch or 20)
        fetch = fetch or 20
    else:
        the_run = scored_run(run)  # type: ignore[arg-type]  # a large file in blocks, as the gate reads it
    result = gate(golden_set, the_run, baseline, rules=rules, fetch=fetch, doc_id_sep=doc_id_sep,
                  doc_id_pattern=doc_id_pattern, unjudged=unjudged)
    if not result.passed:
        raise AssertionError("retrieval regressed against the baseline\n" + render_gate_text(result))
    return result
