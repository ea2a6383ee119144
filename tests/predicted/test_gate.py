"""gate --auto-labels: a baseline measured beside an assessor's labels records them and every question's
automatic values; the gate's metric rules decide on stats.ppi's paired difference (now - baseline) of the
hand-computed per-question values, at the family's Bonferroni level, beside the human-only figure; it
refuses (exit 2) to decide without a human label, against a baseline of other labels or with labels on one
side only, and sequentially; its result round-trips through JSON and every format shows both figures. Real
files and labels (tests/predicted/world.py)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.core.jsonl import dumps
from ragauge.gating.check import GateResult
from ragauge.stats.ppi import ppi_difference
from tests.formats.test_schemas import problems
from tests.predicted import world
from tests.predicted.test_evaluate import automatic_golden, labelled_only, lines

LABELLED = [f"q{i:02d}" for i in world.LABELLED]
UNLABELLED = [f"q{i:02d}" for i in range(world.QUESTIONS) if i not in world.LABELLED]
METRICS = ("hit@5", "ndcg@5", "mrr")


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return world.make(tmp_path_factory.mktemp("world"))


def _rules(folder: Path, body: str) -> Path:
    path = folder / "ragauge.toml"
    path.write_text(f"[gate]\n{body}\n", encoding="utf-8")
    return path


def _baseline(files: dict[str, Path], folder: Path, body: str, labels: Path | None = None) -> Path:
    """``baseline update`` of the good run beside the labels (``files["auto"]`` unless given), for real."""
    path = folder / "baseline.json"
    result = CliRunner().invoke(cli, ["baseline", "update", str(files["golden"]), "--run", str(files["good"]),
                                      "--baseline", str(path), "--config", str(_rules(folder, body)),
                                      "--auto-labels", str(labels or files["auto"]), "--reason", "first"])
    assert result.exit_code == 0, result.output
    return path


def _gate(files: dict[str, Path], baseline: Path, *extra: str, run: str = "bad") -> Any:
    return CliRunner().invoke(cli, ["gate", str(files["golden"]), "--run", str(files[run]), "--baseline",
                                    str(baseline), "--config", str(baseline.parent / "ragauge.toml"), *extra])


def _direct(files: dict[str, Path], folder: Path, metric: str, alpha: float,
            labelled: list[str] = LABELLED) -> Any:
    """stats.ppi.ppi_difference (bad - good) on the per-question values computed apart: the human values
    from a plain evaluation of the ``labelled`` questions, the automatic ones from a golden set whose
    labels are the assessor's (0 where it sees nothing relevant)."""
    human, auto = labelled_only(files, folder), automatic_golden(files, folder)
    ids = [*labelled, *(f"q{i:02d}" for i in range(world.QUESTIONS) if f"q{i:02d}" not in labelled)]
    n = len(labelled)
    y = {r: ragauge.evaluate_run(human, files[r], k=5, metrics=[metric]).column(metric, labelled)
         for r in ("good", "bad")}
    scored = {r: ragauge.evaluate_run(auto, files[r], k=5, metrics=[metric]) for r in ("good", "bad")}
    yhat = {r: np.array([e.column(metric, [q])[0] if q in e.positions else 0.0 for q in ids])
            for r, e in scored.items()}
    return ppi_difference(y["bad"], y["good"], yhat["bad"][:n], yhat["good"][:n], yhat["bad"][n:],
                          yhat["good"][n:], alpha=alpha, method="betting")


