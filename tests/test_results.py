"""Every result type round-trips through its versioned dict and the one JSON encoder: a file
written by this version loads in the next."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragauge
from ragauge.core.jsonl import dumps

MINI = Path(__file__).parent / "fixtures" / "mini"


def through_json(value: dict) -> dict:  # type: ignore[type-arg]
    return json.loads(dumps(value))


@pytest.fixture(scope="module")
def evaluation() -> ragauge.Evaluation:
    return ragauge.evaluate_run(MINI / "golden.jsonl", MINI / "run.jsonl", k=[1, 3], doc_id_sep="#")


def test_evaluation(evaluation: ragauge.Evaluation) -> None:
    back = ragauge.Evaluation.from_dict(through_json(evaluation.to_dict()))
    assert back.to_dict() == through_json(evaluation.to_dict())


def test_comparison() -> None:
    example = Path(__file__).parent.parent / "examples" / "scifact"
    comparison = ragauge.compare(example / "bm25-nostem.run.jsonl", example / "bm25.run.jsonl",
                                 golden=example / "golden.jsonl", k=10)
    back = ragauge.Comparison.from_dict(through_json(comparison.to_dict()))
    assert dumps(back.to_dict()) == dumps(comparison.to_dict())


def test_gate_result_and_baseline(tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    ragauge.update_baseline(MINI / "golden.jsonl", MINI / "run.jsonl", path, reason="first", doc_id_sep="#")
    result = ragauge.gate(MINI / "golden.jsonl", MINI / "run.jsonl", path, doc_id_sep="#")
    assert result.passed
    assert ragauge.GateResult.from_dict(through_json(result.to_dict())) == result
    baseline = ragauge.read_baseline(path)
    assert ragauge.Baseline.from_dict(through_json(baseline.to_dict()), path) == baseline
    broken = dict(baseline.to_dict(), metrics={"mrr": 1.5})
    with pytest.raises(ragauge.InputError, match="in \\[0, 1\\]"):
        ragauge.Baseline.from_dict(broken)


def test_golden_queries_hits_and_query_results() -> None:
    for q in ragauge.load_golden(MINI / "golden.jsonl"):
        back = ragauge.GoldenQuery.from_dict(through_json(q.to_dict()))
        assert (back.id, back.query, dict(back.relevant), back.tags) == (q.id, q.query, dict(q.relevant), q.tags)
    for r in ragauge.read_run(MINI / "run.jsonl").results():
        assert ragauge.QueryResult.from_dict(through_json(r.to_dict())) == r
        assert all(ragauge.Hit.from_dict(through_json(h.to_dict())) == h for h in r.hits)
