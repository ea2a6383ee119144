"""``chroma:`` and ``ragauge index chroma`` against real Chroma collections in a PersistentClient
folder. A server URL runs HttpClient instead; no server runs here, so for server mode only what
happens without one is tested: a clear error that never shows the token."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.errors import InputError, ServerUnreachable
from ragauge.retrieve.corpus import Chunking
from ragauge.retrieve.registry import open_retriever

from .store_checks import (
    GOLDEN,
    METRICS,
    SECTIONS,
    Exact,
    free_port,
    library,
    questions,
    sections,
    small_corpus,
)

library("chromadb", "chroma")

from ragauge.retrieve.stores.chroma import load_chroma  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("chroma") / "store"
    result = load_chroma(str(path), sections(Chunking(40, 10)), "hash")
    assert (result.rows, result.documents, result.skipped, result.dim) == (len(sections(Chunking(40, 10))), 501, 0,
                                                                           512)
    assert result.spec == f"chroma:{path}?collection=chunks"
    return path


def test_hits_carry_their_exact_cosine_and_nearly_all_of_the_exact_top10(folder: Path) -> None:
    """Chroma searches HNSW, an approximate index: every score must be the exact cosine of its own
    passage, and the hits must hold nearly all of the exact top 10 (on 700 vectors, all of them
    up to ties at the cut)."""
    retriever = open_retriever(f"chroma:{folder}")
    exact = Exact(sections(Chunking(40, 10)))
    described = retriever.describe()
    assert (described["embedder"], described["distance"], described["chunk_id"]) == ("hash", "cosine", "chunk_id")
    assert retriever.max_concurrency == 1  # type: ignore[attr-defined]  # a local client: one call at a time
    found = 0
    for question in questions():
        hits = retriever.search(question, 10).hits
        scores = exact.scores(question)
        assert all(h.score == pytest.approx(scores[exact.key[(h.doc_id, h.chunk_id)]], abs=1e-5) for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        top = {(p.doc_id, p.chunk_id) for p, _ in exact.top(question, 10)}
        found += len(top & {(h.doc_id, h.chunk_id) for h in hits})
    assert found / (10 * len(questions())) >= 0.95
    assert retriever.search("the of and", 10).hits == ()


def test_the_golden_set_scores_close_to_the_exact_ranking(folder: Path) -> None:
    through = ragauge.evaluate(GOLDEN, f"chroma:{folder}", metrics=METRICS, fetch=20)
    reference = ragauge.evaluate_run(GOLDEN, Exact(sections(Chunking(40, 10))).run(20), metrics=METRICS, fetch=20)
    for metric in METRICS:
        assert through.summary[metric] == pytest.approx(reference.summary[metric], abs=0.01), metric
    assert through.summary["ndcg@10"] > 0.2


def test_documents_and_fingerprint(folder: Path) -> None:
    retriever = open_retriever(f"chroma:{folder}")
    assert retriever.documents() == {p.doc_id for p in sections()}
    assert retriever.fingerprint() == open_retriever(f"chroma:{folder}").fingerprint()


def test_clear_errors_for_bad_specs_and_mismatches(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="Chroma folder not found") as missing:
        open_retriever(f"chroma:{tmp_path / 'none'}")
    assert "ragauge index chroma" in str(missing.value) and not (tmp_path / "none").exists()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("not chroma")
    with pytest.raises(InputError, match="not a Chroma folder"):
        open_retriever(f"chroma:{tmp_path / 'other'}")
    with pytest.raises(InputError, match="no collection 'docs'") as collection:
        open_retriever(f"chroma:{folder}?collection=docs")
    assert "its collections: chunks" in str(collection.value)
    with pytest.raises(InputError, match="no metadata key 'source' \\(for doc_id\\)") as key:
        open_retriever(f"chroma:{folder}?doc_id=source")
    assert "chunk_id, doc_id" in str(key.value)
    with pytest.raises(InputError, match="indexed with the 'hash' embedder, the spec asks for 'hash-128'"):
        open_retriever(f"chroma:{folder}?embedder=hash-128")
    with pytest.raises(InputError, match="unknown chroma option.*table"):
        open_retriever(f"chroma:{folder}?table=chunks")


def test_a_users_collection_without_a_record(tmp_path: Path) -> None:
    import chromadb
    from chromadb.config import Settings

    exact = Exact(sections()[:200])
    client = chromadb.PersistentClient(path=str(tmp_path / "mine"), settings=Settings(anonymized_telemetry=False))
    made = client.create_collection("kbase", configuration={"hnsw": {"space": "ip"}}, embedding_function=None)
    made.add(ids=[f"r{i}" for i in range(len(exact.passages))], embeddings=exact.vectors,
             metadatas=[{"source": p.doc_id} for p in exact.passages])
    with pytest.raises(InputError, match="holds 512-dimension vectors but the 'hash-64' embedder makes 64"):
        open_retriever(f"chroma:{tmp_path / 'mine'}?collection=kbase&doc_id=source&embedder=hash-64")
    retriever = open_retriever(f"chroma:{tmp_path / 'mine'}?collection=kbase&doc_id=source&embedder=hash")
    assert retriever.describe()["distance"] == "ip" and retriever.describe()["chunk_id"] is None
    for question in questions()[:10]:  # inner product of unit vectors: the cosine
        hits = retriever.search(question, 5).hits
        scores = exact.scores(question)
        assert all(h.score == pytest.approx(scores[exact.key[(h.doc_id, None)]], abs=1e-5) for h in hits)


def test_a_server_url_fails_clearly_and_never_shows_its_token(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    port = free_port()
    secret = "chr-s3cret-TOKEN-77aa"
    spec = f"chroma:http://127.0.0.1:{port}?collection=chunks&token={secret}"
    with pytest.raises(ServerUnreachable, match="cannot reach the server") as down:
        open_retriever(spec)
    assert secret not in str(down.value)
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", str(GOLDEN), "--retriever", spec, "-o", str(tmp_path / "run.jsonl")])
    indexed = runner.invoke(cli, ["index", "chroma", str(SECTIONS), f"https://127.0.0.1:{port}?token={secret}",
                                  "--embedder", "hash"])
    for result in (ran, indexed):
        assert result.exit_code == 2 and "cannot reach the server" in result.output, result.output
        assert secret not in result.output


def test_index_command_end_to_end(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    corpus = small_corpus(tmp_path, 150)
    args = ["index", "chroma", str(corpus), str(tmp_path / "c"), "--embedder", "hash", "--collection", "sections"]
    runner = CliRunner()
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "loaded 150 rows (150 documents" in first.stdout
    assert f"--retriever 'chroma:{tmp_path / 'c'}?collection=sections'" in first.stdout
    again = runner.invoke(cli, args)
    assert again.exit_code == 2 and "already exists" in again.output
    replaced = runner.invoke(cli, [*args, "--recreate", "--embedder", "hash-256"])
    assert replaced.exit_code == 0 and "256-dimension hash-256 embeddings" in replaced.stdout
    retriever = open_retriever(f"chroma:{tmp_path / 'c'}?collection=sections")
    assert retriever.describe()["embedder"] == "hash-256" and len(retriever.documents()) == 150
