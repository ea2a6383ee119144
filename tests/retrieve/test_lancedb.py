"""``lancedb:`` and ``ragauge index lancedb`` against real LanceDB tables on local disk."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from click.testing import CliRunner

from ragauge.errors import InputError
from ragauge.retrieve.corpus import Chunking
from ragauge.retrieve.registry import open_retriever

from .store_checks import SECTIONS, Exact, assert_scores_like_exact, library, questions, sections

library("lancedb", "lancedb")

from ragauge.retrieve.stores.lancedb import load_lancedb  # noqa: E402

CHUNKS = Chunking(40, 10)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lancedb") / "db"
    result = load_lancedb(path, sections(CHUNKS), "hash")
    assert (result.rows, result.documents, result.skipped, result.dim) == (len(sections(CHUNKS)), 501, 0, 512)
    assert result.spec == f"lancedb:{path}?table=chunks"
    return path


def test_top10_is_the_exact_cosine_ranking(folder: Path) -> None:
    retriever = open_retriever(f"lancedb:{folder}")
    exact = Exact(sections(CHUNKS))
    described = retriever.describe()
    assert (described["embedder"], described["index"], described["chunk_id"]) == ("hash", "none (exact search)",
                                                                                  "chunk_id")
    for question in questions():
        exact.check(retriever, question)
    assert retriever.search("the of and", 10).hits == ()


def test_the_golden_set_scores_as_the_exact_ranking_does(folder: Path) -> None:
    assert_scores_like_exact(f"lancedb:{folder}?table=chunks", Exact(sections(CHUNKS)))


def test_concurrent_searches_agree_with_serial_ones(folder: Path) -> None:
    retriever = open_retriever(f"lancedb:{folder}")
    assert not hasattr(retriever, "max_concurrency")
    serial = [retriever.search(q, 10).hits for q in questions()]
    with ThreadPoolExecutor(4) as workers:
        assert list(workers.map(lambda q: retriever.search(q, 10).hits, questions())) == serial


def test_documents_fingerprint_and_a_dataset_path(folder: Path) -> None:
    retriever = open_retriever(f"lancedb:{folder}")
    assert retriever.documents() == {p.doc_id for p in sections()}
    dataset = open_retriever(f"lancedb:{folder / 'chunks.lance'}")  # one table's dataset folder
    assert dataset.describe()["table"] == "chunks" and dataset.fingerprint() == retriever.fingerprint()


def test_clear_errors_for_bad_specs_and_mismatches(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="LanceDB folder not found") as missing:
        open_retriever(f"lancedb:{tmp_path / 'none'}")
    assert "ragauge index lancedb" in str(missing.value) and not (tmp_path / "none").exists()
    with pytest.raises(InputError, match="no table 'docs'") as table:
        open_retriever(f"lancedb:{folder}?table=docs")
    assert "its tables: chunks" in str(table.value)
    with pytest.raises(InputError, match="no column 'embedding' \\(for vector\\)") as column:
        open_retriever(f"lancedb:{folder}?vector=embedding")
    assert "chunk_id, doc_id, text, vector" in str(column.value)
    with pytest.raises(InputError, match="column 'text' is string, not a fixed-size list of floats"):
        open_retriever(f"lancedb:{folder}?vector=text")
    with pytest.raises(InputError, match="indexed with the 'hash' embedder, the spec asks for 'hash-128'"):
        open_retriever(f"lancedb:{folder}?embedder=hash-128")
    with pytest.raises(InputError, match="local path"):
        open_retriever("lancedb:s3://bucket/db")


def test_a_users_table_with_a_vector_index_and_no_record(tmp_path: Path) -> None:
    import lancedb
    import pyarrow as pa
    from lancedb.index import IvfFlat

    exact = Exact(sections(CHUNKS))
    table = lancedb.connect(str(tmp_path / "mine")).create_table("kb", pa.table({
        "source": [p.doc_id for p in exact.passages],
        "emb": pa.FixedSizeListArray.from_arrays(pa.array(exact.vectors.ravel()), 512)}))
    table.create_index("emb", config=IvfFlat(distance_type="cosine", num_partitions=2))
    spec = f"lancedb:{tmp_path / 'mine'}?table=kb&vector=emb&doc_id=source&embedder=hash"
    with pytest.raises(InputError, match="holds 512-dimension vectors but the 'hash-64' embedder makes 64"):
        open_retriever(spec.replace("embedder=hash", "embedder=hash-64"))
    approximate = open_retriever(spec)
    assert approximate.describe()["index"] == "IvfFlat (approximate)" and approximate.describe()["chunk_id"] is None
    exactly = open_retriever(spec + "&exact=1")
    assert exactly.describe()["index"] == "exact (?exact=1)"
    for question in questions()[:15]:
        hits, top = exactly.search(question, 10).hits, exact.top(question, 10)
        assert [h.score for h in hits] == pytest.approx([s for _, s in top], abs=1e-5)
        assert len(approximate.search(question, 10).hits) == 10


def test_index_command_end_to_end_and_a_failed_load_keeps_the_old_table(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    args = ["index", "lancedb", str(SECTIONS), str(tmp_path / "l"), "--embedder", "hash", "--table", "sections"]
    runner = CliRunner()
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "loaded 501 rows (501 documents" in first.stdout
    assert f"--retriever 'lancedb:{tmp_path / 'l'}?table=sections'" in first.stdout
    again = runner.invoke(cli, args)
    assert again.exit_code == 2 and "already exists" in again.output
    seen = []

    def interrupt(n: int) -> None:
        seen.append(n)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        load_lancedb(tmp_path / "l", sections(), "hash-64", table="sections", recreate=True, batch_size=100,
                     progress=interrupt)
    kept = open_retriever(f"lancedb:{tmp_path / 'l'}?table=sections")
    assert kept.describe()["embedder"] == "hash" and len(kept.documents()) == 501
    replaced = runner.invoke(cli, [*args, "--recreate", "--embedder", "hash-64"])
    assert replaced.exit_code == 0 and "64-dimension hash-64 embeddings" in replaced.stdout
