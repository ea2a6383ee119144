"""compare --auto-labels: the prediction-powered difference is stats.ppi's on each question's two paired
values, beside human-only tests that are a plain comparison of the labelled questions; saved results carry
what it needs; without human labels the assessor only says, with no verdict; results that cannot be paired
are refused (exit 2). Real files and labels (tests/predicted/world.py)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.core.jsonl import dumps
from ragauge.core.notes import LOUD
from ragauge.stats.ppi import ppi_difference
from tests.predicted import world
from tests.predicted.test_evaluate import automatic_golden, labelled_only, lines


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return world.make(tmp_path_factory.mktemp("world"))


def test_the_difference_is_stats_ppi_on_the_paired_values(files: dict[str, Path], tmp_path: Path) -> None:
    c = ragauge.compare(files["bad"], files["good"], golden=files["golden"], k=5, auto_labels=files["auto"])
    human = labelled_only(files, tmp_path)
    auto = automatic_golden(files, tmp_path)
    labelled = [f"q{i:02d}" for i in world.LABELLED]
    unlabelled = [f"q{i:02d}" for i in range(world.QUESTIONS) if i not in world.LABELLED]
    ppi = c.meta["ppi"]
    assert ppi["questions"] == {"labelled": 12, "unlabelled": 28} and ppi["method"] == "betting"
    for m in c.metrics:
        y = {r: ragauge.evaluate_run(human, files[r], k=5).column(m, labelled) for r in ("bad", "good")}
        scored = {r: ragauge.evaluate_run(auto, files[r], k=5) for r in ("bad", "good")}
        yhat = {r: np.array([e.column(m, [q])[0] if q in e.positions else 0.0 for q in [*labelled, *unlabelled]])
                for r, e in scored.items()}
        direct = ppi_difference(y["good"], y["bad"], yhat["good"][:12], yhat["bad"][:12], yhat["good"][12:],
                                yhat["bad"][12:], method="betting")
        got = ppi["metrics"][m]
        assert got["estimate"] == pytest.approx(direct.estimate, abs=1e-12)
        assert got["interval"] == pytest.approx(list(direct.interval), abs=1e-12)
        assert got["human"] == pytest.approx(c.metrics[m].diff)
        # the human-only interval is the paired test's own: one method on the same labelled questions
        assert got["human_interval"] == pytest.approx(list(c.metrics[m].ci), abs=1e-12)
        assert got["verdict"] == "no evidence of a change"  # 12 labels: the betting intervals are wide
    plain = ragauge.compare(files["bad"], files["good"], golden=human, k=5)
    assert {m: d.to_dict() for m, d in c.metrics.items()} == {m: d.to_dict() for m, d in plain.metrics.items()}
    assert any(n.startswith(LOUD + "the prediction-powered interval of the difference is wider") for n in c.notes)


def test_saved_results_carry_what_the_difference_needs(files: dict[str, Path], tmp_path: Path) -> None:
    saved = {}
    for r in ("bad", "good"):
        saved[r] = tmp_path / f"{r}.json"
        result = CliRunner().invoke(cli, ["eval", str(files["golden"]), "--run", str(files[r]), "-k", "5",
                                          "--auto-labels", str(files["auto"]), "--format", "json",
                                          "-o", str(saved[r])])
        assert result.exit_code == 0, result.output
    from_results = ragauge.compare(saved["bad"], saved["good"])
    from_runs = ragauge.compare(files["bad"], files["good"], golden=files["golden"], k=5, auto_labels=files["auto"])
    assert from_results.meta["ppi"] == json.loads(dumps(from_runs.meta["ppi"]))
    back = ragauge.Comparison.from_dict(json.loads(dumps(from_results.to_dict())))
    assert dumps(back.to_dict()) == dumps(from_results.to_dict())
    out = CliRunner().invoke(cli, ["compare", str(saved["bad"]), str(saved["good"]), "--format", "markdown"])
    assert out.exit_code == 0 and "Prediction-powered difference, new - base" in out.output, out.output
    assert "PPI (12 + 28)" in out.output and "weighted kappa" in out.output


def test_without_any_human_label_the_assessor_says_and_there_is_no_verdict(files: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    none = world.write_jsonl(tmp_path / "none.jsonl", [{**x, "relevant": None} for x in lines(files["golden"])])
    c = ragauge.compare(files["bad"], files["good"], golden=none, k=5, auto_labels=files["auto"])
    assert c.meta["paired_questions"] == 0 and all(d.n == 0 for d in c.metrics.values())
    assert all(d.verdict == "no questions to compare" for d in c.metrics.values())
    says = c.meta["ppi"]["assessor_says"]
    auto = automatic_golden(files, tmp_path)
    scored = {r: ragauge.evaluate_run(auto, files[r], k=5) for r in ("bad", "good")}
    total = {r: e.column("ndcg@5").sum() for r, e in scored.items()}  # 0 where the assessor sees nothing relevant
    assert says["n"] == 40 and says["ndcg@5"] == pytest.approx((total["good"] - total["bad"]) / 40)
    assert c.notes[-1].startswith(LOUD + "no question carries a human label, so no difference here is measured and "
                                         "there is no verdict")
    for fmt in ("text", "markdown", "html"):
        page = ragauge.render(c, fmt)
        assert "What the assessor says of the difference (not a measurement)" in page
        assert "Prediction-powered difference" not in page


def _compare(*args: str) -> Any:
    return CliRunner().invoke(cli, ["compare", *args])


def test_results_that_cannot_be_paired_are_refused(files: dict[str, Path], tmp_path: Path) -> None:
    other = world.assess(files, tmp_path / "other.jsonl", "python:tests.predicted.world:bag")
    saved = {}
    for name, labels in (("bad", files["auto"]), ("good", other)):
        saved[name] = tmp_path / f"{name}.json"
        ev = ragauge.evaluate_run(files["golden"], files[name], k=5, auto_labels=labels)
        saved[name].write_text(ragauge.render(ev, "json"), encoding="utf-8")
    result = _compare(str(saved["bad"]), str(saved["good"]))
    assert result.exit_code == 2 and "evaluated with different automatic labels" in result.output, result.output
    assert "golden assess GOLDEN --run BASE --run NEW" in result.output
    plain = tmp_path / "plain.json"
    plain.write_text(ragauge.render(ragauge.evaluate_run(files["full"], files["good"], k=5), "json"), encoding="utf-8")
    result = _compare(str(saved["bad"]), str(plain), "--allow-different-golden")
    assert result.exit_code == 2 and "only one of the two results was evaluated with automatic labels (the new one" \
        in result.output and "--auto-labels auto.jsonl" in result.output, result.output
    result = _compare(str(saved["bad"]), str(saved["bad"]), "--auto-labels", str(other))
    assert result.exit_code == 2 and "evaluated with other automatic labels" in result.output, result.output


def test_the_command_compares_runs_beside_the_labels(files: dict[str, Path]) -> None:
    result = _compare(str(files["bad"]), str(files["good"]), "--golden", str(files["golden"]), "-k", "5",
                      "--auto-labels", str(files["auto"]))
    assert result.exit_code == 0, result.output
    assert "Prediction-powered difference, new - base (human-only beside PPI)" in result.output
    assert "human-only (n=12)" in result.output and "by PPI: hit@5: no evidence of a change" in result.output
    refused = _compare(str(files["bad"]), str(files["good"]), "--golden", str(files["golden"]), "-k", "5")
    assert refused.exit_code == 2 and "'relevant' is null" in refused.output
    assert not math.isnan(ragauge.compare(files["bad"], files["good"], golden=files["golden"], k=5,
                                          auto_labels=files["auto"]).meta["ppi"]["metrics"]["mrr"]["estimate"])
