"""The pgvector adapter, its loader and ``ragauge index pgvector``, against a real PostgreSQL
(see conftest.py: a missing server is a skip locally and a failure in CI), and the embedders."""

from __future__ import annotations

import gzip
import json
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import pytest
from click.testing import CliRunner

from ragauge.errors import InputError, MissingExtra
from ragauge.models.embedders import HashEmbedder, get_embedder
from ragauge.retrieve.base import RetrieverOptions, RetryableError
from ragauge.retrieve.corpus import Chunking, chunk, read_documents
from ragauge.retrieve.registry import open_retriever

ROOT = Path(__file__).parents[2]
CORPUS = ROOT / "examples" / "scifact" / "corpus.jsonl.gz"
GOLDEN = ROOT / "examples" / "scifact" / "golden.jsonl"


# -- embedders (no server) -------------------------------------------------------------------------

def test_hash_embedder_rows_are_unit_norm_float32_and_empty_text_is_zero() -> None:
    vectors = get_embedder("hash").embed(["Vitamin D and bone fractures", "", "the of and"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 512)
    assert np.linalg.norm(vectors[0]) == pytest.approx(1.0, abs=1e-6)
    assert not vectors[1].any() and not vectors[2].any()  # nothing left but stop words


def test_hash_embedder_is_lexical_sublinear_and_case_blind() -> None:
    e = HashEmbedder(4096)  # wide enough that these few words do not collide
    a, b, c, d = e.embed(["Car engine repair", "car ENGINE repair manual", "automobile motor fix", "car car car car"])
    assert a @ b > 0.8 and abs(float(a @ c)) < 1e-6  # shared words count, synonyms do not
    single = e.embed(["car"])[0]
    assert np.allclose(d, single)  # one word however often: the same direction
    assert abs(e.embed_one("car car car")[0][1]) == pytest.approx(1 + np.log(3))  # sublinear tf


def test_hash_embedder_is_the_same_in_another_process() -> None:
    code = ("from ragauge.models.embedders import get_embedder; import sys; "
            "sys.stdout.write(get_embedder('hash').embed(['Rapamycin and fruit flies'])[0].tobytes().hex())")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert bytes.fromhex(other) == get_embedder("hash").embed(["Rapamycin and fruit flies"])[0].tobytes()


def test_unknown_embedder_and_missing_minilm(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match="unknown embedder"):
        get_embedder("word2vec")
    assert get_embedder("HASH-64").dim == 64
    import types

    monkeypatch.setitem(sys.modules, "ragauge.models.minilm", types.ModuleType("ragauge.models.minilm"))
    with pytest.raises(MissingExtra, match=r"ragauge\[dense\]"):
        get_embedder("minilm")


def test_missing_psycopg_gives_an_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(MissingExtra, match=r"ragauge\[pgvector\]"):
        open_retriever("pgvector:postgresql://u@127.0.0.1:1/db")


def test_spec_splits_ragauge_options_from_driver_options_and_hides_the_password() -> None:
    from ragauge.retrieve.pgvector import parse_target

    t = parse_target("pgvector:postgresql://me:s3cret@db:5433/rag?table=docs&sslmode=disable&embedder=hash&chunk_id=")
    assert (t.table, t.chunk_id, t.embedder, t.embedding) == ("docs", None, "hash", "embedding")
    assert t.dsn == "postgresql://me:s3cret@db:5433/rag?sslmode=disable"
    assert t.shown == "postgresql://me:***@db:5433/rag?sslmode=disable"
    keyword = parse_target("pgvector:postgresql://me@db/rag?password=s3cret&table=docs&sslmode=disable")
    assert "s3cret" in keyword.dsn and "s3cret" not in keyword.shown + keyword.shown_spec
    assert keyword.shown_spec == "postgresql://me@db/rag?password=***&table=docs&sslmode=disable"
    with pytest.raises(InputError, match="postgresql://"):
        parse_target("pgvector:mysql://x")


def test_transient_failures_are_retryable_and_the_rest_are_input_errors() -> None:
    psycopg = pytest.importorskip("psycopg")
    from ragauge.retrieve.pgvector import classify, parse_target

    target = parse_target("pgvector:postgresql://me:pw@db/rag?table=docs")
    errors = psycopg.errors
    for transient in (errors.AdminShutdown("terminating connection due to administrator command"),
                      errors.QueryCanceled("canceling statement due to statement timeout"),
                      errors.SerializationFailure("could not serialize"), errors.TooManyConnections("too many"),
                      psycopg.OperationalError("server closed the connection unexpectedly")):
        assert isinstance(classify(transient, target), RetryableError), transient
    for permanent in (errors.UndefinedTable("relation does not exist"), errors.InvalidPassword("nope"),
                      errors.InsufficientPrivilege("permission denied for table docs"),
                      errors.UndefinedObject('type "vector" does not exist')):
        error = classify(permanent, target)
        assert isinstance(error, InputError) and error.hint and "pw" not in str(error), permanent
    refused = classify(psycopg.OperationalError("connection refused"), target, connecting=True)
    assert isinstance(refused, InputError) and "running" in str(refused)


# -- against the server ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def docs() -> list[tuple[str, str, str]]:
    return read_documents(CORPUS)


def _drop(dsn: str, *tables: str) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        for table in tables:
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))


