"""``ragauge run --executor ray`` without a running Ray: it starts a local one and stops it after."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.cli.main import cli

ray = pytest.importorskip("ray")

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def test_a_local_ray_is_started_for_the_run_and_stopped(tmp_path: Path) -> None:
    assert not ray.is_initialized()
    out = tmp_path / "run.jsonl"
    r = CliRunner().invoke(cli, ["run", str(HELPDESK / "golden.jsonl"), "--retriever",
                                 f"bm25:{HELPDESK / 'sections.jsonl'}", "-o", str(out), "--executor", "ray",
                                 "--ray-workers", "1"])
    assert r.exit_code == 0, r.output
    assert len(out.read_text().splitlines()) == 46 and not ray.is_initialized()
