"""Golden-file tests: the text, Markdown and JUnit reports of the fixture result, through the CLI.

After an intended change, regenerate with ``UPDATE_GOLDEN=1 pytest tests/reports`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli
from tests.reports.conftest import EVAL_ARGS, check_golden


def run_cli(*args: str, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(cli, [*EVAL_ARGS, *args], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.usefixtures("in_fixtures")
def test_text_at_a_fixed_width_without_color() -> None:
    out = run_cli("--no-color", env={"COLUMNS": "72", "NO_COLOR": ""})
    assert "\x1b[" not in out
    check_golden("report-72.txt", out)


@pytest.mark.usefixtures("in_fixtures")
def test_text_to_a_pipe_is_not_fitted() -> None:
    out = run_cli("--no-color", "--worst", "4", env={"COLUMNS": ""})
    check_golden("report.txt", out)


@pytest.mark.usefixtures("in_fixtures")
def test_markdown() -> None:
    check_golden("report.md", run_cli("--format", "markdown"))


@pytest.mark.usefixtures("in_fixtures")
def test_junit() -> None:
    check_golden("report.xml", run_cli("--format", "junit"))


@pytest.mark.usefixtures("in_fixtures")
def test_report_command_renders_a_saved_result_identically(tmp_path: Path) -> None:
    saved = tmp_path / "result.json"
    run_cli("--format", "json", "-o", str(saved))
    for fmt in ("text", "markdown", "junit", "html", "json"):
        direct = run_cli("--format", fmt, "--no-color")
        again = CliRunner().invoke(cli, ["report", str(saved), "--format", fmt, "--no-color"])
        assert again.exit_code == 0, again.output
        assert again.stdout == direct, fmt
