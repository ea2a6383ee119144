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

from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.pgvector.connection import classify, connect
from ragauge.retrieve.pgvector.load import LoadResult, load_table
from ragauge.retrieve.pgvector.search import PgvectorRetriever
from ragauge.retrieve.pgvector.table import TableInfo, inspect_table, vector_literal
from ragauge.retrieve.pgvector.target import Target, parse_target

__all__ = ["LoadResult", "PgvectorRetriever", "TableInfo", "Target", "classify", "connect", "inspect_table",
           "load_table", "open", "parse_target", "vector_literal"]


def open(spec: str, options: RetrieverOptions) -> PgvectorRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return PgvectorRetriever(parse_target(spec, options), options)
