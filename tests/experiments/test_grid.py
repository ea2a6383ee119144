"""The sweep file: grids expand to every combination, groups set options together, names and specs are
derived from the settings, and every mistake is an InputError naming the table and, from a file, the line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragauge.errors import InputError
from ragauge.experiments.grid import Configuration, expand, plan_from_dict, read_plan, spec_text


def plan(*configs: dict[str, Any], **head: Any) -> Any:
    return plan_from_dict({"sweep": head, "config": list(configs)})


def test_a_grid_is_the_cross_product_of_its_lists_in_file_order() -> None:
    configs = expand({"retriever": "bm25", "k1": [0.9, 1.5], "b": [0.4, 0.75], "stemmer": "none"})
    assert [c.name for c in configs] == [
        "bm25 stemmer=none k1=0.9 b=0.4", "bm25 stemmer=none k1=0.9 b=0.75",
        "bm25 stemmer=none k1=1.5 b=0.4", "bm25 stemmer=none k1=1.5 b=0.75"]
    assert configs[1].settings == {"stemmer": "none", "k1": 0.9, "b": 0.75}
    assert configs[1].spec("c.jsonl") == "bm25:c.jsonl?stemmer=none&k1=0.9&b=0.75"


def test_a_group_sets_options_together_and_a_name_replaces_the_fixed_part() -> None:
    configs = expand({"name": "hyb", "retriever": "hybrid", "embedder": "hash",
                      "fusion": [{"fusion": "rrf", "rrf_k": 10}, {"fusion": "weighted", "weight": 0.3}]})
    assert [c.name for c in configs] == ["hyb fusion=rrf rrf_k=10", "hyb fusion=weighted weight=0.3"]
    assert configs[1].settings == {"embedder": "hash", "fusion": "weighted", "weight": 0.3}
    assert expand({"name": "plain", "retriever": "dense"}) == [Configuration("plain", "dense", ())]
    assert expand({"retriever": "dense", "title": False})[0].spec("x") == "dense:x?title=0"


def test_spec_text_and_slugs() -> None:
    assert [spec_text(v) for v in (True, False, 3, 0.5, 1e-05, "en")] == ["1", "0", "3", "0.5", "1e-05", "en"]
    assert Configuration("BM25 k1=0.9 / chunk 200", "bm25").slug == "bm25-k1-0.9-chunk-200"
    assert Configuration("***", "bm25").slug == "config"


def test_the_sweep_table_sets_metrics_primary_reference_and_numbers() -> None:
    p = plan({"name": "a", "retriever": "bm25"}, {"name": "b", "retriever": "bm25", "k1": 1.2})
    assert p.metrics == ("hit@10", "recall@10", "mrr", "ndcg@10") and p.primary == "ndcg@10"
    assert (p.reference, p.fetch, p.alpha, p.concurrency) == ("a", 100, 0.05, 1)
    p = plan({"name": "a", "retriever": "bm25"}, {"name": "b", "retriever": "bm25"}, k=[1, 5], reference="b",
             fetch=30, alpha=0.1, concurrency=2)
    assert p.primary == "ndcg@5" and p.reference == "b" and (p.fetch, p.alpha, p.concurrency) == (30, 0.1, 2)
    p = plan({"name": "a", "retriever": "bm25"}, metrics=["MRR", "Recall@3"])
    assert p.metrics == ("mrr", "recall@3") and p.primary == "mrr"
    assert plan({"name": "a", "retriever": "bm25"}, metrics=["mrr", "recall@3"], primary="R@3").primary == "recall@3"


@pytest.mark.parametrize("data, message", [
    ({"config": [{"retriever": "bm25", "k_1": 1.2}]}, "unknown bm25 option 'k_1'"),
    ({"config": [{"retriever": "dense", "k1": 1.2}]}, "unknown dense option 'k1'"),
    ({"config": [{"retriever": "splade"}]}, "'retriever' must be one of bm25, dense, hybrid"),
    ({"config": [{"retriever": "bm25", "k1": []}]}, "k1 is an empty list"),
    ({"config": [{"retriever": "bm25", "chunking": {"chunk_size": 10}}]}, "a group is a list of tables"),
    ({"config": [{"retriever": "bm25", "k1": [[1]]}]}, "k1 must be a number, got \\[1\\]"),
    ({"config": [{"retriever": "bm25", "k1": 1.2, "g": [{"k1": 0.9}]}]}, "k1 set twice"),
    ({"config": [{"retriever": "bm25"}, {"retriever": "bm25"}]}, "two configurations are named 'bm25'"),
    ({"config": [{"name": "a b", "retriever": "bm25"}, {"name": "a-b", "retriever": "bm25"}]}, "share the run file"),
    ({"config": []}, "no \\[\\[config\\]\\] table"),
    ({}, "no \\[\\[config\\]\\] table"),
    ({"sweep": {"reference": "zz"}, "config": [{"retriever": "bm25"}]}, "reference 'zz' is not a configuration"),
    ({"sweep": {"primary": "map"}, "config": [{"retriever": "bm25"}]}, "primary metric map is not among"),
    ({"sweep": {"fecth": 3}, "config": [{"retriever": "bm25"}]}, "unknown \\[sweep\\] key"),
    ({"sweep": {"alpha": 1.5}, "config": [{"retriever": "bm25"}]}, "alpha must be"),
    ({"sweep": {"fetch": 0}, "config": [{"retriever": "bm25"}]}, "fetch must be an integer >= 1"),
    ({"grid": [{"retriever": "bm25"}]}, "unknown table"),
    ({"config": [{"retriever": "bm25", "rerank": "colbert"}]}, "#1: unknown reranker 'colbert'"),
    ({"config": [{"retriever": "bm25", "rerank": ["minilm", "cross-encoder:"]}]}, "names no model directory"),
    ({"config": [{"retriever": "bm25", "rerank": "python:justamodule"}]}, "must look like python:module:function"),
    ({"config": [{"retriever": "bm25", "rerank": 3}]}, "rerank must be a string"),
    ({"config": [{"retriever": "dense", "embedder": "bert"}]}, "#1: unknown embedder 'bert'"),
    ({"config": [{"retriever": "hybrid", "embedder": "python:m"}]}, "must look like python:module:function"),
    ({"config": [{"retriever": "dense", "rerank": "minilm"}]}, "unknown dense option 'rerank'"),
])
def test_mistakes_are_input_errors(data: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        plan_from_dict(data)


def test_rerankers_and_embedders_of_every_kind_are_options() -> None:
    configs = expand({"retriever": "bm25", "rerank_depth": 50, "rerank": [
        "minilm", "bi-encoder:hash-64", "cross-encoder:models/ms-marco-MiniLM-L6", "python:my.rerank:score"]})
    assert [c.name for c in configs][2] == "bm25 rerank_depth=50 rerank=cross-encoder:models/ms-marco-MiniLM-L6"
    assert configs[2].spec("c.jsonl") == (
        "bm25:c.jsonl?rerank_depth=50&rerank=cross-encoder%3Amodels%2Fms-marco-MiniLM-L6")
    assert expand({"retriever": "dense", "embedder": "python:My.Mod:embed"})[0].settings == {
        "embedder": "python:My.Mod:embed"}


def test_a_bad_reranker_in_a_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text('[[config]]\nretriever = "bm25"\nrerank = "cross_encoder:models/x"\n')
    with pytest.raises(InputError, match="unknown reranker") as info:
        read_plan(path)
    assert info.value.where == f"{path}:3" and "cross-encoder:DIR" in (info.value.hint or "")


def test_a_file_error_names_the_line_of_the_key(tmp_path: Path) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text('[sweep]\nk = [5]\n\n[[config]]\nretriever = "bm25"\nk_1 = [0.9, 1.5]\n')
    with pytest.raises(InputError) as info:
        read_plan(path)
    assert info.value.where == f"{path}:6" and "k1" in (info.value.hint or "")
    path.write_text('[[config]]\nretriever = "bm25"\nk1 = [0.9, \n')
    with pytest.raises(InputError, match="invalid TOML"):
        read_plan(path)
    good = tmp_path / "good.toml"
    good.write_text('[[config]]\nname = "base"\nretriever = "bm25"\n\n[[config]]\nretriever = "bm25"\nk1 = [0.9]\n')
    assert [c.name for c in read_plan(good).configurations] == ["base", "bm25 k1=0.9"]


def test_absurd_plans_are_refused_up_front_with_their_count(tmp_path: Path) -> None:
    """A grid of ~2 million configurations hung with no output; k1 = true was read as 1; hash-99999999999
    ended in a generic out-of-memory message; a mistyped stemmer was named without the file."""
    from ragauge.experiments.grid import read_plan

    def refused(body: str) -> str:
        path = tmp_path / "sweep.toml"
        path.write_text(body)
        with pytest.raises(InputError) as info:
            read_plan(path)
        return str(info.value)

    ks = ", ".join(str(i) for i in range(1, 201))
    bs = ", ".join(f"0.{i:02d}" for i in range(80))
    sizes = ", ".join(str(i) for i in range(1, 101))
    said = refused(f'[[config]]\nretriever = "bm25"\nk1 = [{ks}]\nb = [{bs}]\nchunk_size = [{sizes}]\n')
    assert "1,600,000 configurations (200 x 80 x 100), more than 1,000" in said and "sweep.toml" in said
    assert "k1 must be a number, got True" in refused('[[config]]\nretriever = "bm25"\nk1 = true\n')
    assert "b must be a number >= 0 and <= 1" in refused('[[config]]\nretriever = "bm25"\nb = 1.5\n')
    assert "chunk_size must be an integer" in refused('[[config]]\nretriever = "bm25"\nchunk_size = 2.5\n')
    huge = '[[config]]\nretriever = "dense"\nembedder = "hash-99999999999"\n'
    assert "hash-N takes 2 to 65,536 dimensions" in refused(huge)


def test_a_configuration_the_retriever_refuses_names_the_sweep_file(tmp_path: Path) -> None:
    import ragauge

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "text": "vpn"}\n')
    plan = tmp_path / "sweep.toml"
    plan.write_text('[[config]]\nretriever = "bm25"\nstemmer = "klingon"\n')
    with pytest.raises(InputError) as info:
        ragauge.sweep([{"id": "q1", "query": "vpn", "relevant": ["d1"]}], corpus, plan, tmp_path / "out")
    assert info.value.where == str(plan) and "configuration 'bm25 stemmer=klingon': unknown stemmer" in str(info.value)
