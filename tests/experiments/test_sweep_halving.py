"""Successive halving in a real sweep on the bundled help-desk example: the survivors' table, tests
and selection are those of a full sweep over the same configurations; the dropped ones carry their
numbers on the sample they answered, in valid run files; the budget is kept and the holdout
respected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.experiments.halving import sample_order
from ragauge.experiments.holdout import held_out_by_hash
from ragauge.experiments.result import SweepResult
from ragauge.experiments.sweep import read_sweep, sweep
from ragauge.formats.runs import read_run

ROOT = Path(__file__).parents[2]
GOLDEN = ROOT / "examples" / "helpdesk" / "golden.jsonl"
CORPUS = ROOT / "examples" / "helpdesk" / "sections.jsonl"
PLAN: dict[str, Any] = {
    "sweep": {"k": [5], "fetch": 30},
    "config": [
        {"name": "dense", "retriever": "dense", "embedder": "hash"},  # the reference, the worst: never dropped
        {"retriever": "bm25", "k1": [0.5, 0.9, 1.5], "b": [0.3, 0.75]},
        {"name": "hybrid", "retriever": "hybrid", "embedder": "hash", "fusion": "weighted", "weight": 0.3},
        {"name": "dense 64", "retriever": "dense", "embedder": "hash-64"},
    ],
}
BUDGET = 260


@pytest.fixture(scope="module")
def halved(tmp_path_factory: pytest.TempPathFactory) -> tuple[SweepResult, Path, list[tuple[Any, ...]]]:
    folder = tmp_path_factory.mktemp("halved")
    events: list[tuple[Any, ...]] = []
    return sweep(GOLDEN, CORPUS, PLAN, folder, budget=BUDGET, on_progress=lambda *e: events.append(e)), folder, events


def test_the_budget_is_kept_and_every_retrieval_is_in_a_run_file(halved: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, events = halved
    h = result.halving
    assert h is not None and h.budget == BUDGET and h.factor == 3 and h.full == 9 * 45
    assert h.retrievals <= BUDGET and h.retrievals == sum(len(read_run(folder / r.run).queries) for r in result.rows)
    runs = [e for e in events if e[0] == "run"]
    assert runs[-1][1] == h.retrievals and {e[2] for e in runs} == {h.retrievals}  # the ETA's total is exact
    assert [len(r.dropped) for r in h.rounds] == [len(result.dropped)] and h.rounds[0].configurations == 9
    assert h.confirmed == len(result.confirmed) == 1 + 3  # the reference and the best ceil(8 / 3)


def test_the_reference_is_confirmed_and_the_dropped_are_the_worst_on_the_sample(
        halved: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, _ = halved
    assert result.confirmed[0].name == "dense" == result.reference
    n = result.halving.rounds[0].questions if result.halving else 0
    assert all(r.dropped == 1 and r.sample == n and r.deltas == {} and not r.pareto for r in result.dropped)
    golden = ragauge.load_golden(GOLDEN)
    ids = sample_order([q.id for q in golden if q.answerable])[:n]

    def on_sample(name: str) -> float:
        scored = ragauge.evaluate_run(GOLDEN, folder / result.row(name).run, metrics=["ndcg@5"], fetch=30)
        return float(np.mean(scored.column("ndcg@5", ids)))
    kept_low = min(on_sample(r.name) for r in result.confirmed[1:])
    assert all(r.means["ndcg@5"] <= kept_low for r in result.dropped)
    assert [r.means["ndcg@5"] for r in result.dropped] == sorted((r.means["ndcg@5"] for r in result.dropped),
                                                                 reverse=True)
    dropped = {r.name for r in result.dropped}
    assert dropped.isdisjoint(result.selection.tests) and result.selection.best not in dropped


def test_a_dropped_configuration_is_a_valid_run_on_its_sample(halved: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, _ = halved
    golden = ragauge.load_golden(GOLDEN)
    row = result.dropped[0]
    ids = sample_order([q.id for q in golden if q.answerable])[:row.sample or 0]
    run = read_run(folder / row.run)
    assert sorted(run.queries) == sorted(ids)
    sample = run.meta["sample"]
    assert sample["round"] == 1 and sample["questions"] == row.sample and sample["golden_questions"] == 45
    assert sample["golden_hash"] == golden.content_hash != run.meta["golden_hash"]
    sidecar = json.loads((folder / f"{row.run}.meta.json").read_text())
    assert sidecar["questions"] == row.sample and sidecar["sample"] == sample  # not a full sweep's stale one
    scored = ragauge.evaluate_run(GOLDEN, folder / row.run, metrics=list(result.metrics), fetch=30)
    for metric in result.metrics:
        assert row.means[metric] == pytest.approx(float(np.mean(scored.column(metric, ids))))
    assert any(w.startswith(f"NOTE: this run answered a sample of {row.sample} of the 45 questions")
               and w.endswith("the others score 0 here") for w in scored.warnings)
    again = ragauge.run_retriever([golden.by_id[i].to_dict() for i in ids], row.spec, folder / "again.jsonl", fetch=30)
    assert {r.id: r.hits for r in again.results()} == {r.id: r.hits for r in run.results()}


def test_the_survivors_table_is_the_full_sweeps_over_them(halved: tuple[SweepResult, Path, list[Any]],
                                                          tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result, folder, _ = halved
    names = {r.name for r in result.confirmed}
    configurations = [c for c in ragauge.experiments.sweep.as_plan(PLAN).configurations if c.name in names]
    plan = {"sweep": PLAN["sweep"], "config": [{"name": c.name, "retriever": c.retriever, **c.settings}
                                               for c in configurations]}
    full = sweep(GOLDEN, CORPUS, plan, tmp_path)
    assert [r.name for r in full.rows] == [r.name for r in result.confirmed]
    for mine, theirs in zip(result.confirmed, full.rows):
        assert mine.means == theirs.means and mine.deltas == theirs.deltas  # (the frontier follows latencies)
        kept, fresh = read_run(folder / mine.run), read_run(tmp_path / theirs.run)
        assert [r.hits for r in kept.results()] == [r.hits for r in fresh.results()]
        assert kept.meta["golden_hash"] == fresh.meta["golden_hash"] and "sample" not in kept.meta
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    row = result.confirmed[1]
    before = read_run(folder / row.run)
    resumed = ragauge.run_retriever(GOLDEN, row.spec, folder / row.run, fetch=30, resume=True)  # same identity
    assert [r.to_dict() for r in resumed.results()] == [r.to_dict() for r in before.results()]  # nothing re-asked
    assert result.selection == full.selection
    assert any(n.startswith(f"NOTE: successive halving dropped {len(result.dropped)} of 9 configurations on samples")
               and f"({len(result.dropped)} on {result.dropped[0].sample} questions)" in n for n in result.notes)


def test_the_result_reads_back(halved: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, _ = halved
    assert read_sweep(folder) == result
    assert SweepResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_the_sample_holds_tuning_questions_only(tmp_path: Path) -> None:
    result = sweep(GOLDEN, CORPUS, PLAN, tmp_path, holdout=0.3, budget=BUDGET)
    held = {q.id for q in ragauge.load_golden(GOLDEN) if held_out_by_hash(q.id, 0.3)}
    assert result.dropped and result.holdout is not None and result.holdout.chosen == result.selection.best
    for row in result.dropped:
        assert held.isdisjoint(read_run(tmp_path / row.run).queries)
    for row in result.confirmed:
        assert held <= set(read_run(tmp_path / row.run).queries)


def test_a_budget_that_covers_the_sweep_runs_it_all_and_a_bad_one_is_refused_first(tmp_path: Path) -> None:
    result = sweep(GOLDEN, CORPUS, PLAN, tmp_path / "all", budget=9 * 45)
    assert result.halving is None and not result.dropped and any("covers the full sweep" in n for n in result.notes)
    with pytest.raises(InputError, match="^budget=100 is too small"):
        sweep(GOLDEN, CORPUS, PLAN, tmp_path / "small", budget=100)
    assert not (tmp_path / "small" / "cache").exists()  # refused before any index was built
    with pytest.raises(InputError, match=r"\[sweep\] factor must be an integer >= 2, got 1"):
        sweep(GOLDEN, CORPUS, {**PLAN, "sweep": {"budget": 300, "factor": 1}}, tmp_path / "f")
    with pytest.raises(InputError, match="the halving factor must be an integer >= 2, got 0"):
        sweep(GOLDEN, CORPUS, PLAN, tmp_path / "f", budget=300, factor=0)
    with pytest.raises(InputError, match="a halving factor without a budget"):
        sweep(GOLDEN, CORPUS, PLAN, tmp_path / "f", factor=2)


def test_the_cli_and_the_sweep_file_take_a_budget(tmp_path: Path) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text('[sweep]\nk = [5]\nbudget = 250\nfactor = 4\n\n[[config]]\nname = "bm25"\nretriever = "bm25"\n\n'
                      '[[config]]\nretriever = "bm25"\nk1 = [0.3, 0.6, 0.9, 1.2, 1.5]\nb = [0.3, 0.75]\n')
    base = ["sweep", str(GOLDEN), "--corpus", str(CORPUS), "--config", str(config), "-o", str(tmp_path / "out")]
    r = CliRunner().invoke(cli, [*base, "--format", "json"])
    assert r.exit_code == 0, r.output
    h = json.loads(r.stdout)["halving"]
    assert (h["budget"], h["factor"]) == (250, 4) and h["retrievals"] <= 250
    r = CliRunner().invoke(cli, [*base, "--budget", "300", "--factor", "3"])
    assert r.exit_code == 0, r.output
    assert "successive halving (budget 300 retrievals, factor 3)" in r.stdout and "dropped in round" in r.stdout
    r = CliRunner().invoke(cli, [*base, "--budget", "20"])
    assert r.exit_code == 2 and "--budget 20 is too small" in r.stderr and "Traceback" not in r.output
    config.write_text('[sweep]\nbudget = "many"\n\n[[config]]\nretriever = "bm25"\n')
    r = CliRunner().invoke(cli, base)
    assert r.exit_code == 2 and "[sweep] budget must be" in r.stderr
