"""``faiss:INDEX_FILE?ids=ID_MAP``: nearest neighbours in a FAISS index file (``ragauge[faiss]``, faiss-cpu).

FAISS stores vectors and integer ids only, so the document ids come from an id map file
(``ids``; default: the index path with the suffix ``.ids.jsonl``, e.g. ``chunks.faiss`` ->
``chunks.ids.jsonl``):

- JSONL: one object per vector, ``{"doc_id": ..., "chunk_id": ...}`` (chunk_id optional), in the
  order the vectors were added (FAISS numbers them 0, 1, ...), or each with its ``"faiss_id"``
  (for an ``IndexIDMap``); an optional first line ``{"ragauge": {"embedder": ..., "dim": ...}}``
  is the record ``ragauge index faiss`` writes.
- JSON: a list of doc-id strings (or of such objects) in the same order, or
  ``{"ragauge": {...}, "ids": [...]}``.

Option ``embedder``: the name to embed questions with (else the recorded one, else ``minilm``).
Pickled id maps (LangChain's ``index.pkl``) are never read: unpickling runs code.

Scores: the inner product for an inner-product index (cosine for the unit vectors ragauge's
embedders make), the negated distance for L2 and other distance metrics. A flat index (``IndexFlat*``)
searches exactly; IVF, HNSW and PQ indexes approximately, with the parameters saved in the file
(``describe()["index"]`` names the class). FAISS CPU indexes are thread-safe for concurrent
searches (FAISS wiki, "Threads and asynchronous calls") and release the GIL, so no concurrency
limit is set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.core.files import atomic_writer
from ragauge.core.jsonl import dumps, read_json, read_jsonl
from ragauge.data.hits import Hit
from ragauge.errors import InputError, MissingExtra, flag, where
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

OPTIONS = {"ids": "", "embedder": ""}
EXAMPLE = "faiss:chunks.faiss?ids=chunks.ids.jsonl"
HNSW_FROM = 100_000


def faiss_module() -> Any:
    try:
        import faiss
    except ImportError:
        raise MissingExtra("faiss-cpu", "faiss", "the faiss retriever") from None
    return faiss


def parse(spec: str, options: RetrieverOptions | None = None) -> StoreTarget:
    return parse_target(spec, "faiss", OPTIONS, options, example=EXAMPLE)


def ids_path(index: str | Path, ids: str = "") -> Path:
    """The id map's path: ``ids``, else the index path with the suffix ``.ids.jsonl``."""
    return Path(ids) if ids else Path(index).with_suffix(".ids.jsonl")


def _entry(value: Any, place: str) -> tuple[str, str | None, int | None]:
    if isinstance(value, str) and value:
        return value, None, None
    if isinstance(value, dict) and value.get("doc_id") not in (None, ""):
        chunk, number = value.get("chunk_id"), value.get("faiss_id")
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
            raise InputError(f"faiss_id must be an integer, got {number!r}", where=place)
        return str(value["doc_id"]), None if chunk in (None, "") else str(chunk), number
    raise InputError("an id map entry must be a doc id string or an object with 'doc_id'", where=place,
                     hint='e.g. {"doc_id": "doc-1", "chunk_id": "doc-1#0"}')


def read_id_map(path: Path) -> tuple[dict[int, tuple[str, str | None]], Any]:
    """FAISS id -> (doc id, chunk id), and the record (None when absent); InputError naming the
    file and line for a malformed entry, a repeated id, or ids given for some entries only."""
    entries: list[tuple[str, str | None, int | None]] = []
    header: Any = None
    if path.suffix == ".json":
        data = read_json(path, what="id map")
        if isinstance(data, dict):
            header, data = data.get(RECORD_KEY), data.get("ids")
        if not isinstance(data, list):
            raise InputError("the id map must be a JSON list of doc ids (or {\"ids\": [...]})", where=str(path))
        entries = [_entry(value, f"{path} (entry {i + 1})") for i, value in enumerate(data)]
    else:
        for number, obj in read_jsonl(path, what="id map"):
            if not entries and header is None and RECORD_KEY in obj and "doc_id" not in obj:
                header = obj[RECORD_KEY]
                continue
            entries.append(_entry(obj, where(path, number)))
    numbered = [e[2] is not None for e in entries]
    if any(numbered) and not all(numbered):
        raise InputError("some id map entries have a faiss_id and some do not", where=str(path),
                         hint="give every entry its faiss_id, or none (entries in the order the vectors were added)")
    mapping = {e[2] if e[2] is not None else i: (e[0], e[1]) for i, e in enumerate(entries)}
    if len(mapping) < len(entries):
        raise InputError("the id map repeats a faiss_id", where=str(path))
    return mapping, header


