"""Attribution on a small labelled file: every cell, per tag, thresholds, the cutoff, no-answer questions,
the questions in no cell, and the result's round trip.

tests/fixtures/attribution holds 11 golden questions, a run and an answers file made so that each
question lands in a known cell (the comments in the expectations say why)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ragauge
from ragauge.attribution.cells import attribute_evaluation
from ragauge.attribution.result import (
    CELLS,
    ERROR,
    FOUND_BAD,
    FOUND_GOOD,
    MISSED_BAD,
    MISSED_GOOD,
    MISSING,
    NO_ANSWER_BAD,
    NO_ANSWER_GOOD,
    UNJUDGED,
    Attribution,
)
from ragauge.core.jsonl import dumps
from ragauge.core.notes import LOUD
from ragauge.errors import InputError

DATA = Path(__file__).parents[1] / "fixtures" / "attribution"
GOLDEN, RUN, ANSWERS = DATA / "golden.jsonl", DATA / "run.jsonl", DATA / "answers.jsonl"


def _attribute(**options: object) -> Attribution:
    return ragauge.attribute(GOLDEN, RUN, ANSWERS, **{"threshold": 0.5, **options})  # type: ignore[arg-type]


def test_each_question_lands_in_its_cell() -> None:
    a = _attribute()
    cells = a.overall.cells
    assert cells[FOUND_GOOD] == ("g1", "g3")   # rank 1 + "good"; rank 1 + score 0.9 >= 0.5
    assert cells[FOUND_BAD] == ("g5",)         # rank 1 + "bad"
    assert cells[MISSED_GOOD] == ("g4",)       # not retrieved + "Good"
    assert cells[MISSED_BAD] == ("g2", "g6")   # rank 6 > k=5 + "bad"; not retrieved + false
    assert a.overall.n == 6
    assert a.ids(UNJUDGED) == ("g7",)          # answer text, no verdict or score
    assert a.ids(MISSING) == ("g8",)           # absent from the run: what search found is unknown
    assert a.ids(ERROR) == ("g9",)             # the retriever failed
    assert a.no_answer == {NO_ANSWER_BAD: ("n1",), NO_ANSWER_GOOD: ("n2",)}
    assert a.not_in_golden == ("x1",)
    assert {row.id for row in a.questions} == {f"g{i}" for i in range(1, 10)} | {"n1", "n2"}


def test_the_shares_and_the_conditional_rates() -> None:
    t = _attribute().overall
    assert [t.count(c) for c in CELLS] == [2, 1, 1, 2]
    assert t.share(MISSED_BAD) == pytest.approx(2 / 6)
    assert sum(t.share(c) for c in CELLS) == pytest.approx(1.0)
    assert t.good_when_found == pytest.approx(2 / 3)   # g1, g3 good of g1, g3, g5
    assert t.good_when_missed == pytest.approx(1 / 3)  # g4 good of g2, g4, g6


def test_per_tag_tables_hold_only_their_questions_largest_bad_share_first() -> None:
    by_tag = _attribute().by_tag
    assert list(by_tag) == ["files", "hw", "net"]  # bad shares 2/2, 1/2, 0/2; "mail" has only g7 (no verdict)
    assert by_tag["files"].cells[FOUND_BAD] == ("g5",) and by_tag["files"].cells[MISSED_BAD] == ("g6",)
    assert by_tag["hw"].cells[MISSED_BAD] == ("g2",) and by_tag["hw"].cells[MISSED_GOOD] == ("g4",)
    assert by_tag["net"].cells[FOUND_GOOD] == ("g1", "g3") and by_tag["net"].n == 2  # g8, g9 are in no cell


def test_the_cutoff_moves_a_question_between_found_and_not_found() -> None:
    a = _attribute(k=6)
    assert a.overall.cells[FOUND_BAD] == ("g2", "g5") and a.overall.cells[MISSED_BAD] == ("g6",)
    row = next(r for r in a.questions if r.id == "g2")
    assert row.rank == 6 and row.cell == FOUND_BAD


def test_found_agrees_with_the_hit_at_k_metric_for_every_question() -> None:
    """The table's 'found' is the evaluation's hit@k, computed by the metric engine independently."""
    for k in (1, 2, 5, 6, 10):
        evaluation = ragauge.evaluate_run(GOLDEN, RUN, metrics=[f"hit@{k}"])
        a = attribute_evaluation(evaluation, ragauge.read_answers(ANSWERS), k=k, threshold=0.5)
        hits = {q.id: q.values[f"hit@{k}"] for q in evaluation.queries}
        for row in a.questions:
            if row.cell in CELLS:
                assert (row.cell in (FOUND_GOOD, FOUND_BAD)) == (hits[row.id] == 1.0), (k, row)


def test_the_threshold_decides_scored_lines_only() -> None:
    high = _attribute(threshold=0.95)
    assert high.overall.cells[FOUND_BAD] == ("g3", "g5")  # 0.9 < 0.95; the explicit verdicts did not move
    assert high.overall.cells[MISSED_GOOD] == ("g4",)
    edge = _attribute(threshold=0.9)
    assert "g3" in edge.overall.cells[FOUND_GOOD]  # score >= threshold is good


def test_a_score_without_a_threshold_is_refused() -> None:
    with pytest.raises(InputError) as err:
        ragauge.attribute(GOLDEN, RUN, ANSWERS)
    assert err.value.where == f"{ANSWERS}:3" and "threshold" in err.value.message


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, float("nan")])
def test_a_bad_cutoff_is_refused(bad: object) -> None:
    with pytest.raises(InputError):
        _attribute(k=bad)


def test_a_threshold_that_is_not_finite_is_refused() -> None:
    with pytest.raises(InputError, match="threshold"):
        _attribute(threshold=float("inf"))


def test_the_rows_in_no_cell_say_why_and_the_notes_are_loud() -> None:
    a = _attribute()
    row = {r.id: r for r in a.questions}
    assert row["g7"].note == "no verdict or score on line 7"
    assert row["g8"].verdict == "good" and row["g8"].rank is None
    loud = [n for n in a.notes if n.startswith(LOUD)]
    assert any("no answer verdict" in n and "g7" in n for n in loud)
    assert any("missing from the run" in n and "g8" in n for n in loud)
    assert any("failed in the retriever" in n and "g9" in n for n in loud)
    assert any("golden set does not have" in n and "x1" in n for n in a.notes)


def test_questions_not_in_the_answers_file_are_listed_not_dropped() -> None:
    a = ragauge.attribute(GOLDEN, RUN, {"g1": "good"})
    unjudged = {r.id: r.note for r in a.questions if r.cell == UNJUDGED}
    assert set(unjudged) == {"g2", "g3", "g4", "g5", "g6", "g7", "n1", "n2"}
    assert set(unjudged.values()) == {"not in the answers file"}
    assert a.overall.n == 1


def test_an_empty_table_says_so() -> None:
    a = ragauge.attribute(GOLDEN, RUN, {"x1": "good"})
    assert a.overall.n == 0 and any("the table is empty" in n for n in a.notes)


def test_the_evaluations_loud_warnings_are_carried_over(tmp_path: Path) -> None:
    """Chunk ids as doc ids and no rule to fold them: every 'not found' would be wrong; the evaluation
    says why, and so must the attribution."""
    run = tmp_path / "run.jsonl"
    run.write_text('{"id": "g1", "hits": ["vpn#3"]}\n{"id": "g2", "hits": ["printer#1"]}\n')
    a = ragauge.attribute(GOLDEN, run, {"g1": "bad", "g2": "bad"})
    assert a.overall.cells[MISSED_BAD] == ("g1", "g2")
    assert any(n.startswith(LOUD) and "--doc-id-sep" in n for n in a.notes)


def test_the_result_round_trips_through_its_dict() -> None:
    a = _attribute()
    again = Attribution.from_dict(a.to_dict())
    assert again == a
    assert dumps(again.to_dict()) == dumps(a.to_dict())
    with pytest.raises(InputError, match="not a ragauge attribution"):
        Attribution.from_dict({"ragauge_result": 1})


def test_the_metadata_names_the_inputs_and_counts_verdicts_by_source() -> None:
    meta = _attribute().meta
    assert meta["golden"]["hash"].startswith("sha256:") and meta["run"]["hash"].startswith("sha256:")
    assert meta["answers"]["path"] == str(ANSWERS) and meta["answers"]["lines"] == 12
    assert meta["answers"]["verdicts_by_source"] == {"review": 7, "feedback": 2, "judge-tool": 1}
