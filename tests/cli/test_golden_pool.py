from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from ragauge.cli.main import cli
from ragauge.formats.pool import read_pool

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def run(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_pool_a_retriever_and_a_run(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "pool.jsonl"
    result = run("golden", "pool", HELPDESK / "golden.jsonl", "--retriever", f"bm25:{HELPDESK / 'corpus.jsonl'}",
                 "--run", HELPDESK / "bm25.run.jsonl", "--depth", "5", "-o", out)
    assert result.exit_code == 0, result.output
    pool = read_pool(out)
    assert pool.depth == 5 and [s.kind for s in pool.systems] == ["run", "retriever"]
    first = result.output.splitlines()[0]
    assert first.startswith(f"pooled 2 systems at depth 5 over 45 questions: {pool.candidates} candidates to judge")
    assert f"wrote the pool of 45 questions to {out}" in result.output
    assert "hd-001" in result.output  # the per-question table


def test_pool_summary_as_json_and_a_candidates_file(tmp_path: Path) -> None:
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(json.dumps({"id": "cand-1", "query": "VPN-809 certificate expired", "relevant": None,
                                      "status": "needs-review"}) + "\n", encoding="utf-8")
    runfile = tmp_path / "run.jsonl"
    runfile.write_text(json.dumps({"id": "cand-1", "hits": ["kb-1", "kb-2"]}) + "\n", encoding="utf-8")
    out = tmp_path / "pool.jsonl"
    result = CliRunner().invoke(cli, ["golden", "pool", str(candidates), "--run", str(runfile),
                                     "-o", str(out), "--format", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["candidates"] == 2 and data["by_systems"] == {"1": 2} and data["per_question"][0]["id"] == "cand-1"


def test_pool_refuses_bad_input_with_exit_2(tmp_path: Path) -> None:
    result = run("golden", "pool", HELPDESK / "golden.jsonl", "-o", tmp_path / "p.jsonl")
    assert result.exit_code == 2 and "nothing to pool" in result.output
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "zz", "hits": ["d"]}) + "\n", encoding="utf-8")
    result = run("golden", "pool", HELPDESK / "golden.jsonl", "--run", other, "-o", tmp_path / "p.jsonl")
    assert result.exit_code == 2 and "answers none of the 45 questions" in result.output
    assert not (tmp_path / "p.jsonl").exists()


def test_validate_with_a_pool_reports_label_health(tmp_path: Path) -> None:
    out = tmp_path / "pool.jsonl"
    made = run("golden", "pool", HELPDESK / "golden.jsonl", "--run", HELPDESK / "bm25.run.jsonl", "-o", out)
    assert made.exit_code == 0, made.output
    result = run("golden", "validate", HELPDESK / "golden.jsonl", "--pool", out, "--min-per-tag", "3",
                 "--format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    codes = {f["code"] for f in data["findings"]}
    assert {"unjudged-pool", "unreturned-label"} <= codes
    assert data["pool"]["depth"] == 10 and len(data["pool"]["questions"]) == 45
    result = run("golden", "validate", HELPDESK / "golden.jsonl", "--pool", out, "--pool-depth", "3")
    assert result.exit_code == 2 and "made at depth 10, not 3" in result.output


def test_validate_max_relevant(tmp_path: Path) -> None:
    result = run("golden", "validate", HELPDESK / "golden.jsonl", "--min-per-tag", "3", "--max-relevant", "3")
    assert result.exit_code == 1 and "[many-relevant]" in result.output
    assert run("golden", "validate", HELPDESK / "golden.jsonl", "--min-per-tag", "3").exit_code == 0
