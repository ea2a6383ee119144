"""``qdrant:PATH?collection=chunks`` (local mode) or ``qdrant:http://host:6333?collection=chunks``
(a server): nearest neighbours in a Qdrant collection, through qdrant-client (``ragauge[qdrant]``).

Options: ``collection`` (``chunks``), ``vector`` (the named vector to search, for collections with
several; empty: the collection's only one), the payload keys ``doc_id`` (``doc_id``) and
``chunk_id`` (``chunk_id``; empty for none), ``embedder`` (the name ``ragauge index qdrant``
recorded in the collection's metadata; else ``minilm``), and for a server ``api_key`` (else
$QDRANT_API_KEY) and ``exact`` (1: exact search instead of the HNSW index).

Local mode (``QdrantClient(path=...)``) keeps points in a folder and searches them exactly (brute
force in numpy); Qdrant recommends it for prototypes up to ~20,000 points. It locks the folder:
while ragauge reads it no other process can open it, and it searches in pure Python holding the
GIL, with no thread-safety promise, so ragauge calls it one question at a time
(``max_concurrency = 1``). A server is called over HTTP with no such limit. Server mode is not
tested here (no server runs in the test suite): its code path is the same client with a URL.

Scores are the collection's: cosine similarity (Cosine), dot product (Dot), or the negated
distance for Euclid and Manhattan collections, so a higher score is always better.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.data.hits import Hit
from ragauge.errors import InputError, MissingExtra, RagaugeError, ServerUnreachable, flag
from ragauge.models.embedders import DEFAULT_EMBEDDER, get_embedder
from ragauge.retrieve.adapter import Adapter, Index, Option
from ragauge.retrieve.base import RetrieverOptions, RetryableError
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

OPTIONS = {"collection": "chunks", "vector": "", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedder": "",
           "api_key": "", "exact": "0"}
EXAMPLE = "qdrant:./qdrant?collection=chunks or qdrant:http://localhost:6333?collection=chunks"
SCROLL_PAGE = 1000


def qdrant_module() -> Any:
    try:
        import qdrant_client
    except ImportError:
        raise MissingExtra("qdrant-client", "qdrant", "the qdrant retriever") from None
    return qdrant_client


def parse(spec: str, options: RetrieverOptions | None = None) -> StoreTarget:
    return parse_target(spec, "qdrant", OPTIONS, options, required=("collection", "doc_id"), example=EXAMPLE,
                        servers=True)


def classify(exc: Exception, target: StoreTarget, *, opening: bool) -> Exception:
    """A qdrant-client error as ragauge's: an InputError to fix, or a RetryableError (a server
    that is busy, failing or unreachable mid-run). Messages never hold the API key."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    text = target.hide((str(exc).strip().splitlines() or [type(exc).__name__])[0])
    if isinstance(exc, UnexpectedResponse):
        status = exc.status_code or 0
        body = target.hide(exc.content.decode("utf-8", "replace"))[:200]  # redacted first, then cut
        if status in (401, 403):
            return InputError(f"{target.who}: the server refused the API key (HTTP {status})",
                              hint="set ?api_key= or $QDRANT_API_KEY to a key for this cluster")
        if status == 429 or status >= 500:
            return RetryableError(f"{target.who}: HTTP {status} {body}")
        return InputError(f"{target.who}: HTTP {status} {body}")
    if isinstance(exc, (ResponseHandlingException, ConnectionError, TimeoutError)):
        if opening:
            return ServerUnreachable(f"{target.who}: cannot reach the server ({text})",
                              hint="is Qdrant running there? check the host and port of the URL")
        return RetryableError(f"{target.who}: {text}")
    if isinstance(exc, RuntimeError) and "already accessed" in text:
        return InputError(f"{target.who}: another process has this local Qdrant folder open",
                          hint="close it first (local mode allows one client per folder), or serve it with Qdrant")
    return InputError(f"{target.who}: {text}")


def connect(target: StoreTarget, timeout: float, *, create: bool = False) -> Any:
    """A QdrantClient for a local folder (which must exist unless ``create``) or a server URL."""
    qdrant_client = qdrant_module()
    try:
        if target.server:
            import warnings

            api_key = target.options["api_key"] or os.environ.get("QDRANT_API_KEY") or None
            with warnings.catch_warnings(record=True) as caught:  # the client's own warning names its source file
                warnings.simplefilter("always")
                client = qdrant_client.QdrantClient(url=target.location, api_key=api_key,
                                                    timeout=max(1, round(timeout)), check_compatibility=False)
            if any("insecure connection" in str(w.message) for w in caught):
                sys.stderr.write(f"NOTE: {target.who}: the API key is sent over plain http, readable on the way; "
                                 "use an https:// URL\n")
            return client
        path = Path(target.location)
        if not create:
            existing_path(target, path, "local Qdrant folder")
        if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not (path / "meta.json").exists())):
            raise InputError(f"{target.who}: not a local Qdrant folder (no meta.json in it)",
                             hint="name the folder QdrantClient(path=...) writes, or a new one")
        return qdrant_client.QdrantClient(path=str(path))
    except RagaugeError:
        raise
    except Exception as exc:
        raise classify(exc, target, opening=True) from None


