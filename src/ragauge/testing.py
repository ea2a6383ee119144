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
    gate rules (``config``'s ``[gate]`` table, else the rules the baseline recorded; ``unjudged`` as
    the baseline was measured); raise AssertionError with the gate report when a rule fails. A live
    callable is asked for ``fetch`` hits, by default the baseline's fetch depth (20 when the baseline
    kept every hit of a run file, whose contract it then keeps), so the documented path of a
    baseline made from a run file, then a live check, works as written.

    Example::

        def test_retrieval_quality():
            assert_no_regression("eval/golden.jsonl", retrieve=my_search, baseline="eval/baseline.json")
    """
    from ragauge.config import find_config
    from ragauge.data.run import Run
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import RunStream, scored_run
    from ragauge.gating.baseline import read_baseline
    from ragauge.gating.config import rules_in
    from ragauge.gating.run import gate
    from ragauge.reports.gate import render_gate_text

    if (run is None) == (retrieve is None):
        raise TypeError("pass exactly one of run= or retrieve=")
    golden_set = load_golden(golden)
    rules = rules_in(Path(config) if config else find_config())
    if retrieve is not None:
        from ragauge.runner.live import run_retriever

        recorded = read_baseline(Path(baseline)).contract.get("fetch")
        depth = fetch or recorded or 20
        the_run: Run | RunStream = run_retriever(golden_set, retrieve, fetch=depth)
        fetch = fetch if fetch is not None else recorded
    else:
        the_run = scored_run(run)  # type: ignore[arg-type]  # a large file in blocks, as the gate reads it
    result = gate(golden_set, the_run, baseline, rules=rules, fetch=fetch, doc_id_sep=doc_id_sep,
                  doc_id_pattern=doc_id_pattern, unjudged=unjudged)
    if not result.passed:
        raise AssertionError("retrieval regressed against the baseline\n" + render_gate_text(result))
    return result
