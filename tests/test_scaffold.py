"""ragauge init (ragauge.scaffold): the files for a first gate, valid as written, never over a file."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from ragauge.cli.main import cli
from ragauge.curation.validate import validate_file
from ragauge.gating.config import load_rules
from ragauge.scaffold import init_project


def test_init_writes_files_that_work_and_never_overwrites(tmp_path: Path) -> None:
    done = init_project(tmp_path, retriever="bm25:my docs")
    assert {p.name for p in done.written} == {"ragauge.toml", "golden.jsonl", "ragauge-gate.yml"} and not done.kept
    rules = load_rules(tmp_path / "ragauge.toml")
    assert rules.fail_if == "drop_and_significant" and set(rules.metrics) == {"hit@5", "recall@5", "mrr", "ndcg@5"}
    report = validate_file(tmp_path / "eval" / "golden.jsonl")
    assert not [f for f in report.findings if f.severity == "error"]
    workflow = yaml.safe_load((tmp_path / ".github" / "workflows" / "ragauge-gate.yml").read_text())
    run = workflow["jobs"]["gate"]["steps"][-1]["run"]
    assert "--retriever='bm25:my docs'" in run and "--baseline=eval/baseline.json" in run
    (tmp_path / "ragauge.toml").write_text("# mine\n")
    again = init_project(tmp_path)
    assert not again.written and len(again.kept) == 3 and (tmp_path / "ragauge.toml").read_text() == "# mine\n"
    assert any("baseline update" in step for step in done.next_steps)


def test_init_with_the_action_and_from_the_cli(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["init", str(tmp_path), "--action", "acme/ragauge@v0.1.0", "--retriever", "bm25:kb"])
    assert r.exit_code == 0, r.output
    assert "wrote" in r.stdout and "next:" in r.stdout
    step = yaml.safe_load((tmp_path / ".github" / "workflows" / "ragauge-gate.yml").read_text())["jobs"]["gate"]
    assert step["steps"][1]["uses"] == "acme/ragauge@v0.1.0" and step["steps"][1]["with"]["retriever"] == "bm25:kb"
