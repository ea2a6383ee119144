"""A real sweep on the bundled help-desk example (BM25 and the dependency-free hash embedder): indexes
built once and shared, cached across sweeps and rebuilt when they do not match, every run kept and
reproducible with ``ragauge run``, the saved result read back, the holdout numbers those of the split."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.core.cache import cache_dir
from ragauge.errors import InputError
from ragauge.experiments.holdout import held_out_by_hash
from ragauge.experiments.result import SweepResult
from ragauge.experiments.sweep import read_sweep, sweep
from ragauge.formats.runs import read_run

ROOT = Path(__file__).parents[2]
HELPDESK = ROOT / "examples" / "helpdesk"
GOLDEN = HELPDESK / "golden.jsonl"
PLAN: dict[str, Any] = {
    "sweep": {"k": [5], "fetch": 30},
    "config": [
        {"name": "bm25", "retriever": "bm25"},
        {"retriever": "bm25", "k1": [0.9], "chunking": [{"chunk_size": 50, "chunk_overlap": 10}]},
        {"name": "dense", "retriever": "dense", "embedder": "hash"},
        {"name": "hybrid", "retriever": "hybrid", "embedder": "hash", "fusion": "weighted", "weight": 0.3},
    ],
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the sections, so a test may change it."""
    path = tmp_path_factory.mktemp("corpus") / "sections.jsonl"
    shutil.copy(HELPDESK / "sections.jsonl", path)
    return path


