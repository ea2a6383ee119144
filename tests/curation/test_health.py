from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.curation.health import many_relevant_findings, pool_health
from ragauge.curation.validate import ValidationReport, validate_golden
from ragauge.data.golden import GoldenQuery
from ragauge.data.pool import Pool, PoolDocument, PooledQuestion, PoolSystem
from ragauge.errors import InputError
from ragauge.formats.pool import write_pool
from ragauge.reports.validation import render_validation_text as render_text


def q(qid: str, relevant: dict[str, float], line: int = 1) -> GoldenQuery:
    return GoldenQuery(qid, f"question {qid}", relevant, line=line)


def write_golden(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_many_relevant_flags_questions_above_the_limit_with_recall_s_ceiling() -> None:
    queries = [q("a", {f"d{i}": 1 for i in range(21)}, 1), q("b", {f"d{i}": 1 for i in range(20)}, 2),
               q("c", {**{f"d{i}": 0 for i in range(30)}, "x": 1}, 3)]  # grade 0 is not relevant
    found = many_relevant_findings(queries, 20, k=10)
    assert [(f.code, f.line, f.ids) for f in found] == [("many-relevant", 1, ("a",))]
    assert "21 relevant documents, more than 20; recall@10 can be at most 0.48 on it" in found[0].message
    assert many_relevant_findings(queries, 0) == []


POOL = Pool(3, (PoolSystem("a", "run"), PoolSystem("b", "run")), (
    PooledQuestion("q1", "", (PoolDocument("c1", {"a": 1}), PoolDocument("c2", {"b": 2})),
                   (PoolDocument("r1", {"a": 2}, 1), PoolDocument("never", {}, 1), PoolDocument("deep", {"b": 40}, 0)),
                   ("a", "b")),
    PooledQuestion("q2", "", (), (PoolDocument("r", {}, 1),), ()),  # no system answered q2
    PooledQuestion("q3", "", (PoolDocument("c", {"a": 1}),), (), ("a",)),
))


def test_pool_health_coverage_unreturned_and_labels_made_after_pooling() -> None:
    now = [q("q1", {"r1": 1, "never": 2, "deep": 0, "c1": 0, "late": 1}, 1), q("q2", {"r": 1}, 2),
           q("q3", {}, 3), q("q4", {"x": 1}, 4)]
    findings, section = pool_health(now, POOL, "pool.jsonl")
    rows = {r["id"]: r for r in section["questions"]}
    # q1 pools c1, c2, r1 (deep is ranked 40, beyond depth 3); c1 was judged since: 2 of 3 judged
    assert (rows["q1"]["pooled"], rows["q1"]["judged"]) == (3, 2)
    assert rows["q1"]["unreturned"] == ["never"] and rows["q1"]["labelled_after_pooling"] == ["late"]
    assert rows["q2"]["unreturned"] == [] and rows["q2"]["coverage"] is None  # no system answered: not flagged
    assert rows["q3"]["coverage"] == 0.0 and section["not_pooled"] == ["q4"]
    assert (section["pooled"], section["judged"]) == (4, 2) and section["coverage"] == 0.5
    assert [(f.code, f.severity, f.ids) for f in findings] == [
        ("unreturned-label", "warning", ("q1",)), ("unjudged-pool", "warning", ("q1", "q3")),
        ("not-pooled", "info", ("q4",))]
    assert "relevant document 'never' is returned by none of the 2 pooled systems at any depth" in findings[0].message


def test_validate_golden_with_a_pool_file_and_with_runs(tmp_path: Path) -> None:
    golden = write_golden(tmp_path, [{"id": "q1", "query": "vpn", "relevant": {"r1": 1, "never": 1, "c1": 0, "c2": 0}},
                                     {"id": "q3", "query": "printer", "relevant": {"c": 2}}])
    pool_path = tmp_path / "pool.jsonl"
    write_pool(POOL, pool_path)
    report = validate_golden(golden, pool=pool_path)
    assert [(f.code, f.line) for f in report.findings] == [("unreturned-label", 1)]
    assert report.pool is not None and report.pool["coverage"] == 1.0 and report.exit_code == 1
    text = render_text(report)
    assert f"pool: {pool_path} (2 system(s), depth 3): 4 of 4 pooled documents judged (coverage 100%)" in text
    assert ValidationReport.from_dict(json.loads(json.dumps(report.to_dict()))) == report

    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"id": "q1", "hits": ["r1", "x"]}) + "\n" + json.dumps({"id": "q3", "hits": ["c"]})
                   + "\n", encoding="utf-8")
    by_runs = validate_golden(golden, pool=[run], pool_depth=1)
    rows = {r["id"]: r for r in by_runs.pool["questions"]}  # type: ignore[index]
    assert rows["q1"]["unreturned"] == ["never"] and rows["q1"]["pooled"] == 1
    with pytest.raises(InputError, match="made at depth 3, not 5"):
        validate_golden(golden, pool=pool_path, pool_depth=5)
    with pytest.raises(InputError, match="apply to run files"):
        validate_golden(golden, pool=pool_path, doc_id_sep="#")
    with pytest.raises(InputError, match="not several pools nor a mix"):
        validate_golden(golden, pool=[pool_path, run])


def test_old_reports_without_a_pool_section_still_load() -> None:
    data = ValidationReport("g.jsonl", 1, 1, 0).to_dict()
    del data["pool"]
    assert ValidationReport.from_dict(data).pool is None


def test_a_golden_set_with_errors_is_not_pool_checked(tmp_path: Path) -> None:
    golden = write_golden(tmp_path, [{"id": "q1", "query": "vpn"}])
    pool_path = tmp_path / "pool.jsonl"
    write_pool(POOL, pool_path)
    report = validate_golden(golden, pool=pool_path)
    assert report.pool is None and [f.code for f in report.findings] == ["schema"]