@pytest.fixture(scope="module")
def scifact(pg_dsn: str, docs: list[tuple[str, str, str]]) -> Iterator[str]:
    """The whole SciFact corpus loaded with the hash embedder into a fresh table; yields its name."""
    from ragauge.retrieve.pgvector import load_table

    table = f"test_scifact_{uuid.uuid4().hex[:8]}"
    result = load_table(pg_dsn, chunk(docs, Chunking()), "hash", table=table)
    assert (result.rows, result.documents, result.dim, result.index) == (len(docs), len(docs), 512, None)
    yield table
    _drop(pg_dsn, table)


def _stored(dsn: str, table: str) -> tuple[list[str], np.ndarray]:
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn) as conn:
        rows = conn.execute(sql.SQL("SELECT doc_id, embedding::text FROM {} ORDER BY doc_id").format(
            sql.Identifier(table))).fetchall()
    return [r[0] for r in rows], np.array([json.loads(r[1]) for r in rows], dtype=np.float32)


def _questions(count: int) -> list[str]:
    with open(GOLDEN, encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line, _ in zip(fh, range(count))]


def test_top10_is_the_exact_cosine_ranking(pg_dsn: str, scifact: str, docs: list[tuple[str, str, str]]) -> None:
    ids, stored = _stored(pg_dsn, scifact)
    by_id = {d[0]: d for d in docs}
    fresh = get_embedder("hash").embed([chunk([by_id[i]], Chunking())[0].indexed_text for i in ids])
    assert np.array_equal(stored, fresh)  # the loader wrote exactly what the embedder makes
    retriever = open_retriever(f"pgvector:{pg_dsn}?table={scifact}")
    try:
        assert retriever.describe()["embedder"] == "hash"  # recorded by the loader, not asked for
        for question in _questions(25):
            hits = retriever.search(question, 10).hits
            scores = stored @ get_embedder("hash").embed([question])[0]
            order = np.lexsort((np.arange(len(ids)), -scores))[:10]
            assert [h.score for h in hits] == pytest.approx([float(scores[i]) for i in order], abs=1e-5)
            tenth = scores[order[-1]]
            for hit in hits:  # same documents, up to ties at the cut
                assert hit.doc_id in {ids[i] for i in order} or abs(hit.score - tenth) < 1e-6
            assert all(h.chunk_id is None for h in hits)
    finally:
        retriever.close()


