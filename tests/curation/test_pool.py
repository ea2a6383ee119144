from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.curation.pool import build_pool, pool_golden, pool_questions
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.pool import PoolSystem
from ragauge.errors import InputError
from ragauge.formats.pool import read_pool
from ragauge.formats.runs import as_run
from ragauge.reports.pool import render_pool_text

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def golden(*queries: tuple[str, dict[str, float]]) -> GoldenSet:
    return GoldenSet.from_queries([GoldenQuery(qid, f"question {qid}", rel) for qid, rel in queries], "golden.jsonl")


def systems(**runs: object) -> list[tuple[PoolSystem, object]]:
    """Runs by name: a list is question q1's ranking, a dict maps question ids to rankings."""
    return [(PoolSystem(name, "run"), as_run(run if isinstance(run, dict) else {"q1": run}))
            for name, run in runs.items()]


def test_union_of_top_depth_minus_judged_with_ranks_in_a_fixed_order() -> None:
    g = golden(("q1", {"j1": 1, "j0": 0}))
    pool, notes = build_pool(g, systems(a=["j1", "x", "y", "z"], b=["y", "j0", "w", "x", "deep"]), depth=3)
    q = pool.questions[0]
    # j1 (grade 1) and j0 (grade 0) are judged: never candidates; "z" is a's 4th, "deep" b's 5th: beyond depth 3
    assert [(c.doc_id, dict(c.ranks)) for c in q.candidates] == [
        ("y", {"a": 3, "b": 1}), ("x", {"a": 2}), ("w", {"b": 3})]
    assert [(j.doc_id, j.grade, dict(j.ranks)) for j in q.judged] == [("j1", 1, {"a": 1}), ("j0", 0, {"b": 2})]
    assert q.systems == ("a", "b") and notes == []
    assert q.by_systems() == {1: 2, 2: 1} and pool.by_systems() == {1: 2, 2: 1}


def test_ties_on_best_rank_go_to_the_document_more_systems_returned_then_to_the_id() -> None:
    g = golden(("q1", {}))
    pool, _ = build_pool(g, systems(a=["m", "k"], b=["n", "k"], c=["k"]), depth=2)
    assert [c.doc_id for c in pool.questions[0].candidates] == ["k", "m", "n"]


def test_judged_documents_keep_their_rank_at_any_depth_and_none_when_never_returned() -> None:
    g = golden(("q1", {"deep": 2, "never": 1}))
    pool, _ = build_pool(g, systems(a=[f"d{i}" for i in range(30)] + ["deep"]), depth=5)
    judged = {j.doc_id: dict(j.ranks) for j in pool.questions[0].judged}
    assert judged == {"deep": {"a": 31}, "never": {}}
    assert len(pool.questions[0].candidates) == 5


def test_chunk_hits_fold_into_documents_before_the_depth_cut() -> None:
    g = golden(("q1", {}))
    run = {"q1": [{"chunk_id": "kb-1#0"}, {"chunk_id": "kb-1#3"}, {"chunk_id": "kb-2#1"}, {"chunk_id": "kb-3#0"}]}
    pool, _ = build_pool(g, systems(a=run), depth=2, doc_id_sep="#")
    assert [(c.doc_id, dict(c.ranks)) for c in pool.questions[0].candidates] == [("kb-1", {"a": 1}), ("kb-2", {"a": 2})]
    assert pool.doc_id == "doc id = chunk id up to the first '#'"


