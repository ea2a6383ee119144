"""``lancedb:PATH?table=chunks``: nearest neighbours in a LanceDB table on local disk (``ragauge[lancedb]``).

PATH is the database folder (``lancedb.connect(PATH)``), or one table's ``NAME.lance`` dataset
folder (the table is then NAME). Options: ``table`` (``chunks``), the columns ``vector``
(``vector``, a fixed-size list of floats), ``doc_id`` (``doc_id``) and ``chunk_id`` (``chunk_id``;
empty for none), ``embedder`` (the name ``ragauge index lancedb`` recorded in the table's Arrow
schema metadata; else ``minilm``) and ``exact`` (1: bypass a vector index and search exactly).

A search is ``table.search(vector).distance_type("cosine").limit(n)``: exact (a full scan) when
the column has no vector index, approximate through the index when it has one (``describe()``
says which). Scores are ``1 - distance``, the cosine similarity. Searches from several threads
are safe (the synchronous API hands each call to LanceDB's own event loop) and partly parallel:
200 searches took 0.78 s on one thread and 0.58 s on two, so no concurrency limit is set.
"""

from __future__ import annotations

import json
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
    RECORD_KEY,
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

OPTIONS = {"table": "chunks", "vector": "vector", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedder": "",
           "exact": "0"}
EXAMPLE = "lancedb:./lancedb?table=chunks"


def lancedb_module() -> Any:
    try:
        import lancedb
    except ImportError:
        raise MissingExtra("lancedb", "lancedb", "the lancedb retriever") from None
    return lancedb


def parse(spec: str, options: RetrieverOptions | None = None) -> StoreTarget:
    return parse_target(spec, "lancedb", OPTIONS, options, required=("table", "vector", "doc_id"), example=EXAMPLE)


def first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def database_and_table(target: StoreTarget) -> tuple[Path, str]:
    """The database folder and table name: PATH and ?table=, or a ``NAME.lance`` folder's parent
    and NAME (unless ?table= names it)."""
    path = existing_path(target, target.location, "LanceDB folder")
    if path.suffix == ".lance" and (path / "_versions").is_dir():
        return path.parent, target.options["table"] if "table" in target.given else path.stem
    return path, target.options["table"]


def vector_dim(field: Any) -> int | None:
    """The list size of a fixed-size list of floats, else None."""
    import pyarrow as pa

    kind = field.type
    if pa.types.is_fixed_size_list(kind) and pa.types.is_floating(kind.value_type):
        return int(kind.list_size)
    return None


class LanceRetriever(StoreRetriever):
    """Nearest neighbours in one LanceDB table (see the module docstring)."""

    def __init__(self, target: StoreTarget, options: RetrieverOptions) -> None:
        lancedb = lancedb_module()
        folder, name = database_and_table(target)
        try:
            db = lancedb.connect(str(folder))
            known = sorted(_table_names(db))
            if name not in known:
                raise InputError(f"{target.who}: no table {name!r}",
                                 hint=f"its tables: {', '.join(known) or 'none'}; name one with ?table=, or load one: "
                                      f"ragauge index lancedb CORPUS {target.shown} --table {name}")
            self.table = db.open_table(name)
            schema = self.table.schema
            self.indexes = [str(getattr(i, "index_type", i)) for i in self.table.list_indices()
                            if target.options["vector"] in list(getattr(i, "columns", []) or [])]
        except RagaugeError:
            raise
        except Exception as exc:
            raise InputError(f"{target.who}: {target.hide(first_line(exc))}") from None
        self.name = name
        columns = {f.name: f for f in schema}
        self.vector_key, self.doc_key = target.options["vector"], target.options["doc_id"]
        self.chunk_key = target.options["chunk_id"]
        if self.chunk_key and self.chunk_key not in columns and "chunk_id" not in target.given:
            self.chunk_key = ""  # the default column is optional: hits are then whole documents
        for role, key in (("doc_id", self.doc_key), ("chunk_id", self.chunk_key), ("vector", self.vector_key)):
            if key and key not in columns:
                raise InputError(f"{target.who}: table {name!r} has no column {key!r} (for {role})",
                                 hint=f"its columns: {', '.join(sorted(columns))}; name yours with ?{role}=")
        dim = vector_dim(columns[self.vector_key])
        if dim is None:
            raise InputError(f"{target.who}: column {self.vector_key!r} is {columns[self.vector_key].type}, not a "
                             "fixed-size list of floats", hint="name the vector column with ?vector=")
        recorded, _ = read_record((schema.metadata or {}).get(RECORD_KEY.encode()))
        embedder, embedder_name = choose_embedder(target, recorded, dim, f"table {name!r}")
        super().__init__(target, embedder, embedder_name)
        self.exact = target.options["exact"] not in ("", "0", "false")
        self.columns = [k for k in (self.doc_key, self.chunk_key) if k]

    def nearest(self, vector: np.ndarray, n: int) -> Sequence[Hit]:
        query = (self.table.search(vector, vector_column_name=self.vector_key).distance_type("cosine")
                 .select([*self.columns, "_distance"]).limit(n))
        if self.exact:
            query = query.bypass_vector_index()
        try:
            rows = query.to_arrow().to_pylist()
        except Exception as exc:
            raise InputError(f"{self.target.who}: {self.target.hide(first_line(exc))}") from None
        return [hit(self.target, row[self.doc_key], row.get(self.chunk_key) if self.chunk_key else None,
                    1.0 - row["_distance"], row[self.doc_key]) for row in rows]

    def stored_ids(self) -> Iterator[tuple[Any, Any]]:
        rows = self.table.search().select(self.columns).limit(None).to_arrow()
        docs = rows[self.doc_key].to_pylist()
        chunks = rows[self.chunk_key].to_pylist() if self.chunk_key else [None] * len(docs)
        return zip(docs, chunks)

    def settings(self) -> dict[str, Any]:
        index = ("none (exact search)" if not self.indexes else "exact (?exact=1)" if self.exact
                 else f"{', '.join(self.indexes)} (approximate)")
        return {"table": self.name, "vector": self.vector_key, "doc_id": self.doc_key,
                "chunk_id": self.chunk_key or None, "distance": "cosine", "index": index}