def collection_info(client: Any, target: StoreTarget) -> Any:
    name = target.options["collection"]
    try:
        if not client.collection_exists(name):
            known = sorted(c.name for c in client.get_collections().collections)
            raise InputError(f"{target.who}: no collection {name!r}",
                             hint=f"its collections: {', '.join(known) or 'none'}; name one with ?collection=, or "
                                  f"load one: ragauge index qdrant CORPUS {target.shown} --collection {name}")
        return client.get_collection(name)
    except RagaugeError:
        raise
    except Exception as exc:
        raise classify(exc, target, opening=True) from None


class QdrantRetriever(StoreRetriever):
    """Nearest neighbours in one Qdrant collection (see the module docstring)."""

    max_concurrency: int  # set for local mode only

    def __init__(self, target: StoreTarget, options: RetrieverOptions) -> None:
        self.client = connect(target, options.timeout)
        try:
            self._setup(target)
        except BaseException:
            self.client.close()
            raise

    def _setup(self, target: StoreTarget) -> None:
        info = collection_info(self.client, target)
        self.collection = target.options["collection"]
        vectors = info.config.params.vectors
        name = target.options["vector"]
        if isinstance(vectors, dict):
            if not name and len(vectors) == 1:
                name = next(iter(vectors))
            if name not in vectors:
                raise InputError(f"{target.who}: collection {self.collection!r} has no vector {name!r}"
                                 if name else f"{target.who}: collection {self.collection!r} has several vectors",
                                 hint=f"name one with ?vector=: {', '.join(sorted(vectors))}")
            params = vectors[name]
        elif vectors is None:
            raise InputError(f"{target.who}: collection {self.collection!r} has no dense vectors")
        elif name:
            raise InputError(f"{target.who}: collection {self.collection!r} has one unnamed vector, not {name!r}",
                             hint="drop ?vector=")
        else:
            params = vectors
        self.vector_name: str | None = name or None
        self.distance = str(getattr(params.distance, "value", params.distance))
        metadata = info.config.metadata or {}
        recorded, _ = read_record(metadata.get(RECORD_KEY) if isinstance(metadata, dict) else None)
        embedder, embedder_name = choose_embedder(target, recorded, int(params.size), f"collection {self.collection!r}")
        super().__init__(target, embedder, embedder_name)
        self.doc_key, self.chunk_key = target.options["doc_id"], target.options["chunk_id"]
        self.points = info.points_count
        self._check_payload()
        self.exact = target.options["exact"] not in ("", "0", "false")
        if not target.server:  # a server has no limit: the executor's --concurrency applies
            self.max_concurrency = 1

    def _check_payload(self) -> None:
        try:
            points = self.client.scroll(self.collection, limit=1, with_payload=True, with_vectors=False)[0]
        except Exception as exc:
            raise classify(exc, self.target, opening=True) from None
        payload = (points[0].payload or {}) if points else None
        if payload is None:
            return
        keys = sorted(payload)
        for role, key in (("doc_id", self.doc_key), ("chunk_id", self.chunk_key)):
            if key and key not in payload and (role == "doc_id" or "chunk_id" in self.target.given):
                raise InputError(f"{self.target.who}: points of collection {self.collection!r} have no payload key "
                                 f"{key!r} (for {role})",
                                 hint=f"their keys: {', '.join(keys) or 'none'}; name yours with ?{role}=")
        if self.chunk_key and self.chunk_key not in payload:
            self.chunk_key = ""  # the default key is optional: hits are then whole documents

    def nearest(self, vector: np.ndarray, n: int) -> Sequence[Hit]:
        from qdrant_client import models

        keys = [k for k in (self.doc_key, self.chunk_key) if k]
        try:
            found = self.client.query_points(self.collection, query=vector.tolist(), using=self.vector_name, limit=n,
                                             with_payload=keys, with_vectors=False,
                                             search_params=models.SearchParams(exact=True) if self.exact else None)
        except Exception as exc:
            raise classify(exc, self.target, opening=False) from None
        sign = -1.0 if self.distance in ("Euclid", "Manhattan") else 1.0
        return [hit(self.target, (p.payload or {}).get(self.doc_key), (p.payload or {}).get(self.chunk_key)
                    if self.chunk_key else None, sign * p.score, p.id) for p in found.points]

    def stored_ids(self) -> Iterator[tuple[Any, Any]]:
        keys = [k for k in (self.doc_key, self.chunk_key) if k]
        offset = None
        while True:
            try:
                points, offset = self.client.scroll(self.collection, limit=SCROLL_PAGE, offset=offset,
                                                    with_payload=keys, with_vectors=False)
            except Exception as exc:
                raise classify(exc, self.target, opening=False) from None
            for point in points:
                payload = point.payload or {}
                yield payload.get(self.doc_key), payload.get(self.chunk_key) if self.chunk_key else None
            if offset is None:
                return

    def settings(self) -> dict[str, Any]:
        mode = "server" if self.target.server else "local"
        index = ("exact (local mode)" if mode == "local"
                 else "exact (?exact=1)" if self.exact else "the server's HNSW index (approximate)")
        return {"mode": mode, "collection": self.collection, "vector": self.vector_name, "doc_id": self.doc_key,
                "chunk_id": self.chunk_key or None, "distance": self.distance, "index": index}

    def close(self) -> None:
        self.client.close()


