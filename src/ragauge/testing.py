"""A pytest helper for teams that gate retrieval quality inside their own test suite."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.gating.check import GateResult

if TYPE_CHECKING:
    from ragauge.gating.config import GateRules
    from ragauge.metrics.judged import Unjudged


def assert_no_regression(
    golden: str | Path,
    run: str | Path | None = None,
    *,
    retrieve: Callable[[str, int], Any] | None = None,
    baseline: str | Path = "eval/baseline.json",
    rules: GateRules | str | Path | None = None,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    unjudged: Unjudged = "non-relevant",
    config: str | Path | None = None,
) -> GateResult:
    """Check a run file (or a live ``retrieve(query, n)`` callable) against the baseline under the
    gate ``rules`` (a GateRules, or a config file whose ``[gate]`` table holds them; by default the
    ragauge.toml found here, else the rules the baseline recorded; ``unjudged`` as the baseline was
    measured), as ``ragauge.gate`` names them; raise AssertionError with the gate report when a rule
    fails. ``config=`` is the former name of ``rules=``: it still works, with a DeprecationWarning. A live
    callable is asked for ``fetch`` hits, by default the baseline's fetch depth (20 when the baseline
    kept every hit of a run file, whose contract it then keeps), so the documented path of a
    baseline made from a run file, then a live check, works as written.

    Example::

        def test_retrieval_quality():
            assert_no_regression("eval/golden.jsonl", retrieve=my_search, baseline="eval/baseline.json")
    """
    from ragauge.api.files import load_golden
    from ragauge.api.gate import gate, read_baseline, rules_in
    from ragauge.config import find_config
    from ragauge.data.run import Run
    from ragauge.formats.runs import RunStream, scored_run
    from ragauge.gating.config import GateRules
    from ragauge.reports.gate import render_gate_text

    if (run is None) == (retrieve is None):
        raise TypeError("pass exactly one of run= or retrieve=")
    if config is not None:
        import warnings

        if rules is not None:
            raise TypeError("pass rules= (config= is its former name), not both")
        warnings.warn("assert_no_regression(config=...) is now rules=..., as ragauge.gate names it",
                      DeprecationWarning, stacklevel=2)
        rules = config
    golden_set = load_golden(golden)
    if not isinstance(rules, GateRules):
        rules = rules_in(Path(rules) if rules else find_config())
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
