"""Results that would be all zeros for a detectable reason: refused (exit 2) or explained loudly."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.data.hits import Hit, QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.evaluation.diagnose import is_chunk_id, section_parent
from ragauge.evaluation.evaluate import evaluate_run


def golden(relevant: dict[str, list[str]]) -> GoldenSet:
    return GoldenSet(tuple(GoldenQuery(q, f"question {q}", {d: 1 for d in docs}) for q, docs in relevant.items()))


def run(hits: dict[str, list[str | Hit]], errors: dict[str, str] | None = None) -> Run:
    errors = errors or {}
    return Run.from_results([QueryResult(q, tuple(h if isinstance(h, Hit) else Hit(h) for h in hs), 5.0, None,
                                         errors.get(q)) for q, hs in hits.items()])


def loud(evaluation) -> list[str]:
    return [w for w in evaluation.warnings if w.startswith(LOUD)]


def test_section_labels_against_a_document_index_are_explained() -> None:
    g = golden({f"q{i}": [f"kb-{i}#setup"] for i in range(45)})
    r = run({f"q{i}": [f"kb-{i}", "other"] for i in range(45)})
    ev = evaluate_run(g, r, k=5)
    assert all(v == 0.0 for v in ev.summary.values())
    (warning,) = loud(ev)
    assert "45/45 judged ids are sections of returned documents" in warning
    assert "label at document level" in warning


def test_chunk_hits_against_document_labels_suggest_a_rule() -> None:
    g = golden({"q1": ["kb-1"], "q2": ["kb-2"]})
    r = run({"q1": ["kb-1#3", "kb-7#1"], "q2": ["kb-2#chunk-4"]})
    (warning,) = loud(evaluate_run(g, r, k=5))
    assert "--doc-id-sep '#'" in warning


def test_a_doc_id_separator_found_in_no_chunk_id_is_reported() -> None:
    g = golden({"q1": ["kb-1"]})
    r = run({"q1": [Hit(None, "kb-1_c3"), Hit(None, "kb-2_c1")]})
    warnings = loud(evaluate_run(g, r, k=5, doc_id_sep="#"))
    assert any("--doc-id-sep '#' occurs in no chunk id" in w for w in warnings)
    assert any("no relevant document was retrieved for any question" in w and "after the doc-id rule" in w
               for w in warnings)


def test_ids_from_another_scheme_are_explained() -> None:
    ev = evaluate_run(golden({"q1": ["doc-1"]}), run({"q1": ["12", "13"]}), k=5)
    (warning,) = loud(ev)
    assert "same id scheme" in warning and "'12'" in warning and "'doc-1'" in warning


def test_a_run_that_finds_something_gets_no_explanation() -> None:
    ev = evaluate_run(golden({"q1": ["a"], "q2": ["b"]}), run({"q1": ["a"], "q2": ["c"]}), k=5)
    assert loud(ev) == []


def test_chunk_looking_golden_ids_are_flagged() -> None:
    assert is_chunk_id("kb-1#chunk-3") and is_chunk_id("doc::chunk_12") and is_chunk_id("a/b_passage7")
    assert not is_chunk_id("kb-1#setup") and not is_chunk_id("kb-1042") and not is_chunk_id("chunking-guide")
    assert section_parent("kb-1#setup") == "kb-1" and section_parent("kb-1") is None
    ev = evaluate_run(golden({"q1": ["kb-1#chunk-3"]}), run({"q1": ["kb-1#chunk-3"]}), k=5)
    assert any("look like chunk ids ('kb-1#chunk-3')" in w for w in loud(ev))


def test_all_no_answer_questions_give_empty_means_not_zero() -> None:
    g = GoldenSet((GoldenQuery("q1", "x", {}), GoldenQuery("q2", "y", {})))
    ev = evaluate_run(g, run({"q1": ["a"], "q2": []}), k=5)
    assert all(math.isnan(v) for v in ev.summary.values())
    assert any("all are no-answer questions" in w for w in loud(ev))


@pytest.mark.parametrize(("hits", "errors", "message"), [
    ({}, {}, "the run holds no questions"),
    ({"x1": ["a"], "x2": ["b"]}, {}, "none of the run's 2 question id(s) is in the golden set"),
    ({"q1": [], "q2": []}, {"q1": "ConnectError: refused", "q2": "ConnectError: refused"},
     "every retriever call failed (2 of 2 question(s)); first error: ConnectError: refused"),
])
def test_unscorable_runs_are_refused(hits, errors, message) -> None:
    with pytest.raises(InputError) as info:
        evaluate_run(golden({"q1": ["a"], "q2": ["b"]}), run(hits, errors), k=5)
    assert message in info.value.message


def test_cli_exit_codes_and_json_for_zero_cases(tmp_path: Path) -> None:
    (tmp_path / "g.jsonl").write_text('{"id": "q1", "query": "x", "relevant": []}\n', encoding="utf-8")
    (tmp_path / "r.jsonl").write_text('{"id": "q1", "hits": ["a"]}\n', encoding="utf-8")
    (tmp_path / "other.jsonl").write_text('{"id": "zz", "hits": ["a"]}\n', encoding="utf-8")
    runner = CliRunner()
    refused = runner.invoke(cli, ["eval", str(tmp_path / "g.jsonl"), "--run", str(tmp_path / "other.jsonl")])
    assert refused.exit_code == 2 and "none of the run's 1 question id(s)" in refused.output
    assert "Traceback" not in refused.output
    out = tmp_path / "result.json"
    done = runner.invoke(cli, ["eval", str(tmp_path / "g.jsonl"), "--run", str(tmp_path / "r.jsonl"),
                               "--format", "json", "-o", str(out)])
    assert done.exit_code == 0, done.output
    text = out.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text
    data = json.loads(text)
    assert all(v is None for v in data["summary"].values())


def test_a_look_alike_id_is_named_not_scored_silently() -> None:
    """An id with a zero-width space (or a full-width letter) scored as a plain miss in silence."""
    import ragauge

    golden = [{"id": "q1", "query": "a", "relevant": ["kb\u200b-1"]}, {"id": "q2", "query": "b", "relevant": ["kb-2"]}]
    e = ragauge.evaluate_run(golden, {"q1": ["kb-1"], "q2": ["\uff4bb-2"]})
    notes = [w for w in e.warnings if "look-alike" in w]
    assert len(notes) == 1 and "2 returned id(s)" in notes[0]
    assert r"'kb-1' returned, 'kb\u200b-1' labelled" in notes[0] and r"'\uff4bb-2' returned, 'kb-2'" in notes[0]
    assert e.summary["hit@5"] == 0.0  # exact matching: the numbers are the ids' as written
    clean = ragauge.evaluate_run(golden[1:], {"q2": ["kb-2"]})
    assert not [w for w in clean.warnings if "look-alike" in w]


def test_golden_validate_lists_look_alike_ids() -> None:
    from ragauge.curation.validate import validate_lines

    report = validate_lines([(1, {"id": "q1", "query": "a", "relevant": ["kb\u200b-1"]}),
                             (2, {"id": "q2", "query": "b", "relevant": ["kb-2"]})], documents={"kb-1", "kb-2"})
    found = [f for f in report.findings if f.code == "look-alike-id"]
    assert [f.line for f in found] == [1, 1] and "which holds 'kb-1'" in found[1].message
