"""``chroma:PATH?collection=chunks`` (a PersistentClient folder) or ``chroma:http://host:8000?collection=chunks``
(a server, through HttpClient): nearest neighbours in a Chroma collection (``ragauge[chroma]``).

Options: ``collection`` (``chunks``), the metadata keys ``doc_id`` (``doc_id``) and ``chunk_id``
(``chunk_id``; empty for none), ``embedder`` (the name ``ragauge index chroma`` recorded in the
collection's metadata; else ``minilm``), and for a server ``token`` (sent as the
``X-Chroma-Token`` header), ``tenant`` and ``database``. Telemetry is switched off.

Chroma searches an HNSW index (approximate, ``ef_search`` 100 by default; a search for more
results than that widens it to n). Scores: ``1 - distance`` for the cosine and inner-product spaces
(cosine similarity, dot product), the negated squared distance for ``l2``. A local client's
searches are thread-safe (Chroma's maintainers: internal locking) but do not run in parallel:
400 searches took 0.34 s on one thread and 0.41 s on four, so ragauge calls it one question at a
time (``max_concurrency = 1``) and its latencies are not inflated by queueing. A server has no
such limit. Server mode is not tested here (no server runs in the test suite).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

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

OPTIONS = {"collection": "chunks", "doc_id": "doc_id", "chunk_id": "chunk_id", "embedder": "", "token": "",
           "tenant": "", "database": ""}
SERVER_OPTIONS = {"token": "", "tenant": "", "database": ""}
EXAMPLE = "chroma:./chroma?collection=chunks or chroma:http://localhost:8000?collection=chunks"
PAGE = 1000


def chroma_module() -> Any:
    try:
        import chromadb
    except ImportError:
        raise MissingExtra("chromadb", "chroma", "the chroma retriever") from None
    return chromadb


def parse(spec: str, options: RetrieverOptions | None = None) -> StoreTarget:
    return parse_target(spec, "chroma", OPTIONS, options, required=("collection", "doc_id"), example=EXAMPLE,
                        servers=True)


def classify(exc: Exception, target: StoreTarget, *, opening: bool) -> Exception:
    """A chromadb error as ragauge's: an InputError to fix, or a RetryableError for a server that
    is busy or unreachable mid-run. Messages never hold the token."""
    from chromadb import errors

    text = target.hide((str(exc).strip().splitlines() or [type(exc).__name__])[0])
    if isinstance(exc, (errors.ChromaAuthError, errors.AuthorizationError)):
        return InputError(f"{target.who}: the server refused the token ({text})",
                          hint="set ?token= to a token for this server")
    if isinstance(exc, (errors.RateLimitError, errors.InternalError)):
        return RetryableError(f"{target.who}: {text}")
    unreachable = "could not connect" in text.lower()  # HttpClient's own check, a ValueError
    if unreachable or type(exc).__module__.startswith("httpx") or isinstance(exc, (ConnectionError, TimeoutError)):
        if opening:
            return ServerUnreachable(f"{target.who}: cannot reach the server ({text})",
                              hint="is Chroma running there? check the host and port of the URL")
        return RetryableError(f"{target.who}: {text}")
    if "already exists" in text and "different settings" in text:
        return InputError(f"{target.who}: this process already opened the folder with other Chroma settings",
                          hint="ragauge opens it with anonymized_telemetry=False; use the same settings in your code")
    return InputError(f"{target.who}: {text}")


def connect(target: StoreTarget, *, create: bool = False) -> Any:
    """A Chroma client for a local folder (which must exist unless ``create``) or a server URL."""
    chromadb = chroma_module()
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False)
    try:
        if target.server:
            url = urlsplit(target.location)
            ssl = url.scheme == "https"
            headers = {"X-Chroma-Token": target.options["token"]} if target.options["token"] else None
            extra = {k: target.options[k] for k in ("tenant", "database") if target.options[k]}
            return chromadb.HttpClient(host=url.hostname or "localhost", port=url.port or (443 if ssl else 8000),
                                       ssl=ssl, headers=headers, settings=settings, **extra)
        path = Path(target.location)
        if not create:
            existing_path(target, path, "Chroma folder")
        if path.exists() and (not path.is_dir() or (any(path.iterdir()) and not (path / "chroma.sqlite3").exists())):
            raise InputError(f"{target.who}: not a Chroma folder (no chroma.sqlite3 in it)",
                             hint="name the folder PersistentClient(path=...) writes, or a new one")
        return chromadb.PersistentClient(path=str(path), settings=settings)
    except RagaugeError:
        raise
    except Exception as exc:
        raise classify(exc, target, opening=True) from None


def space_of(collection: Any) -> str:
    """The collection's distance space: its configuration's, else the legacy ``hnsw:space``
    metadata, else Chroma's default (l2)."""
    config = getattr(collection, "configuration_json", None) or {}  # .configuration warns for embedding_function=None
    hnsw = config.get("hnsw") if isinstance(config, dict) else None
    space = (hnsw or {}).get("space") if isinstance(hnsw, dict) else None
    space = space or (collection.metadata or {}).get("hnsw:space") or "l2"
    return str(getattr(space, "value", space))


