from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.core.jsonl import dumps
from ragauge.data.hits import Hit, QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.formats.run_lines import run_line
from ragauge.formats.runs import read_run, write_run_jsonl


def write(tmp_path: Path, text: str, name: str = "run.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_reads_hits_in_every_form_and_metadata(tmp_path: Path) -> None:
    path = write(tmp_path, '{"_meta": {"retriever": "bm25"}}\n'
                 '{"id": "q1", "hits": ["a", {"doc_id": "b", "chunk_id": "b#2", "score": 0.5}, {"chunk_id": "c#1"}],'
                 ' "latency_ms": 41.2, "cost": 0.00002}\n{"id": "q2", "hits": [], "error": "timeout"}\n')
    run = read_run(path)
    assert run.meta == {"retriever": "bm25"}
    assert run.queries == ("q1", "q2")
    assert run.result("q1") == QueryResult("q1", (Hit("a"), Hit("b", "b#2", 0.5), Hit(None, "c#1")), 41.2, 2e-05)
    assert run.result("q2").error == "timeout"


def test_round_trip(tmp_path: Path) -> None:
    results = [QueryResult("q1", (Hit("a", score=1.0), Hit("b", "b#1"))), QueryResult("q2", (), 3.0)]
    out = tmp_path / "out.jsonl"
    write_run_jsonl(Run.from_results(results), out)
    assert read_run(out).results() == results


def test_trec_run_is_ranked_as_trec_eval_does(tmp_path: Path) -> None:
    path = write(tmp_path, "q1 Q0 a 3 1.0 t\nq1 Q0 b 1 2.0 t\nq1 Q0 c 2 1.0 t\n", name="run.trec")
    run = read_run(path)
    assert run.format == "trec"
    assert [h.doc_id for h in run.result("q1").hits] == ["b", "c", "a"]


@pytest.mark.parametrize(("text", "message"), [
    ('{"hits": []}\n', "missing or invalid 'id'"),
    ('{"id": "q1", "hits": "a"}\n', "'hits' must be a list"),
    ('{"id": "q1", "hits": [{"score": 1}]}\n', "neither 'doc_id' nor 'chunk_id'"),
    ('{"id": "q1", "hits": [{"doc_id": 3}]}\n', "hit 'doc_id' must be a string"),
    ('{"id": "q1", "hits": [{"doc_id": "a", "score": "x"}]}\n', "hit 'score' must be a finite number"),
    ('{"id": "q1", "hits": [], "latency_ms": "fast"}\n', "'latency_ms' must be a finite number"),
    ('{"id": "q1", "hits": []}\n{"id": "q1", "hits": []}\n', "appears twice (first on line 1)"),
])
def test_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        read_run(path)
    assert message in info.value.message
    assert info.value.where and info.value.where.startswith(f"{path}:")


def test_a_line_without_hits_is_refused_not_scored_as_an_empty_answer(tmp_path: Path) -> None:
    """A misspelt key (or a golden set given as the run) once read as "found nothing" and scored 0."""
    with pytest.raises(InputError) as info:
        read_run(write(tmp_path, '{"id": "q1", "hits": ["a"]}\n{"id": "q2", "hist": ["b"]}\n'))
    assert info.value.message == "question 'q2' has no 'hits'" and info.value.where == f"{tmp_path / 'run.jsonl'}:2"
    assert "'hist' is not a field of a run line" in (info.value.hint or "")
    with pytest.raises(InputError) as info:
        read_run(write(tmp_path, '{"id": "q1", "query": "vpn", "relevant": ["a"]}\n'))
    assert "looks like a golden-set line" in (info.value.hint or "")
    with pytest.raises(InputError, match="has no 'hits'"):
        read_run(write(tmp_path, '{"id": "q1", "error": null}\n'))
    failed = read_run(write(tmp_path, '{"id": "q1", "error": "timeout"}\n{"id": "q2", "hits": []}\n'))
    assert failed.result("q1").error == "timeout" and failed.queries == ("q1", "q2")


_texts = st.text(max_size=6) | st.sampled_from(["d1", "a\u202eb", "\x7f", "é", "\ud800"])
_numbers = st.none() | st.floats() | st.integers(min_value=-(2**70), max_value=2**70)
_hits = st.builds(Hit, st.none() | _texts, st.none() | _texts, _numbers, st.none() | st.integers(0, 10**6),
                  st.none() | st.integers(0, 10**6), st.none() | st.integers(0, 10**6)) | st.builds(
                      Hit, _texts, st.none(), st.floats(allow_nan=False, allow_infinity=False))
_results = st.builds(QueryResult, _texts, st.lists(_hits, max_size=5).map(tuple), _numbers, _numbers,
                     st.none() | _texts)


@settings(max_examples=500, deadline=None)
@given(st.lists(_results, max_size=3))
def test_run_line_is_the_text_of_compact_dumps_for_any_answer(results: list[QueryResult]) -> None:
    """``run_line`` writes the standard library's compact text whichever encoder runs (tests and
    resumed runs compare lines), non-finite numbers, tiny numbers, controls and surrogates included,
    on one line whatever the text holds."""
    for r in results:
        line = run_line(r)
        assert line == dumps(r.to_dict(), separators=(",", ":")) + "\n"
        assert "\n" not in line[:-1] and "\u2028" not in line and "\u2029" not in line


def test_a_trec_run_under_a_json_name_is_read_as_trec(tmp_path: Path) -> None:
    """It was read as JSON lines for its name and refused at column 1 with no word of TREC."""
    run = read_run(write(tmp_path, "q1 Q0 a 1 2.0 t\nq1 Q0 b 2 1.0 t\n", name="run.jsonl"))
    assert run.format == "trec" and [h.doc_id for h in run.result("q1").hits] == ["a", "b"]
    with pytest.raises(InputError, match="invalid JSON"):  # not TREC either: the JSON error stands
        read_run(write(tmp_path, "q1 a\n", name="bad.jsonl"))
