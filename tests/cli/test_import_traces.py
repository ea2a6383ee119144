"""``ragauge run import-traces`` and ``ragauge eval --traces`` through the real command group: the run
they write or score, and bad traces refused with one message (file and line, what, how to fix), exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from tests.formats.otlp_files import request, reranker, retriever, span, write

QUESTIONS = [("q1", "How do I reset my password?", ["d1"]), ("q2", "VPN certificate expired", ["d2"])]


def invoke(*args: object):  # noqa: ANN201
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps({"id": i, "query": q, "relevant": r}) + "\n" for i, q, r in QUESTIONS),
                    encoding="utf-8")
    return path


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    q1, q2 = QUESTIONS[0][1], QUESTIONS[1][1]
    return write(tmp_path / "traces.jsonl",
                 request([span("1", "pipeline", kind="CHAIN", input__value=q1, end=50_000_000),
                          retriever("2", q1, [("d9", 0.5), ("d1", 0.4)], parent="1", start=1, end=20_000_000),
                          reranker("3", q1, [("d9", 0.5), ("d1", 0.4)], [("d1", 0.9), ("d9", 0.2)], parent="1",
                                   start=21_000_000, end=40_000_000)]),
                 request([retriever("1", q2, [("d5", 0.7), ("d2", 0.6)], trace="e" * 32, session__id="q2")]))


def test_import_traces_writes_a_multi_call_run(tmp_path: Path, golden: Path, traces: Path) -> None:
    out = tmp_path / "run.jsonl"
    result = invoke("run", "import-traces", traces, "--golden", golden, "-o", out)
    assert result.exit_code == 0, result.output
    assert f"wrote 2 questions from 2 traces to {out}" in result.output
    meta, q1, q2 = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    assert meta["_meta"]["retriever"] == "traces" and meta["_meta"]["settings"]["match"] == "query text"
    assert [(c["stage"], [h["doc_id"] for h in c["hits"]]) for c in q1["calls"]] == [("first", ["d9", "d1"]),
                                                                                     ("rerank", ["d1", "d9"])]
    assert q1["latency_ms"] == 50.0 and "stage" not in q2["calls"][0]
    scored = invoke("eval", golden, "--run", out, "-k", "1", "--format", "json")
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["summary"]["hit@1"] == 0.5  # q1's reranked list leads with d1; q2's misses


def test_eval_reads_traces_directly(tmp_path: Path, golden: Path, traces: Path) -> None:
    out = tmp_path / "run.jsonl"
    assert invoke("run", "import-traces", traces, "--golden", golden, "-o", out).exit_code == 0
    via_file = json.loads(invoke("eval", golden, "--run", out, "-k", "1,2", "--format", "json").stdout)
    direct = invoke("eval", golden, "--traces", traces, "-k", "1,2", "--format", "json")
    assert direct.exit_code == 0, direct.output
    assert json.loads(direct.stdout)["summary"] == via_file["summary"]
    by_id = invoke("eval", golden, "--traces", traces, "--id-attribute", "session.id", "--skip-unmatched", "-k", "1",
                   "--format", "json")
    assert by_id.exit_code == 0, by_id.output
    assert "1 trace(s) matched no question and were dropped (--skip-unmatched)" in by_id.stderr
    assert "1 question(s) have no trace and will score 0: 'q1'" in by_id.stderr



def test_a_trace_without_a_reranker_holds_its_list_at_both_stages(golden: Path, traces: Path) -> None:
    # q1 is reranked (d9, d1 -> d1, d9), q2 has no reranker: its list d5, d2 is the same at both stages
    result = invoke("eval", golden, "--traces", traces, "-k", "2", "--format", "json")
    assert result.exit_code == 0, result.output
    stages = json.loads(result.stdout)["meta"]["stages"]
    assert stages["metrics"]["first"]["hit@2"] == stages["metrics"]["rerank"]["hit@2"] == 1.0
    step = stages["steps"][0]
    assert (step["promoted"], step["demoted"], step["identical"]) == (0, 0, 1)

def test_unmatched_traces_exit_2_with_file_line_and_fix(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", QUESTIONS[0][1], [("d1", 1.0)])]),
                 request([retriever("1", "what is the wifi password", [("d3", 1.0)], trace="a" * 32)]))
    result = invoke("run", "import-traces", path, "--golden", golden, "-o", tmp_path / "run.jsonl")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {path}:2: 1 of 2 trace(s) match no question of the golden set:" in result.output
    assert f"trace {'a' * 32} ({path}:2): query 'what is the wifi password'" in result.output
    assert "--id-attribute KEY" in result.output and "--skip-unmatched" in result.output
    assert not (tmp_path / "run.jsonl").exists()
    dropped = invoke("run", "import-traces", path, "--golden", golden, "-o", tmp_path / "run.jsonl",
                     "--skip-unmatched")
    assert dropped.exit_code == 0 and "warning: 1 trace(s) matched no question and were dropped" in dropped.output


def test_two_traces_for_a_question_exit_2(tmp_path: Path, golden: Path) -> None:
    q = QUESTIONS[1][1]
    path = write(tmp_path / "t.jsonl", request([retriever("1", q, [("d2", 1.0)])]),
                 request([retriever("1", q.upper(), [("d2", 1.0)], trace="b" * 32)]))
    result = invoke("eval", golden, "--traces", path)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {path}:2: question 'q2' is answered by two traces" in result.output
    assert "--id-attribute KEY" in result.output


def test_a_bad_number_exits_2(tmp_path: Path, golden: Path) -> None:
    raw = retriever("1", QUESTIONS[0][1], [("d1", 1.0)])
    raw["attributes"][-1]["value"] = {"doubleValue": "Infinity"}
    path = write(tmp_path / "t.jsonl", request([raw]))
    result = invoke("run", "import-traces", path, "--golden", golden, "-o", tmp_path / "run.jsonl")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"error: {path}:1: span 'Retriever'" in result.output and "must be a finite number" in result.output


def test_a_document_without_an_id_names_the_flag(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", QUESTIONS[0][1], [(None, 0.5, {"source": "a.md"})])]))
    result = invoke("eval", golden, "--traces", path)
    assert result.exit_code == 2 and "has no document.id (its metadata keys: source)" in result.output
    assert "--doc-id-key KEY" in result.output
    assert invoke("eval", golden, "--traces", path, "--doc-id-key", "source").exit_code == 0


@pytest.mark.parametrize("args", [["--run", "r.jsonl", "--traces", "t.jsonl"], ["--run", "r.jsonl", "--skip-unmatched"],
                                  ["--retriever", "bm25:c.jsonl", "--id-attribute", "session.id"]])
def test_traces_options_alone_or_with_a_run_are_refused(golden: Path, args: list[str]) -> None:
    result = invoke("eval", golden, *args)
    assert result.exit_code == 2 and ("--traces" in result.output)