class ChromaRetriever(StoreRetriever):
    """Nearest neighbours in one Chroma collection (see the module docstring)."""

    max_concurrency: int  # set for a local folder only

    def __init__(self, target: StoreTarget, options: RetrieverOptions) -> None:
        self.client = connect(target)
        name = target.options["collection"]
        try:
            known = sorted(str(getattr(c, "name", c)) for c in self.client.list_collections())
            if name not in known:
                raise InputError(f"{target.who}: no collection {name!r}",
                                 hint=f"its collections: {', '.join(known) or 'none'}; name one with ?collection=, "
                                      f"or load one: ragauge index chroma CORPUS {target.shown} --collection {name}")
            self.collection = self.client.get_collection(name, embedding_function=None)
            sample = self.collection.get(limit=1, include=["embeddings", "metadatas"])
        except RagaugeError:
            raise
        except Exception as exc:
            raise classify(exc, target, opening=True) from None
        self.space = space_of(self.collection)
        embeddings = sample.get("embeddings")
        dim = len(embeddings[0]) if embeddings is not None and len(embeddings) else None
        recorded, _ = read_record((self.collection.metadata or {}).get(RECORD_KEY))
        embedder, embedder_name = choose_embedder(target, recorded, dim, f"collection {name!r}")
        super().__init__(target, embedder, embedder_name)
        self.doc_key, self.chunk_key = target.options["doc_id"], target.options["chunk_id"]
        metadatas = sample.get("metadatas") or []
        if metadatas:
            keys = sorted(metadatas[0] or {})
            for role, key in (("doc_id", self.doc_key), ("chunk_id", self.chunk_key)):
                if key and key not in keys and (role == "doc_id" or "chunk_id" in target.given):
                    raise InputError(f"{target.who}: records of collection {name!r} have no metadata key {key!r} "
                                     f"(for {role})", hint=f"their keys: {', '.join(keys) or 'none'}; name yours "
                                                           f"with ?{role}=")
            if self.chunk_key and self.chunk_key not in keys:
                self.chunk_key = ""  # the default key is optional: hits are then whole documents
        if not target.server:
            self.max_concurrency = 1

    def nearest(self, vector: np.ndarray, n: int) -> Sequence[Hit]:
        try:
            found = self.collection.query(query_embeddings=[vector], n_results=n, include=["metadatas", "distances"])
        except Exception as exc:
            raise classify(exc, self.target, opening=False) from None
        ids, metadatas, distances = found["ids"][0], (found["metadatas"] or [[]])[0], (found["distances"] or [[]])[0]
        hits = []
        for record_id, meta, distance in zip(ids, metadatas, distances):
            meta = meta or {}
            score = -distance if self.space == "l2" else 1.0 - distance
            hits.append(hit(self.target, meta.get(self.doc_key), meta.get(self.chunk_key) if self.chunk_key else None,
                            score, record_id))
        return hits

    def stored_ids(self) -> Iterator[tuple[Any, Any]]:
        offset = 0
        while True:
            try:
                page = self.collection.get(limit=PAGE, offset=offset, include=["metadatas"])
            except Exception as exc:
                raise classify(exc, self.target, opening=False) from None
            for meta in page.get("metadatas") or []:
                meta = meta or {}
                yield meta.get(self.doc_key), meta.get(self.chunk_key) if self.chunk_key else None
            if len(page["ids"]) < PAGE:
                return
            offset += PAGE

    def settings(self) -> dict[str, Any]:
        return {"mode": "server" if self.target.server else "local", "collection": self.collection.name,
                "doc_id": self.doc_key, "chunk_id": self.chunk_key or None, "distance": self.space,
                "index": "HNSW (approximate)"}


