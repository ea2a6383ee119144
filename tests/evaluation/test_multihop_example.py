"""examples/multihop: the scripted agent's runs are current, and the figures its README quotes hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import ragauge

HERE = Path(__file__).resolve().parents[2] / "examples" / "multihop"
METRICS = ["evidence_recall@5", "evidence_recall@10", "complete@10", "calls", "calls_to_complete", "wasted_calls"]


def test_the_agent_writes_the_committed_runs() -> None:
    done = subprocess.run([sys.executable, str(HERE / "agent.py"), "--check"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(("run", "figures"), [
    ("oneshot", [0.8125, 0.8958, 0.8750, 1.0, 1.1250, 0.0833]),
    ("agent", [0.6667, 1.0, 1.0, 1.8333, 1.5833, 0.2917]),
])
def test_the_readme_figures(run: str, figures: list[float]) -> None:
    ev = ragauge.evaluate(HERE / "golden.jsonl", run=HERE / f"{run}.run.jsonl", metrics=METRICS)
    assert [round(ev.summary[m], 4) for m in METRICS] == figures
    readme = (HERE / "README.md").read_text(encoding="utf-8")
    assert " | ".join(f"{v:.4f}" for v in figures) in readme


def test_the_agent_needs_more_calls_and_the_conversation_drifts_without_rewriting() -> None:
    agent = ragauge.evaluate(HERE / "golden.jsonl", run=HERE / "agent.run.jsonl", metrics=["evidence_recall@10"])
    oneshot = ragauge.evaluate(HERE / "golden.jsonl", run=HERE / "oneshot.run.jsonl", metrics=["evidence_recall@10"])
    tools = agent.meta["trajectories"]["by_tool"]
    assert (tools["search"]["calls"], tools["search"]["wasted"]) == (28, 6)
    assert (tools["lookup"]["calls"], tools["lookup"]["wasted"]) == (16, 1)
    assert oneshot.meta["turns"]["by_turn"]["2"]["drift"]["evidence_recall@10"] == -1.0
    assert agent.meta["turns"]["by_turn"]["2"]["drift"]["evidence_recall@10"] == 0.0
    c = ragauge.compare(HERE / "oneshot.run.jsonl", HERE / "agent.run.jsonl", golden=HERE / "golden.jsonl",
                        metrics=["complete@10", "calls_to_complete"])
    assert (c.metrics["calls_to_complete"].worse, c.metrics["complete@10"].better) == (11, 3)
