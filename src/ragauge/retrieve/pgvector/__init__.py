"""``pgvector:postgresql://USER@HOST:PORT/DB?table=chunks``: nearest neighbours in a PostgreSQL table.

Options (query string; every other parameter, e.g. ``sslmode``, goes to the driver): ``table``
(``chunks``; ``schema.table`` works), the columns ``doc_id`` (``doc_id``), ``chunk_id`` (``chunk_id``;
empty for none) and ``embedding`` (``embedding``, a ``vector(N)`` column), and ``embedder`` (the
name the table was loaded with, recorded by ``ragauge index pgvector``; else ``minilm``).

A search embeds the question with the named embedder (see ``ragauge.models.embedders``) and runs
``ORDER BY embedding <=> $1::vector LIMIT $2`` with the vector and the limit bound as parameters;
table and column names are quoted as identifiers, never formatted into the SQL. Scores are cosine
similarities, ``1 - distance``. Without an index on the column the search is exact; an HNSW or
IVFFlat index with ``vector_cosine_ops`` makes it approximate (``describe()["index"]`` says which),
and ``hnsw.ef_search`` is raised to ``n`` so a call can return ``n`` rows (IVFFlat's ``probes``
is left as the server has it). A password in the DSN is
used to connect and never shown: ``spec`` and ``describe()`` hold the DSN without it (prefer
``PGPASSWORD`` or ``~/.pgpass`` anyway).
"""

from __future__ import annotations

from ragauge.retrieve.adapter import Adapter, Index, Option
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.pgvector.connection import classify, connect
from ragauge.retrieve.pgvector.load import LoadResult, load_pgvector, load_table
from ragauge.retrieve.pgvector.search import PgvectorRetriever
from ragauge.retrieve.pgvector.table import TableInfo, inspect_table, vector_literal
from ragauge.retrieve.pgvector.target import Target, parse_target

__all__ = ["LoadResult", "PgvectorRetriever", "TableInfo", "Target", "classify", "connect", "inspect_table",
           "load_pgvector", "load_table", "open", "parse_target", "vector_literal"]


def open(spec: str, options: RetrieverOptions) -> PgvectorRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return PgvectorRetriever(parse_target(spec, options), options)


ADAPTER = Adapter(
    "pgvector", ("pgvector",), open,
    "nearest neighbours in a PostgreSQL table with pgvector (ORDER BY embedding <=> $1::vector), the question "
    "embedded by the embedder the table records; identifiers quoted, values bound, the password never shown",
    "pgvector:postgresql://me@localhost:5432/rag?table=chunks", extra="pgvector",
    options=(Option("table", "the table (schema.table works)", "chunks"),
             Option("doc_id", "document id column", "doc_id"),
             Option("chunk_id", "chunk id column; empty for none", "chunk_id"),
             Option("embedding", "the vector(N) column", "embedding"),
             Option("embedder", "the embedder the table was loaded with", "minilm")),
    index=Index(
        load_pgvector, "DSN",
        """Embed CORPUS (JSONL, BEIR corpus.jsonl.gz, or a folder of .md/.txt/.html) and load it into a
    PostgreSQL table (doc_id, chunk_id, text, embedding vector(N)) that the pgvector retriever reads,
    in one transaction. The table records the embedder, so the retriever embeds questions the same way.

    \b
    Example:
      ragauge index pgvector examples/scifact/corpus.jsonl.gz postgresql://me@localhost/rag --embedder hash
      ragauge run golden.jsonl --retriever "pgvector:postgresql://me@localhost/rag?table=chunks" -o run.jsonl
    """, (Option("table", "Table to create (schema.table works).", "chunks"),
          Option("index", "HNSW index (approximate search) or none (exact); auto: HNSW from 100,000 rows.", "auto",
                 ("auto", "hnsw", "none"))),
        check=parse_target))
