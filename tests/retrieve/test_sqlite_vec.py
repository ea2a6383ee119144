"""``sqlite-vec:`` and ``ragauge index sqlite-vec`` against real SQLite files with the sqlite-vec
extension (loaded through APSW), written by the test."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ragauge.errors import InputError
from ragauge.retrieve.corpus import Chunking
from ragauge.retrieve.registry import open_retriever

from .store_checks import SECTIONS, Exact, assert_scores_like_exact, library, questions, sections

apsw = library("apsw", "sqlite-vec")
library("sqlite_vec", "sqlite-vec")

from ragauge.retrieve.stores.sqlite_vec import connect, load_sqlite_vec  # noqa: E402


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-vec") / "chunks.db"
    result = load_sqlite_vec(path, sections(), "hash")
    assert (result.rows, result.documents, result.skipped, result.dim) == (501, 501, 0, 512)
    assert result.spec == f"sqlite-vec:{path}?table=chunks"
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_top10_is_the_exact_cosine_ranking_and_the_file_is_only_read(db: Path) -> None:
    before = _digest(db)
    retriever = open_retriever(f"sqlite-vec:{db}")
    exact = Exact(sections())
    assert retriever.describe()["embedder"] == "hash" and retriever.describe()["distance"] == "cosine"
    for question in questions():
        exact.check(retriever, question)
    assert retriever.search("the of and", 10).hits == ()
    for evil in ("'; DROP TABLE chunks; --", "x') OR 1=1; --", "? ?1 :k $1 \\x00"):
        assert len(retriever.search(evil + " vpn", 5).hits) == 5  # the question is embedded, never SQL
    retriever.close()
    assert _digest(db) == before


def test_the_golden_set_scores_as_the_exact_ranking_does(db: Path) -> None:
    assert_scores_like_exact(f"sqlite-vec:{db}", Exact(sections()))


def test_concurrent_searches_agree_with_serial_ones(db: Path) -> None:
    retriever = open_retriever(f"sqlite-vec:{db}")
    assert not hasattr(retriever, "max_concurrency")  # a connection per thread: no limit
    serial = [retriever.search(q, 10).hits for q in questions()]
    with ThreadPoolExecutor(4) as workers:
        assert list(workers.map(lambda q: retriever.search(q, 10).hits, questions())) == serial
    retriever.close()


def test_documents_and_fingerprint(db: Path) -> None:
    retriever = open_retriever(f"sqlite-vec:{db}")
    assert retriever.documents() == {p.doc_id for p in sections()}
    assert retriever.fingerprint() == open_retriever(f"sqlite-vec:{db}").fingerprint()


def test_a_users_plain_table_and_an_l2_vec0_table(tmp_path: Path) -> None:
    """Tables the user made: a plain table of float32 BLOBs (scanned with vec_distance_cosine) and a
    vec0 table with the default L2 metric and other column names (score: the negated distance)."""
    passages = sections(Chunking(40, 10))
    exact = Exact(passages)
    conn = connect(tmp_path / "mine.db", write=True)
    with conn:
        conn.execute('CREATE TABLE "my docs" (id INTEGER PRIMARY KEY, doc TEXT, part TEXT, vec BLOB)')
        conn.execute("CREATE VIRTUAL TABLE knn USING vec0(v float[512], +doc text)")
        for p, v in zip(exact.passages, exact.vectors):
            conn.execute('INSERT INTO "my docs" (doc, part, vec) VALUES (?, ?, ?)', (p.doc_id, p.chunk_id, v.tobytes()))
            conn.execute("INSERT INTO knn (v, doc) VALUES (?, ?)", (v.tobytes(), p.doc_id))
    conn.close()
    plain = open_retriever(f"sqlite-vec:{tmp_path / 'mine.db'}?table=my docs&embedding=vec&doc_id=doc&chunk_id=part"
                           "&embedder=hash")
    assert plain.describe()["index"] == "none (exact scan)"
    for question in questions()[:15]:
        exact.check(plain, question)
    l2 = open_retriever(f"sqlite-vec:{tmp_path / 'mine.db'}?table=knn&embedding=v&doc_id=doc&embedder=hash")
    assert l2.describe()["distance"] == "l2" and l2.describe()["chunk_id"] is None
    for question in questions()[:15]:
        hits, top = l2.search(question, 10).hits, exact.top(question, 10)
        assert [h.score for h in hits] == pytest.approx([-np.sqrt(max(0.0, 2 - 2 * s)) for _, s in top], abs=1e-4)


def test_clear_errors_for_bad_specs_and_mismatches(db: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="SQLite file not found") as missing:
        open_retriever(f"sqlite-vec:{tmp_path / 'none.db'}")
    assert "ragauge index sqlite-vec" in str(missing.value) and not (tmp_path / "none.db").exists()
    with pytest.raises(InputError, match="no table 'docs'") as table:
        open_retriever(f"sqlite-vec:{db}?table=docs")
    assert "its vec0 tables: chunks" in str(table.value)
    with pytest.raises(InputError, match="no table"):  # a name is an identifier, never SQL
        open_retriever(f'sqlite-vec:{db}?table=chunks" WHERE 1; DROP TABLE chunks; --')
    with pytest.raises(InputError, match="no column 'vec' \\(for embedding\\)"):
        open_retriever(f"sqlite-vec:{db}?embedding=vec")
    with pytest.raises(InputError, match="no column 'part' \\(for chunk_id\\)"):
        open_retriever(f"sqlite-vec:{db}?chunk_id=part")
    with pytest.raises(InputError, match="indexed with the 'hash' embedder, the spec asks for 'hash-64'"):
        open_retriever(f"sqlite-vec:{db}?embedder=hash-64")
    with pytest.raises(InputError, match="must not be empty"):
        open_retriever(f"sqlite-vec:{db}?doc_id=")
    (tmp_path / "text.db").write_text("hello, not a database\n" * 100)
    with pytest.raises(InputError, match="is it a SQLite file"):
        open_retriever(f"sqlite-vec:{tmp_path / 'text.db'}")
    conn = connect(tmp_path / "small.db", write=True)
    conn.execute("CREATE VIRTUAL TABLE chunks USING vec0(embedding float[8], +doc_id text)")
    conn.close()
    with pytest.raises(InputError, match="holds 8-dimension vectors but the 'hash' embedder makes 512"):
        open_retriever(f"sqlite-vec:{tmp_path / 'small.db'}?embedder=hash")


def test_index_command_end_to_end_and_a_failed_load_changes_nothing(tmp_path: Path) -> None:
    from ragauge.cli.main import cli

    target = tmp_path / "chunks.db"
    args = ["index", "sqlite-vec", str(SECTIONS), str(target), "--embedder", "hash", "--chunk-size", "40",
            "--chunk-overlap", "10", "--table", "sections"]
    runner = CliRunner()
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert f"loaded {len(sections(Chunking(40, 10)))} rows (501 documents" in first.stdout
    assert f"--retriever 'sqlite-vec:{target}?table=sections'" in first.stdout
    before = _digest(target)
    again = runner.invoke(cli, args)
    assert again.exit_code == 2 and "already exists" in again.output
    failing = runner.invoke(cli, [*args[:4], "--embedder", "hash-64", "--recreate", "--table", "sections",
                                  "--batch-size", "0"])
    assert failing.exit_code == 2 and "--batch-size" in failing.output
    with pytest.raises(KeyboardInterrupt):  # stopped midway: the transaction is rolled back
        load_sqlite_vec(target, sections(), "hash-64", table="sections", recreate=True, batch_size=100,
                        progress=lambda n: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert _digest(target) == before
    retriever = open_retriever(f"sqlite-vec:{target}?table=sections")
    assert retriever.describe()["embedder"] == "hash" and retriever.describe()["chunk_id"] == "chunk_id"
    hits = retriever.search("printer paper jam", 10).hits
    assert all(h.chunk_id and h.chunk_id.startswith(h.doc_id + "#") for h in hits)