def open(spec: str, options: RetrieverOptions) -> ChromaRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring)."""
    return ChromaRetriever(parse(spec, options), options)


def load_chroma(target: str, corpus: str | Path | Sequence[Passage], embedder: str = DEFAULT_EMBEDDER, *,
                collection: str = "chunks", chunking: Chunking | None = None, recreate: bool = False,
                batch_size: int = 256, progress: Callable[[int], None] | None = None) -> IndexResult:
    """Embed ``corpus`` (a corpus path cut by ``chunking``, or passages) and load it into a new
    cosine ``collection`` at ``target``, a local folder (created when missing) or a server URL
    (``?token=&tenant=&database=``): record ids are the chunk ids (else the doc ids), metadata
    doc_id and chunk_id, the text as the document, and the embedder in the collection's metadata.
    ``recreate`` replaces an existing collection (else that is an InputError); a failure midway
    deletes the half-built collection. Returns what was written and the spec that searches it."""
    where = parse_target(target, "chroma", SERVER_OPTIONS, example=EXAMPLE, servers=True)
    passages = read_passages(corpus, chunking)
    model = get_embedder(embedder)
    batches = embedded(passages, model, batch_size, progress)
    client = connect(where, create=True)
    tally = Tally()
    try:
        if collection in [str(getattr(c, "name", c)) for c in client.list_collections()]:
            if not recreate:
                raise InputError(f"{where.who}: collection {collection!r} already exists",
                                 hint=f"{flag('recreate')} replaces it")
            client.delete_collection(collection)
        made = client.create_collection(collection, metadata={RECORD_KEY: _flat(record(embedder, model))},
                                        configuration={"hnsw": {"space": "cosine"}}, embedding_function=None)
    except RagaugeError:
        raise
    except Exception as exc:
        raise classify(exc, where, opening=True) from None
    try:
        most = max(1, int(client.get_max_batch_size()))
        for kept, vectors, skipped in batches:
            for at in range(0, len(kept), most):
                part = kept[at:at + most]
                made.add(ids=[p.chunk_id or p.doc_id for p in part], embeddings=vectors[at:at + most],
                         metadatas=[{"doc_id": p.doc_id, **({"chunk_id": p.chunk_id} if p.chunk_id else {})}
                                    for p in part], documents=[p.text for p in part])
            tally.add(kept, skipped)
    except BaseException as exc:
        with contextlib.suppress(Exception):
            client.delete_collection(collection)
        if isinstance(exc, Exception) and not isinstance(exc, RagaugeError):
            raise classify(exc, where, opening=True) from None
        raise
    return tally.result(f"chroma:{where.shown}?collection={collection}", embedder, model,
                        "HNSW (approximate, cosine)")


def _flat(value: dict[str, Any]) -> str:
    """Chroma metadata values are scalars: the record is kept as its JSON text."""
    import json

    return json.dumps(value, sort_keys=True)


ADAPTER = Adapter(
    "chroma", ("chroma",), open,
    "a Chroma collection: a PersistentClient folder or a server URL (?token=); metadata keys doc_id and chunk_id; "
    "HNSW (approximate)",
    "chroma:./chroma?collection=chunks", extra="chroma",
    options=(Option("collection", "the collection", "chunks"),
             Option("embedder", "the embedder the collection records", "minilm")),
    index=Index(
        load_chroma, "TARGET",
        """Embed CORPUS into a new cosine Chroma collection at TARGET: a PersistentClient folder
    (created when missing) or a server URL (?token=&tenant=&database=). Record ids are the chunk
    ids (else doc ids), metadata doc_id and chunk_id; the collection's metadata records the
    embedder. Needs ragauge[chroma].

    \b
    Example:
      ragauge index chroma examples/helpdesk/sections.jsonl ./chroma --embedder hash
      ragauge run golden.jsonl --retriever "chroma:./chroma?collection=chunks" -o run.jsonl
    """, (Option("collection", "Collection to create.", "chunks"),)))
