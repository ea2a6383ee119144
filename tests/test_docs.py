"""The README documents what the code does: its metric table is generated from the registry."""

from __future__ import annotations

from pathlib import Path

from ragauge.metrics.docs import markdown_table

ROOT = Path(__file__).parents[1]


def test_readme_metric_table_is_the_registry() -> None:
    assert markdown_table() in (ROOT / "README.md").read_text()


def test_readme_failure_pattern_table_is_the_registry() -> None:
    from ragauge.evaluation.patterns import markdown_table as pattern_table

    assert pattern_table() in (ROOT / "README.md").read_text()


def test_help_is_fast_and_light() -> None:
    import subprocess
    import sys

    code = "import sys, ragauge.cli.main; print(sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_evaluating_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow imports pandas (when installed, ~0.3 s) the first time a value crosses from
    Python or numpy through pa.array, pa.scalar or to_numpy; ragauge crosses through
    ragauge.core.arrow instead. Each command runs in a fresh interpreter."""
    import importlib.util
    import subprocess
    import sys

    assert importlib.util.find_spec("pandas"), "pandas is a test dependency: without it this check means nothing"
    data = ROOT / "tests" / "fixtures"
    commands = [
        ["trec-eval", "-q", "-c", "-m", "all_trec", str(data / "trec_eval" / "qrels.test"),
         str(data / "trec_eval" / "results.test")],
        ["eval", str(data / "mini" / "golden.jsonl"), "--run", str(data / "mini" / "run.jsonl"), "-k", "1,5",
         "--doc-id-sep", "#"],
        ["eval", str(data / "trec_eval" / "qrels.test"), "--run", str(data / "trec_eval" / "results.test"),
         "--format", "json", "-o", str(tmp_path / "out.json")],
    ]
    for args in commands:
        code = ("import sys; from ragauge.cli.main import cli\n"
                f"try:\n    cli.main({args!r}, prog_name='ragauge', standalone_mode=False)\n"
                "except SystemExit:\n    pass\n"
                "print('pandas' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        assert out.stdout.strip().splitlines()[-1] == "False", (args, out.stderr[-2000:])


def test_the_readme_screenshot_command_runs_as_printed(tmp_path: Path, monkeypatch) -> None:
    """docs/make_screenshot.py remakes the image from the command the README prints under it;
    that command must run as written and make the report the image shows."""
    import importlib.util

    from click.testing import CliRunner

    from ragauge.cli.main import cli

    spec = importlib.util.spec_from_file_location("make_screenshot", ROOT / "docs" / "make_screenshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    args = module.readme_command((ROOT / "README.md").read_text(encoding="utf-8"))
    assert args[:2] == ["ragauge", "eval"] and "--format" in args and "html" in args
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    out = tmp_path / "report.html"
    args[args.index("-o") + 1] = str(out)
    result = CliRunner().invoke(cli, args[1:])
    assert result.exit_code == 0, result.output
    assert "bm25:examples/helpdesk/sections.jsonl" in out.read_text(encoding="utf-8")
