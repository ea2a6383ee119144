"""``pgvector:postgresql://USER@HOST:PORT/DB?table=chunks``: nearest neighbours in a PostgreSQL table.

Options (query string; every other parameter, e.g. ``sslmode``, goes to the driver): ``table``
(``chunks``; ``schema.table`` works), the columns ``doc_id`` (``doc_id``), ``chunk_id`` (``chunk_id``;
empty for none) and ``embedding`` (``embedding``, a ``vector(N)`` column), and ``embedder`` (the
name the table was loaded with, recorded by ``ragauge index pgvector``; else ``minilm``).

A search embeds the question with the named embedder (see ``ragauge.retrieve.embedders``) and runs
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

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from ragauge.data.hashing import content_hash
from ragauge.data.run import Hit
from ragauge.errors import InputError, MissingExtra, RagaugeError
from ragauge.retrieve.base import Retrieved, RetrieverOptions, RetryableError, split_spec
from ragauge.retrieve.embedders import DEFAULT_EMBEDDER, Embedder, canonical_name, get_embedder

if TYPE_CHECKING:
    import numpy as np
    import psycopg

    from ragauge.retrieve.corpus import Passage

_COLUMNS = {"table": "chunks", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedding": "embedding"}
_OPTIONS = {*_COLUMNS, "embedder"}
_COMMENT_PREFIX = "ragauge "
_RETRYABLE_CLASSES = ("08", "40", "53", "57", "58")  # connection, rollback, resources, operator, system


@dataclass(frozen=True)
class Target:
    """A parsed spec: the DSN to connect with, the same without its password, and the settings."""

    dsn: str
    shown: str
    table: str
    doc_id: str
    chunk_id: str | None
    embedding: str
    embedder: str | None
    chunk_id_given: bool = False
    shown_spec: str = ""


def _redact(dsn: str) -> str:
    """``dsn`` without its password (in the user part or a ``password=`` parameter)."""
    parts = urlsplit(dsn)
    if parts.password is not None:
        host, user = parts.netloc.rpartition("@")[2], parts.username or ""
        parts = parts._replace(netloc=f"{user}@{host}" if user else host)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "password"]
    return urlunsplit(parts._replace(query=urlencode(query, safe="/:", quote_via=quote)))


def parse_target(spec: str, options: RetrieverOptions | None = None) -> Target:
    """Split ``spec`` (``pgvector:DSN?...``, or a bare DSN) into the DSN and ragauge's settings;
    settings come from ragauge.toml's ``[retriever.pgvector]``, then ``options.extra``, then the spec."""
    scheme, _, rest = spec.partition(":")
    if scheme != "pgvector":
        rest = spec
    dsn, params = rest.partition("?")[0], split_spec("x:" + rest)[2]
    if not dsn.startswith(("postgresql://", "postgres://")):
        raise InputError(f"pgvector needs a postgresql:// DSN, got {_redact(dsn)!r}",
                         hint="e.g. pgvector:postgresql://user@localhost:5432/db?table=chunks")
    settings: dict[str, str] = {}
    config = options.config if options else {}
    section = config.get("pgvector", config) if isinstance(config, Mapping) else {}
    settings.update({k: str(v) for k, v in section.items() if k in _OPTIONS})
    settings.update({k: v for k, v in (options.extra if options else {}).items() if k in _OPTIONS})
    settings.update({k: v for k, v in params.items() if k in _OPTIONS})
    driver = {k: v for k, v in params.items() if k not in _OPTIONS}
    if driver:
        dsn += "?" + urlencode(driver, quote_via=quote)  # libpq reads %20 as a space, never "+"
    values = {k: settings.get(k, default) for k, default in _COLUMNS.items()}
    for key in ("table", "doc_id", "embedding"):
        if not values[key]:
            raise InputError(f"pgvector option {key!r} must not be empty in {_redact(rest)!r}")
    return Target(dsn, _redact(dsn), values["table"], values["doc_id"], values["chunk_id"] or None,
                  values["embedding"], settings.get("embedder") or None, "chunk_id" in settings, _redact(rest))


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise MissingExtra("psycopg", "pgvector", "the pgvector retriever") from None
    return psycopg


