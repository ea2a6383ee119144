"""``ragauge report`` and the report options of ``ragauge eval``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from tests.reports.conftest import EVAL_ARGS

pytestmark = pytest.mark.usefixtures("in_fixtures")


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html", "junit"])
def test_eval_writes_every_format_to_a_file(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"report.{fmt}"
    result = invoke(*EVAL_ARGS, "--format", fmt, "-o", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert out.read_text(encoding="utf-8").strip()


@pytest.mark.parametrize(("content", "message"), [
    ("not json at all", "result file: not valid JSON"),
    ('{"hello": 1}', "not a ragauge result: no 'ragauge_result' version field"),
    ("[1, 2]", "not a ragauge result"),
    ('{"ragauge_result": 99}', "not a ragauge result (version 99)"),
    ('{"ragauge_result": 1, "metrics": ["mrr"]}', "a malformed ragauge result"),
])
def test_report_rejects_what_is_not_a_result(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = invoke("report", str(bad))
    assert result.exit_code == 2
    assert message in result.stderr and str(bad) in result.stderr
    assert "hint: pass a file written by 'ragauge eval" in result.stderr
    assert "Traceback" not in result.output


def test_report_missing_file(tmp_path: Path) -> None:
    result = invoke("report", str(tmp_path / "nope.json"))
    assert result.exit_code == 2 and "result file not found" in result.stderr


def test_report_worst_and_format(tmp_path: Path) -> None:
    saved = tmp_path / "r.json"
    assert invoke(*EVAL_ARGS, "--format", "json", "-o", str(saved)).exit_code == 0
    result = invoke("report", str(saved), "--worst", "2")
    assert result.exit_code == 0 and "worst 2 questions" in result.stdout
    assert json.loads(invoke("report", str(saved), "--format", "json").stdout)["ragauge_result"] == 1


def test_negative_worst_is_a_usage_error() -> None:
    result = invoke(*EVAL_ARGS, "--worst", "-1")
    assert result.exit_code == 2


def test_cli_import_stays_light() -> None:
    code = "import sys, ragauge.cli.main; print(sorted(m for m in ('jinja2', 'numpy', 'pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