def test_a_trec_run_is_ranked_as_trec_eval_ranks_it(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 low 1 0.1 t\nq1 Q0 b 2 0.9 t\nq1 Q0 a 3 0.9 t\n", encoding="utf-8")
    pool, _ = build_pool(golden(("q1", {})), [(PoolSystem("t", "run"), as_run(path))], depth=2)
    assert [c.doc_id for c in pool.questions[0].candidates] == ["b", "a"]  # ties: docno descending


def test_questions_a_system_lacks_or_failed_on_are_noted_and_not_answered() -> None:
    from ragauge.data.hits import QueryResult
    from ragauge.data.run import Run

    g = golden(("q1", {}), ("q2", {}), ("q3", {}))
    failing = Run.from_results([QueryResult("q1", ()), QueryResult("q2", (), error="timeout")], source="f.jsonl")
    pool, notes = build_pool(g, [(PoolSystem("f", "run"), failing), *systems(ok={"q1": ["d"], "q2": ["d"]})], 5)
    assert [q.systems for q in pool.questions] == [("f", "ok"), ("ok",), ()]
    assert notes == ["f failed on 1 question(s), pooled without it: q2", "f lacks 1 question(s), pooled without it: q3",
                     "ok lacks 1 question(s), pooled without it: q3"]


def test_a_system_that_answers_no_question_is_refused() -> None:
    with pytest.raises(InputError, match="answers none of the 1 questions"):
        build_pool(golden(("q1", {})), systems(a={"other": ["d"]}), 5)


def test_pool_questions_reads_candidates_with_null_relevant_and_skips_rejected(tmp_path: Path) -> None:
    path = tmp_path / "candidates.jsonl"
    rows = [{"id": "c1", "query": "vpn", "relevant": None, "status": "needs-review"},
            {"id": "c2", "query": "printer", "relevant": None, "status": "rejected"},
            {"id": "c3", "query": "wifi", "relevant": ["kb-1"]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    questions, skipped = pool_questions(path)
    assert [(q.id, dict(q.relevant)) for q in questions] == [("c1", {}), ("c3", {"kb-1": 1})] and skipped == 1
    path.write_text(json.dumps({"id": "c1", "query": "vpn"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing required field 'relevant'") as err:
        pool_questions(path)
    assert err.value.where == f"{path}:1"


def test_pool_golden_calls_retrievers_and_reads_runs_and_writes_the_same_bytes_twice(tmp_path: Path) -> None:
    def search(query: str, n: int) -> list[str]:
        return ["printers/error-codes", "networking/vpn-error-codes", "laptops/battery"][:n]

    out1, out2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for out in (out1, out2):
        result = pool_golden(HELPDESK / "golden.jsonl", retrievers={"fn": search},
                             runs=[HELPDESK / "bm25.run.jsonl"], output=out, depth=3)
    assert out1.read_bytes() == out2.read_bytes()
    pool = read_pool(out1)
    assert [s.to_dict() for s in pool.systems] == [{"name": str(HELPDESK / "bm25.run.jsonl"), "kind": "run"},
                                                 {"name": "fn", "kind": "retriever"}]
    assert pool.header() == result.pool.header()
    assert [q.to_dict() for q in pool.questions] == [q.to_dict() for q in result.pool.questions]
    q1 = pool.questions[0]
    assert q1.systems == (str(HELPDESK / "bm25.run.jsonl"), "fn")
    assert {c.doc_id for c in q1.candidates if "fn" in c.ranks} == set(search("", 3)) - {j.doc_id for j in q1.judged}
    assert len(pool.questions) == 45 and pool.golden["questions"] == 45


def test_pool_golden_checks_depth_fetch_and_systems(tmp_path: Path) -> None:
    path = HELPDESK / "golden.jsonl"
    with pytest.raises(InputError, match="nothing to pool"):
        pool_golden(path)
    with pytest.raises(InputError, match="^depth= "):  # pool_golden's keywords, not its command's flags
        pool_golden(path, runs=[HELPDESK / "bm25.run.jsonl"], depth=0)
    with pytest.raises(InputError, match="fetch=5 is below depth=10"):
        pool_golden(path, retrievers=["bm25:x.jsonl"], depth=10, fetch=5)
    with pytest.raises(InputError, match="given twice"):
        pool_golden(path, runs=[HELPDESK / "bm25.run.jsonl", HELPDESK / "bm25.run.jsonl"])


def test_the_summary_counts_candidates_by_number_of_systems() -> None:
    g = golden(("q1", {"j": 1}), ("q2", {}))
    pool, notes = build_pool(g, systems(a={"q1": ["j", "x", "y"], "q2": ["z"]}, b={"q1": ["x"], "q2": ["z", "w"]}), 3)
    from ragauge.curation.pool import PoolResult

    result = PoolResult(pool, tuple(notes))
    data = result.to_dict()
    assert data["by_systems"] == {"1": 2, "2": 2} and data["candidates"] == 4 and data["judged_in_pool"] == 1
    assert [(r["id"], r["by_systems"]) for r in data["per_question"]] == [("q1", {"1": 1, "2": 1}),
                                                                       ("q2", {"1": 1, "2": 1})]
    text = render_pool_text(result)
    assert text.startswith("pooled 2 systems at depth 3 over 2 questions: 4 candidates to judge "
                           "(2 from 1 system, 2 from 2 systems); 1 already-judged document in the pool left out")
    assert "question  candidates  from 1  from 2  judged in pool" in text