def _ident(name: str) -> Any:
    """A possibly schema-qualified name as a quoted SQL identifier."""
    from psycopg import sql

    return sql.Identifier(*name.split(".", 1))


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def classify(exc: Exception, target: Target, *, connecting: bool = False) -> Exception:
    """A psycopg error as the error ragauge raises: an InputError the user can fix (names the
    retriever and what to check), or a RetryableError for a transient failure."""
    who = f"pgvector {target.shown}"
    state = getattr(exc, "sqlstate", None) or ""
    text = _first_line(exc)
    low = text.lower()
    if state in ("28P01", "28000") or "password authentication failed" in low or "no password supplied" in low:
        return InputError(f"{who}: authentication failed ({text})",
                          hint="check the user in the DSN and its password (PGPASSWORD or ~/.pgpass)")
    if state == "3D000" or ("database" in low and "does not exist" in low):
        return InputError(f"{who}: {text}", hint="check the database name at the end of the DSN")
    if state == "42P01":
        return _no_table(target)
    if state == "42703":
        return InputError(f"{who}: {text}", hint="name the columns with ?doc_id=&chunk_id=&embedding=")
    if state in ("42704", "42883") and "vector" in low:
        return InputError(f"{who}: the vector extension is missing ({text})",
                          hint="a superuser must run: CREATE EXTENSION vector; in this database")
    if state == "42501":
        return InputError(f"{who}: permission denied ({text})", hint="grant the user SELECT on the table")
    if state == "22000" and "dimensions" in low:
        return InputError(f"{who}: {text}", hint="query with the embedder the table was loaded with (?embedder=)")
    if connecting and not state:
        hint = ("is PostgreSQL running and listening there? check the host and port in the DSN"
                if "refused" in low or "could not connect" in low or "timeout" in low
                else "check the host, port and options of the DSN")
        if "translate host name" in low or "name or service not known" in low:
            hint = "check the host name in the DSN"
        return InputError(f"{who}: cannot connect ({text})", hint=hint)
    if state == "57014":
        return RetryableError(f"{who}: the query ran longer than the timeout (raise --timeout?)")
    if not state or state.startswith(_RETRYABLE_CLASSES):
        return RetryableError(f"{who}: {text}")
    return InputError(f"{who}: {text}")


def _no_table(target: Target) -> InputError:
    return InputError(f"pgvector {target.shown}: table {target.table!r} does not exist",
                      hint=f"check ?table=; load one with: ragauge index pgvector CORPUS DSN --table {target.table}")


def _final(error: Exception) -> RagaugeError:
    """Outside a search nothing retries: a transient failure is reported like any other."""
    return error if isinstance(error, RagaugeError) else InputError(str(error))


def connect(target: Target, timeout: float, *, retryable: bool = False) -> psycopg.Connection[Any]:
    """One autocommit connection with ``statement_timeout`` set. Errors become InputError, except
    with ``retryable`` (a worker reconnecting) where an unreachable server is a RetryableError."""
    psycopg = _psycopg()
    try:
        conn = psycopg.connect(target.dsn, **_connect_kwargs(target, timeout))
        _configure(conn, timeout)
    except psycopg.Error as exc:
        error = classify(exc, target, connecting=not retryable)
        raise (error if retryable else _final(error)) from None
    return conn  # type: ignore[no-any-return]


def _connect_kwargs(target: Target, timeout: float) -> dict[str, Any]:
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(target.dsn)
    kwargs: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in given:
        kwargs["connect_timeout"] = max(2, int(timeout + 0.999))
    if "application_name" not in given:
        kwargs["application_name"] = "ragauge"
    return kwargs