def open(spec: str, options: RetrieverOptions) -> QdrantRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return QdrantRetriever(parse(spec, options), options)


def load_qdrant(target: str, corpus: str | Path | Sequence[Passage], embedder: str = DEFAULT_EMBEDDER, *,
                collection: str = "chunks", chunking: Chunking | None = None, recreate: bool = False,
                batch_size: int = 256, progress: Callable[[int], None] | None = None) -> IndexResult:
    """Embed ``corpus`` (a corpus path cut by ``chunking``, or passages) and load it into a new
    cosine ``collection`` (payload: doc_id, chunk_id, text) at ``target``, a local folder (created
    when missing) or a server URL (``?api_key=`` or $QDRANT_API_KEY), recording the embedder in the
    collection's metadata.
    ``recreate`` replaces an existing collection (else that is an InputError); a failure midway
    deletes the half-built collection. Returns what was written and the spec that searches it."""
    where = parse_target(target, "qdrant", {"api_key": ""}, example=EXAMPLE, servers=True)
    passages = read_passages(corpus, chunking)
    model = get_embedder(embedder)
    batches = embedded(passages, model, batch_size, progress)
    from qdrant_client import models

    client = connect(where, 60.0, create=True)
    tally = Tally()
    try:
        try:
            if client.collection_exists(collection):
                if not recreate:
                    raise InputError(f"{where.who}: collection {collection!r} already exists",
                                     hint=f"{flag('recreate')} replaces it")
                client.delete_collection(collection)
            client.create_collection(collection, vectors_config=models.VectorParams(
                size=model.dim, distance=models.Distance.COSINE), metadata={RECORD_KEY: record(embedder, model)})
        except RagaugeError:
            raise
        except Exception as exc:
            raise classify(exc, where, opening=True) from None
        try:
            for kept, vectors, skipped in batches:
                if kept:
                    payloads = [{"doc_id": p.doc_id, "chunk_id": p.chunk_id, "text": p.text} for p in kept]
                    client.upsert(collection, points=models.Batch(
                        ids=list(range(tally.rows, tally.rows + len(kept))), vectors=vectors.tolist(),
                        payloads=payloads), wait=True)
                tally.add(kept, skipped)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                client.delete_collection(collection)
            if isinstance(exc, Exception) and not isinstance(exc, RagaugeError):
                raise classify(exc, where, opening=True) from None
            raise
    finally:
        client.close()
    index = "exact search (local mode)" if not where.server else "the server's HNSW index"
    return tally.result(f"qdrant:{where.shown}?collection={collection}", embedder, model, index)


ADAPTER = Adapter(
    "qdrant", ("qdrant",), open,
    "a Qdrant collection: a local-mode folder (exact search) or a server URL (?api_key= or $QDRANT_API_KEY); payload "
    "keys doc_id and chunk_id",
    "qdrant:./qdrant?collection=chunks", extra="qdrant",
    options=(Option("collection", "the collection", "chunks"), Option("vector", "a named vector"),
             Option("embedder", "the embedder the collection records", "minilm")),
    index=Index(
        load_qdrant, "TARGET",
        """Embed CORPUS into a new cosine Qdrant collection at TARGET: a folder (Qdrant's local mode,
    created when missing) or a server URL (API key in $QDRANT_API_KEY or ?api_key=). Points carry
    doc_id, chunk_id and text; the collection's metadata records the embedder. Needs ragauge[qdrant].

    \b
    Example:
      ragauge index qdrant examples/helpdesk/sections.jsonl ./qdrant --embedder hash
      ragauge run golden.jsonl --retriever "qdrant:./qdrant?collection=chunks" -o run.jsonl
    """, (Option("collection", "Collection to create.", "chunks"),)))
