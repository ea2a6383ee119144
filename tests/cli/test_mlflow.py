"""``--mlflow`` and the ``[mlflow]`` table of ragauge.toml, end to end through the CLI on the bundled
examples, against a real MLflow (a SQLite store in a temporary folder)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ragauge
from ragauge.cli.main import cli

pytest.importorskip("mlflow", reason="MLflow is not installed: pip install 'ragauge[mlflow]' (the test extra "
                                     "installs it)")
from mlflow.tracking import MlflowClient  # noqa: E402

ROOT = Path(__file__).parents[2]
SCIFACT = ROOT / "examples" / "scifact"
HELPDESK = ROOT / "examples" / "helpdesk"
EVAL = ["eval", str(SCIFACT / "golden.jsonl"), "--run", str(SCIFACT / "bm25.run.jsonl"), "-k", "1,5"]
COMPARE = ["compare", str(SCIFACT / "bm25.run.jsonl"), str(SCIFACT / "bm25-nostem.run.jsonl"), "--golden",
           str(SCIFACT / "golden.jsonl")]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """MLflow's environment pointing at a fresh SQLite store; the working folder in ``tmp_path``."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", "cli")
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.delenv("MLFLOW_EXPERIMENT_ID", raising=False)
    return uri


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def logged_id(result: Result) -> str:
    assert result.exit_code == 0, result.output
    found = re.search(r"logged to MLflow as run (\w+)", result.stderr)
    assert found, result.stderr
    return found.group(1)


def runs(uri: str, experiment: str) -> list[object]:
    client = MlflowClient(uri)
    found = client.get_experiment_by_name(experiment)
    return [] if found is None else client.search_runs([found.experiment_id])


def test_eval_mlflow_logs_the_evaluation_and_still_prints_the_report(store: str) -> None:
    result = invoke(*EVAL, "--mlflow")
    run = MlflowClient(store).get_run(logged_id(result))
    assert "hit@5" in result.stdout and "logged to MLflow" not in result.stdout
    assert run.data.params["contract.k"] == "[1,5]" and run.data.params["golden.questions"] == "300"
    assert run.data.metrics["hit_at_5"] == pytest.approx(0.7566666666666667)
    assert run.data.metrics["recall_at_1"] == pytest.approx(0.5341666666666667)
    assert run.info.run_name == str(SCIFACT / "bm25.run.jsonl")


def test_without_the_flag_or_a_table_nothing_is_logged(store: str, tmp_path: Path) -> None:
    result = invoke(*EVAL)
    assert result.exit_code == 0 and "MLflow" not in result.stderr
    assert not (tmp_path / "mlflow.db").exists()


def test_an_mlflow_table_turns_it_on_and_no_mlflow_off(store: str, tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'project.db'}"
    (tmp_path / "ragauge.toml").write_text(f'[mlflow]\nexperiment = "stemming"\ntracking_uri = "{uri}"\n'
                                           'run_name = "stem or not"\n', encoding="utf-8")
    result = invoke(*COMPARE)
    assert f"at {uri}" in result.stderr
    run = MlflowClient(uri).get_run(logged_id(result))
    assert run.info.run_name == "stem or not" and "diff.hit_at_5" in run.data.metrics
    assert invoke(*COMPARE, "--no-mlflow").exit_code == 0
    assert len(runs(uri, "stemming")) == 1 and runs(store, "cli") == []


def test_eval_reads_the_table_of_its_config(store: str, tmp_path: Path) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_text('[mlflow]\nexperiment = "from-config"\n', encoding="utf-8")
    logged_id(invoke(*EVAL, "--config", str(config)))
    assert len(runs(store, "from-config")) == 1


def test_a_bad_table_is_refused_where_it_is(store: str, tmp_path: Path) -> None:
    (tmp_path / "ragauge.toml").write_text('[mlflow]\nexperiment = "x"\nuri = "sqlite:///x.db"\n', encoding="utf-8")
    result = invoke(*COMPARE)
    assert result.exit_code == 2
    assert "ragauge.toml:3" in result.output and "unknown key 'mlflow.uri'" in result.output


def test_sweep_mlflow_nests_a_run_per_configuration(store: str, tmp_path: Path) -> None:
    result = invoke("sweep", str(HELPDESK / "golden.jsonl"), "--corpus", str(HELPDESK / "sections.jsonl"),
                    "--config", str(HELPDESK / "sweep.toml"), "-o", str(tmp_path / "sweep"), "--mlflow")
    parent = logged_id(result)
    client = MlflowClient(store)
    experiment = client.get_run(parent).info.experiment_id
    children = client.search_runs([experiment], f"tags.mlflow.parentRunId = '{parent}'")
    configurations = [row.name for row in ragauge.read_sweep(tmp_path / "sweep").rows]
    assert len(configurations) > 1 and sorted(c.info.run_name for c in children) == sorted(configurations)
    for child in children:
        assert "ndcg_at_5" in child.data.metrics and "tag.networking.ndcg_at_5" in child.data.metrics
        assert {a.path for a in client.list_artifacts(child.info.run_id)} == {"report.html", "result.json"}


def test_without_mlflow_the_flag_names_the_extra(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mlflow.tracking", None)
    result = invoke(*EVAL, "--mlflow")
    assert result.exit_code == 2 and "pip install 'ragauge[mlflow]'" in result.output
