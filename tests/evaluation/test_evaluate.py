from __future__ import annotations

from dataclasses import dataclass

import pytest

import ragauge
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.hits import Hit, QueryResult
from ragauge.data.run import Run

GOLDEN = GoldenSet.from_queries([
    GoldenQuery("q1", "vpn cert", {"vpn": 1}, ("net",)),
    GoldenQuery("q2", "printer", {"printer": 2, "kb": 1}, ("hw",)),
    GoldenQuery("q3", "nothing", {}, ("none",)),
])


def test_evaluate_calls_the_retriever_with_fetch_and_accepts_many_hit_shapes() -> None:
    calls: list[tuple[str, int]] = []

    @dataclass
    class Doc:
        doc_id: str
        score: float

    def retrieve(query: str, n: int) -> object:
        calls.append((query, n))
        return {"vpn cert": ["x", "vpn"], "printer": [("printer", 2.0), {"doc_id": "kb"}, Doc("z", 0.1)],
                "nothing": []}[query]

    result = ragauge.evaluate(GOLDEN, retrieve, k=1, fetch=7)
    assert sorted(calls) == [("nothing", 7), ("printer", 7), ("vpn cert", 7)]  # calls run concurrently
    assert result.summary == pytest.approx({"hit@1": 0.5, "recall@1": 0.25, "mrr": 0.75, "ndcg@1": 0.5})
    assert result.no_answer["n"] == 1
    assert all(q.latency_ms is not None and q.latency_ms >= 0 for q in result.queries)


def test_a_failing_call_is_recorded_and_scores_zero() -> None:
    def retrieve(query: str, n: int) -> list[str]:
        if query == "printer":
            raise ConnectionError("refused")
        return ["vpn"]

    result = ragauge.evaluate(GOLDEN, retrieve, k=1, retries=0)
    q2 = next(q for q in result.queries if q.id == "q2")
    assert q2.status == "error" and "ConnectionError: refused" in (q2.error or "")
    assert q2.values["hit@1"] == 0.0
    assert any("failed in the retriever" in w for w in result.warnings)


def test_no_answer_questions_never_enter_a_mean() -> None:
    run = Run.from_results([QueryResult("q1", (Hit("vpn"),)), QueryResult("q2", (Hit("kb"),)),
                            QueryResult("q3", (Hit("vpn"),))])
    result = ragauge.evaluate_run(GOLDEN, run, metrics="hit@1")
    assert result.summary["hit@1"] == 1.0
    assert [q.id for q in result.queries] == ["q1", "q2"]
    assert result.meta["counts"] == {"questions": 3, "skipped": 0, "answerable": 2, "no_answer": 1, "missing": 0,
                                     "errors": 0, "folded": 0}


def test_by_tag_is_weakest_first() -> None:
    run = Run.from_results([QueryResult("q1", (Hit("x"), Hit("vpn"))), QueryResult("q2", (Hit("printer"),))])
    result = ragauge.evaluate_run(GOLDEN, run, metrics=["mrr"])
    assert list(result.by_tag) == ["net", "hw"]
    assert result.by_tag["net"] == {"n": 1, "mrr": 0.5}


def test_result_round_trips_through_json() -> None:
    run = Run.from_results([QueryResult("q1", (Hit("x", score=1.0), Hit("vpn"))), QueryResult("q2", ())])
    result = ragauge.evaluate_run(GOLDEN, run, k=[1, 3])
    again = ragauge.Evaluation.from_dict(result.to_dict())
    assert again.to_dict() == result.to_dict()


