"""Evidence groups (multi-hop questions): evidence_recall@k and complete@k against a hand-written
reference on random golden sets and runs (ties, repeats, graded and non-relevant labels, spans aside),
their meaning on plain questions, the streamed path, and the golden format's refusals."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.formats.runs import RunStream

DOCS = [f"d{i}" for i in range(12)]


def reference(groups: list[list[tuple[str, float]]], ranked: list[str], k: int) -> tuple[float, float]:
    """evidence_recall@k and complete@k by their definition: the ranking deduplicated in first-seen
    order and cut at k; a group is provided when one of its documents graded >= 1 is in it."""
    top = list(dict.fromkeys(ranked))[:k]
    provided = sum(any(doc in top and grade >= 1 for doc, grade in group) for group in groups)
    return provided / len(groups), float(provided == len(groups))


def random_set(rng: random.Random, n: int) -> tuple[list[dict[str, Any]], dict[str, list[str]], dict[str, Any]]:
    golden, run, groups_of = [], {}, {}
    for i in range(n):
        qid = f"q{i}"
        groups: list[list[tuple[str, float]]] = []
        for _ in range(rng.randint(1, 4)):
            docs = rng.sample(DOCS, rng.randint(1, 3))
            group = [(d, rng.choice([1, 1, 2, 0])) for d in docs]
            if all(g < 1 for _, g in group):
                group[0] = (group[0][0], 1)
            groups.append(group)
        grades: dict[str, float] = {}
        for group in groups:  # one grade per document across groups, as a golden line gives it
            for doc, grade in group:
                grades[doc] = max(grade, grades.get(doc, grade))
        groups = [[(d, grades[d]) for d, _ in group] for group in groups]
        golden.append({"id": qid, "query": f"about {qid}",
                       "evidence": [[d if grades[d] == 1 else {"doc": d, "grade": grades[d]} for d, _ in g]
                                    for g in groups]})
        groups_of[qid] = groups
        if rng.random() < 0.9:  # some questions are missing from the run: they score 0
            run[qid] = [rng.choice(DOCS) for _ in range(rng.randint(0, 10))]
    return golden, run, groups_of


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 8))
def test_the_metrics_are_their_definition_on_random_sets(seed: int, k: int) -> None:
    rng = random.Random(seed)
    golden, run, groups_of = random_set(rng, rng.randint(1, 8))
    result = ragauge.evaluate_run(golden, run, metrics=[f"evidence_recall@{k}", f"complete@{k}", f"hit@{k}"])
    for q in result.queries:
        want = reference(groups_of[q.id], run.get(q.id, []), k)
        assert (q.values[f"evidence_recall@{k}"], q.values[f"complete@{k}"]) == pytest.approx(want)
    for spec in (f"evidence_recall@{k}", f"complete@{k}"):  # a question is complete only when provided in full
        assert all(q.values[f"complete@{k}"] <= q.values[f"evidence_recall@{k}"] for q in result.queries)
        assert result.summary[spec] == pytest.approx(sum(q.values[spec] for q in result.queries) / len(golden))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), k=st.integers(1, 6))
def test_on_a_plain_question_each_relevant_document_is_a_group(seed: int, k: int) -> None:
    rng = random.Random(seed)
    golden = [{"id": f"q{i}", "query": "x",
               "relevant": {d: rng.choice([0, 1, 2]) for d in rng.sample(DOCS, rng.randint(0, 4))}} for i in range(6)]
    run = {f"q{i}": [rng.choice(DOCS) for _ in range(rng.randint(0, 8))] for i in range(6)}
    result = ragauge.evaluate_run(golden, run, metrics=[f"evidence_recall@{k}", f"complete@{k}", f"recall@{k}"])
    for q in result.queries:
        assert q.values[f"evidence_recall@{k}"] == pytest.approx(q.values[f"recall@{k}"])
        found_all = q.values[f"recall@{k}"] == pytest.approx(1.0)
        assert q.values[f"complete@{k}"] == (1.0 if found_all else 0.0)


def test_one_group_is_hit_and_groups_of_one_are_recall() -> None:
    golden = [{"id": "a", "query": "x", "evidence": [["d1", "d2", "d3"]]},
              {"id": "b", "query": "y", "evidence": [["d1"], ["d2"], ["d3"]]}]
    run = {"a": ["d9", "d3"], "b": ["d2", "d9", "d3"]}
    v = {q.id: q.values for q in ragauge.evaluate_run(golden, run, metrics="complete@2,hit@2,evidence_recall@3,"
                                                                          "recall@3").queries}
    assert v["a"]["complete@2"] == v["a"]["hit@2"] == 1.0
    assert v["b"]["evidence_recall@3"] == pytest.approx(v["b"]["recall@3"]) == pytest.approx(2 / 3)


def test_a_document_in_two_groups_provides_both_and_a_non_relevant_one_none() -> None:
    golden = [{"id": "q", "query": "x", "evidence": [["both", "a"], ["both", "b"], [{"doc": "c", "grade": 1},
                                                                                   {"doc": "weak", "grade": 0}]]}]
    values = ragauge.evaluate_run(golden, {"q": ["both", "weak"]}, metrics="evidence_recall@2,complete@2").queries[0]
    assert values.values == {"evidence_recall@2": pytest.approx(2 / 3), "complete@2": 0.0}


def test_a_streamed_run_scores_the_groups_as_a_whole_one(tmp_path: Path) -> None:
    rng = random.Random(7)
    golden, run, _ = random_set(rng, 30)
    gold, path = tmp_path / "golden.jsonl", tmp_path / "run.jsonl"
    gold.write_text("".join(json.dumps(line) + "\n" for line in golden))
    path.write_text("".join(json.dumps({"id": q, "hits": [{"doc_id": d, "length": 7} for d in hits]}) + "\n"
                            for q, hits in run.items()))
    metrics = "evidence_recall@3,complete@5,evidence_recall@40t"
    whole = ragauge.evaluate_run(gold, ragauge.read_run(path), metrics=metrics).to_dict()
    for block in (1, 80, 1 << 20):
        streamed = ragauge.evaluate_run(gold, RunStream(path, block_bytes=block, block_hits=max(1, block // 40)),
                                        metrics=metrics).to_dict()
        assert streamed == whole


def test_unjudged_unknown_keeps_the_groups() -> None:
    golden = [{"id": "q", "query": "x", "evidence": [["a"], ["b"]], "relevant_note": "n/a"}]
    run = {"q": ["u1", "u2", "a", "u3", "b"]}
    plain = ragauge.evaluate_run(golden, run, metrics="evidence_recall@3").queries[0].values
    condensed = ragauge.evaluate_run(golden, run, metrics="evidence_recall@3", unjudged="unknown").queries[0].values
    assert plain["evidence_recall@3"] == 0.5 and condensed["evidence_recall@3"] == 1.0


def test_the_golden_line_round_trips_and_its_hash_knows_the_groups() -> None:
    line = {"id": "q", "query": "x", "evidence": [["a", {"doc": "b", "grade": 2}], ["c"]], "tags": ["hop"]}
    q = ragauge.GoldenQuery.from_dict(line)
    assert q.to_dict() == line and q.groups == (("a", "b"), ("c",)) and q.relevant == {"a": 1, "b": 2, "c": 1}
    flat = ragauge.as_golden([{"id": "q", "query": "x", "relevant": {"a": 1, "b": 2, "c": 1}, "tags": ["hop"]}])
    assert ragauge.as_golden([line]).content_hash != flat.content_hash


@pytest.mark.parametrize(("evidence", "error"), [
    ([], "non-empty list of groups"),
    ("d1", "non-empty list of groups"),
    ([[]], "evidence group 1 must be a non-empty list"),
    ([["d1"], "d2"], "evidence group 2 must be a non-empty list"),
    ([["d1"], [{"doc": "d2", "grade": 0}]], "evidence group 2 has no relevant id"),
    ([["d1", "d1"]], "listed twice"),
    ([[{"doc": "d1", "start": 0, "end": 5}], [{"doc": "d1", "start": 9, "end": 12}]], "spans in two evidence groups"),
    ([["d"]] * 65, "more than 64"),
])
def test_bad_evidence_is_refused_with_file_line_and_fix(tmp_path: Path, evidence: Any, error: str) -> None:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "ok", "query": "x", "relevant": ["d1"]}\n'
                      + json.dumps({"id": "bad", "query": "y", "evidence": evidence}) + "\n")
    with pytest.raises(InputError, match=error) as raised:
        ragauge.load_golden(golden)
    assert f"{golden}:2" in str(raised.value) and raised.value.hint
    run = tmp_path / "run.jsonl"
    run.write_text('{"id": "ok", "hits": ["d1"]}\n')
    out = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run)])
    assert out.exit_code == 2 and "Traceback" not in out.output and f"{golden}:2" in out.output


def test_relevant_and_evidence_together_are_refused() -> None:
    with pytest.raises(InputError, match="'relevant' or 'evidence', not both"):
        ragauge.GoldenQuery.from_dict({"id": "q", "query": "x", "relevant": ["a"], "evidence": [["a"]]})