class FaissRetriever(StoreRetriever):
    """Nearest neighbours in a FAISS index read from a file (see the module docstring)."""

    def __init__(self, target: StoreTarget, options: RetrieverOptions) -> None:
        faiss = faiss_module()
        path = existing_path(target, target.location, "index file")
        if not path.is_file():
            raise InputError(f"{target.who}: not a file", hint=f"name the FAISS index file, e.g. {EXAMPLE}")
        try:
            self.index = faiss.read_index(str(path))
        except RuntimeError as exc:
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            raise InputError(f"{target.who}: not a FAISS index ({reason[-160:]})",
                             hint="name a file written by faiss.write_index") from None
        id_file = existing_path(target, ids_path(path, target.options["ids"]), "id map (?ids=)",
                                hint="name the id map written with the index: ?ids=FILE (JSONL or JSON)")
        self.ids, header = read_id_map(id_file)
        self.id_file = str(id_file)
        if len(self.ids) != self.index.ntotal:
            raise InputError(f"{target.who}: the index holds {self.index.ntotal} vectors but the id map "
                             f"{id_file} has {len(self.ids)} entries",
                             hint="write the id map with the index, one entry per vector in the order they were added")
        inner = faiss.downcast_index(self.index)
        own = getattr(inner, "id_map", None)  # an IndexIDMap's ids; else vectors are numbered 0, 1, ...
        expected = set(faiss.vector_to_array(own).tolist()) if own is not None else set(range(self.index.ntotal))
        if set(self.ids) != expected:
            raise InputError(f"{target.who}: the id map {id_file} does not hold the ids the index holds",
                             hint="give each entry the faiss_id it was added with (IndexIDMap), or none when the "
                                  "vectors were added in order")
        recorded, _ = read_record(header)
        embedder, embedder_name = choose_embedder(target, recorded, int(self.index.d), "the index")
        super().__init__(target, embedder, embedder_name)
        self.metric = int(self.index.metric_type)
        self.similarity = bool(faiss.is_similarity_metric(self.metric))
        self.kind = type(inner).__name__
        core = faiss.downcast_index(inner.index) if own is not None else inner
        self.exact = type(core).__name__.startswith("IndexFlat")

    def nearest(self, vector: np.ndarray, n: int) -> Sequence[Hit]:
        scores, numbers = self.index.search(np.ascontiguousarray(vector[None, :], dtype=np.float32), n)
        hits = []
        for score, number in zip(scores[0].tolist(), numbers[0].tolist()):
            if number < 0:  # fewer than n vectors
                continue
            found = self.ids.get(number)
            if found is None:
                raise InputError(f"{self.target.who}: the index returned id {number}, which the id map "
                                 f"{self.id_file} does not hold", hint="write the id map with the index")
            hits.append(hit(self.target, found[0], found[1], score if self.similarity else -score, number))
        return hits

    def stored_ids(self) -> Iterator[tuple[Any, Any]]:
        return iter(self.ids.values())

    def settings(self) -> dict[str, Any]:
        return {"ids": self.target.hide(self.id_file),
                "index": f"{self.kind} ({'exact' if self.exact else 'approximate'})",
                "metric": {0: "inner product", 1: "L2"}.get(self.metric, f"faiss metric {self.metric}"),
                "vectors": int(self.index.ntotal)}


def open(spec: str, options: RetrieverOptions) -> FaissRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return FaissRetriever(parse(spec, options), options)


