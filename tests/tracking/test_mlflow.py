"""ragauge.log_mlflow against a real MLflow (a SQLite store in a temporary folder): the runs, their
parameters, metrics, tags and artifacts read back with MlflowClient; a sweep's configurations nested
under its run; secrets redacted; a missing MLflow named by its extra."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragauge
from ragauge.errors import InputError, MissingExtra

mlflow = pytest.importorskip("mlflow", reason="MLflow is not installed: pip install 'ragauge[mlflow]' (the test "
                                              "extra installs it)")
from mlflow.tracking import MlflowClient  # noqa: E402

ROOT = Path(__file__).parents[2]
SCIFACT = ROOT / "examples" / "scifact"
HELPDESK = ROOT / "examples" / "helpdesk"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A fresh SQLite store as MLflow's default (MLFLOW_TRACKING_URI); the working directory in
    ``tmp_path``, where MLflow puts the artifacts (./mlruns) of a SQLite store."""
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    monkeypatch.setenv("MLFLOW_DISABLE_TELEMETRY", "true")
    monkeypatch.delenv("MLFLOW_EXPERIMENT_NAME", raising=False)
    monkeypatch.delenv("MLFLOW_EXPERIMENT_ID", raising=False)
    yield uri


def artifact(client: MlflowClient, run_id: str, name: str) -> str:
    return Path(client.download_artifacts(run_id, name)).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def helpdesk() -> ragauge.Evaluation:
    return ragauge.evaluate_run(HELPDESK / "golden.jsonl", HELPDESK / "bm25.run.jsonl", k=[1, 5],
                                doc_id_sep="#")


def test_an_evaluation_is_one_run_with_its_contract_means_and_reports(store: str,
                                                                     helpdesk: ragauge.Evaluation) -> None:
    run_id = ragauge.log_mlflow(helpdesk, experiment="retrieval")
    client = MlflowClient(store)
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert client.get_experiment(run.info.experiment_id).name == "retrieval"
    assert run.info.run_name == str(HELPDESK / "bm25.run.jsonl")
    meta, params = helpdesk.meta, run.data.params
    assert params["retriever"] == meta["run"]["meta"]["retriever"] == "bm25:examples/helpdesk/sections.jsonl"
    assert params["retriever.settings.k1"] == "1.5" and params["retriever.settings.title"] == "true"
    assert params["golden.hash"] == meta["golden"]["hash"] and params["run.hash"] == meta["run"]["hash"]
    assert params["contract.k"] == "[1,5]" and params["contract.fetch"] == "null"
    assert params["contract.unjudged"] == "non-relevant"
    assert params["contract.doc_id"] == meta["contract"]["doc_id"] == "doc id = chunk id up to the first '#'"
    metrics = run.data.metrics
    assert metrics["hit_at_5"] == pytest.approx(helpdesk.summary["hit@5"])
    assert {k for k in metrics if "." not in k} >= {"hit_at_1", "recall_at_5", "mrr", "ndcg_at_5", "judged_at_5"}
    for tag, means in helpdesk.by_tag.items():
        for name, mean in means.items():
            assert metrics[f"tag.{tag}.{name.replace('@', '_at_')}"] == pytest.approx(mean)
    assert metrics["tag.networking.n"] == helpdesk.by_tag["networking"]["n"]
    assert metrics["counts.no_answer"] == 5 and metrics["latency_ms.p50"] > 0
    assert run.data.tags["ragauge.kind"] == "evaluation"
    assert {a.path for a in client.list_artifacts(run_id)} == {"report.html", "result.json"}
    assert "<html" in artifact(client, run_id, "report.html")[:500].lower()
    saved = ragauge.read_result(Path(client.download_artifacts(run_id, "result.json")))
    assert saved.summary == pytest.approx(helpdesk.summary)


