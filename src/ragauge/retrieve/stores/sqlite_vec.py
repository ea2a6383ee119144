"""``sqlite-vec:FILE?table=chunks``: nearest neighbours in a SQLite file with sqlite-vec (``ragauge[sqlite-vec]``).

The file is opened read-only through APSW, with the extension loaded from the ``sqlite-vec``
package (``sqlite_vec.loadable_path()``): many Pythons' own ``sqlite3`` cannot load extensions at
all (pyenv's default build, python.org's macOS installer), and APSW bundles a SQLite that can.

Options: ``table`` (``chunks``), the columns ``embedding`` (``embedding``), ``doc_id`` (``doc_id``)
and ``chunk_id`` (``chunk_id``; empty for none), and ``embedder`` (the name ``ragauge index
sqlite-vec`` recorded in the file's ``ragauge_indexes`` table; else ``minilm``).

- A ``vec0`` virtual table is searched with its KNN query, ``WHERE embedding MATCH ? AND k = ?``
  (exact: sqlite-vec 0.1 compares every row; at most 4096 rows a search, sqlite-vec's limit).
  Scores are ``1 - distance`` for a ``distance_metric=cosine`` column, the negated distance for
  L2 and L1 columns.
- A plain table holding vectors as float32 BLOBs is scanned with ``ORDER BY
  vec_distance_cosine(embedding, ?) LIMIT ?``; scores are ``1 - distance``.

Table and column names are quoted as identifiers and the vector and the limit are bound as
parameters, never formatted into the SQL. Each worker thread has its own read-only connection
(SQLite runs them in parallel), so no concurrency limit is set.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.data.hits import Hit
from ragauge.errors import InputError, MissingExtra, RagaugeError, flag
from ragauge.models.embedders import DEFAULT_EMBEDDER, get_embedder
from ragauge.retrieve.adapter import Adapter, Index, Option
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.corpus import Chunking, Passage
from ragauge.retrieve.stores.common import (
    IndexResult,
    StoreRetriever,
    StoreTarget,
    Tally,
    choose_embedder,
    embedded,
    existing_path,
    hit,
    parse_target,
    read_passages,
    read_record,
    record,
)

OPTIONS = {"table": "chunks", "embedding": "embedding", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedder": ""}
EXAMPLE = "sqlite-vec:chunks.db?table=chunks"
RECORDS = "ragauge_indexes"
KNN_LIMIT = 4096


def modules() -> tuple[Any, Any]:
    """(apsw, sqlite_vec), or MissingExtra."""
    try:
        import apsw
        import sqlite_vec
    except ImportError as exc:
        raise MissingExtra(exc.name or "sqlite-vec", "sqlite-vec", "the sqlite-vec retriever") from None
    return apsw, sqlite_vec


def ident(name: str) -> str:
    """``name`` as a quoted SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'


def parse(spec: str, options: RetrieverOptions | None = None) -> StoreTarget:
    return parse_target(spec, "sqlite-vec", OPTIONS, options, required=("table", "embedding", "doc_id"),
                        example=EXAMPLE)


def connect(path: Path, *, write: bool = False) -> Any:
    """An APSW connection to ``path`` with sqlite-vec loaded (read-only unless ``write``)."""
    apsw, sqlite_vec = modules()
    flags = (apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE) if write else apsw.SQLITE_OPEN_READONLY
    conn = apsw.Connection(str(path), flags=flags)
    conn.set_busy_timeout(10_000)
    conn.enable_load_extension(True)
    conn.load_extension(sqlite_vec.loadable_path())
    conn.enable_load_extension(False)
    return conn


def vec0_column(create_sql: str, column: str) -> tuple[int | None, str]:
    """The dimension and distance metric of ``column`` in a vec0 table's CREATE statement."""
    found = re.search(rf"(?i)(?:^|[(,\s]){re.escape(column)}\s+(?:float|int8|bit)\[(\d+)\]([^,)]*)", create_sql)
    if not found:
        return None, "l2"
    metric = re.search(r"(?i)distance_metric\s*=\s*(\w+)", found.group(2))
    return int(found.group(1)), (metric.group(1).lower() if metric else "l2")


