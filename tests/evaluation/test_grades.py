"""Grade mappings (evaluation.grades): Cranfield's reversed scale, negative grades, the contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.evaluation.grades import describe, parse_grades

CRANFIELD = [{"id": "q1", "query": "a", "relevant": {"d1": 1, "d2": 4, "d3": -1}},
             {"id": "q2", "query": "b", "relevant": {"d4": 2}}]
RUN = {"q1": ["d3", "d2", "d1"], "q2": ["d4"]}


def test_a_mapping_reverses_a_scale_and_is_in_the_contract() -> None:
    plain = ragauge.evaluate_run(CRANFIELD, RUN, metrics=["ndcg@3", "hit@1"])
    mapped = ragauge.evaluate_run(CRANFIELD, RUN, metrics=["ndcg@3", "hit@1"], grades="1:3,2:2,3:1,4:0,-1:0")
    # mapped: d1 (best, now grade 3) is ranked last behind d3 (not relevant) and d2 (grade 0)
    assert mapped.summary["ndcg@3"] == pytest.approx((0.5 * 7 / 7 + 1.0) / 2)
    assert mapped.meta["contract"]["grades"] == "-1:0,1:3,2:2,3:1,4:0" and "grades" not in plain.meta["contract"]
    with pytest.raises(InputError, match="different contracts"):
        ragauge.compare(plain, mapped)


def test_negative_grades_are_said_and_an_unmapped_grade_is_refused() -> None:
    """Cranfield-style grades (negative, or 1 = best) passed without a word."""
    plain = ragauge.evaluate_run(CRANFIELD, RUN)
    assert any("1 label(s) have negative grades (-1)" in w and "--grades" in w for w in plain.warnings)
    with pytest.raises(InputError, match=r"does not say what grade\(s\) -1, 4 become"):
        ragauge.evaluate_run(CRANFIELD, RUN, grades="1:3,2:2,3:1")


@pytest.mark.parametrize(("text", "error"), [("1-3", "is not FROM:TO"), ("1:3,1:2", "mapped twice"),
                                             ("a:1", "is not a grade"), ("1:inf", "finite")])
def test_a_malformed_mapping_is_refused(text: str, error: str) -> None:
    with pytest.raises(InputError, match=error):
        parse_grades(text)


def test_describe_is_canonical() -> None:
    assert describe(parse_grades("4:0, 1:3,-1:0") or {}) == "-1:0,1:3,4:0"


def test_the_cli_takes_grades(tmp_path: Path) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text("".join(json.dumps(q) + "\n" for q in CRANFIELD))
    run = tmp_path / "r.jsonl"
    run.write_text("".join(json.dumps({"id": q, "hits": h}) + "\n" for q, h in RUN.items()))
    r = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run), "--grades", "1:3,2:2,3:1,4:0,-1:0",
                                 "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["meta"]["contract"]["grades"] == "-1:0,1:3,2:2,3:1,4:0"
    bad = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run), "--grades", "1:3"])
    assert bad.exit_code == 2 and "does not say what grade" in bad.stderr and "Traceback" not in bad.output


def test_golden_validate_warns_on_negative_grades() -> None:
    from ragauge.curation.validate import validate_lines

    report = validate_lines([(1, CRANFIELD[0]), (2, CRANFIELD[1])])
    assert [(f.code, f.line) for f in report.findings if f.code == "negative-grade"] == [("negative-grade", 1)]


def test_grades_from_ragauge_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = tmp_path / "g.jsonl"
    golden.write_text("".join(json.dumps(q) + "\n" for q in CRANFIELD))
    run = tmp_path / "r.jsonl"
    run.write_text("".join(json.dumps({"id": q, "hits": h}) + "\n" for q, h in RUN.items()))
    (tmp_path / "ragauge.toml").write_text('[eval]\ngrades = "1:3,2:2,3:1,4:0,-1:0"\n')
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run), "--format", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["meta"]["contract"]["grades"] == "-1:0,1:3,2:2,3:1,4:0"
    (tmp_path / "ragauge.toml").write_text("[eval]\ngrades = 3\n")
    bad = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(run)])
    assert bad.exit_code == 2 and "ragauge.toml:2" in bad.stderr
