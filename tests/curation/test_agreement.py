"""Several annotators: the adjudication rule, kappa per pair on the items both graded, and the report."""

from __future__ import annotations

import json

import pytest

from ragauge.curation.agreement import judge_stats, judgement_stats, resolve
from ragauge.data.judgements import Judgement
from ragauge.reports.agreement import render_stats_text


def grades(*rows: tuple[str, str, int | None]) -> list[Judgement]:
    """(annotator, doc, grade) rows for question q1; grade None is a skip."""
    return [Judgement("q1", doc, "grade" if g is not None else "skip", who, "2026-11-03T09:00:00Z", g)
            for who, doc, g in rows]


@pytest.mark.parametrize("given, adjudicator, expected", [
    ({"ana": 2}, None, (2, "single")),
    ({"ana": 1, "bo": 1}, None, (1, "unanimous")),
    ({"ana": 1, "bo": 2}, None, (None, "unresolved")),
    ({"ana": 1, "bo": 2}, "bo", (2, "adjudicator")),
    ({"ana": 1, "bo": 2}, "cy", (None, "unresolved")),  # the adjudicator did not grade it
    ({"ana": 1, "bo": 1, "cy": 0}, None, (1, "majority")),
    ({"ana": 1, "bo": 1, "cy": 0}, "cy", (0, "adjudicator")),  # the adjudicator has the last word
    ({"ana": 0, "bo": 1, "cy": 2}, None, (None, "unresolved")),
    ({"ana": 0, "bo": 1, "cy": 1, "di": 0}, None, (None, "unresolved")),  # 2 of 4 is no majority
])
def test_the_rule(given: dict[str, int], adjudicator: str | None, expected: tuple[int | None, str]) -> None:
    assert resolve(given, adjudicator) == expected


def test_kappa_per_pair_over_the_items_both_graded_skips_left_out() -> None:
    records = grades(("ana", "d1", 2), ("ana", "d2", 0), ("ana", "d3", 1), ("ana", "d4", 1),
                     ("bo", "d1", 2), ("bo", "d2", 0), ("bo", "d3", 2), ("bo", "d4", None), ("bo", "d5", 1),
                     ("cy", "d9", 1))
    stats = judgement_stats(records)
    pairs = {(p.a, p.b): p for p in stats.pairs}
    ab = pairs["ana", "bo"]
    assert ab.grades.n == 3 and ab.grades.agreement == pytest.approx(2 / 3)
    # ana: 2, 0, 1; bo: 2, 0, 2 -> p_e = (1*2 + 1*1 + 1*0) / 9 = 1/3, kappa = (2/3 - 1/3) / (2/3) = 0.5
    assert ab.grades.value == pytest.approx(0.5)
    assert ab.binary.value == pytest.approx(1.0)  # relevant or not, they agree on all three
    assert pairs["ana", "cy"].grades.value is None and pairs["ana", "cy"].grades.n == 0
    assert [a.to_dict() for a in stats.annotators][1] == {"name": "bo", "graded": 4, "skipped": 1, "relevant": 3}
    assert [(d.doc_id, d.how) for d in stats.disagreements] == [("d3", "unresolved")] and stats.unresolved == 1


def test_the_text_report_says_na_with_the_reason_and_lists_disagreements() -> None:
    records = grades(("ana", "d1", 1), ("ana", "d2", 1), ("bo", "d1", 1), ("bo", "d2", 1), ("ana", "d3", 0),
                     ("bo", "d3", 2), ("ana", "<d4>\x1b[31m", 1), ("cy", "d7", 1))
    text = render_stats_text(judgement_stats(records, logs=["log.jsonl"], adjudicator="bo"))
    assert "n/a" in text and "nan" not in text.lower().replace("annotator", "")
    assert "ana ~ cy" in text and "n/a, no item judged by both" in text
    assert "q1 / d3" in text and "2 (adjudicator)" in text and "ana=0 bo=2" in text
    assert "adjudicator: bo" in text and "\x1b" not in text


def test_one_annotator_has_no_pair() -> None:
    stats = judgement_stats(grades(("ana", "d1", 1)))
    assert stats.pairs == () and "kappa needs two" in render_stats_text(stats)


def test_judge_stats_reads_several_logs_and_the_json_has_no_nan(tmp_path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in grades(("ana", "d1", 1))))
    b.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in grades(("bo", "d1", 1))))
    stats = judge_stats([a, b], adjudicator="zed")
    assert stats.logs == (str(a), str(b)) and stats.pairs[0].grades.value is None  # one label for everything
    out = stats.to_dict()
    assert out["pairs"][0]["kappa"] is None and "same label" in out["pairs"][0]["undefined"]
    assert any("adjudicator 'zed' has no judgement" in n for n in out["notes"])
    json.dumps(out, allow_nan=False)