@pytest.fixture(scope="module", autouse=True)
def own_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """This module's $RAGAUGE_CACHE: a sweep reads the embeddings dense: specs cached, so another
    module's dense index of the same sections would make the first sweep here find its index built."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUGE_CACHE", str(tmp_path_factory.mktemp("sweep-cache")))
        yield


@pytest.fixture(scope="module")
def done(tmp_path_factory: pytest.TempPathFactory, corpus: Path) -> tuple[SweepResult, Path, list[tuple[Any, ...]]]:
    folder = tmp_path_factory.mktemp("sweep")
    events: list[tuple[Any, ...]] = []
    result = sweep(GOLDEN, corpus, PLAN, folder, on_progress=lambda *e: events.append(e))
    return result, folder, events


def test_every_configuration_has_its_run_and_row(done: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, _ = done
    assert [r.name for r in result.rows] == ["bm25", "bm25 k1=0.9 chunk_size=50 chunk_overlap=10", "dense", "hybrid"]
    assert result.reference == "bm25" and result.primary == "ndcg@5" and result.rows[0].deltas == {}
    for row in result.rows:
        run = read_run(folder / row.run)
        assert run.meta["retriever"] == row.spec and len(run.queries) == 45 and row.latency_ms is not None
        assert set(row.means) == {"hit@5", "recall@5", "mrr", "ndcg@5"} and row.index_bytes > 0
    assert set(result.rows[3].deltas) == set(result.metrics)
    assert (folder / "sweep.json").is_file() and result.meta["questions"]["answerable"] == 40


def test_each_index_is_built_once_and_shared(done: tuple[SweepResult, Path, list[Any]]) -> None:
    result, _, events = done
    kinds = [(i.kind, i.used_by) for i in result.indexes]
    assert kinds == [("bm25", ("bm25", "hybrid")), ("bm25", ("bm25 k1=0.9 chunk_size=50 chunk_overlap=10",)),
                     ("dense", ("dense", "hybrid"))]
    assert not any(i.cached for i in result.indexes) and all(i.build_seconds is not None for i in result.indexes)
    hybrid = result.row("hybrid")
    assert hybrid.index_bytes == result.indexes[0].size_bytes + result.indexes[2].size_bytes
    assert [e for e in events if e[0] == "index"][-1][1:3] == (3, 3)
    runs = [e for e in events if e[0] == "run"]
    assert runs[-1][1:3] == (180, 180) and [e[1] for e in runs] == sorted(e[1] for e in runs)


def test_a_run_is_what_ragauge_run_gives_for_its_spec(done: tuple[SweepResult, Path, list[Any]],
                                                       tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result, folder, _ = done
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    for row in result.rows[1:]:
        again = ragauge.run_retriever(GOLDEN, row.spec, tmp_path / "again.jsonl", fetch=30, concurrency=1)
        kept = read_run(folder / row.run)
        assert [r.hits for r in again.results()] == [r.hits for r in kept.results()], row.name


def test_compare_takes_any_two_runs_of_the_sweep(done: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, _ = done
    r = CliRunner().invoke(cli, ["compare", str(folder / result.rows[0].run), str(folder / result.rows[3].run),
                                 "--golden", str(GOLDEN), "-k", "5", "--format", "json"])
    assert r.exit_code == 0, r.output
    ndcg = json.loads(r.stdout)["metrics"]["ndcg@5"]
    assert ndcg["diff"] == pytest.approx(result.rows[3].deltas["ndcg@5"].diff)
    assert ndcg["ci"] == pytest.approx(list(result.rows[3].deltas["ndcg@5"].ci))


def test_the_saved_result_reads_back(done: tuple[SweepResult, Path, list[Any]]) -> None:
    result, folder, _ = done
    assert read_sweep(folder).to_dict() == result.to_dict()
    assert read_sweep(folder / "sweep.json").to_dict() == json.loads((folder / "sweep.json").read_text())
    (folder / "other.json").write_text('{"ragauge_sweep": 99}')
    with pytest.raises(InputError, match="not a ragauge sweep result"):
        read_sweep(folder / "other.json")


def test_a_second_sweep_reuses_the_indexes_and_rebuilds_one_that_does_not_match(
        done: tuple[SweepResult, Path, list[Any]], corpus: Path, tmp_path: Path) -> None:
    result, folder, _ = done
    again = sweep(GOLDEN, corpus, PLAN, folder)
    assert all(i.cached for i in again.indexes)
    assert [r.means for r in again.rows] == [r.means for r in result.rows]
    assert [i.build_seconds for i in again.indexes] == [i.build_seconds for i in result.indexes]
    entry = Path(again.indexes[2].path) / "passages.json"
    shared = cache_dir() / "dense" / entry.parent.name  # the embeddings a dense: spec reads: the same entry
    assert (shared / "embeddings.npy").exists()
    entry.write_text(json.dumps({**json.loads(entry.read_text()), "key": "sha256:not-this-one"}))
    restored = sweep(GOLDEN, corpus, PLAN, folder)  # from the shared cache, not embedded again
    assert [i.cached for i in restored.indexes] == [True, True, True]
    assert json.loads(entry.read_text())["key"] != "sha256:not-this-one"
    for damaged in (entry, shared / "passages.json"):
        damaged.write_text(json.dumps({**json.loads(damaged.read_text()), "key": "sha256:not-this-one"}))
    rebuilt = sweep(GOLDEN, corpus, PLAN, folder)
    assert [i.cached for i in rebuilt.indexes] == [True, True, False]
    assert [r.means for r in rebuilt.rows] == [r.means for r in result.rows]


def test_a_changed_corpus_gets_new_indexes(done: tuple[SweepResult, Path, list[Any]], tmp_path: Path) -> None:
    _, folder, _ = done
    changed = tmp_path / "sections.jsonl"
    lines = (HELPDESK / "sections.jsonl").read_text(encoding="utf-8").splitlines()
    changed.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    small = {"sweep": {"k": [5]}, "config": [PLAN["config"][0], PLAN["config"][2]]}
    result = sweep(GOLDEN, changed, small, folder)
    assert not any(i.cached for i in result.indexes) and result.indexes[0].passages == len(lines) - 1


def test_the_holdout_reports_the_chosen_configuration_on_the_other_questions(corpus: Path, tmp_path: Path) -> None:
    result = sweep(GOLDEN, corpus, PLAN, tmp_path, holdout=0.4)
    h = result.holdout
    assert h is not None and h.chosen == result.selection.best and h.tune + h.held_out == 40
    assert result.meta["questions"]["tuned_on"] == h.tune
    golden = ragauge.load_golden(GOLDEN)
    held = [q.id for q in golden if held_out_by_hash(q.id, 0.4)]
    scored = ragauge.evaluate_run(GOLDEN, tmp_path / result.row(h.chosen).run, metrics=list(result.metrics), fetch=30)
    ids = [i for i in held if i in scored.positions]
    assert len(ids) == h.held_out
    assert h.means["ndcg@5"] == pytest.approx(float(np.mean(scored.column("ndcg@5", ids))))
    tune = [q.id for q in scored.queries if q.id not in set(held)]
    assert result.row(h.chosen).means["ndcg@5"] == pytest.approx(float(np.mean(scored.column("ndcg@5", tune))))
    assert not any(n.startswith("NOTE: the best configuration is chosen on the same questions") for n in result.notes)


def test_without_a_holdout_the_best_numbers_are_called_optimistic(done: tuple[SweepResult, Path, list[Any]]) -> None:
    result = done[0]
    assert result.holdout is None
    assert any(n.startswith("NOTE: the best configuration is chosen on the same questions") for n in result.notes)


def test_bad_inputs_are_input_errors(corpus: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="corpus not found"):
        sweep(GOLDEN, tmp_path / "nope.jsonl", PLAN, tmp_path)
    bad = {"config": [{"retriever": "bm25", "chunk_size": 10, "chunk_overlap": 10}]}
    with pytest.raises(InputError, match="configuration 'bm25 chunk_size=10 chunk_overlap=10': chunk_overlap"):
        sweep(GOLDEN, corpus, bad, tmp_path)
    with pytest.raises(InputError, match="option weight applies to fusion=weighted only"):
        sweep(GOLDEN, corpus, {"config": [{"retriever": "hybrid", "embedder": "hash", "weight": 0.2}]}, tmp_path)
    three = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()[:3]]
    with pytest.raises(InputError, match="only 3 answerable question"):
        sweep(three, corpus, {"config": [PLAN["config"][0]]}, tmp_path)
    with pytest.raises(InputError, match="no question carries the holdout tag 'never'"):
        sweep(GOLDEN, corpus, PLAN, tmp_path, holdout_tag="never")


def test_a_rescored_configuration_reports_its_ceiling_and_shares_the_first_stage(
        corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    plan = {"sweep": {"k": [5], "fetch": 20}, "config": [
        PLAN["config"][0], PLAN["config"][2],
        {"name": "rescored", "retriever": "bm25", "rerank": "hash", "rerank_depth": 20},
        {"name": "deep", "retriever": "bm25", "rerank": "hash", "rerank_depth": 50}]}
    result = sweep(GOLDEN, corpus, plan, tmp_path)
    assert [i.kind for i in result.indexes] == ["bm25", "dense"]  # the rescoring reuses both indexes
    assert result.indexes[1].used_by == ("dense", "rescored", "deep")
    row = result.row("rescored")
    assert row.ceiling is not None and result.row("bm25").ceiling is None
    for metric in ("ndcg@5", "mrr", "hit@5"):
        assert row.ceiling[metric] >= row.means[metric]
        assert row.ceiling[metric] >= result.row("bm25").means[metric]  # the same candidates, perfectly ordered
    assert any("deep: its ceiling is over the 20 hits fetched, not all 50" in n for n in result.notes)
    again = ragauge.run_retriever(GOLDEN, row.spec, tmp_path / "again.jsonl", fetch=20, concurrency=1)
    assert [r.hits for r in again.results()] == [r.hits for r in read_run(tmp_path / row.run).results()]


def test_span_labels_judge_the_chunk_that_holds_the_answer(tmp_path: Path) -> None:
    """The bundled span example: its labels are clean, and judged by spans the smallest chunks lose the
    lead document labels give them (the figures in docs/sweep.md)."""
    from ragauge.curation.validate import validate_golden

    spans, corpus = HELPDESK / "golden-spans.jsonl", HELPDESK / "corpus.jsonl"
    report = validate_golden(spans, corpus=corpus)
    assert not [f for f in report.findings if f.code in ("stale-span", "moved-span") or f.severity == "error"]
    by_span = sweep(spans, corpus, HELPDESK / "sweep-spans.toml", tmp_path / "spans")
    docs = tmp_path / "docs.jsonl"
    with docs.open("w") as fh:
        for q in ragauge.load_golden(spans):
            fh.write(json.dumps({**q.to_dict(), "relevant": dict(q.relevant)}) + "\n")
    by_doc = sweep(docs, corpus, HELPDESK / "sweep-spans.toml", tmp_path / "docs")
    table = {row.name: row.means["recall@300t"] for row in by_span.rows}
    plain = {row.name: row.means["recall@300t"] for row in by_doc.rows}
    small, mid = "bm25 chunk_size=40 chunk_overlap=10", "bm25 chunk_size=80 chunk_overlap=20"
    whole = "bm25 chunk_size=0"
    assert table[whole] == pytest.approx(plain[whole]) == pytest.approx(0.5708, abs=1e-4)  # whole articles hold it
    assert plain[small] == pytest.approx(0.8875, abs=1e-4) and table[small] == pytest.approx(0.6833, abs=1e-4)
    assert table[mid] == pytest.approx(0.7083, abs=1e-4) and by_span.selection.best == mid


def test_a_sweep_counts_budgets_with_its_tokenizer(tmp_path: Path) -> None:
    config = {"retriever": "bm25", "chunk_size": 80, "chunk_overlap": 20}
    plans = {name: {"sweep": {"metrics": ["recall@300t", "mrr"], "fetch": 20, "tokenizer": name},
                    "config": [config, {**config, "name": "again"}]} for name in ("words", "minilm")}
    got = {name: sweep(HELPDESK / "golden-spans.jsonl", HELPDESK / "corpus.jsonl", plan, tmp_path / name)
           for name, plan in plans.items()}
    assert got["minilm"].meta["contract"]["budget"] == "minilm" and "budget" not in got["words"].meta["contract"]
    words, pieces = (got[n].rows[0].means for n in ("words", "minilm"))
    assert words["mrr"] == pieces["mrr"] and pieces["recall@300t"] < words["recall@300t"]  # more pieces than words


def test_cross_encoder_and_python_rerankers_reorder_one_first_stage_and_report_their_latency(
        corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("onnx")
    from tests.retrieve.tiny_models import make_cross_encoder, words_of

    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    lines = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    make_cross_encoder(tmp_path / "ce", sorted({w for d in lines for w in words_of(f"{d['title']} {d['text']}")}))
    module = tmp_path / "overlap.py"
    module.write_text("def score(query, candidates):\n    q = set(query.lower().split())\n"
                      "    return [len(q & set(c.lower().split())) for c in candidates]\n\n\n"
                      "def embed(texts):\n    return [[t.count(c) for c in 'aeiou'] for t in texts]\n",
                      encoding="utf-8")
    plan = {"sweep": {"k": [5], "fetch": 20}, "config": [
        PLAN["config"][0],
        {"name": "ce", "retriever": "bm25", "rerank": f"cross-encoder:{tmp_path / 'ce'}", "rerank_depth": 20},
        {"name": "py", "retriever": "bm25", "rerank": f"python:{module}:score", "rerank_depth": 20},
        {"name": "vowels", "retriever": "dense", "embedder": f"python:{module}:embed"}]}
    result = sweep(GOLDEN, corpus, plan, tmp_path / "out")
    assert [(i.kind, i.used_by) for i in result.indexes] == [("bm25", ("bm25", "ce", "py")), ("dense", ("vowels",))]
    assert result.row("bm25").rerank_ms is None
    ce, py = result.row("ce"), result.row("py")
    for row in (ce, py):
        assert row.rerank_ms is not None and 0 < row.rerank_ms["p50"] <= row.rerank_ms["p95"]
        # each call's whole time holds its first stage and its reranking, so each median is at most the call's
        assert row.latency_ms is not None and max(row.rerank_ms["p50"], row.rerank_ms["first_p50"]) <= row.latency_ms[
            "p50"]
        again = ragauge.run_retriever(GOLDEN, row.spec, tmp_path / "again.jsonl", fetch=20, concurrency=1)
        assert [r.hits for r in again.results()] == [r.hits for r in read_run(tmp_path / "out" / row.run).results()]
    assert ce.ceiling == py.ceiling and ce.means != py.means  # the same 20 candidates, ordered two ways
    assert read_sweep(tmp_path / "out").row("ce").rerank_ms == ce.rerank_ms
    again = sweep(GOLDEN, corpus, plan, tmp_path / "out")
    assert [i.cached for i in again.indexes] == [True, True]  # the python embedder's vectors, keyed by its source
    assert again.row("vowels").means == result.row("vowels").means
    missing = {"config": [PLAN["config"][0], {"name": "x", "retriever": "bm25", "rerank": "cross-encoder:nowhere"}]}
    with pytest.raises(InputError, match="configuration 'x': cross-encoder model directory not found"):
        sweep(GOLDEN, corpus, missing, tmp_path / "bad")
    assert not (tmp_path / "bad" / "runs" / "bm25.jsonl").exists()  # refused before anything ran
