"""--finish: judgements settled by the rule and merged into the golden set through golden merge's code
path (labels for its questions, reviewed candidates for new ones), atomically, never silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.curation.judge_finish import merge_judgements
from ragauge.curation.merge import merge_golden
from ragauge.data.judgements import Judgement
from ragauge.errors import InputError
from ragauge.formats.golden import load_golden
from ragauge.formats.judgements import append_judgement
from tests.curation.judging import make, write_jsonl


def judge(log: Path, who: str, q: str, doc: str, grade: int | None, action: str = "grade") -> None:
    append_judgement(log, Judgement(q, doc, action, who, "2026-11-03T09:00:00Z", grade if action == "grade" else None))


def test_grades_become_relevant_entries_and_the_other_lines_stay_as_they_were(tmp_path: Path) -> None:
    paths = make(tmp_path)
    before = paths["golden"].read_text().splitlines()
    judge(paths["log"], "ana", "q1", "kb-vpn2", 1)
    judge(paths["log"], "ana", "q2", "kb-jam", 2)
    judge(paths["log"], "ana", "q2", "kb-ghost", 0)
    judge(paths["log"], "ana", "q1", "kb-portal", None, "skip")
    result = merge_judgements(paths["pool"])
    after = paths["golden"].read_text().splitlines()
    assert json.loads(after[0])["relevant"] == ["kb-vpn", "kb-vpn2"]  # still a list: every grade is 1
    assert json.loads(after[1])["relevant"] == {"kb-printer": 2, "kb-old": 0, "kb-jam": 2, "kb-ghost": 0}
    assert after[2] == before[2]
    assert (result.report.labelled, result.report.questions_labelled, result.unjudged) == (3, 2, 1)
    assert "merged 3 label(s) into 2 question(s)" in result.lines()[0] and result.output == str(paths["golden"])
    assert load_golden(paths["golden"]).by_id["q2"].relevant["kb-jam"] == 2
    again = merge_judgements(paths["pool"])  # the same judgements again: nothing new, nothing refused
    assert again.report.labelled == 0 and paths["golden"].read_text().splitlines() == after


def test_output_elsewhere_leaves_the_golden_set_alone(tmp_path: Path) -> None:
    paths = make(tmp_path)
    original = paths["golden"].read_bytes()
    judge(paths["log"], "ana", "q1", "kb-vpn2", 2)
    merge_judgements(paths["pool"], output=tmp_path / "out.jsonl")
    assert paths["golden"].read_bytes() == original
    assert load_golden(tmp_path / "out.jsonl").by_id["q1"].relevant == {"kb-vpn": 1, "kb-vpn2": 2}


def test_disagreements_follow_the_rule_and_ties_are_left_out_and_listed(tmp_path: Path) -> None:
    paths = make(tmp_path)
    for who, grade in (("ana", 1), ("bo", 2)):
        judge(paths["log"], who, "q1", "kb-vpn2", grade)  # a tie
    for who, grade in (("ana", 0), ("bo", 1), ("cy", 1)):
        judge(paths["log"], who, "q2", "kb-jam", grade)  # a majority
    result = merge_judgements(paths["pool"])
    golden = load_golden(paths["golden"])
    assert "kb-vpn2" not in golden.by_id["q1"].relevant and golden.by_id["q2"].relevant["kb-jam"] == 1
    assert [(u.question, u.doc_id) for u in result.unresolved] == [("q1", "kb-vpn2")]
    text = "\n".join(result.lines())
    assert "2 disagreement(s): 1 settled by majority, 0 by the adjudicator, 1 unresolved" in text
    assert "NOT merged: q1/kb-vpn2" in text
    settled = merge_judgements(paths["pool"], adjudicator="bo")
    assert load_golden(paths["golden"]).by_id["q1"].relevant["kb-vpn2"] == 2 and settled.unresolved == ()


def test_a_label_that_contradicts_the_golden_set_stops_the_merge_before_writing(tmp_path: Path) -> None:
    paths = make(tmp_path)
    judge(paths["log"], "ana", "q1", "kb-vpn2", 1)
    judge(paths["log"], "ana", "q2", "kb-jam", 1)
    rows = [json.loads(x) for x in paths["golden"].read_text().splitlines()]
    rows[1]["relevant"]["kb-jam"] = 0  # labelled by hand after pooling
    write_jsonl(paths["golden"], rows)
    before = paths["golden"].read_bytes()
    with pytest.raises(InputError, match="labels 'kb-jam' with grade 0; the judgements say 1") as info:
        merge_judgements(paths["pool"])
    assert info.value.where == f"{paths['golden']}:2" and paths["golden"].read_bytes() == before


def test_new_questions_from_a_candidates_file_go_through_golden_merges_checks(tmp_path: Path) -> None:
    paths = make(tmp_path)
    candidates = write_jsonl(tmp_path / "candidates.jsonl", [
        {"id": "cand-1", "query": "vpn password expired", "relevant": None, "status": "needs-review",
         "hint_retrieved": ["kb-vpn"], "source": "log.jsonl", "added": "2026-11-01"},
        {"id": "cand-2", "query": "the jammed paper", "relevant": None, "status": "needs-review"},
        {"id": "q1", "query": "an id the golden set uses", "relevant": None},
    ])
    import ragauge

    pool = tmp_path / "cand-pool.jsonl"
    ragauge.pool_golden(candidates, runs={"a": {"cand-1": ["kb-vpn2"], "cand-2": ["kb-jam"], "q1": ["kb-vpn"]}},
                        depth=3, output=pool)
    log = tmp_path / "cand-pool.judgements.jsonl"
    judge(log, "ana", "cand-1", "kb-vpn2", 2)
    judge(log, "ana", "cand-2", "kb-jam", 0)
    with pytest.raises(InputError, match="candidates still to review") as info:
        merge_judgements(pool)  # the pool's own file is the candidates file: name the golden set
    assert (info.value.hint or "").endswith("with golden=")  # the keyword of merge_judgements, not --golden
    judge(log, "ana", "q1", "kb-vpn", 1)
    with pytest.raises(InputError, match="question 'q1' asks 'reset the VPN password' here but 'an id the golden"):
        merge_judgements(pool, golden=paths["golden"])  # another question under an id the golden set uses
    judge(log, "ana", "q1", "kb-vpn", None, "undo")
    result = merge_judgements(pool, golden=paths["golden"])
    rows = [json.loads(x) for x in paths["golden"].read_text().splitlines()]
    assert rows[-1] == {"id": "cand-1", "query": "vpn password expired", "relevant": {"kb-vpn2": 2},
                        "source": "log.jsonl", "added": "2026-11-01"}  # review fields stripped
    assert result.report.merged == 1 and result.left_out == ("cand-2",)
    assert "1 new question(s) left out, no candidate graded relevant: cand-2" in "\n".join(result.lines())


def test_merge_golden_collects_every_problem(tmp_path: Path) -> None:
    paths = make(tmp_path)
    with pytest.raises(InputError) as info:
        merge_golden(paths["golden"], [("c.jsonl:1", {"id": "n1", "query": "x", "relevant": None})],
                     {"q9": {"d": 1}, "q2": {"kb-printer": 1}})
    message = info.value.message
    assert "question 'q9' is not in the golden set" in message and "kb-printer" in message
    assert "not reviewed" in message and "(3 problems, nothing written)" in message


def test_a_log_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    paths = make(tmp_path)
    with pytest.raises(InputError, match="judgements log file not found"):
        merge_judgements(paths["pool"])