def _configure(conn: psycopg.Connection[Any], timeout: float) -> None:
    conn.execute("SELECT set_config('statement_timeout', %s, false)", [f"{max(1, int(timeout * 1000))}ms"])


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
    oid = conn.execute("SELECT to_regclass(%s)::oid", [_ident(target.table).as_string(conn)]).fetchone()
    if oid is None or oid[0] is None:
        raise _no_table(target)
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
    if comment and comment[0] and comment[0].startswith(_COMMENT_PREFIX):
        try:
            recorded = json.loads(comment[0][len(_COMMENT_PREFIX):]).get("embedder")
        except (ValueError, AttributeError):
            recorded = None
    index = conn.execute(
        "SELECT am.amname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
        "JOIN pg_am am ON am.oid = c.relam JOIN pg_opclass o ON o.oid = i.indclass[0] "
        "JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0] "
        "WHERE i.indrelid = %s AND a.attname = %s AND o.opcname = 'vector_cosine_ops' "
        "ORDER BY am.amname LIMIT 1", [oid[0], target.embedding]).fetchone()
    return TableInfo(mod if mod > 0 else None, recorded, index[0] if index else None, extension, chunk_id)


class _Connections:
    """Connections for worker threads: a psycopg_pool pool when installed, else one per thread."""

    def __init__(self, target: Target, timeout: float, size: int, use_pool: bool = True) -> None:
        self.target, self.timeout = target, timeout
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self.pool: Any = None
        try:
            from psycopg_pool import ConnectionPool
        except ImportError:
            use_pool = False
        if not use_pool:
            return
        self.pool = ConnectionPool(target.dsn, kwargs=_connect_kwargs(target, timeout), min_size=1, max_size=size,
                                   configure=lambda conn: _configure(conn, timeout), timeout=max(timeout, 10.0),
                                   name="ragauge-pgvector", open=True)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        if self.pool is not None:
            with self.pool.connection() as conn:
                yield conn
            return
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            conn = connect(self.target, self.timeout, retryable=True)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        try:
            yield conn
        except Exception:
            if conn.broken or conn.closed:
                self._local.conn = None
            raise

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()


class PgvectorRetriever:
    """Cosine nearest neighbours over a pgvector column; thread-safe."""

    def __init__(self, target: Target, options: RetrieverOptions, *, pool: bool = True, pool_size: int = 32) -> None:
        self.target, self.options = target, options
        self.spec = "pgvector:" + target.shown_spec
        psycopg = _psycopg()
        with connect(target, max(options.timeout, 30.0)) as conn:  # the checks are not held to a tiny timeout
            try:
                self.info = inspect_table(conn, target)
            except psycopg.Error as exc:
                raise _final(classify(exc, target)) from None
        name = target.embedder or self.info.embedder or DEFAULT_EMBEDDER
        if target.embedder and self.info.embedder and canonical_name(target.embedder) != canonical_name(self.info.embedder):
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
            doc=cols[0], chunk=cols[1], emb=sql.Identifier(target.embedding), table=_ident(target.table))
        self._conns = _Connections(target, options.timeout, pool_size, use_pool=pool)

    def search(self, query: str, n: int) -> Retrieved:
        vector = self.embedder.embed([query])[0]
        if n < 1 or not vector.any():  # no n, or nothing to compare (e.g. no word the embedder knows)
            return Retrieved(hits=())
        psycopg = _psycopg()
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
        psycopg = _psycopg()
        try:
            with self._conns.connection() as conn:
                return conn.execute(query).fetchall()
        except psycopg.Error as exc:
            raise classify(exc, self.target) from None

    def documents(self) -> set[str]:
        from psycopg import sql

        rows = self._scalar(sql.SQL("SELECT DISTINCT {} FROM {}").format(
            sql.Identifier(self.target.doc_id), _ident(self.target.table)))
        return {str(r[0]) for r in rows if r[0] is not None}

    def fingerprint(self) -> str:
        """Row count and md5 of the ordered ids, with the embedder: changes when rows are added,
        removed or renamed, or the embedder changes; NOT when embeddings are rewritten in place."""
        from psycopg import sql

        chunk = sql.Identifier(self.info.chunk_id) if self.info.chunk_id else sql.SQL("''")
        query = sql.SQL("SELECT count(*), md5(coalesce(string_agg({d}::text || chr(31) || coalesce({c}::text, ''), "
                        "chr(30) ORDER BY {d}, {c}), '')) FROM {t}").format(
            d=sql.Identifier(self.target.doc_id), c=chunk, t=_ident(self.target.table))
        count, digest = self._scalar(query)[0]
        return content_hash({"rows": count, "ids_md5": digest, "embedder": self.embedder_name, "dim": self.embedder.dim})

    def close(self) -> None:
        self._conns.close()


