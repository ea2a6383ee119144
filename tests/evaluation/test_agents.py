"""Retrieval inside agents and conversations, as an evaluation reports it: where a trajectory's
evidence came from (per call, per tool), stages side by side, metrics by turn of a conversation."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.metrics.overlap import rbo


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_trajectory_breakdown_counts_what_each_call_and_tool_found(tmp_path: Path) -> None:
    golden = [{"id": "a", "query": "x", "relevant": ["d1", "d2"]}, {"id": "b", "query": "y", "relevant": ["d3"]},
              {"id": "c", "query": "z", "relevant": []}]
    run = [{"id": "a", "calls": [{"hits": ["d1", "n"], "tool": "search", "latency_ms": 5, "cost": 0.5},
                                 {"hits": ["d1"], "tool": "lookup", "latency_ms": 2},
                                 {"hits": ["d2"], "tool": "search", "latency_ms": 4}]},
           {"id": "b", "calls": [{"hits": ["n"], "tool": "search", "latency_ms": 1}, {"hits": ["d3"]}]},
           {"id": "c", "calls": [{"hits": ["n"], "tool": "search"}]}]  # no-answer: not in the breakdown
    ev = ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run=_write(tmp_path / "r.jsonl", run),
                          metrics=["recall@10", "wasted_calls"])
    t = ev.meta["trajectories"]
    assert (t["questions"], t["calls"], t["found"]) == (2, 5, 3)
    assert t["by_call"]["1"] == {"calls": 2, "found": 1, "wasted": 1, "latency_ms": 6.0, "cost": 0.5,
                                 "share_found": pytest.approx(1 / 3)}
    assert t["by_call"]["2"]["found"] == 1 and t["by_call"]["3"]["found"] == 1
    assert t["by_tool"]["search"] == {"calls": 3, "found": 2, "wasted": 1, "latency_ms": 10.0, "cost": 0.5,
                                      "share_found": pytest.approx(2 / 3)}
    assert t["by_tool"]["lookup"]["wasted"] == 1
    assert t["by_tool"]["(no tool)"]["found"] == 1
    assert t["by_tool"]["(no tool)"]["latency_ms"] is None  # no call gave one: unknown, not 0
    assert t["by_tool"]["lookup"]["cost"] is None
    assert ev.summary["wasted_calls"] == pytest.approx((1 + 1) / 2)
    assert ragauge.evaluate(_write(tmp_path / "g.jsonl", golden), run={"a": ["d1"], "b": ["d3"]}).meta.get(
        "trajectories") is None


def _staged(tmp_path: Path, seed: int = 3) -> tuple[Path, Path, list[dict[str, Any]]]:
    rng = random.Random(seed)
    golden, run = [], []
    for i in range(30):
        docs = [f"d{j}" for j in range(15)]
        golden.append({"id": f"q{i}", "query": f"q {i}", "relevant": rng.sample(docs, 2)})
        first = rng.sample(docs, 10)
        rerank = rng.sample(first, 6)
        run.append({"id": f"q{i}", "calls": [{"hits": first, "stage": "first"}, {"hits": rerank, "stage": "rerank"}]})
    return _write(tmp_path / "g.jsonl", golden), _write(tmp_path / "r.jsonl", run), run


def test_stages_are_scored_side_by_side(tmp_path: Path) -> None:
    golden, path, run = _staged(tmp_path)
    ev = ragauge.evaluate(golden, run=path, metrics=["recall@3", "ndcg@5"])
    stages = ev.meta["stages"]
    assert stages["order"] == ["first", "rerank"] and stages["scored"] == "rerank"
    first = ragauge.evaluate(golden, run={r["id"]: r["calls"][0]["hits"] for r in run}, metrics=["recall@3", "ndcg@5"])
    rerank = ragauge.evaluate(golden, run={r["id"]: r["calls"][1]["hits"] for r in run}, metrics=["recall@3", "ndcg@5"])
    assert stages["metrics"]["first"] == pytest.approx(first.summary)
    assert stages["metrics"]["rerank"] == pytest.approx(rerank.summary)
    assert ev.summary == pytest.approx(rerank.summary)
    step = stages["steps"][0]
    rel = {q.id: set(q.relevant) for q in first.queries}
    promoted = sum(len(set(r["calls"][1]["hits"][:5]) & rel[r["id"]] - set(r["calls"][0]["hits"][:5]))
                   for r in run)
    demoted = sum(len(set(r["calls"][0]["hits"][:5]) & rel[r["id"]] - set(r["calls"][1]["hits"][:5]))
                  for r in run)
    assert (step["from"], step["to"], step["k"]) == ("first", "rerank", 5)
    assert (step["promoted"], step["demoted"]) == (promoted, demoted)
    shown = {q.id: [x.doc_id for x in q.top] for q in first.queries}
    after = {q.id: [x.doc_id for x in q.top] for q in rerank.queries}
    assert step["rbo"] == pytest.approx(sum(rbo(shown[q], after[q]) for q in shown) / len(shown))



@pytest.mark.parametrize("plain", [{"hits": ["d2", "d5"]}, {"calls": [{"hits": ["d2"]}, {"hits": ["d5"]}]},
                                   {"calls": [{"hits": ["d2", "d5"], "stage": "first"}]}])
def test_a_question_without_a_stage_holds_its_list_at_every_stage(tmp_path: Path, plain: dict[str, Any]) -> None:
    # q8 has no rerank (no stages at all, or only its first): its list is the same at both stages, not empty
    golden = _write(tmp_path / "g.jsonl", [{"id": "q7", "query": "x", "relevant": ["d1"]},
                                           {"id": "q8", "query": "y", "relevant": ["d2"]}])
    run = _write(tmp_path / "r.jsonl", [
        {"id": "q7", "calls": [{"hits": ["d3", "d1"], "stage": "first"}, {"hits": ["d1", "d3"], "stage": "rerank"}]},
        {"id": "q8", **plain}])
    stages = ragauge.evaluate(golden, run=run, metrics=["hit@1"]).meta["stages"]
    assert stages["metrics"] == {"first": {"hit@1": 0.5}, "rerank": {"hit@1": 1.0}}
    step = stages["steps"][0]
    assert (step["promoted"], step["questions_promoted"], step["identical"]) == (1, 1, 1)
    assert step["rbo"] == pytest.approx((rbo(["d3", "d1"], ["d1", "d3"]) + 1) / 2)


def test_a_stage_a_question_lacks_holds_its_list_of_the_stage_before(tmp_path: Path) -> None:
    golden = _write(tmp_path / "g.jsonl", [{"id": "a", "query": "x", "relevant": ["d1"]},
                                           {"id": "b", "query": "y", "relevant": ["d2"]}])
    run = _write(tmp_path / "r.jsonl", [
        {"id": "a", "calls": [{"hits": ["n", "d1"], "stage": "first"}, {"hits": ["d1"], "stage": "dedup"},
                              {"hits": ["d1"], "stage": "rerank"}]},
        {"id": "b", "calls": [{"hits": ["n", "d2"], "stage": "first"}, {"hits": ["d2", "n"], "stage": "rerank"}]}])
    stages = ragauge.evaluate(golden, run=run, metrics=["hit@1"]).meta["stages"]
    assert stages["order"] == ["first", "dedup", "rerank"]
    assert [stages["metrics"][s]["hit@1"] for s in stages["order"]] == [0.0, 0.5, 1.0]  # b at dedup: its first list
    assert [(s["promoted"], s["identical"]) for s in stages["steps"]] == [(1, 1), (1, 1)]

def _rbo_eq32(s: list[str], t: list[str], p: float) -> float:
    """Webber et al. (2010), Eq. 32, written out with sets (an independent reference)."""
    if not s and not t:
        return 1.0
    if not s or not t:
        return 0.0
    short, long = (s, t) if len(s) <= len(t) else (t, s)
    k_s, k_l = len(short), len(long)

    def x(d: int) -> int:
        return len(set(short[:d]) & set(long[:d]))

    x_l, x_s = x(k_l), x(k_s)
    first = sum(x(d) / d * p ** d for d in range(1, k_l + 1))
    second = sum(x_s * (d - k_s) / (k_s * d) * p ** d for d in range(k_s + 1, k_l + 1))
    return (1 - p) / p * (first + second) + ((x_l - x_s) / k_l + x_s / k_s) * p ** k_l


@pytest.mark.parametrize("seed", range(5))
def test_rbo_is_eq_32_of_webber_moffat_zobel(seed: int) -> None:
    # also checked against the `rbo` package (0.1.3, rbo_ext) on 3,000 random pairs: largest difference
    # 2.2e-16; it is not a test dependency because it pins numpy < 2
    rng = random.Random(seed)
    for _ in range(200):
        pool = [f"d{i}" for i in range(rng.randint(1, 25))]
        a, b = rng.sample(pool, rng.randint(0, len(pool))), rng.sample(pool, rng.randint(0, len(pool)))
        p = rng.choice([0.5, 0.9, 0.98])
        assert rbo(a, b, p) == pytest.approx(_rbo_eq32(a, b, p), abs=1e-12)
    assert rbo(list("abcd"), list("abcd")) == pytest.approx(1.0)
    assert rbo(list("abcd"), list("wxyz")) == 0.0


def _conversations(tmp_path: Path) -> tuple[Path, Path]:
    golden, run = [], {}
    for c in range(6):
        for turn in (1, 2, 3):
            qid = f"c{c}t{turn}"
            golden.append({"id": qid, "query": f"turn {turn}", "relevant": [f"{qid}-doc"], "conversation": f"c{c}",
                           "turn": turn, "history": [f"turn {t}" for t in range(1, turn)]})
            # recall drifts: turn 1 always found, turn 2 in half the conversations, turn 3 never
            run[qid] = [f"{qid}-doc"] if turn == 1 or (turn == 2 and c % 2) else ["other"]
    return _write(tmp_path / "g.jsonl", golden), _write(tmp_path / "r.jsonl", [
        {"id": q, "hits": h} for q, h in run.items()])


def test_metrics_by_turn_show_where_recall_drifts(tmp_path: Path) -> None:
    golden, run = _conversations(tmp_path)
    ev = ragauge.evaluate(golden, run=run, metrics=["recall@5"])
    turns = ev.meta["turns"]
    assert (turns["conversations"], turns["questions"]) == (6, 18)
    by = turns["by_turn"]
    assert [by[t]["recall@5"] for t in ("1", "2", "3")] == [1.0, 0.5, 0.0]
    assert "drift" not in by["1"]
    assert by["2"]["drift"] == {"pairs": 6, "recall@5": -0.5}
    assert by["3"]["drift"] == {"pairs": 6, "recall@5": -1.0}


@pytest.mark.parametrize(("extra", "message"), [
    ({"turn": 2}, "a turn without its conversation"),
    ({"conversation": "c1"}, "without the question's 'turn'"),
    ({"conversation": "c1", "turn": 0}, "'turn' must be"),
    ({"conversation": "", "turn": 1}, "'conversation' must be a non-empty string"),
    ({"history": ["hi"]}, "a history without its conversation"),
])
def test_a_turn_without_its_conversation_exits_2(tmp_path: Path, extra: dict[str, Any], message: str) -> None:
    golden = _write(tmp_path / "g.jsonl", [{"id": "a", "query": "x", "relevant": ["d"]},
                                           {"id": "b", "query": "y", "relevant": ["d"], **extra}])
    result = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(_write(tmp_path / "r.jsonl", []))])
    assert result.exit_code == 2
    assert f"{golden}:2" in result.output and message in result.output and "Traceback" not in result.output


def test_a_conversation_cannot_hold_a_turn_twice(tmp_path: Path) -> None:
    golden = _write(tmp_path / "g.jsonl", [
        {"id": "a", "query": "x", "relevant": ["d"], "conversation": "c", "turn": 1},
        {"id": "b", "query": "y", "relevant": ["d"], "conversation": "c", "turn": 1}])
    with pytest.raises(ragauge.InputError, match="turn 1 twice"):
        ragauge.load_golden(golden)


def test_compare_says_how_much_two_runs_lists_changed(tmp_path: Path) -> None:
    golden = _write(tmp_path / "g.jsonl", [{"id": f"q{i}", "query": "x", "relevant": [f"d{i}"]} for i in range(12)])
    base = {f"q{i}": [f"d{i}", "x", "y"] for i in range(12)}
    new = {f"q{i}": ["x", f"d{i}", "y"] if i % 2 else [f"d{i}", "x", "y"] for i in range(12)}
    overlap = ragauge.compare(base, new, golden=golden, metrics=["hit@1", "mrr"]).meta["overlap"]
    assert overlap["k"] == 1 and overlap["questions"] == 12
    assert (overlap["promoted"], overlap["demoted"], overlap["identical"]) == (0, 6, 6)
    swapped = rbo(["d1", "x", "y"], ["x", "d1", "y"])
    assert overlap["rbo"] == pytest.approx((6 * 1.0 + 6 * swapped) / 12)


def test_tags_are_listed_weakest_first_when_the_first_metric_is_a_count(tmp_path: Path) -> None:
    golden = _write(tmp_path / "g.jsonl", [
        {"id": f"{t}{i}", "query": "x", "relevant": ["d"], "tags": [t]} for t in ("cheap", "costly") for i in range(3)])
    run = _write(tmp_path / "r.jsonl", [
        {"id": f"{t}{i}", "calls": [{"hits": ["x"]}] * (3 if t == "costly" else 0) + [{"hits": ["d"]}]}
        for t in ("cheap", "costly") for i in range(3)])
    ev = ragauge.evaluate(golden, run=run, metrics=["calls_to_evidence", "hit@5"])
    assert list(ev.by_tag) == ["costly", "cheap"]
    assert ev.by_tag["costly"]["calls_to_evidence"] == 4.0