def load_faiss(target: str | Path, corpus: str | Path | Sequence[Passage], embedder: str = DEFAULT_EMBEDDER, *,
               ids: str | Path | None = None, index: str = "auto", chunking: Chunking | None = None,
               recreate: bool = False, batch_size: int = 256,
               progress: Callable[[int], None] | None = None) -> IndexResult:
    """Embed ``corpus`` (a corpus path cut by ``chunking``, or passages) into a new inner-product
    FAISS index written to ``target``, and its id map (JSONL, the record first) to ``ids`` (default:
    see ``ids_path``). ``index``: "none" (``IndexFlatIP``, exact), "hnsw" (``IndexHNSWFlat``, M=32,
    approximate) or "auto" (HNSW from 100,000 vectors). Both files are written whole and renamed
    into place; existing files without ``recreate`` are an InputError. Returns what was written
    and the spec that searches it."""
    if index not in ("auto", "hnsw", "none"):
        raise InputError(f"index must be auto, hnsw or none, got {index!r}")
    place = parse_target(str(target), "faiss", {}, example=EXAMPLE)
    faiss = faiss_module()
    path, id_file = Path(place.location), ids_path(place.location, str(ids or ""))
    for existing in (path, id_file):
        if existing.exists() and not recreate:
            raise InputError(f"faiss: {existing} already exists", hint=f"{flag('recreate')} replaces it")
    passages = read_passages(corpus, chunking)
    model = get_embedder(embedder)
    kept_all: list[Passage] = []
    vectors_all: list[np.ndarray] = []
    tally = Tally()
    for kept, vectors, skipped in embedded(passages, model, batch_size, progress):
        kept_all += kept
        vectors_all.append(vectors.astype(np.float32))
        tally.add(kept, skipped)
    matrix = np.concatenate(vectors_all) if vectors_all else np.zeros((0, model.dim), np.float32)
    built = "hnsw" if index == "hnsw" or (index == "auto" and len(matrix) >= HNSW_FROM) else "none"
    made = (faiss.IndexHNSWFlat(model.dim, 32, faiss.METRIC_INNER_PRODUCT) if built == "hnsw"
            else faiss.IndexFlatIP(model.dim))
    if len(matrix):
        made.add(matrix)
    with atomic_writer(id_file, what="id map") as fh:
        fh.write(dumps({RECORD_KEY: record(embedder, model)}) + "\n")
        for passage in kept_all:
            fh.write(dumps({"doc_id": passage.doc_id, **({"chunk_id": passage.chunk_id} if passage.chunk_id else {})})
                     + "\n")
        with atomic_writer(path, what="index", mode="wb") as out:
            out.write(faiss.serialize_index(made).tobytes())
    spec = f"faiss:{place.shown}" + ("" if id_file == ids_path(path) else f"?ids={id_file}")
    kind = "IndexHNSWFlat (approximate)" if built == "hnsw" else "IndexFlatIP (exact search)"
    return tally.result(spec, embedder, model, kind)


ADAPTER = Adapter(
    "faiss", ("faiss",), open,
    'a FAISS index file and its id map (JSONL {"doc_id", "chunk_id"} per vector, or a JSON list of doc ids)',
    "faiss:chunks.faiss?ids=chunks.ids.jsonl", extra="faiss",
    options=(Option("ids", "the id map; default INDEX.ids.jsonl"),
             Option("embedder", "the embedder the id map records", "minilm")),
    index=Index(
        load_faiss, "INDEX_FILE",
        """Embed CORPUS into a new inner-product FAISS index written to INDEX_FILE, with an id map
    (doc_id, chunk_id per vector, the embedder on its first line). Needs ragauge[faiss].

    \b
    Example:
      ragauge index faiss examples/helpdesk/sections.jsonl chunks.faiss --embedder hash
      ragauge run golden.jsonl --retriever faiss:chunks.faiss -o run.jsonl
    """, (Option("ids", "Id map to write (JSONL); default: INDEX_FILE with the suffix .ids.jsonl."),
          Option("index", "HNSW (approximate) or none (IndexFlatIP, exact); auto: HNSW from 100,000 vectors.", "auto",
                 ("auto", "hnsw", "none")))))