class SqliteVecRetriever(StoreRetriever):
    """Nearest neighbours in one table of a SQLite file (see the module docstring)."""

    def __init__(self, target: StoreTarget, options: RetrieverOptions) -> None:
        self.path = existing_path(target, target.location, "SQLite file")
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        try:
            self._setup(target)
        except BaseException:
            self.close()
            raise

    def _setup(self, target: StoreTarget) -> None:
        apsw, _ = modules()
        self.name = target.options["table"]
        try:
            conn = self._conn()
            row = conn.execute("SELECT type, sql FROM sqlite_master WHERE name = ? AND type IN ('table', 'view')",
                               (self.name,)).fetchone()
            if row is None:
                known = [r[0] for r in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%' "
                    "ORDER BY name")]
                raise InputError(f"{target.who}: no table {self.name!r}",
                                 hint=f"its vec0 tables: {', '.join(known) or 'none'}; name one with ?table=, or load "
                                      f"one: ragauge index sqlite-vec CORPUS {target.shown} --table {self.name}")
            columns = [r[0] for r in conn.execute("SELECT name FROM pragma_table_info(?)", (self.name,))]
            recorded = None
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (RECORDS,)).fetchone():
                found = conn.execute(f"SELECT record FROM {RECORDS} WHERE name = ?", (self.name,)).fetchone()
                recorded = read_record(found[0])[0] if found else None
        except RagaugeError:
            raise
        except apsw.Error as exc:
            raise InputError(f"{target.who}: {target.hide(str(exc))}",
                             hint="is it a SQLite file? sqlite-vec tables need the extension version that wrote "
                                  "them") from None
        self.vec0 = bool(re.match(r"(?is)\s*create\s+virtual\s+table\b.*\busing\s+vec0\b", row[1] or ""))
        self.embedding, self.doc_key = target.options["embedding"], target.options["doc_id"]
        self.chunk_key = target.options["chunk_id"]
        if self.chunk_key and self.chunk_key not in columns and "chunk_id" not in target.given:
            self.chunk_key = ""  # the default column is optional: hits are then whole documents
        for role, key in (("doc_id", self.doc_key), ("chunk_id", self.chunk_key), ("embedding", self.embedding)):
            if key and key not in columns:
                raise InputError(f"{target.who}: table {self.name!r} has no column {key!r} (for {role})",
                                 hint=f"its columns: {', '.join(c for c in columns if c != 'rowid')}; "
                                      f"name yours with ?{role}=")
        if self.vec0:
            dim, self.metric = vec0_column(row[1], self.embedding)
        else:
            self.metric = "cosine"
            first = conn.execute(f"SELECT vec_length({ident(self.embedding)}) FROM {ident(self.name)} "
                                 f"WHERE {ident(self.embedding)} IS NOT NULL LIMIT 1").fetchone()
            dim = int(first[0]) if first else None
        embedder, embedder_name = choose_embedder(target, recorded, dim, f"table {self.name!r}")
        super().__init__(target, embedder, embedder_name)
        chunk = ident(self.chunk_key) if self.chunk_key else "NULL"
        doc, emb, table = ident(self.doc_key), ident(self.embedding), ident(self.name)
        if self.vec0:
            self._query = (f"SELECT {doc}, {chunk}, distance, rowid FROM {table} WHERE {emb} MATCH ? AND k = ? "
                           "ORDER BY distance")
        else:
            self._query = (f"SELECT {doc}, {chunk}, vec_distance_cosine({emb}, ?) AS distance, rowid FROM {table} "
                           f"WHERE {emb} IS NOT NULL ORDER BY distance LIMIT ?")
        self._ids_query = f"SELECT {doc}, {chunk} FROM {table}"

    def _conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def nearest(self, vector: np.ndarray, n: int) -> Sequence[Hit]:
        apsw, _ = modules()
        limit = min(n, KNN_LIMIT) if self.vec0 else n
        try:
            rows = self._conn().execute(self._query, (vector.astype(np.float32).tobytes(), limit)).fetchall()
        except apsw.Error as exc:
            raise InputError(f"{self.target.who}: {self.target.hide(str(exc))}") from None
        similarity = self.metric == "cosine"
        return [hit(self.target, d, c, 1.0 - dist if similarity else -dist, rowid) for d, c, dist, rowid in rows]

    def stored_ids(self) -> Iterator[tuple[Any, Any]]:
        return iter(self._conn().execute(self._ids_query).fetchall())

    def settings(self) -> dict[str, Any]:
        return {"table": self.name, "embedding": self.embedding, "doc_id": self.doc_key,
                "chunk_id": self.chunk_key or None, "distance": self.metric,
                "index": f"vec0 (exact, at most {KNN_LIMIT} a search)" if self.vec0 else "none (exact scan)"}

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()