def test_a_comparison_logs_each_metrics_test_overall_and_per_tag(store: str) -> None:
    golden = SCIFACT / "golden.jsonl"
    result = ragauge.compare(SCIFACT / "bm25.run.jsonl", SCIFACT / "bm25-nostem.run.jsonl", golden=golden)
    run_id = ragauge.log_mlflow(result, run_name="stemming")
    client = MlflowClient(store)
    run = client.get_run(run_id)
    assert run.info.run_name == "stemming" and run.info.experiment_id == "0"  # MLflow's default experiment
    params, metrics = run.data.params, run.data.metrics
    assert params["base.retriever"].startswith("bm25s lucene BM25") and "no stemming" in params["new.retriever"]
    assert params["base.golden.hash"] == params["new.golden.hash"] == result.meta["base"]["golden"]["hash"]
    assert params["contract.k"] == "[5]" and params["alpha"] == "0.05"
    for metric, d in result.metrics.items():
        name = metric.replace("@", "_at_")
        assert metrics[f"diff.{name}"] == pytest.approx(d.diff)
        assert metrics[f"base.{name}"] == pytest.approx(d.base) and metrics[f"new.{name}"] == pytest.approx(d.new)
        assert (metrics[f"ci_low.{name}"], metrics[f"ci_high.{name}"]) == pytest.approx(d.ci)
        assert metrics[f"p_adjusted.{name}"] == pytest.approx(d.p_adjusted)
        assert run.data.tags[f"ragauge.verdict.{name}"] == d.verdict
    for tag, deltas in result.by_tag.items():
        for metric, d in deltas.items():
            assert metrics[f"tag.{tag}.diff.{metric.replace('@', '_at_')}"] == pytest.approx(d.diff)
    assert metrics["paired_questions"] == 300 and metrics["latency_ms.base.p50"] > 0
    assert {a.path for a in client.list_artifacts(run_id)} == {"comparison.html", "comparison.json"}
    assert json.loads(artifact(client, run_id, "comparison.json"))["metrics"].keys() == result.metrics.keys()


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    folder = tmp_path_factory.mktemp("sweep")
    plan = {"sweep": {"k": [5], "fetch": 30},
            "config": [{"name": "bm25", "retriever": "bm25"},
                       {"name": "hybrid", "retriever": "hybrid", "embedder": "hash", "fusion": "rrf"}]}
    return ragauge.sweep(HELPDESK / "golden.jsonl", HELPDESK / "sections.jsonl", plan, folder), folder


def test_a_sweep_is_a_parent_run_with_a_nested_run_per_configuration(store: str, swept: tuple[Any, Path]) -> None:
    result, folder = swept
    parent = ragauge.log_mlflow(result, experiment="sweeps", folder=folder, golden=HELPDESK / "golden.jsonl")
    client = MlflowClient(store)
    top = client.get_run(parent)
    assert top.data.tags["ragauge.kind"] == "sweep" and top.data.tags["ragauge.best"] == result.selection.best
    assert top.data.params["primary"] == "ndcg@5" and top.data.params["reference"] == "bm25"
    assert top.data.metrics["configurations"] == 2
    assert {a.path for a in client.list_artifacts(parent)} == {"sweep.html", "sweep.json"}
    children = client.search_runs([top.info.experiment_id], f"tags.mlflow.parentRunId = '{parent}'")
    assert sorted(c.info.run_name for c in children) == ["bm25", "hybrid"]
    for child in children:
        row = result.row(child.info.run_name)
        params, metrics = child.data.params, child.data.metrics
        assert params["configuration"] == row.name and params["retriever"] == row.spec
        assert params["is_reference"] == ("true" if row.name == "bm25" else "false")
        assert params["contract.fetch"] == "30" and params["golden.hash"] == result.meta["golden"]["hash"]
        for metric, mean in row.means.items():
            assert metrics[metric.replace("@", "_at_")] == pytest.approx(mean)
        assert ("diff.ndcg_at_5" in metrics) == (row.name != "bm25")
        assert any(k.startswith("tag.networking.") for k in metrics)  # scored again: per tag
        assert metrics["latency_ms.p50"] == pytest.approx(row.latency_ms["p50"])
        assert {a.path for a in client.list_artifacts(child.info.run_id)} == {"report.html", "result.json"}
        assert child.data.tags["ragauge.kind"] == "configuration"


def test_a_sweep_without_its_folder_logs_its_rows(store: str, swept: tuple[Any, Path]) -> None:
    result, _ = swept
    parent = ragauge.log_mlflow(result)
    client = MlflowClient(store)
    children = client.search_runs(["0"], f"tags.mlflow.parentRunId = '{parent}'")
    assert len(children) == 2
    for child in children:
        assert not any(k.startswith("tag.") for k in child.data.metrics)
        assert client.list_artifacts(child.info.run_id) == []


