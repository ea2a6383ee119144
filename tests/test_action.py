"""The GitHub Action (action.yml): its wiring is checked, and its gate step, the script it runs, is
run here as GitHub would run it (GitHub's own steps, setup-python and upload-artifact, are not)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from ragauge.cli.main import cli

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "examples" / "scifact"
SCRIPT = ROOT / ".github" / "ragauge-gate.sh"


def test_the_action_is_wired_to_its_inputs_and_script() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    inputs = set(action["inputs"])
    used = set(re.findall(r"inputs\.([\w-]+)", (ROOT / "action.yml").read_text(encoding="utf-8")))
    assert used <= inputs and {"golden", "run", "retriever", "baseline", "config"} <= used
    for step in action["runs"]["steps"]:
        if "uses" in step:
            assert re.fullmatch(r"actions/[\w-]+@v\d+", step["uses"]), step["uses"]
        else:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"].replace("${{ github.action_path }}", "")  # inputs only via env
    assert ".github/ragauge-gate.sh" in action["runs"]["steps"][2]["run"] and SCRIPT.exists()


@pytest.fixture
def baseline(tmp_path: Path) -> Path:
    path = tmp_path / "baseline.json"
    r = CliRunner().invoke(cli, ["baseline", "update", str(EXAMPLE / "golden.jsonl"), "--run",
                                 str(EXAMPLE / "bm25.run.jsonl"), "--baseline", str(path), "--config",
                                 str(EXAMPLE / "ragauge.toml"), "--reason", "first"])
    assert r.exit_code == 0, r.output
    return path


def gate_step(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    out = tmp_path / "out"
    summary, output = tmp_path / "summary.md", tmp_path / "output.txt"
    full = {**os.environ, "GOLDEN": str(EXAMPLE / "golden.jsonl"), "RUN": "", "RETRIEVER": "",
            "CONFIG": str(EXAMPLE / "ragauge.toml"), "KS": "10", "OUT": str(out),
            "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output), **env}
    done = subprocess.run(["bash", str(SCRIPT)], env=full, capture_output=True, text=True, timeout=300)
    return done, out


@pytest.mark.skipif(shutil.which("ragauge") is None, reason="the ragauge command is not on PATH")
def test_the_gate_step_passes_fails_and_reports(tmp_path: Path, baseline: Path) -> None:
    ok, out = gate_step(tmp_path, RUN=str(EXAMPLE / "bm25.run.jsonl"), BASELINE=str(baseline))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "ragauge gate passed" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "passed=true" in (tmp_path / "output.txt").read_text()
    assert (out / "report.html").stat().st_size > 10_000 and (out / "gate.xml").exists()
    bad, out = gate_step(tmp_path, RUN=str(EXAMPLE / "bm25-nostem.run.jsonl"), BASELINE=str(baseline))
    assert bad.returncode == 1
    assert "ragauge gate failed" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "passed=false" in (tmp_path / "output.txt").read_text()
    assert 'failures="3"' in (out / "gate.xml").read_text(encoding="utf-8")
    neither, _ = gate_step(tmp_path, BASELINE=str(baseline))
    assert neither.returncode == 2 and "::error::" in neither.stdout
    broken, _ = gate_step(tmp_path, RUN=str(EXAMPLE / "bm25.run.jsonl"), BASELINE=str(tmp_path / "missing.json"))
    assert broken.returncode == 2 and "baseline file not found" in broken.stderr


@pytest.mark.skipif(shutil.which("ragauge") is None, reason="the ragauge command is not on PATH")
def test_an_input_is_data_never_an_option(tmp_path: Path, baseline: Path) -> None:
    """GOLDEN=--help printed help, exited 0 and wrote passed=true; a bad k left report.html missing
    in silence (the report step's error was swallowed) and the job green."""
    helped, _ = gate_step(tmp_path, GOLDEN="--help", RUN=str(EXAMPLE / "bm25.run.jsonl"), BASELINE=str(baseline))
    assert helped.returncode == 2 and "Usage:" not in helped.stdout, helped.stdout
    assert "passed=true" not in (tmp_path / "output.txt").read_text()
    (tmp_path / "output.txt").unlink()
    bad_k, out = gate_step(tmp_path, RUN=str(EXAMPLE / "bm25.run.jsonl"), BASELINE=str(baseline), KS="ten")
    assert bad_k.returncode == 2 and "'k' must be positive integers" in bad_k.stdout
    assert "passed=false" in (tmp_path / "output.txt").read_text()
    zero_k, out = gate_step(tmp_path, RUN=str(EXAMPLE / "bm25.run.jsonl"), BASELINE=str(baseline), KS="0")
    assert zero_k.returncode == 2 and "the HTML report could not be written" in zero_k.stdout
    assert "passed=false" in (tmp_path / "output.txt").read_text().splitlines()[-1]
    opt, _ = gate_step(tmp_path, RUN="--help", BASELINE=str(baseline))
    assert opt.returncode == 2 and "Usage:" not in opt.stdout
