"""The verbs that score a run *or* a retriever (evaluate, gate, update_baseline) take exactly one, and
refuse beside a run the options only a retriever call has."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragauge
from ragauge.errors import InputError

SCIFACT = Path(__file__).parents[2] / "examples" / "scifact"
GOLDEN, RUN, BASELINE = SCIFACT / "golden.jsonl", SCIFACT / "bm25.run.jsonl", SCIFACT / "baseline.json"


def test_exactly_one_of_a_run_and_a_retriever() -> None:
    with pytest.raises(InputError, match=r"evaluate\(\) takes exactly one of a run or a retriever"):
        ragauge.evaluate(GOLDEN)
    with pytest.raises(InputError, match=r"evaluate\(\) takes exactly one"):
        ragauge.evaluate(GOLDEN, "bm25:x.jsonl", run=RUN)
    with pytest.raises(InputError, match=r"gate\(\) takes exactly one"):
        ragauge.gate(GOLDEN, RUN, BASELINE, retriever="bm25:x.jsonl")
    with pytest.raises(InputError, match=r"update_baseline\(\) takes exactly one"):
        ragauge.update_baseline(GOLDEN, None, "b.json", reason="r")


@pytest.mark.parametrize("options", [{"save_run": "kept.jsonl"}, {"concurrency": 2}, {"resume": True},
                                     {"timeout": 5.0, "retries": 1}, {"doc_id_key": "id"}])
def test_a_run_refuses_what_only_a_retriever_call_takes(options: dict[str, object]) -> None:
    with pytest.raises(InputError, match=f"{', '.join(options)} go\\(es\\) with a retriever, not with a run"):
        ragauge.evaluate(GOLDEN, run=RUN, **options)  # type: ignore[arg-type]


def test_the_gate_refuses_them_too_and_scores_a_run_as_before() -> None:
    with pytest.raises(InputError, match="concurrency go\\(es\\) with a retriever"):
        ragauge.gate(GOLDEN, RUN, BASELINE, concurrency=4)
    assert ragauge.gate(GOLDEN, RUN, BASELINE).passed
    assert ragauge.evaluate(GOLDEN, run=RUN, k=10).summary == ragauge.evaluate_run(GOLDEN, RUN, k=10).summary
