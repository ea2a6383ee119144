"""The pgvector retriever: cosine nearest neighbours of the embedded question."""

from __future__ import annotations

from typing import Any

from ragauge.core.hashing import content_hash
from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.models.embedders import (
    DEFAULT_EMBEDDER,
    Embedder,
    canonical_name,
    get_embedder,
)
from ragauge.retrieve.base import Retrieved, RetrieverOptions
from ragauge.retrieve.pgvector.connection import (
    Connections,
    classify,
    connect,
    final_error,
    ident,
    psycopg_module,
)
from ragauge.retrieve.pgvector.table import inspect_table, vector_literal
from ragauge.retrieve.pgvector.target import Target


class PgvectorRetriever:
    """Cosine nearest neighbours over a pgvector column; thread-safe."""

    def __init__(self, target: Target, options: RetrieverOptions, *, pool: bool = True, pool_size: int = 32) -> None:
        self.target, self.options = target, options
        self.spec = "pgvector:" + target.shown_spec
        psycopg = psycopg_module()
        with connect(target, max(options.timeout, 30.0)) as conn:  # the checks are not held to a tiny timeout
            try:
                self.info = inspect_table(conn, target)
            except psycopg.Error as exc:
                raise final_error(classify(exc, target)) from None
        name = target.embedder or self.info.embedder or DEFAULT_EMBEDDER
        if (target.embedder and self.info.embedder
                and canonical_name(target.embedder) != canonical_name(self.info.embedder)):
            raise InputError(f"pgvector {target.shown}: table {target.table!r} was loaded with the "
                             f"{self.info.embedder!r} embedder, the spec asks for {target.embedder!r}",
                             hint=f"drop ?embedder= or use embedder={self.info.embedder}")
        self.embedder: Embedder = get_embedder(name)
        self.embedder_name = canonical_name(name)
        if self.info.dim is not None and self.info.dim != self.embedder.dim:
            raise InputError(f"pgvector {target.shown}: column {target.embedding!r} holds {self.info.dim}-dimension "
                             f"vectors but the {name!r} embedder makes {self.embedder.dim}",
                             hint="query with the embedder the table was loaded with (?embedder=)")
        from psycopg import sql

        cols = [sql.Identifier(target.doc_id),
                sql.Identifier(self.info.chunk_id) if self.info.chunk_id else sql.SQL("NULL")]
        self._query = sql.SQL(
            "SELECT {doc}, {chunk}, {emb} <=> %(q)s::vector AS distance FROM {table} "
            "ORDER BY {emb} <=> %(q)s::vector LIMIT %(n)s").format(
            doc=cols[0], chunk=cols[1], emb=sql.Identifier(target.embedding), table=ident(target.table))
        self._conns = Connections(target, options.timeout, pool_size, use_pool=pool)

    def search(self, query: str, n: int) -> Retrieved:
        vector = self.embedder.embed([query])[0]
        if n < 1 or not vector.any():  # no n, or nothing to compare (e.g. no word the embedder knows)
            return Retrieved(hits=())
        psycopg = psycopg_module()
        try:
            with self._conns.connection() as conn:
                # never a prepared statement: a generic plan cannot see LIMIT's value and may pass the
                # vector index by for a full sort; an unnamed statement is planned with the values
                params = {"q": vector_literal(vector), "n": n}
                if self.info.index == "hnsw":
                    with conn.pipeline():
                        conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(max(40, min(n, 1000)))],
                                     prepare=False)
                        rows = conn.execute(self._query, params, prepare=False).fetchall()
                else:
                    rows = conn.execute(self._query, params, prepare=False).fetchall()
        except psycopg.Error as exc:  # psycopg_pool.PoolTimeout too
            raise classify(exc, self.target) from None
        return Retrieved(hits=[Hit(None if d is None else str(d), None if c is None else str(c),
                                   None if dist is None else 1.0 - float(dist)) for d, c, dist in rows])

    def describe(self) -> dict[str, Any]:
        return {"retriever": "pgvector", "dsn": self.target.shown, "table": self.target.table,
                "doc_id": self.target.doc_id, "chunk_id": self.info.chunk_id, "embedding": self.target.embedding,
                "embedder": self.embedder_name, "dim": self.embedder.dim, "distance": "cosine",
                "index": self.info.index or "none (exact search)", "pgvector": self.info.extension}

    def _scalar(self, query: Any) -> Any:
        psycopg = psycopg_module()
        try:
            with self._conns.connection() as conn:
                return conn.execute(query).fetchall()
        except psycopg.Error as exc:
            raise classify(exc, self.target) from None

    def documents(self) -> set[str]:
        from psycopg import sql

        rows = self._scalar(sql.SQL("SELECT DISTINCT {} FROM {}").format(
            sql.Identifier(self.target.doc_id), ident(self.target.table)))
        return {str(r[0]) for r in rows if r[0] is not None}

    def fingerprint(self) -> str:
        """Row count and md5 of the ordered ids, with the embedder: changes when rows are added,
        removed or renamed, or the embedder changes; NOT when embeddings are rewritten in place."""
        from psycopg import sql

        chunk = sql.Identifier(self.info.chunk_id) if self.info.chunk_id else sql.SQL("''")
        query = sql.SQL("SELECT count(*), md5(coalesce(string_agg({d}::text || chr(31) || coalesce({c}::text, ''), "
                        "chr(30) ORDER BY {d}, {c}), '')) FROM {t}").format(
            d=sql.Identifier(self.target.doc_id), c=chunk, t=ident(self.target.table))
        count, digest = self._scalar(query)[0]
        return content_hash({"rows": count, "ids_md5": digest, "embedder": self.embedder_name,
                             "dim": self.embedder.dim})

    def close(self) -> None:
        self._conns.close()
