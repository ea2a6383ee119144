"""Multi-call run lines: read, written back, checked; stages; the run keeps each question's calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.data.hits import Call, Hit, QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.formats.runs import read_run

LINE = {"id": "q1", "calls": [
    {"query": "who wrote it", "hits": ["d1", {"doc_id": "d2", "score": 0.5}], "latency_ms": 10, "tool": "search"},
    {"query": "when", "hits": [], "latency_ms": 5.5, "cost": 0.01, "tool": "lookup"},
]}


def test_a_multi_call_line_reads_into_its_calls_and_its_trajectory() -> None:
    r = QueryResult.from_dict(LINE)
    assert [c.query for c in r.calls] == ["who wrote it", "when"]
    assert r.hits == (Hit("d1"), Hit("d2", score=0.5))
    assert r.latency_ms == 15.5  # the calls' sum: every call has one
    assert r.cost is None  # one call has no cost: no sum
    assert QueryResult.from_dict(r.to_dict()) == r


def test_the_last_stage_is_the_scored_list_and_each_stage_reads_apart() -> None:
    r = QueryResult.from_dict({"id": "q", "calls": [
        {"hits": ["a", "b", "c"], "stage": "first"}, {"hits": ["c", "a"], "stage": "rerank"}]})
    assert [h.doc_id for h in r.hits] == ["c", "a"]
    assert [h.doc_id for h in r.stage("first").hits] == ["a", "b", "c"]
    run = Run.from_results([r, QueryResult("p", (Hit("x"),))])
    assert run.stages == ["first", "rerank"]
    assert [h.doc_id for h in run.stage("first").result("q").hits] == ["a", "b", "c"]
    assert run.num_calls(["q", "p", "missing"]).tolist() == [1, 1, 1]  # missing: one call that found nothing
    assert run.result("q") == r



def test_a_question_s_list_changes_only_at_the_stages_it_names() -> None:
    order = ["first", "dedup", "rerank"]
    staged = QueryResult.from_dict({"id": "q", "calls": [{"hits": ["a", "b"], "stage": "first"},
                                                         {"hits": ["b"], "stage": "rerank"}]})
    assert [[h.doc_id for h in staged.stage(s, order).hits] for s in order] == [["a", "b"], ["a", "b"], ["b"]]
    assert {c.stage for c in staged.stage("dedup", order).calls} == {"dedup"}  # carried, named for the stage
    late = QueryResult.from_dict({"id": "q", "calls": [{"hits": ["c"], "stage": "rerank"}]})
    assert [h.doc_id for h in late.stage("first", order).hits] == ["c"]  # nothing before: its first stage
    for plain in (QueryResult("p", (Hit("x"),), latency_ms=3.0), QueryResult.from_dict(LINE)):
        assert all(plain.stage(s, order).hits == plain.hits for s in order)
    with pytest.raises(ValueError, match="no stage 'other'"):
        staged.stage("other", order)
    run = Run.from_results([staged, QueryResult("p", (Hit("x"),))])
    assert [h.doc_id for h in run.stage("first").result("p").hits] == ["x"]
    with pytest.raises(ValueError, match="no stage 'other'"):
        run.stage("other")

@pytest.mark.parametrize(("line", "message"), [
    ({"id": "q", "calls": [{"query": "x"}]}, "call 1 has no 'hits'"),
    ({"id": "q", "calls": []}, "'calls' must be a non-empty list"),
    ({"id": "q", "calls": "x"}, "'calls' must be a non-empty list"),
    ({"id": "q", "calls": [{"hits": []}, "x"]}, "call 2 must be an object"),
    ({"id": "q", "calls": [{"hits": "d1"}]}, "call 1: 'hits' must be a list"),
    ({"id": "q", "calls": [{"hits": [], "latency_ms": -1}]}, "call 1 'latency_ms'"),
    ({"id": "q", "calls": [{"hits": [], "latency_ms": "nan"}]}, "call 1 'latency_ms'"),
    ({"id": "q", "calls": [{"hits": [], "tool": ""}]}, "call 1: 'tool' must be a non-empty string"),
    ({"id": "q", "calls": [{"hits": [], "stage": "first"}, {"hits": []}]}, "call 2 has no 'stage'"),
    ({"id": "q", "calls": [{"hits": [{"score": 1}]}]}, "neither 'doc_id' nor 'chunk_id'"),
    ({"id": "q", "hits": [], "calls": [{"hits": []}]}, "both 'hits' and 'calls'"),
])
def test_bad_calls_are_refused_with_where_and_how(line: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as info:
        QueryResult.from_dict(line, "run.jsonl:3")
    assert message in str(info.value)
    assert "run.jsonl:3" in str(info.value)


def test_a_run_file_keeps_its_calls_and_writes_them_back(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(LINE) + "\n" + json.dumps({"id": "q2", "hits": ["d9"]}) + "\n", encoding="utf-8")
    run = read_run(path)
    assert set(run.calls) == {"q1"}
    assert run.call is not None and run.call.tolist() == [0, 0, 0]
    assert run.result("q1").calls == QueryResult.from_dict(LINE).calls
    assert run.result("q2").calls == ()
    assert Call("q", (Hit("a"),)).to_dict() == {"query": "q", "hits": [{"doc_id": "a"}]}


def test_a_call_without_hits_exits_2_naming_file_and_line(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ragauge.cli.main import cli

    golden = tmp_path / "g.jsonl"
    golden.write_text(json.dumps({"id": "q1", "query": "x", "relevant": ["d1"]}) + "\n", encoding="utf-8")
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"id": "q1", "calls": [{"query": "x", "hits": ["d1"]}, {"query": "y"}]}) + "\n",
                   encoding="utf-8")
    result = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run)])
    assert result.exit_code == 2
    assert f"{run}:1" in result.output and "call 2 has no 'hits'" in result.output
    assert "Traceback" not in result.output