def open(spec: str, options: RetrieverOptions) -> SqliteVecRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return SqliteVecRetriever(parse(spec, options), options)


def load_sqlite_vec(target: str | Path, corpus: str | Path | Sequence[Passage], embedder: str = DEFAULT_EMBEDDER, *,
                    table: str = "chunks", chunking: Chunking | None = None, recreate: bool = False,
                    batch_size: int = 256, progress: Callable[[int], None] | None = None) -> IndexResult:
    """Embed ``corpus`` (a corpus path cut by ``chunking``, or passages) into a new vec0 table
    (``embedding float[N] distance_metric=cosine``, auxiliary columns doc_id, chunk_id, text) in the
    SQLite file ``target`` (created when missing), recording the embedder in ``ragauge_indexes``,
    all in one transaction: a failure leaves the file as it was. An existing table without
    ``recreate`` is an InputError. Returns what was written and the spec that searches it."""
    place = parse_target(str(target), "sqlite-vec", {}, example=EXAMPLE)
    apsw, _ = modules()
    passages = read_passages(corpus, chunking)
    model = get_embedder(embedder)
    batches = embedded(passages, model, batch_size, progress)
    path = Path(place.location)
    if path.is_dir():
        raise InputError(f"{place.who}: a folder, not a SQLite file", hint="name a file, e.g. chunks.db")
    tally = Tally()
    name = ident(table)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = connect(path, write=True)
    except (apsw.Error, OSError) as exc:
        raise InputError(f"{place.who}: cannot open ({exc})", hint="is it a SQLite file?") from None
    try:
        with conn:  # one transaction (a savepoint), rolled back on any exception
            if conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
                if not recreate:
                    raise InputError(f"{place.who}: table {table!r} already exists",
                                     hint=f"{flag('recreate')} replaces it")
                conn.execute(f"DROP TABLE {name}")
            conn.execute(f"CREATE VIRTUAL TABLE {name} USING vec0(embedding float[{int(model.dim)}] "
                         "distance_metric=cosine, +doc_id text, +chunk_id text, +text text)")
            insert = f"INSERT INTO {name} (embedding, doc_id, chunk_id, text) VALUES (?, ?, ?, ?)"
            for kept, vectors, skipped in batches:
                conn.executemany(insert, [(v.astype(np.float32).tobytes(), p.doc_id, p.chunk_id, p.text)
                                          for p, v in zip(kept, vectors)])
                tally.add(kept, skipped)
            conn.execute(f"CREATE TABLE IF NOT EXISTS {RECORDS} (name TEXT PRIMARY KEY, record TEXT NOT NULL)")
            conn.execute(f"INSERT OR REPLACE INTO {RECORDS} (name, record) VALUES (?, ?)",
                         (table, json.dumps(record(embedder, model), sort_keys=True)))
    except apsw.Error as exc:
        raise InputError(f"{place.who}: {exc}") from None
    finally:
        conn.close()
    return tally.result(f"sqlite-vec:{place.shown}?table={table}", embedder, model, "vec0 (exact search)")


ADAPTER = Adapter(
    "sqlite-vec", ("sqlite-vec",), open,
    "a SQLite file with sqlite-vec: a vec0 table's KNN query, or a plain table of float32 BLOBs scanned with "
    "vec_distance_cosine; opened read-only, names quoted, values bound",
    "sqlite-vec:chunks.db?table=chunks", extra="sqlite-vec",
    options=(Option("table", "the table", "chunks"), Option("embedder", "the embedder the file records", "minilm")),
    index=Index(
        load_sqlite_vec, "DATABASE",
        """Embed CORPUS into a new sqlite-vec vec0 table (cosine; doc_id, chunk_id, text) in the SQLite
    file DATABASE (created when missing), in one transaction; the ragauge_indexes table records
    the embedder. Needs ragauge[sqlite-vec].

    \b
    Example:
      ragauge index sqlite-vec examples/helpdesk/sections.jsonl chunks.db --embedder hash
      ragauge run golden.jsonl --retriever "sqlite-vec:chunks.db?table=chunks" -o run.jsonl
    """, (Option("table", "vec0 table to create.", "chunks"),)))