def _table_names(db: Any) -> list[str]:
    if hasattr(db, "list_tables"):
        names: list[str] = []
        token = None
        while True:
            page = db.list_tables(page_token=token) if token else db.list_tables()
            names += list(getattr(page, "tables", page))
            token = getattr(page, "page_token", None)
            if not token:
                return names
    return list(db.table_names())


def open(spec: str, options: RetrieverOptions) -> LanceRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return LanceRetriever(parse(spec, options), options)


def load_lancedb(target: str | Path, corpus: str | Path | Sequence[Passage], embedder: str = DEFAULT_EMBEDDER, *,
                 table: str = "chunks", chunking: Chunking | None = None, recreate: bool = False,
                 batch_size: int = 256, progress: Callable[[int], None] | None = None) -> IndexResult:
    """Embed ``corpus`` (a corpus path cut by ``chunking``, or passages) and write it as a new
    ``table`` (doc_id, chunk_id, text, vector) in the LanceDB folder ``target`` (created when
    missing), the embedder recorded in the Arrow schema's metadata. The table is written in one
    commit: a failure midway leaves no table (or the old one, with ``recreate``); an existing table
    without ``recreate`` is an InputError. Returns what was written and the spec that searches it."""
    where = parse_target(str(target), "lancedb", {}, example=EXAMPLE)
    lancedb = lancedb_module()
    import pyarrow as pa

    passages = read_passages(corpus, chunking)
    model = get_embedder(embedder)
    batches = embedded(passages, model, batch_size, progress)
    schema = pa.schema([pa.field("doc_id", pa.string(), nullable=False), pa.field("chunk_id", pa.string()),
                        pa.field("text", pa.string()), pa.field("vector", pa.list_(pa.float32(), model.dim))],
                       metadata={RECORD_KEY: json.dumps(record(embedder, model), sort_keys=True)})
    tally = Tally()
    failed: list[BaseException] = []  # raised while LanceDB pulled the rows: re-raised as it was

    def rows() -> Iterator[pa.RecordBatch]:
        try:
            for kept, vectors, skipped in batches:
                tally.add(kept, skipped)
                if kept:
                    flat = pa.array(vectors.astype(np.float32).ravel(), pa.float32())
                    columns = [pa.array([getattr(p, key) for p in kept], pa.string())
                               for key in ("doc_id", "chunk_id", "text")]
                    yield pa.RecordBatch.from_arrays([*columns, pa.FixedSizeListArray.from_arrays(flat, model.dim)],
                                                     schema=schema)
        except BaseException as exc:
            failed.append(exc)
            raise

    path = Path(where.location)
    if path.exists() and not path.is_dir():
        raise InputError(f"{where.who}: not a folder", hint="name a LanceDB folder, or a new one")
    try:
        db = lancedb.connect(str(path))
        if table in _table_names(db) and not recreate:
            raise InputError(f"{where.who}: table {table!r} already exists", hint=f"{flag('recreate')} replaces it")
        db.create_table(table, data=pa.RecordBatchReader.from_batches(schema, rows()),
                        mode="overwrite" if recreate else "create")
    except RagaugeError:
        raise
    except Exception as exc:
        if failed:
            raise failed[0] from None
        raise InputError(f"{where.who}: cannot write table {table!r} ({where.hide(first_line(exc))})") from None
    return tally.result(f"lancedb:{where.shown}?table={table}", embedder, model, "none (exact search)")


ADAPTER = Adapter(
    "lancedb", ("lancedb",), open,
    "a LanceDB table on local disk (the database folder, or a NAME.lance dataset folder); exact without a vector "
    "index, ?exact=1 bypasses one",
    "lancedb:./lancedb?table=chunks", extra="lancedb",
    options=(Option("table", "the table", "chunks"), Option("exact", "1: bypass a vector index", "0"),
             Option("embedder", "the embedder the table records", "minilm")),
    index=Index(
        load_lancedb, "TARGET",
        """Embed CORPUS into a new table (doc_id, chunk_id, text, vector) of the LanceDB folder TARGET
    (created when missing), in one commit; the schema's metadata records the embedder. No vector
    index: searches are exact. Needs ragauge[lancedb].

    \b
    Example:
      ragauge index lancedb examples/helpdesk/sections.jsonl ./lancedb --embedder hash
      ragauge run golden.jsonl --retriever "lancedb:./lancedb?table=chunks" -o run.jsonl
    """, (Option("table", "Table to create.", "chunks"),)))
