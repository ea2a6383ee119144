"""Traces matched to a golden set and read as a run (formats/trace_import.py), on small hand-written
OTLP JSON: the question rule (query text, id attribute), unmatched and duplicate traces refused with file
and line, skipped traces counted, the run written and scored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ragauge
from ragauge.errors import InputError
from ragauge.formats.trace_import import import_traces
from tests.formats.otlp_files import request, retriever, span, write

QUESTIONS = [("q1", "How do I reset my password?", ["d1"]), ("q2", "VPN certificate expired", ["d2", "d3"]),
             ("q3", "Printer out of toner", ["d4"])]


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps({"id": i, "query": q, "relevant": r}) + "\n" for i, q, r in QUESTIONS),
                    encoding="utf-8")
    return path


def trace(n: int) -> str:
    return f"{n:032x}"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_chunk_ids_are_folded_when_scored(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", "How do I reset my password?",
                                                          [("d9#0", 0.9), ("d1#4", 0.8), ("d1#2", 0.7)])]))
    imported = import_traces(path, golden, chunk_ids=True)
    assert ragauge.evaluate_run(golden, imported.run, k=1, doc_id_sep="#").summary["recall@1"] == 0.0
    assert ragauge.evaluate_run(golden, imported.run, k=2, doc_id_sep="#").summary["recall@2"] == pytest.approx(1 / 3)


def test_the_query_text_finds_the_question(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl",
                 request([retriever("1", "  vpn   CERTIFICATE expired\n", [("d2", 1.0)], trace=trace(1))]),
                 # the root's input is JSON (a LlamaIndex query bundle): the first retriever's query matches
                 request([span("1", "engine", trace=trace(2), kind="CHAIN", input__value='{"query": "x"}', end=9),
                          retriever("2", "Printer out of toner", [("d4", 1.0)], trace=trace(2), parent="1")]),
                 request([span("1", "embedding only", trace=trace(3), kind="EMBEDDING")]))
    out = tmp_path / "run.jsonl"
    imported = import_traces([path], golden, output=out)
    assert [r.id for r in imported.results] == ["q2", "q3"]  # golden-set order
    assert [t.trace_id for t in imported.skipped] == [trace(3)] and imported.unanswered == ("q1",)
    notes = imported.notes()
    assert "1 trace(s) hold no retriever span" in notes[0] and "'q1'" in notes[1]
    written = lines(out)
    assert written[0]["_meta"]["traces"] == {"read": 3, "matched": 2, "unmatched": 0, "skipped": 1}
    assert [(line["id"], [c["query"] for c in line["calls"]]) for line in written[1:]] == [
        ("q2", ["  vpn   CERTIFICATE expired\n"]), ("q3", ["Printer out of toner"])]
    again = ragauge.read_run(out)
    assert again.queries == ("q2", "q3")


def test_an_id_attribute_names_the_question(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([
        span("1", "chain", trace=trace(1), kind="CHAIN", input__value="anything",
             metadata=json.dumps({"question_id": "q3", "user": "u"})),
        retriever("2", "rewritten", [("d4", 1.0)], trace=trace(1), parent="1",
                  metadata=json.dumps({"question_id": "q3"})),
        retriever("1", "other words", [("d1", 1.0)], trace=trace(2), **{"ragauge.question_id": "q1"}),
        retriever("1", "more words", [("d2", 1.0)], trace=trace(3), session__id=2)]))
    by_metadata = import_traces(path, golden, id_attribute="metadata.question_id", skip_unmatched=True)
    assert [r.id for r in by_metadata.results] == ["q3"] and len(by_metadata.unmatched) == 2
    assert "2 trace(s) matched no question and were dropped (skip_unmatched=)" in by_metadata.notes()[0]
    by_key = import_traces(path, golden, id_attribute="ragauge.question_id", skip_unmatched=True)
    assert [r.id for r in by_key.results] == ["q1"]
    with pytest.raises(InputError, match=r"2 of 3 trace\(s\) match no question") as caught:
        import_traces(path, golden, id_attribute="ragauge.question_id")
    assert "no span carries 'ragauge.question_id'" in caught.value.message
    assert caught.value.where == f"{path}:1" and "skip_unmatched=" in str(caught.value.hint)
    with pytest.raises(InputError, match="'2' is not a question id"):
        import_traces(path, golden, id_attribute="session.id")


def test_a_trace_without_the_id_attribute_is_not_matched_by_its_text(tmp_path: Path, golden: Path) -> None:
    # its query is q1's text, but the user asked for the attribute: refused, with how to fall back
    path = write(tmp_path / "t.jsonl", request([retriever("1", "How do I reset my password?", [("d1", 1.0)])]),
                 request([retriever("1", "other words", [("d2", 1.0)], trace=trace(2), session__id="q2")]))
    with pytest.raises(InputError, match="1 of 2 trace") as caught:
        import_traces(path, golden, id_attribute="session.id")
    assert "no span carries 'session.id'" in caught.value.message and caught.value.where == f"{path}:1"
    hint = str(caught.value.hint)
    assert "never by its query text" in hint and "leave out id_attribute=" in hint and "skip_unmatched=" in hint
    assert [r.id for r in import_traces(path, golden, id_attribute="session.id", skip_unmatched=True).results] == ["q2"]
    assert [r.id for r in import_traces(path, golden, skip_unmatched=True).results] == ["q1"]  # the text fallback


def test_two_ids_in_one_trace_are_refused(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([
        retriever("1", "a", [("d1", 1.0)], session__id="q1"),
        retriever("2", "b", [("d2", 1.0)], parent="1", session__id="q2")]))
    with pytest.raises(InputError, match="two question ids under 'session.id': 'q1' and 'q2'"):
        import_traces(path, golden, id_attribute="session.id")


def test_unmatched_traces_are_listed_with_their_file_and_line(tmp_path: Path, golden: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", "VPN certificate expired", [("d2", 1.0)])]),
                 *(request([retriever("1", f"question {n}", [("d1", 1.0)], trace=trace(n))]) for n in range(1, 8)))
    with pytest.raises(InputError) as caught:
        import_traces(path, golden)
    message = caught.value.message
    assert message.startswith("7 of 8 trace(s) match no question of the golden set:\n  trace ")
    assert f"({path}:2): query 'question 1'" in message and "... and 2 more" in message
    assert caught.value.where == f"{path}:2" and "id_attribute=KEY" in str(caught.value.hint)
    imported = import_traces(path, golden, skip_unmatched=True)
    assert [r.id for r in imported.results] == ["q2"] and len(imported.unmatched) == 7
    with pytest.raises(InputError, match="none of the 1 trace"):
        import_traces(write(tmp_path / "u.jsonl", request([retriever("1", "x", [])])), golden, skip_unmatched=True)


def test_a_second_trace_for_a_question_is_refused(tmp_path: Path, golden: Path) -> None:
    first = write(tmp_path / "a.jsonl", request([retriever("1", "Printer out of toner", [("d4", 1.0)])]))
    second = write(tmp_path / "b.jsonl", request([span("9", "x", trace=trace(5), kind="CHAIN")]),
                   request([retriever("1", "printer out of toner", [("d4", 1.0)], trace=trace(9))]))
    with pytest.raises(InputError, match="question 'q3' is answered by two traces") as caught:
        import_traces([first, second], golden)
    assert caught.value.where == f"{second}:2" and f"({first}:1)" in caught.value.message
    assert "id_attribute=KEY" in str(caught.value.hint)


def test_a_trace_split_over_files_is_one_trajectory(tmp_path: Path, golden: Path) -> None:
    q = "How do I reset my password?"
    a = write(tmp_path / "a.jsonl", request([retriever("2", q, [("d1", 1.0)], parent="1", start=1, end=5)]))
    b = write(tmp_path / "b.jsonl", request([span("1", "root", kind="CHAIN", input__value=q, end=10),
                                             retriever("3", "passwords", [("d5", 1.0)], parent="1", start=6, end=9)]))
    imported = import_traces([a, b], golden)
    assert [len(r.calls) for r in imported.results] == [2]
    assert [h.doc_id for h in imported.results[0].hits] == ["d1", "d5"] and imported.results[0].latency_ms == 1e-5
    assert import_traces([b, a], golden).results == imported.results  # calls in start-time order, not file order


def test_a_folder_stands_for_its_files(tmp_path: Path, golden: Path) -> None:
    traces = tmp_path / "otel"
    traces.mkdir()
    write(traces / "traces.json", request([retriever("1", "Printer out of toner", [("d4", 1.0)])]))
    write(traces / "traces-2026.json", request([retriever("1", "VPN certificate expired", [("d2", 1.0)],
                                                          trace=trace(2))]))
    assert [r.id for r in import_traces(traces, golden).results] == ["q2", "q3"]
    with pytest.raises(InputError, match="also an input"):
        import_traces(traces / "traces.json", golden, output=traces / "traces.json")


def test_same_text_for_two_questions_needs_an_id(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text('{"id": "a", "query": "Reset", "relevant": ["d1"]}\n'
                      '{"id": "b", "query": "reset ", "relevant": ["d2"]}\n', encoding="utf-8")
    with pytest.raises(InputError, match="is the text of 2 questions: 'a', 'b'"):
        import_traces(write(tmp_path / "t.jsonl", request([retriever("1", "RESET", [("d1", 1.0)])])), golden)


def test_files_without_spans_say_so(tmp_path: Path, golden: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="no span"):
        import_traces(empty, golden)
    with pytest.raises(InputError, match="holds a retriever span") as caught:
        import_traces(write(tmp_path / "t.jsonl", request([span("1", "llm", kind="LLM")])), golden)
    assert "openinference-instrumentation" in str(caught.value.hint)