def test_relevant_ids_missing_from_the_index_are_stale_labels_not_misses() -> None:
    golden = GoldenSet.from_queries([
        GoldenQuery("q1", "vpn", {"vpn": 1, "gone": 1}),
        GoldenQuery("q2", "printer", {"printers#jam": 1}),
        GoldenQuery("q3", "old", {"deleted": 1}),
    ])
    run = Run.from_results([QueryResult("q1", (Hit("vpn"),)), QueryResult("q2", (Hit("printers#jam"),)),
                            QueryResult("q3", (Hit("vpn"),))])
    plain = ragauge.evaluate_run(golden, run, metrics="recall@1")
    assert plain.summary["recall@1"] == pytest.approx((0.5 + 1 + 0) / 3)
    drift = ragauge.evaluate_run(golden, run, metrics="recall@1", known_documents={"vpn", "printers"})
    assert drift.summary["recall@1"] == 1.0  # q3 has no indexed relevant doc left: not a miss
    assert drift.meta["drift"]["missing_from_index"] == 2 and drift.meta["drift"]["share"] == pytest.approx(0.5)
    assert drift.meta["golden"]["hash"] == plain.meta["golden"]["hash"]
    assert any("stale labels" in w for w in drift.warnings)
    assert drift.meta["drift"]["unjudgeable"] == ["q3"] and drift.no_answer["n"] == 0


@pytest.mark.parametrize("rule", [{"doc_id_sep": "#"}, {"doc_id_pattern": r"^(.+)#"}])
def test_trec_docnos_read_as_chunk_ids(tmp_path, rule) -> None:
    """A TREC run's columns stay chunked as Arrow read them; mapping its docnos as chunk ids works."""
    from ragauge.evaluation.evaluate import evaluate_run
    from ragauge.formats.runs import read_run

    path = tmp_path / "s.trec"
    path.write_text("q1 Q0 d1#1 1 2.0 t\nq1 Q0 d1#2 2 1.0 t\nq1 Q0 d2#1 3 0.5 t\n", encoding="utf-8")
    golden = GoldenSet.from_queries([GoldenQuery("q1", "x", {"d2": 1})])
    ev = evaluate_run(golden, read_run(path), metrics=["mrr", "hit@5"], **rule)
    row = ev.queries[0]
    assert row.values == {"mrr": 0.5, "hit@5": 1.0}
    assert row.folded == 1 and [t.doc_id for t in row.top] == ["d1", "d2"]


def test_plain_python_runs_and_golden_sets_score_like_files() -> None:
    """{qid: [doc]} and the {qid: {doc: score}} dicts of pytrec_eval/ranx users are runs too;
    score ties are broken by doc id descending, as trec_eval does."""
    golden = [{"id": "q1", "query": "a", "relevant": ["c"]}, {"id": "q2", "query": "b", "relevant": {"x": 2}}]
    by_list = ragauge.evaluate_run(golden, {"q1": ["b", "c"], "q2": ["x"]}, metrics="mrr")
    by_score = ragauge.evaluate_run(golden, {"q1": {"a": 1.0, "b": 3.0, "c": 1.0}, "q2": {"x": 0.5}}, metrics="mrr")
    assert [q.values["mrr"] for q in by_list.queries] == [0.5, 1.0]
    assert [q.values["mrr"] for q in by_score.queries] == [0.5, 1.0]  # b (3.0), then c before a (tie)
    with pytest.raises(ragauge.InputError, match="score of 'a' for question 'q1' must be a finite number"):
        ragauge.evaluate_run(golden, {"q1": {"a": float("nan")}}, metrics="mrr")


def test_evaluate_retries_transient_failures_like_ragauge_run() -> None:
    """ragauge.evaluate goes through the same executor as 'ragauge run': a call that times out
    once is tried again (the old sequential loop recorded it as a failure)."""
    failed: set[str] = set()

    def retrieve(query: str, n: int) -> list[str]:
        if query not in failed:
            failed.add(query)
            raise TimeoutError("slow")
        return {"vpn cert": ["vpn"], "printer": ["printer"], "nothing": []}[query]

    result = ragauge.evaluate(GOLDEN, retrieve, k=1, retries=1)
    assert all(q.status == "ok" for q in result.queries) and result.summary["hit@1"] == 1.0
    assert result.meta["run"]["meta"]["retriever"].startswith("python:")


