"""Trajectory metrics (multi-call runs) against a reference written from their contract, on random
trajectories; and with one call per question, each equals today's metric."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import ragauge

K = (1, 3, 10)
TRAJECTORY = ["calls", "calls_to_evidence", "calls_to_complete", "wasted_calls"]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _random_set(rng: random.Random, n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    docs = [f"d{i}" for i in range(12)]
    golden, run = [], []
    for i in range(n):
        qid = f"q{i}"
        if rng.random() < 0.5:
            groups = [rng.sample(docs, rng.randint(1, 2)) for _ in range(rng.randint(1, 3))]
            golden.append({"id": qid, "query": f"question {i}", "evidence": groups})
        else:
            golden.append({"id": qid, "query": f"question {i}", "relevant": rng.sample(docs, rng.randint(1, 3))})
        calls = [{"query": f"sub {j}", "hits": [rng.choice(docs) for _ in range(rng.randint(0, 4))],
                  "tool": rng.choice(["search", "lookup"])} for j in range(rng.randint(1, 5))]
        run.append({"id": qid, "calls": calls})
    return golden, run


def _reference(item: dict[str, Any], line: dict[str, Any]) -> dict[str, float]:
    """The contract of metrics.trajectory and evidence_recall/complete, written out plainly."""
    groups = [set(g) for g in item["evidence"]] if "evidence" in item else [{d} for d in item["relevant"]]
    relevant = set().union(*groups)
    first: dict[str, int] = {}  # document -> 1-based call that first returned it
    for number, call in enumerate(line["calls"], 1):
        for doc in call["hits"]:
            first.setdefault(doc, number)
    order = list(first)  # the trajectory, folded in first-seen order
    calls = len(line["calls"])
    rel_calls = [first[d] for d in order if d in relevant]
    group_calls = [min((first[d] for d in g if d in first), default=None) for g in groups]
    out = {
        "calls": calls,
        "calls_to_evidence": min(rel_calls) if rel_calls else calls + 1,
        "calls_to_complete": max(group_calls) if None not in group_calls else calls + 1,  # type: ignore[type-var]
        "wasted_calls": calls - len(set(rel_calls)),
    }
    for k in K:
        top = set(order[:k])
        found = sum(1 for g in groups if g & top)
        out[f"evidence_recall@{k}"] = found / len(groups)
        out[f"complete@{k}"] = float(found == len(groups))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_trajectory_metrics_match_the_contract_on_random_trajectories(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    golden, run = _random_set(rng, 40)
    metrics = TRAJECTORY + [f"{m}@{k}" for m in ("evidence_recall", "complete") for k in K]
    ev = ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run=_write(tmp_path / "r.jsonl", run),
                          metrics=metrics)
    by_id = {q.id: q for q in ev.queries}
    for item, line in zip(golden, run):
        expected = _reference(item, line)
        got = by_id[item["id"]].values
        assert got == pytest.approx(expected), item["id"]


@pytest.mark.parametrize("seed", range(4))
def test_one_call_per_question_is_todays_run(tmp_path: Path, seed: int) -> None:
    rng = random.Random(100 + seed)
    golden, run = _random_set(rng, 30)
    plain = [{"id": r["id"], "hits": r["calls"][0]["hits"]} for r in run]
    single = [{"id": r["id"], "calls": [r["calls"][0]]} for r in run]
    g = _write(tmp_path / "g.jsonl", golden)
    shared = ["hit@3", "recall@3", "precision@3", "mrr", "ndcg@10", "map", "rprec", "evidence_recall@3",
              "complete@10", "hit@1000", "complete@1000"]
    a = ragauge.evaluate(g, run=_write(tmp_path / "plain.jsonl", plain), metrics=shared + TRAJECTORY)
    b = ragauge.evaluate(g, run=_write(tmp_path / "single.jsonl", single), metrics=shared + TRAJECTORY)
    for qa, qb in zip(a.queries, b.queries):
        assert qa.values == pytest.approx(qb.values)
        v = qa.values
        assert v["calls"] == 1
        assert v["calls_to_evidence"] == 2 - v["hit@1000"]
        assert v["calls_to_complete"] == 2 - v["complete@1000"]
        assert v["wasted_calls"] == 1 - v["hit@1000"]


def test_a_document_found_again_is_no_new_evidence(tmp_path: Path) -> None:
    golden = [{"id": "q", "query": "x", "evidence": [["a", "b"], ["c"]]}]
    run = [{"id": "q", "calls": [{"hits": ["z", "a"]}, {"hits": ["a"]}, {"hits": ["b"]}, {"hits": ["c", "a"]}]}]
    ev = ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run=_write(tmp_path / "r.jsonl", run),
                          metrics=TRAJECTORY + ["evidence_recall@2", "evidence_recall@3", "complete@4"])
    v = ev.queries[0].values
    # call 2 brings "a" again: wasted; call 3 brings "b", a new relevant document of a group already
    # provided: not wasted; call 4 completes the evidence. The union "z a b c" at k = 2 holds one group.
    assert v == {"calls": 4, "calls_to_evidence": 1, "calls_to_complete": 4, "wasted_calls": 1,
                 "evidence_recall@2": 0.5, "evidence_recall@3": 0.5, "complete@4": 1.0}


def test_a_question_that_never_finds_its_evidence_counts_one_more_call(tmp_path: Path) -> None:
    golden = [{"id": "q", "query": "x", "relevant": ["a", "b"]}]
    run = [{"id": "q", "calls": [{"hits": ["a"]}, {"hits": []}]}]
    ev = ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run=_write(tmp_path / "r.jsonl", run),
                          metrics=TRAJECTORY)
    assert ev.queries[0].values == {"calls": 2, "calls_to_evidence": 1, "calls_to_complete": 3, "wasted_calls": 1}


def test_trajectory_metrics_are_documented_with_formulas() -> None:
    from ragauge.metrics.registry import METRICS

    for name in TRAJECTORY:
        family = METRICS[name]
        assert family.lower_is_better and family.cutoff == "none" and family.formula and family.doc


def test_token_budgets_count_the_trajectory_in_call_order(tmp_path: Path) -> None:
    golden = [{"id": "q", "query": "x", "evidence": [["a"], ["b"]]}]
    hit = lambda d, n: {"doc_id": d, "length": n}  # noqa: E731
    run = [{"id": "q", "calls": [{"hits": [hit("z", 50), hit("a", 100)]}, {"hits": [hit("a", 100), hit("b", 80)]}]}]
    ev = ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run=_write(tmp_path / "r.jsonl", run),
                          metrics=["evidence_recall@150t", "evidence_recall@250t", "evidence_recall@330t",
                                   "complete@330t"])
    # 50 + 100 words hold "z a"; the second call's "a" costs its 100 words again (a budget counts every
    # hit sent) and "b" fits only within 330
    assert ev.queries[0].values == {"evidence_recall@150t": 0.5, "evidence_recall@250t": 0.5,
                                    "evidence_recall@330t": 1.0, "complete@330t": 1.0}


def test_a_question_missing_from_a_multi_call_run_never_looks_cheaper(tmp_path: Path) -> None:
    golden = [{"id": "a", "query": "x", "relevant": ["d"]}, {"id": "b", "query": "y", "relevant": ["e"]}]
    run = [{"id": "a", "calls": [{"hits": ["z"]}, {"hits": ["d"]}]}]
    ev = ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run=_write(tmp_path / "r.jsonl", run),
                          metrics=TRAJECTORY)
    # scored as in a plain run: one call that found nothing
    assert ev.queries[1].values == {"calls": 1, "calls_to_evidence": 2, "calls_to_complete": 2, "wasted_calls": 1}
