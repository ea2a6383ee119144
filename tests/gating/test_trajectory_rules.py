"""Gates and comparisons read a count of calls the right way up: more calls for the same evidence
is worse, fewer is better."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragauge
from ragauge.gating.config import GateRules

N = 40


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    golden = tmp_path / "golden.jsonl"
    golden.write_text("".join(json.dumps({"id": f"q{i}", "query": f"question {i}", "relevant": [f"d{i}"]}) + "\n"
                              for i in range(N)), encoding="utf-8")
    direct, detour = tmp_path / "direct.jsonl", tmp_path / "detour.jsonl"
    direct.write_text("".join(json.dumps({"id": f"q{i}", "calls": [{"query": "q", "hits": [f"d{i}", "x"]}]}) + "\n"
                              for i in range(N)), encoding="utf-8")
    # the same evidence, but two thirds of the questions need two wasted calls first
    detour.write_text("".join(json.dumps({"id": f"q{i}", "calls": (
        [{"query": "a", "hits": ["x"]}, {"query": "b", "hits": ["y"]}] if i % 3 else []) +
        [{"query": "c", "hits": [f"d{i}", "x"]}]}) + "\n" for i in range(N)), encoding="utf-8")
    return golden, direct, detour


def test_compare_calls_more_calls_for_the_same_evidence_worse(tmp_path: Path) -> None:
    golden, direct, detour = _files(tmp_path)
    c = ragauge.compare(direct, detour, golden=golden, metrics=["recall@10", "calls_to_evidence", "wasted_calls"])
    assert c.metrics["recall@10"].verdict == "no question changed"
    for m in ("calls_to_evidence", "wasted_calls"):
        d = c.metrics[m]
        assert d.diff > 0 and d.worse == 26 and d.better == 0, m
        assert d.verdict == "worse (significant)", m
        assert d.ci[0] > 0 and d.ci[1] <= 2.0
    back = ragauge.compare(detour, direct, golden=golden, metrics=["calls_to_evidence"])
    assert back.metrics["calls_to_evidence"].verdict == "better (significant)"
    assert back.metrics["calls_to_evidence"].better == 26


@pytest.mark.parametrize("fail_if", ["drop", "significant", "drop_and_significant"])
def test_the_gate_fails_when_the_agent_needs_more_calls(tmp_path: Path, fail_if: str) -> None:
    golden, direct, detour = _files(tmp_path)
    baseline = tmp_path / "baseline.json"
    rules = GateRules(metrics={"recall@10": 0.02, "calls_to_evidence": 0.5}, fail_if=fail_if)
    ragauge.update_baseline(golden, direct, baseline, reason="the direct agent", rules=rules)
    result = ragauge.gate(golden, detour, baseline, rules=rules)
    failed = {o.rule for o in result.failures}
    assert not result.passed
    assert any("calls_to_evidence" in r and "rise" in r for r in failed), failed
    assert not any("recall@10" in r for r in failed)
    assert ragauge.gate(golden, direct, baseline, rules=rules).passed
    # fewer calls is no regression: the detour as baseline, the direct agent passes
    ragauge.update_baseline(golden, detour, tmp_path / "b2.json", reason="detour", rules=rules)
    assert ragauge.gate(golden, direct, tmp_path / "b2.json", rules=rules).passed


def test_a_baseline_update_that_needs_more_calls_is_a_drop(tmp_path: Path) -> None:
    golden, direct, detour = _files(tmp_path)
    baseline = tmp_path / "baseline.json"
    rules = GateRules(metrics={"calls_to_evidence": 0.5})
    ragauge.update_baseline(golden, direct, baseline, reason="first", rules=rules)
    with pytest.raises(ragauge.InputError, match="calls_to_evidence"):
        ragauge.update_baseline(golden, detour, baseline, reason="worse", rules=rules)
    ragauge.update_baseline(golden, detour, tmp_path / "b.json", reason="first", rules=rules)
    ragauge.update_baseline(golden, direct, tmp_path / "b.json", reason="fewer calls", rules=rules)


def test_sequential_testing_refuses_a_count_of_calls() -> None:
    from ragauge.metrics.spec import refuse_counts

    with pytest.raises(ragauge.InputError, match="cannot decide on calls_to_evidence"):
        refuse_counts(["ndcg@10", "calls_to_evidence"], "a sequential gate")
    refuse_counts(["ndcg@10"], "a sequential gate")