def test_hits_are_corpus_documents_and_metadata_is_sound(pg_dsn: str, scifact: str,
                                                         docs: list[tuple[str, str, str]]) -> None:
    retriever = open_retriever(f"pgvector:{pg_dsn}?table={scifact}")
    try:
        assert retriever.documents() == {d[0] for d in docs}
        hits = retriever.search("vitamin D deficiency and bone fractures", 50).hits
        assert len(hits) == 50 and all(h.doc_id in retriever.documents() for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert retriever.search("the of and", 10).hits == ()  # nothing to compare: no hits, no NaN
        again = open_retriever(f"pgvector:{pg_dsn}?table={scifact}")
        assert retriever.fingerprint() == again.fingerprint()
        again.close()
    finally:
        retriever.close()


def test_query_text_never_reaches_the_sql(pg_dsn: str, scifact: str) -> None:
    retriever = open_retriever(f"pgvector:{pg_dsn}?table={scifact}")
    try:
        before = len(retriever.documents())
        for evil in (f"'; DROP TABLE {scifact}; --", "x'::vector); DELETE FROM chunks; --", "%s %(q)s $1 \\x00"):
            assert len(retriever.search(evil, 5).hits) == 5
        assert len(retriever.documents()) == before
    finally:
        retriever.close()
    with pytest.raises(InputError, match="does not exist"):  # a table name is an identifier, never SQL
        open_retriever(f"pgvector:{pg_dsn}?table={scifact};DROP TABLE {scifact}")
    assert _stored(pg_dsn, scifact)[1].shape[0] == before


@pytest.mark.parametrize("pool", [True, False])
def test_concurrent_searches_agree_with_serial_ones(pg_dsn: str, scifact: str, pool: bool) -> None:
    from ragauge.retrieve.pgvector import PgvectorRetriever, parse_target

    retriever = PgvectorRetriever(parse_target(f"pgvector:{pg_dsn}?table={scifact}"), RetrieverOptions(), pool=pool)
    try:
        questions = _questions(40)
        serial = [retriever.search(q, 10).hits for q in questions]
        with ThreadPoolExecutor(8) as workers:
            assert list(workers.map(lambda q: retriever.search(q, 10).hits, questions)) == serial
    finally:
        retriever.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _with(dsn: str, **parts: object) -> str:
    u = urlsplit(dsn)
    user = parts.get("user", u.username)
    password = parts.get("password")
    host = f"{u.hostname}:{parts.get('port', u.port)}"
    netloc = f"{user}:{password}@{host}" if password else f"{user}@{host}"
    return urlunsplit(u._replace(netloc=netloc, path=str(parts.get("path", u.path))))


def test_clear_errors_for_wrong_port_password_table_embedder_and_timeout(pg_dsn: str, scifact: str) -> None:
    port = _free_port()
    with pytest.raises(InputError, match=f"pgvector .*:{port}.*cannot connect") as refused:
        open_retriever(f"pgvector:{_with(pg_dsn, port=port)}")
    assert "running" in str(refused.value)
    with pytest.raises(InputError, match="authentication failed") as denied:
        open_retriever(f"pgvector:{_with(pg_dsn, user='ragauge_nobody', password='s3cret-pw')}?table={scifact}")
    assert "s3cret-pw" not in str(denied.value) and "PGPASSWORD" in str(denied.value)
    with pytest.raises(InputError, match="table 'no_such_table' does not exist") as missing:
        open_retriever(f"pgvector:{pg_dsn}?table=no_such_table")
    assert "ragauge index pgvector" in str(missing.value)
    with pytest.raises(InputError, match="no column 'vec'"):
        open_retriever(f"pgvector:{pg_dsn}?table={scifact}&embedding=vec")
    with pytest.raises(InputError, match="loaded with the 'hash' embedder"):
        open_retriever(f"pgvector:{pg_dsn}?table={scifact}&embedder=hash-256")
    slow = open_retriever(f"pgvector:{pg_dsn}?table={scifact}", RetrieverOptions(timeout=0.001))
    try:
        with pytest.raises(RetryableError, match="timeout"):  # a 1 ms statement_timeout
            for _ in range(5):
                slow.search("protein folding in the endoplasmic reticulum", 100)
    finally:
        slow.close()


def test_missing_extension_is_named(pg_dsn: str) -> None:
    import psycopg
    from psycopg import sql

    name = f"ragauge_noext_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        superuser = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()[0]
    try:
        with pytest.raises(InputError, match="vector extension is not installed") as caught:
            open_retriever(f"pgvector:{_with(pg_dsn, path='/' + name)}")
        assert "CREATE EXTENSION vector" in str(caught.value)
        if not superuser:  # the loader tries to create it, and says who can
            from ragauge.retrieve.pgvector import load_table

            with pytest.raises(InputError, match="(?s)cannot create the vector extension.*a superuser must"):
                load_table(_with(pg_dsn, path="/" + name), [], "hash", table="t")
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))


def test_password_is_never_shown(pg_dsn: str, scifact: str) -> None:
    retriever = open_retriever(f"pgvector:{_with(pg_dsn, password='hunter2')}?table={scifact}")
    try:  # the test role connects without a password, so the wrong one is not even checked
        assert "hunter2" not in retriever.spec + json.dumps(retriever.describe())
    finally:
        retriever.close()


@pytest.fixture
def small_corpus(tmp_path: Path, docs: list[tuple[str, str, str]]) -> Path:
    path = tmp_path / "corpus.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for doc_id, title, text in docs[:300]:
            fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    return path


def test_index_command_end_to_end(pg_dsn: str, small_corpus: Path) -> None:
    from ragauge.cli.index import index_group

    table = f"test_cli_{uuid.uuid4().hex[:8]}"
    args = ["pgvector", str(small_corpus), pg_dsn, "--table", table, "--embedder", "hash",
            "--chunk-size", "60", "--chunk-overlap", "10", "--index", "hnsw"]
    runner = CliRunner()
    try:
        first = runner.invoke(index_group, args)
        assert first.exit_code == 0, first.output
        rows = int(first.stdout.split("loaded ")[1].split()[0])
        assert rows > 300 and "(300 documents" in first.stdout and "hnsw index" in first.stdout
        again = runner.invoke(index_group, args)
        assert isinstance(again.exception, InputError) and "already exists" in str(again.exception)
        recreated = runner.invoke(index_group, [*args, "--recreate"])
        assert recreated.exit_code == 0 and f"loaded {rows} rows" in recreated.stdout

        # a driver option passes through the spec: without sequential scans the planner must take
        # the HNSW index even on this small table, which returns at most hnsw.ef_search rows
        retriever = open_retriever(f"pgvector:{pg_dsn}?table={table}&options=-c%20enable_seqscan%3Doff")
        try:
            assert retriever.describe()["index"] == "hnsw"
            hits = retriever.search("blood pressure in elderly patients", 60).hits
            assert len(hits) == 60  # hnsw.ef_search is raised past its default of 40
            assert all(h.chunk_id and h.chunk_id.split("#")[0] == h.doc_id for h in hits)
            assert len(retriever.documents() or ()) == 300
        finally:
            retriever.close()
    finally:
        _drop(pg_dsn, table)
