"""``qdrant:`` and ``ragauge index qdrant`` against real Qdrant collections in qdrant-client's local
mode (a folder). A server URL runs the same client code over HTTP; no server runs here, so for
server mode only what happens without one is tested: a clear error that never shows the API key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.errors import InputError, ServerUnreachable
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.corpus import Chunking
from ragauge.retrieve.registry import open_retriever

from .store_checks import (
    GOLDEN,
    SECTIONS,
    Exact,
    assert_scores_like_exact,
    free_port,
    library,
    questions,
    sections,
    small_corpus,
)

library("qdrant_client", "qdrant")

from ragauge.retrieve.stores.qdrant import load_qdrant  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("qdrant") / "store"
    result = load_qdrant(str(path), sections(), "hash")
    assert (result.rows, result.documents, result.skipped, result.dim) == (501, 501, 0, 512)
    assert result.spec == f"qdrant:{path}?collection=chunks"
    return path


def test_top10_is_the_exact_cosine_ranking(folder: Path) -> None:
    retriever = open_retriever(f"qdrant:{folder}")
    try:
        exact = Exact(sections())
        described = retriever.describe()
        assert (described["embedder"], described["mode"], described["distance"]) == ("hash", "local", "Cosine")
        assert retriever.max_concurrency == 1  # type: ignore[attr-defined]  # local mode: one call at a time
        for question in questions():
            exact.check(retriever, question)
        assert retriever.search("the of and", 10).hits == ()
    finally:
        retriever.close()


def test_the_golden_set_scores_as_the_exact_ranking_does(folder: Path) -> None:
    assert_scores_like_exact(f"qdrant:{folder}?collection=chunks", Exact(sections()))


def test_documents_fingerprint_and_the_folder_lock(folder: Path) -> None:
    retriever = open_retriever(f"qdrant:{folder}")
    try:
        assert retriever.documents() == {p.doc_id for p in sections()}
        fingerprint = retriever.fingerprint()
        with pytest.raises(InputError, match="another process has this local Qdrant folder open"):
            open_retriever(f"qdrant:{folder}")  # local mode: one client per folder
    finally:
        retriever.close()
    again = open_retriever(f"qdrant:{folder}")
    assert again.fingerprint() == fingerprint
    again.close()


def test_clear_errors_for_bad_specs_and_mismatches(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="local Qdrant folder not found") as missing:
        open_retriever(f"qdrant:{tmp_path / 'none'}")
    assert "ragauge index qdrant" in str(missing.value) and not (tmp_path / "none").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("not qdrant")
    with pytest.raises(InputError, match="not a local Qdrant folder"):
        open_retriever(f"qdrant:{tmp_path / 'other'}")
    with pytest.raises(InputError, match="no collection 'docs'") as collection:
        open_retriever(f"qdrant:{folder}?collection=docs")
    assert "its collections: chunks" in str(collection.value)
    with pytest.raises(InputError, match="no payload key 'id' \\(for doc_id\\)") as key:
        open_retriever(f"qdrant:{folder}?doc_id=id")
    assert "chunk_id, doc_id, text" in str(key.value)
    with pytest.raises(InputError, match="one unnamed vector, not 'dense'"):
        open_retriever(f"qdrant:{folder}?vector=dense")
    with pytest.raises(InputError, match="indexed with the 'hash' embedder, the spec asks for 'hash-128'"):
        open_retriever(f"qdrant:{folder}?embedder=hash-128")
    with pytest.raises(InputError, match="unknown qdrant option.*colection"):
        open_retriever(f"qdrant:{folder}?colection=chunks")
    with pytest.raises(InputError, match="local path or an http"):
        open_retriever("qdrant:grpc://localhost:6334")


def test_a_users_collection_with_named_vectors_and_no_record(tmp_path: Path) -> None:
    from qdrant_client import QdrantClient, models

    exact = Exact(sections(Chunking(40, 10))[:250])
    client = QdrantClient(path=str(tmp_path / "mine"))
    client.create_collection("kb", vectors_config={
        "dense": models.VectorParams(size=512, distance=models.Distance.COSINE),
        "small": models.VectorParams(size=8, distance=models.Distance.DOT)})
    client.upsert("kb", points=[models.PointStruct(id=i, vector={"dense": v.tolist(), "small": [0.0] * 8},
                                                   payload={"source": p.doc_id, "part": p.chunk_id})
                                for i, (p, v) in enumerate(zip(exact.passages, exact.vectors))])
    client.close()
    spec = f"qdrant:{tmp_path / 'mine'}?collection=kb&doc_id=source&chunk_id=part&embedder=hash"
    with pytest.raises(InputError, match="several vectors") as several:
        open_retriever(spec)
    assert "dense, small" in str(several.value)
    with pytest.raises(InputError, match="holds 8-dimension vectors but the 'hash' embedder makes 512"):
        open_retriever(spec + "&vector=small")
    retriever = open_retriever(spec + "&vector=dense")
    try:
        for question in questions()[:15]:
            exact.check(retriever, question)
    finally:
        retriever.close()


@pytest.mark.filterwarnings("ignore:Api key is used with an insecure connection")
def test_a_server_url_fails_clearly_and_never_shows_its_key(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    port = free_port()
    secret = "qdr-s3cret-KEY-9f8e"
    spec = f"qdrant:http://127.0.0.1:{port}?collection=chunks&api_key={secret}"
    with pytest.raises(ServerUnreachable, match="cannot reach the server") as down:
        open_retriever(spec, RetrieverOptions(timeout=2))
    assert secret not in str(down.value)
    out = tmp_path / "run.jsonl"
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", str(GOLDEN), "--retriever", spec, "-o", str(out), "--timeout", "2"])
    indexed = runner.invoke(cli, ["index", "qdrant", str(SECTIONS), f"http://127.0.0.1:{port}?api_key={secret}",
                                  "--embedder", "hash"])
    for result in (ran, indexed):
        assert result.exit_code == 2 and "cannot reach the server" in result.output
        assert secret not in result.output
    assert not out.exists() or secret not in out.read_text()


def test_index_command_end_to_end(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    corpus = small_corpus(tmp_path, 120)
    args = ["index", "qdrant", str(corpus), str(tmp_path / "q"), "--embedder", "hash", "--chunk-size", "40",
            "--chunk-overlap", "10", "--collection", "sections"]
    runner = CliRunner()
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    from ragauge.retrieve.stores.common import read_passages

    assert f"loaded {len(read_passages(corpus, Chunking(40, 10)))} rows (120 documents" in first.stdout
    assert f"--retriever 'qdrant:{tmp_path / 'q'}?collection=sections'" in first.stdout
    again = runner.invoke(cli, args)
    assert again.exit_code == 2 and "already exists" in again.output
    replaced = runner.invoke(cli, [*args, "--recreate", "--embedder", "hash-256"])
    assert replaced.exit_code == 0 and "256-dimension hash-256 embeddings" in replaced.stdout
    retriever = open_retriever(f"qdrant:{tmp_path / 'q'}?collection=sections")
    try:
        assert retriever.describe()["embedder"] == "hash-256" and retriever.describe()["chunk_id"] == "chunk_id"
        hits = retriever.search("printer paper jam", 10).hits
        assert len(hits) == 10 and all(h.chunk_id and h.chunk_id.startswith(h.doc_id + "#") for h in hits)
    finally:
        retriever.close()
    meta = json.loads((tmp_path / "q" / "meta.json").read_text())
    assert meta["collections"]["sections"]["metadata"]["ragauge"]["embedder"] == "hash-256"


def test_an_api_key_over_plain_http_is_one_note_not_a_raw_warning(capfd: pytest.CaptureFixture[str]) -> None:
    """Qdrant over http with an API key printed the client's raw UserWarning with a site-packages path."""
    import warnings

    from ragauge.retrieve.stores.qdrant import connect, parse

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a raw warning would fail here
        client = connect(parse("qdrant:http://127.0.0.1:1?collection=c&api_key=secret-key-1234"), 1.0)
    client.close()
    err = capfd.readouterr().err
    assert "API key is sent over plain http" in err and "site-packages" not in err and "secret-key-1234" not in err