def test_judged_context_contract_and_the_unjudged_rule() -> None:
    # q1: vpn labelled, x not -> judged@2 = 1/2; q2: printer and kb labelled, junk not -> judged@3 = 2/3
    run = {"q1": ["x", "vpn"], "q2": ["printer", "junk", "kb"], "q3": ["vpn"]}
    plain = ragauge.evaluate_run(GOLDEN, run, metrics="mrr,precision@2,judged@3")
    assert plain.meta["contract"]["unjudged"] == "non-relevant"
    assert plain.meta["judged"] == {"k": 3, "mean": pytest.approx((1 / 2 + 2 / 3) / 2)}  # answerable questions
    assert plain.summary["judged@3"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert plain.summary["mrr"] == pytest.approx((1 / 2 + 1) / 2)
    condensed = ragauge.evaluate_run(GOLDEN, run, metrics="mrr,precision@2,judged@3", unjudged="unknown")
    assert condensed.meta["contract"]["unjudged"] == "unknown"
    assert condensed.summary["mrr"] == 1.0  # x and junk left out: each relevant document ranks first
    assert condensed.summary["precision@2"] == pytest.approx((1 / 2 + 2 / 2) / 2)
    assert condensed.summary["judged@3"] == plain.summary["judged@3"]  # judged@k reads the ranking as retrieved
    assert [q.first_relevant_rank for q in condensed.queries] == [2, 1]  # reports show the retrieved ranks
    assert [w for w in condensed.warnings if "condensed lists" in w][0].startswith("NOTE: ")  # no grade-0 label
    graded = GoldenSet.from_queries([*GOLDEN, GoldenQuery("q5", "fax", {"fax": 1, "junk": 0})])
    note = [w for w in ragauge.evaluate_run(graded, run, unjudged="unknown").warnings if "condensed lists" in w]
    assert len(note) == 1 and not note[0].startswith("NOTE: ")
    assert not any("condensed lists" in w for w in plain.warnings)
    assert ragauge.evaluate_run(GOLDEN, run, metrics="mrr").meta["judged"] == {"k": None, "mean": pytest.approx(
        (1 / 2 + 2 / 3) / 2)}  # no cutoff: the whole ranking
    with pytest.raises(ragauge.InputError, match="unjudged must be 'non-relevant' or 'unknown'"):
        ragauge.evaluate_run(GOLDEN, run, unjudged="ignored")  # type: ignore[arg-type]


def test_contracts_without_the_unjudged_field_read_as_non_relevant() -> None:
    from ragauge.evaluation.options import Contract, contract_differences

    new = Contract(("mrr",), (), None, "doc id as given by each hit").to_dict()
    old = {key: value for key, value in new.items() if key != "unjudged"}
    assert contract_differences(old, new) == []
    assert contract_differences(old, {**new, "unjudged": "unknown"}) == ["unjudged"]


def test_a_question_answered_with_nothing_is_not_missing_from_the_run() -> None:
    """An empty answer is in the run (status ok, said apart); only a question with no line is missing,
    and a failed or empty question is not told to fetch deeper."""
    golden = GoldenSet.from_queries([GoldenQuery(f"q{i}", f"x{i}", {f"d{i}": 1}) for i in range(4)])
    run = Run.from_results([QueryResult("q0", (Hit("d0"),)), QueryResult("q1", ()),
                            QueryResult("q2", (), error="timeout")])
    result = ragauge.evaluate(golden, run=run, metrics=["hit@2"])
    assert {q.id: q.status for q in result.queries} == {"q0": "ok", "q1": "ok", "q2": "error", "q3": "missing"}
    assert result.meta["counts"]["missing"] == 1
    said = "\n".join(result.warnings)
    assert "1 question(s) missing from the run, scored as finding nothing: q3" in said
    assert "1 question(s) answered with no document (the retriever found nothing): q1" in said
    assert "fetch deeper: q0" in said and "q1, " not in said.split("fetch deeper")[1]
