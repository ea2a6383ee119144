"""The README documents what the code does: its metric table is generated from the registry."""

from __future__ import annotations

from pathlib import Path

from ragauge.metrics.docs import markdown_table

ROOT = Path(__file__).parents[1]


def test_readme_metric_table_is_the_registry() -> None:
    assert markdown_table() in (ROOT / "README.md").read_text()


def test_help_is_fast_and_light() -> None:
    import subprocess
    import sys

    code = "import sys, ragauge.cli.main; print(sorted(m for m in ('numpy', 'pyarrow') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
