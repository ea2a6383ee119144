"""The pytest plugin, run in a fresh pytest process as a user would: one test per gate rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from ragauge.cli.main import cli

EXAMPLE = Path(__file__).parent.parent / "examples" / "scifact"


def pytest_run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """pytest in ``tmp_path`` (no tests of its own) with the plugin loaded by module name; the
    installed entry point is blocked so the plugin is registered once whether installed or not."""
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:ragauge", "-p", "ragauge.pytest_plugin",
                           "-p", "no:cacheprovider", "-v", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)


def test_one_test_per_rule_passing_and_failing(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.json"
    update = CliRunner().invoke(cli, ["baseline", "update", str(EXAMPLE / "golden.jsonl"), "--run",
                                      str(EXAMPLE / "bm25.run.jsonl"), "--baseline", str(baseline), "--config",
                                      str(EXAMPLE / "ragauge.toml"), "--reason", "first"])
    assert update.exit_code == 0, update.output
    common = ["--ragauge-golden", str(EXAMPLE / "golden.jsonl"), "--ragauge-baseline", str(baseline),
              "--ragauge-config", str(EXAMPLE / "ragauge.toml")]
    good = pytest_run(tmp_path, *common, "--ragauge-run", str(EXAMPLE / "bm25.run.jsonl"))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "7 passed" in good.stdout and "ragauge[ndcg@10 may drop at most 0.0200 below the baseline] PASSED" \
        in good.stdout
    bad = pytest_run(tmp_path, *common, "--ragauge-run", str(EXAMPLE / "bm25-nostem.run.jsonl"))
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "3 failed, 4 passed" in bad.stdout
    assert "ndcg@10: baseline 0.6860, now 0.6617 (-0.0243)" in bad.stdout and "- 1241: baseline=1.0000" in bad.stdout


def test_without_its_options_the_plugin_adds_nothing_and_bad_input_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    plain = pytest_run(tmp_path)
    assert plain.returncode == 0 and "1 passed" in plain.stdout
    missing = pytest_run(tmp_path, "--ragauge-golden", str(EXAMPLE / "golden.jsonl"))
    assert missing.returncode == 4 and "--ragauge-golden needs --ragauge-run" in missing.stderr
    nofile = pytest_run(tmp_path, "--ragauge-golden", str(EXAMPLE / "golden.jsonl"), "--ragauge-run",
                        str(EXAMPLE / "bm25.run.jsonl"), "--ragauge-baseline", str(tmp_path / "none.json"))
    assert nofile.returncode == 4 and "baseline file not found" in nofile.stderr