def open(spec: str, options: RetrieverOptions) -> PgvectorRetriever:  # noqa: A001
    return PgvectorRetriever(parse_target(spec, options), options)


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
    if batch_size < 1:
        raise InputError(f"batch_size must be a positive number, got {batch_size}")
    from psycopg import sql

    target = parse_target(dsn)
    target = Target(target.dsn, target.shown, table, "doc_id", "chunk_id", "embedding", embedder_name)
    who = f"pgvector {target.shown}"
    embedder = get_embedder(embedder_name)
    name = canonical_name(embedder_name)
    start = time.perf_counter()
    psycopg = _psycopg()
    with connect(target, 60.0) as conn:
        try:
            conn.execute("SELECT set_config('statement_timeout', '0', false)")
            if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
                try:
                    conn.execute("CREATE EXTENSION vector")
                except psycopg.Error as exc:
                    hint = ("a superuser must run: CREATE EXTENSION vector; in this database" if exc.sqlstate == "42501"
                            else "install pgvector on the server (e.g. the postgresql-NN-pgvector package)")
                    raise InputError(f"{who}: cannot create the vector extension ({_first_line(exc)})",
                                     hint=hint) from None
            ident = _ident(table)
            with conn.transaction():
                if conn.execute("SELECT to_regclass(%s)", [ident.as_string(conn)]).fetchone() != (None,):
                    if not recreate:
                        raise InputError(f"{who}: table {table!r} already exists", hint="--recreate replaces it")
                    conn.execute(sql.SQL("DROP TABLE {}").format(ident))
                conn.execute(sql.SQL("CREATE TABLE {} (doc_id text NOT NULL, chunk_id text, text text NOT NULL, "
                                     "embedding vector({}) NOT NULL)").format(ident, sql.Literal(embedder.dim)))
                with conn.cursor().copy(sql.SQL("COPY {} (doc_id, chunk_id, text, embedding) FROM STDIN")
                                        .format(ident)) as copy:
                    for at in range(0, len(passages), batch_size):
                        batch = passages[at:at + batch_size]
                        vectors = embedder.embed([p.indexed_text for p in batch])
                        for passage, vector in zip(batch, vectors):
                            copy.write_row((passage.doc_id, passage.chunk_id, passage.text, vector_literal(vector)))
                        if progress:
                            progress(len(batch))
                built = "hnsw" if index == "hnsw" or (index == "auto" and len(passages) >= 100_000) else None
                if built:
                    conn.execute(sql.SQL("CREATE INDEX ON {} USING hnsw (embedding vector_cosine_ops)").format(ident))
                meta = {"embedder": name, "dim": embedder.dim, "format": 1}
                conn.execute(sql.SQL("COMMENT ON TABLE {} IS {}").format(
                    ident, sql.Literal(_COMMENT_PREFIX + json.dumps(meta, sort_keys=True))))
                conn.execute(sql.SQL("ANALYZE {}").format(ident))
        except psycopg.Error as exc:
            raise _final(classify(exc, target)) from None
    return LoadResult(table, len(passages), len({p.doc_id for p in passages}), embedder.dim, name, built,
                      time.perf_counter() - start)
