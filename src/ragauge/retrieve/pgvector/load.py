"""``ragauge index pgvector``: embed a corpus and load it into a new table, in one transaction."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragauge.core.numbers import COUNT, check_number
from ragauge.errors import InputError, flag
from ragauge.models.embedders import DEFAULT_EMBEDDER, canonical_name, get_embedder
from ragauge.retrieve.pgvector.connection import (
    classify,
    connect,
    final_error,
    first_line,
    ident,
    psycopg_module,
)
from ragauge.retrieve.pgvector.table import COMMENT_PREFIX, vector_literal
from ragauge.retrieve.pgvector.target import parse_target

if TYPE_CHECKING:
    from pathlib import Path

    from ragauge.retrieve.corpus import Chunking, Passage
    from ragauge.retrieve.stores.common import IndexResult


@dataclass(frozen=True)
class LoadResult:
    """What ``load_table`` wrote."""

    table: str
    rows: int
    documents: int
    dim: int
    embedder: str
    index: str | None
    seconds: float


def load_table(dsn: str, passages: Sequence[Passage], embedder_name: str = DEFAULT_EMBEDDER, *,
               table: str = "chunks", recreate: bool = False, index: str = "auto", batch_size: int = 256,
               progress: Callable[[int], None] | None = None) -> LoadResult:
    """Embed ``passages`` and load them into a new ``table`` (doc_id, chunk_id, text, embedding),
    in one transaction: a failure leaves the database as it was. ``recreate`` replaces an existing
    table (else that is an InputError). ``index``: "hnsw" (approximate), "none" (exact search) or
    "auto" (HNSW from 100,000 rows). ``progress(k)`` is called after each batch of k rows."""
    if index not in ("auto", "hnsw", "none"):
        raise InputError(f"index must be auto, hnsw or none, got {index!r}")
    batch_size = int(check_number(batch_size, flag("batch_size"), COUNT))
    from psycopg import sql

    target = parse_target(dsn)
    target = dataclasses.replace(target, table=table, doc_id="doc_id", chunk_id="chunk_id", embedding="embedding",
                                 embedder=embedder_name)
    who = f"pgvector {target.shown}"
    embedder = get_embedder(embedder_name)
    name = canonical_name(embedder_name)
    start = time.perf_counter()
    psycopg = psycopg_module()
    with connect(target, 60.0) as conn:
        try:
            conn.execute("SELECT set_config('statement_timeout', '0', false)")
            if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
                try:
                    conn.execute("CREATE EXTENSION vector")
                except psycopg.Error as exc:
                    hint = ("a superuser must run: CREATE EXTENSION vector; in this database" if exc.sqlstate == "42501"
                            else "install pgvector on the server (e.g. the postgresql-NN-pgvector package)")
                    raise InputError(f"{who}: cannot create the vector extension ({first_line(exc, target)})",
                                     hint=hint) from None
            table_sql = ident(table)
            with conn.transaction():
                if conn.execute("SELECT to_regclass(%s)", [table_sql.as_string(conn)]).fetchone() != (None,):
                    if not recreate:
                        raise InputError(f"{who}: table {table!r} already exists",
                                         hint=f"{flag('recreate')} replaces it")
                    conn.execute(sql.SQL("DROP TABLE {}").format(table_sql))
                conn.execute(sql.SQL("CREATE TABLE {} (doc_id text NOT NULL, chunk_id text, text text NOT NULL, "
                                     "embedding vector({}) NOT NULL)").format(table_sql, sql.Literal(embedder.dim)))
                with conn.cursor().copy(sql.SQL("COPY {} (doc_id, chunk_id, text, embedding) FROM STDIN")
                                        .format(table_sql)) as copy:
                    for at in range(0, len(passages), batch_size):
                        batch = passages[at:at + batch_size]
                        vectors = embedder.embed([p.indexed_text for p in batch])
                        for passage, vector in zip(batch, vectors):
                            copy.write_row((passage.doc_id, passage.chunk_id, passage.text, vector_literal(vector)))
                        if progress:
                            progress(len(batch))
                built = "hnsw" if index == "hnsw" or (index == "auto" and len(passages) >= 100_000) else None
                if built:
                    conn.execute(sql.SQL("CREATE INDEX ON {} USING hnsw (embedding vector_cosine_ops)").format(
                        table_sql))
                meta = {"embedder": name, "dim": embedder.dim, "format": 1}
                conn.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(
                    table_sql, sql.Literal(COMMENT_PREFIX + json.dumps(meta, sort_keys=True))))
                conn.execute(sql.SQL("ANALYZE {}").format(table_sql))
        except psycopg.Error as exc:
            raise final_error(classify(exc, target)) from None
    return LoadResult(table, len(passages), len({p.doc_id for p in passages}), embedder.dim, name, built,
                      time.perf_counter() - start)


def load_pgvector(target: str, corpus: str | Path | Sequence[Passage], embedder: str = DEFAULT_EMBEDDER, *,
                  table: str = "chunks", chunking: Chunking | None = None, recreate: bool = False,
                  index: str = "auto", batch_size: int = 256,
                  progress: Callable[[int], None] | None = None) -> IndexResult:
    """:func:`load_table` in the form every store's loader has (``ragauge.index``): ``target`` is
    the DSN, checked before ``corpus`` (a corpus path cut by ``chunking``, or passages) is read.
    Returns what was written and the spec that searches it (the password never in it)."""
    from ragauge.retrieve.stores.common import IndexResult, read_passages

    shown = parse_target(target).shown
    check_number(batch_size, flag("batch_size"), COUNT)
    done = load_table(target, read_passages(corpus, chunking), embedder, table=table, recreate=recreate, index=index,
                      batch_size=batch_size, progress=progress)
    built = f"{done.index} index" if done.index else "no index: exact search"
    return IndexResult(f"pgvector:{shown}?table={done.table}", done.rows, done.documents, 0, done.dim, done.embedder,
                       f"into {done.table} at {shown}; {built}", done.seconds)