def test_the_baseline_records_the_labels_and_every_questions_automatic_values(files: dict[str, Path],
                                                                              tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, 'metrics = { "ndcg@5" = 0.02 }')
    record = json.loads(path.read_text(encoding="utf-8"))
    ev = ragauge.evaluate_run(files["golden"], files["good"], metrics=["ndcg@5"], auto_labels=files["auto"])
    labels = record["auto_labels"]
    assert labels["identity"] == ev.meta["ppi"]["auto_labels"]["identity"] and labels["assessor"].startswith("python@")
    assert labels["unlabelled"] == UNLABELLED and sorted(labels["automatic"]) == sorted([*LABELLED, *UNLABELLED])
    assert labels["automatic"] == json.loads(dumps(ev.meta["ppi"]["automatic"]))
    assert sorted(record["queries"]) == sorted(LABELLED)  # the human values: the labelled questions only
    history = json.loads(path.with_name("baseline.history.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert history["auto_labels"] == {"assessor": labels["assessor"], "identity": labels["identity"]}
    assert problems("baseline", path) == [] and problems("baseline-history", path.with_name(
        "baseline.history.jsonl")) == []


def test_a_plain_rule_decides_on_the_ppi_estimate(files: dict[str, Path], tmp_path: Path) -> None:
    # allowance 0.3: ndcg@5 drops 0.252 by the human labels alone (it would pass), 0.333 by PPI (it fails)
    path = _baseline(files, tmp_path, 'metrics = { "hit@5" = 0.3, "ndcg@5" = 0.3, "mrr" = 0.3 }')
    result = ragauge.gate(files["golden"], files["bad"], path, auto_labels=files["auto"])
    ppi = result.meta["ppi"]
    assert ppi["questions"] == {"labelled": 12, "unlabelled": 28} and ppi["method"] == "betting"
    outcomes = {o.rule.split()[0]: o for o in result.outcomes}
    for m in METRICS:
        direct = _direct(files, tmp_path, m, 0.05)
        got = ppi["metrics"][m]
        assert got["estimate"] == pytest.approx(direct.estimate, abs=1e-12)
        assert got["interval"] == pytest.approx(list(direct.interval), abs=1e-12)
        assert got["human"] == pytest.approx(direct.classical, abs=1e-12)
        assert got["human_interval"] == pytest.approx(list(direct.classical_interval), abs=1e-12)
        assert outcomes[m].passed == (-direct.estimate <= 0.3)
    assert ppi["metrics"]["ndcg@5"]["human"] == pytest.approx(-0.2520, abs=1e-4)
    assert ppi["metrics"]["ndcg@5"]["estimate"] == pytest.approx(-0.3332, abs=1e-4)
    ndcg = outcomes["ndcg@5"]
    assert not ndcg.passed and "ndcg@5: baseline 0.7520, now 0.5000 (-0.2520); human-only on 12 labelled " \
        "question(s); prediction-powered difference -0.3332" in ndcg.message
    assert ndcg.message.endswith(": a drop beyond the allowance") and ndcg.questions  # the labelled ones that fell
    assert outcomes["hit@5"].passed and not result.passed


def test_tested_rules_decide_on_the_ppi_bound_at_the_bonferroni_level(files: dict[str, Path], tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, 'metrics = { "hit@5" = 0.02, "ndcg@5" = 0.02, "mrr" = 0.02, "judged@5" = 1.0 }\n'
                                      'fail_if = "significant"\nalpha = 0.1')
    result = ragauge.gate(files["golden"], files["bad"], path, auto_labels=files["auto"])
    ppi = result.meta["ppi"]
    assert ppi["correction"].startswith("Bonferroni over the 4 tested metric rule(s)")
    assert result.meta["correction"] == ppi["correction"] and ppi["human_only"] == ["judged@5"]
    outcomes = {o.rule.split()[0]: o for o in result.outcomes}
    for m in METRICS:
        at_alpha, decision = _direct(files, tmp_path, m, 0.1), _direct(files, tmp_path, m, 2 * 0.1 / 4)
        assert ppi["metrics"][m]["interval"] == pytest.approx(list(at_alpha.interval), abs=1e-12)
        assert ppi["metrics"][m]["decision"] == pytest.approx(list(decision.interval), abs=1e-12)
        assert outcomes[m].passed == (decision.interval[1] >= 0)
        assert f"its one-sided upper bound at alpha / 4 (Bonferroni over 4 rules): {decision.interval[1]:+.4f}" \
            in outcomes[m].message
    judged = outcomes["judged@5"]  # judged@k is not estimated by PPI: its paired test, at p x 4
    assert "Bonferroni over 4 rules" in judged.message and "decided on the human labels alone" in judged.message


def test_a_significant_drop_by_ppi_fails_the_gate(files: dict[str, Path], tmp_path: Path) -> None:
    # 30 of the 40 questions labelled: the betting intervals resolve the bad run's drop
    labelled = tuple(i for i in range(world.QUESTIONS) if i % 4 != 3)
    ids = [f"q{i:02d}" for i in labelled]
    thirty = {**files, "golden": world.write_jsonl(tmp_path / "golden30.jsonl", world.golden_lines(labelled))}
    thirty["auto"] = world.assess(thirty, tmp_path / "auto30.jsonl")
    path = _baseline(thirty, tmp_path, 'metrics = { "hit@5" = 0.02, "ndcg@5" = 0.02, "mrr" = 0.02 }\n'
                                       'fail_if = "significant"')
    result = _gate(thirty, path, "--auto-labels", str(thirty["auto"]), "--format", "json")
    assert result.exit_code == 1 and "gate failed: 2 rule(s) broken (ndcg@5" in result.stderr, result.output
    data = json.loads(result.stdout)
    assert data["meta"]["ppi"]["questions"] == {"labelled": 30, "unlabelled": 10}
    for o in data["outcomes"]:
        m = o["rule"].split()[0]
        decision = _direct(thirty, tmp_path, m, 2 * 0.05 / 3, ids)
        assert data["meta"]["ppi"]["metrics"][m]["decision"] == pytest.approx(list(decision.interval), abs=1e-12)
        assert o["passed"] == (decision.interval[1] >= 0)
    # the figures, for the record: hit@5 -0.2000 (upper bound +0.0377) holds; ndcg@5 -0.3094 (-0.0333), mrr
    # -0.3365 (-0.0410) are significant drops
    assert [o["passed"] for o in data["outcomes"]] == [True, False, False]
    assert data["meta"]["ppi"]["metrics"]["ndcg@5"]["estimate"] == pytest.approx(-0.3094, abs=1e-4)


def test_non_inferiority_needs_no_correction(files: dict[str, Path], tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, 'metrics = { "hit@5" = 0.9, "mrr" = 0.9 }\nfail_if = "not_shown_no_worse"')
    result = ragauge.gate(files["golden"], files["bad"], path, auto_labels=files["auto"])
    assert result.meta["ppi"]["correction"].startswith("none: non-inferiority")
    for o in result.outcomes:
        m = o.rule.split()[0]
        lower = _direct(files, tmp_path, m, 2 * 0.05).interval[0]
        assert result.meta["ppi"]["metrics"][m]["decision"][0] == pytest.approx(lower, abs=1e-12)
        assert o.passed == (lower > -0.9) and f"lower bound at alpha 0.05: {lower:+.4f}" in o.message


def test_the_result_round_trips_and_every_format_shows_both_figures(files: dict[str, Path], tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, 'metrics = { "ndcg@5" = 0.3 }')
    out = _gate(files, path, "--auto-labels", str(files["auto"]), "--format", "json")
    assert out.exit_code == 1, out.output
    data = json.loads(out.stdout)
    back = GateResult.from_dict(data)
    assert dumps(back.to_dict()) == dumps(data) and back.meta["ppi"]["metrics"]["ndcg@5"]["estimate"] < -0.3
    text = _gate(files, path, "--auto-labels", str(files["auto"])).stdout
    assert "Prediction-powered difference, now - baseline (human-only beside PPI)" in text
    assert "human-only (n=12)" in text and "PPI (12 + 28)" in text and "weighted kappa" in text
    md = ragauge.render(back, "markdown")
    assert "| metric | human-only (n=12) | 95% interval | PPI (12 + 28) |" in md
    suite = ET.fromstring(ragauge.render(back, "junit").split("?>", 1)[1])
    shown = suite.find("system-out")
    assert shown is not None and "PPI (12 + 28)" in (shown.text or "")
    failure = suite.find("testcase/failure")
    assert failure is not None and "prediction-powered difference -0.3332" in failure.get("message", "")


def test_without_any_human_label_the_gate_refuses(files: dict[str, Path], tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, 'metrics = { "ndcg@5" = 0.02 }')
    none = world.write_jsonl(tmp_path / "none.jsonl", [{**x, "relevant": None} for x in lines(files["golden"])])
    result = CliRunner().invoke(cli, ["gate", str(none), "--run", str(files["bad"]), "--baseline", str(path),
                                      "--auto-labels", str(files["auto"])])
    assert result.exit_code == 2, result.output
    assert "no question of the golden set carries a human label and a relevant document: a gate cannot rest on " \
           "automatic labels alone" in result.output and "golden pool" in result.output
    update = CliRunner().invoke(cli, ["baseline", "update", str(none), "--run", str(files["good"]), "--baseline",
                                      str(tmp_path / "new.json"), "--auto-labels", str(files["auto"]),
                                      "--reason", "x"])
    assert update.exit_code == 2 and "a baseline cannot rest on automatic labels alone" in update.output
    assert not (tmp_path / "new.json").exists()


def test_labels_that_are_not_the_baselines_are_refused(files: dict[str, Path], tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, 'metrics = { "ndcg@5" = 0.02 }')
    without = _gate(files, path)
    assert without.exit_code == 2 and "the baseline was measured with automatic labels" in without.output
    assert "--auto-labels" in without.output
    other = world.assess(files, tmp_path / "other.jsonl", "python:tests.predicted.world:bag")
    result = _gate(files, path, "--auto-labels", str(other))
    assert result.exit_code == 2 and "the baseline was measured with other automatic labels" in result.output
    assert "other.jsonl" in result.output and "cannot be paired" in result.output
    plain = tmp_path / "plain" / "baseline.json"
    made = CliRunner().invoke(cli, ["baseline", "update", str(files["full"]), "--run", str(files["good"]),
                                    "--baseline", str(plain), "--reason", "plain"])
    assert made.exit_code == 0, made.output
    result = CliRunner().invoke(cli, ["gate", str(files["full"]), "--run", str(files["bad"]), "--baseline",
                                      str(plain), "--auto-labels", str(files["auto"])])
    assert result.exit_code == 2 and "the baseline was measured without automatic labels" in result.output
    sequential = CliRunner().invoke(cli, ["gate", str(files["golden"]), "--retriever", "bm25:" + str(files["corpus"]),
                                          "--baseline", str(path), "--sequential", "--auto-labels",
                                          str(files["auto"])])
    assert sequential.exit_code == 2 and "a --sequential gate decides on human labels only" in sequential.output
    with pytest.raises(ragauge.InputError, match="a sequential gate decides on human labels only"):
        ragauge.gate_sequential(files["full"], "bm25:" + str(files["corpus"]), path)


def test_a_critical_question_without_a_human_label_fails_and_says_why(files: dict[str, Path], tmp_path: Path) -> None:
    path = _baseline(files, tmp_path, f'metrics = {{ "hit@5" = 1.0 }}\ncritical = ["{LABELLED[0]}", "{UNLABELLED[0]}"]')
    result = ragauge.gate(files["golden"], files["good"], path, auto_labels=files["auto"])
    critical = [o for o in result.outcomes if o.kind == "critical"]
    assert critical[0].passed and not critical[1].passed
    assert critical[1].message == f"'{UNLABELLED[0]}' carries no human label (\"relevant\": null): a critical " \
                                  "question is checked on its human labels only; label it"
