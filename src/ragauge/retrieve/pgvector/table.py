"""What a pgvector table holds: its vector column, the embedder it was loaded with, its index."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError
from ragauge.retrieve.pgvector.connection import ident, no_table
from ragauge.retrieve.pgvector.target import Target

if TYPE_CHECKING:
    import numpy as np
    import psycopg

COMMENT_PREFIX = "ragauge "


def vector_literal(row: np.ndarray) -> str:
    """pgvector's text form ``[x,y,...]``; Python's shortest repr round-trips each float32 exactly."""
    return "[" + ",".join(map(repr, row.tolist())) + "]"


@dataclass(frozen=True)
class TableInfo:
    """What ``inspect_table`` found: the vector dimension (None when unconstrained), the embedder
    the loader recorded, the approximate index (hnsw/ivfflat) on the column, pgvector's version."""

    dim: int | None
    embedder: str | None
    index: str | None
    extension: str
    chunk_id: str | None


def inspect_table(conn: psycopg.Connection[Any], target: Target) -> TableInfo:
    """Check the extension, table and columns exist; raise InputError naming what is missing."""
    who = f"pgvector {target.shown}"
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        raise InputError(f"{who}: the vector extension is not installed in this database",
                         hint="a superuser must run: CREATE EXTENSION vector;")
    extension = row[0]
    oid = conn.execute("SELECT to_regclass(%s)::oid", [ident(target.table).as_string(conn)]).fetchone()
    if oid is None or oid[0] is None:
        raise no_table(target)
    columns = {name: (kind, mod) for name, kind, mod in conn.execute(
        "SELECT attname, format_type(atttypid, atttypmod), atttypmod FROM pg_attribute "
        "WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped", [oid[0]])}
    chunk_id = target.chunk_id
    if chunk_id and chunk_id not in columns and not target.chunk_id_given:
        chunk_id = None  # the default column is optional: hits are then whole documents
    for role, name in (("doc_id", target.doc_id), ("chunk_id", chunk_id), ("embedding", target.embedding)):
        if name and name not in columns:
            raise InputError(f"{who}: table {target.table!r} has no column {name!r} (for {role})",
                             hint=f"its columns: {', '.join(sorted(columns))}; name yours with ?{role}=")
    kind, mod = columns[target.embedding]
    if not kind.startswith("vector"):
        raise InputError(f"{who}: column {target.embedding!r} is {kind}, not a vector",
                         hint="pgvector compares vector(N) columns; halfvec and sparsevec are not supported")
    comment = conn.execute("SELECT obj_description(%s, 'pg_class')", [oid[0]]).fetchone()
    recorded = None
    if comment and comment[0] and comment[0].startswith(COMMENT_PREFIX):
        try:
            recorded = json.loads(comment[0][len(COMMENT_PREFIX):]).get("embedder")
        except (ValueError, AttributeError):
            recorded = None
    index = conn.execute(
        "SELECT am.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_am am ON am.oid = c.relam JOIN pg_opclass o ON o.oid = i.indclass[0] "
        "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] "
        "WHERE i.indrelid = %s AND a.attname = %s AND o.opcname = 'vector_cosine_ops' "
        "ORDER BY am.amname LIMIT 1", [oid[0], target.embedding]).fetchone()
    return TableInfo(mod if mod > 0 else None, recorded, index[0] if index else None, extension, chunk_id)