def test_a_sequential_comparison_logs_its_decision(store: str) -> None:
    sections = HELPDESK / "sections.jsonl"
    result = ragauge.compare_sequential(HELPDESK / "golden.jsonl", f"bm25:{sections}",
                                        f"bm25:{sections}?chunk_size=25&chunk_overlap=5", metric="ndcg@5")
    run = MlflowClient(store).get_run(ragauge.log_mlflow(result))
    assert run.data.params["metric"] == "ndcg@5" and run.data.params["alpha"] == "0.05"
    assert run.data.metrics["asked"] == result.test.asked and run.data.metrics["calls"] == result.calls
    assert run.data.metrics["diff.ndcg_at_5"] == pytest.approx(result.test.diff)
    assert run.data.tags["ragauge.kind"] == "sequential" and run.data.tags["ragauge.verdict"] == result.verdict
    assert {a.path for a in MlflowClient(store).list_artifacts(run.info.run_id)} == {"sequential.md",
                                                                                  "sequential.json"}


def test_tags_mlflow_refuses_are_mapped_and_logged(store: str) -> None:
    tags = ["café", "a/../b", "EU/billing", "x" * 300, "a@b", "with space"]
    golden = [{"id": f"q{i}", "query": "q", "relevant": ["d"], "tags": [tag]} for i, tag in enumerate(tags)]
    result = ragauge.evaluate_run(golden, {f"q{i}": ["d"] for i in range(len(tags))}, k=5)
    metrics = MlflowClient(store).get_run(ragauge.log_mlflow(result)).data.metrics
    assert metrics["tag.EU/billing.hit_at_5"] == 1 and metrics["tag.with space.hit_at_5"] == 1
    per_tag = len(result.by_tag["with space"])  # the means and n; every key apart (the 300 x's cut with a hash)
    assert sum(k.startswith("tag.") for k in metrics) == len(tags) * per_tag


def test_experiment_from_the_environment_and_a_deleted_one(store: str, helpdesk: ragauge.Evaluation,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MLFLOW_EXPERIMENT_NAME", "from-env")
    client = MlflowClient(store)
    run = client.get_run(ragauge.log_mlflow(helpdesk))
    assert client.get_experiment(run.info.experiment_id).name == "from-env"
    client.delete_experiment(run.info.experiment_id)
    with pytest.raises(InputError, match="deleted"):
        ragauge.log_mlflow(helpdesk)


def test_secrets_are_never_logged_or_shown(store: str, helpdesk: ragauge.Evaluation,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    spec = "https://ana:hunter2secret@search.internal/api?api_key=sk-abcdef123456"
    meta = {**helpdesk.meta, "run": {**helpdesk.meta["run"], "path": spec,
                                     "meta": {**helpdesk.meta["run"]["meta"], "retriever": spec}}}
    run_id = ragauge.log_mlflow(replace(helpdesk, meta=meta))
    run = MlflowClient(store).get_run(run_id)
    logged = json.dumps([run.data.params, run.data.tags, run.info.run_name])
    assert "hunter2secret" not in logged and "sk-abcdef123456" not in logged
    assert run.data.params["retriever"].startswith("https://ana:***@search.internal")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "5")
    with pytest.raises(InputError) as caught:  # port 9 (discard): refused at once
        ragauge.log_mlflow(helpdesk, tracking_uri="http://ana:hunter2secret@127.0.0.1:9/")
    assert "hunter2secret" not in str(caught.value) and "ana:***@127.0.0.1" in str(caught.value)


def test_another_kind_of_result_is_refused(store: str) -> None:
    report = ragauge.validate_golden(HELPDESK / "golden.jsonl")
    with pytest.raises(InputError, match="not logged to a tracker"):
        ragauge.log_mlflow(report)


def test_without_mlflow_the_hint_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                 helpdesk: ragauge.Evaluation) -> None:
    monkeypatch.setitem(sys.modules, "mlflow.tracking", None)  # import mlflow.tracking raises ImportError
    with pytest.raises(MissingExtra) as caught:
        ragauge.log_mlflow(helpdesk)
    assert caught.value.hint == "pip install 'ragauge[mlflow]'"
