"""What the vector-store adapters share: a spec parsed into its location and options, the embedder
record an index keeps, the retriever skeleton, and the loader's embedded batches.

A spec is ``SCHEME:LOCATION[?option=value&...]``: LOCATION is a local path, or for stores with a
server an ``http(s)://`` URL. Options come from ragauge.toml's ``[retriever.SCHEME]`` table, then
``RetrieverOptions.extra``, then the spec; an option the adapter does not know is an InputError.
Secrets in the spec (a URL's password, ``?api_key=``, ``?token=``) are found once and hidden in
everything shown: ``spec``, ``describe()`` and every error message.

The record: ``ragauge index STORE`` writes ``{"embedder": NAME, "dim": N, "format": 1}`` into the
store's own metadata (a collection's metadata, an Arrow schema's metadata, the id map's header, a
table in the SQLite file), so the retriever embeds questions with the same named embedder, and a
spec asking for another one is refused.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from ragauge.core.hashing import content_hash
from ragauge.core.numbers import COUNT, check_number
from ragauge.data.hits import Hit
from ragauge.errors import InputError, flag
from ragauge.models.embedders import DEFAULT_EMBEDDER, Embedder, canonical_name, get_embedder
from ragauge.redact import redact, url_secrets
from ragauge.retrieve.base import Retrieved, RetrieverBase, RetrieverOptions

if TYPE_CHECKING:
    import numpy as np

    from ragauge.retrieve.corpus import Chunking, Passage

RECORD_KEY = "ragauge"
RECORD_FORMAT = 1
SERVER_PREFIXES = ("http://", "https://")


@dataclass(frozen=True)
class StoreTarget:
    """A parsed spec: where the store is (``location``, secrets included, to connect with; ``shown``
    without them), the merged options, which options were set explicitly (``given``), and the
    secret values, to hide them in a library's messages."""

    scheme: str
    location: str
    shown: str
    shown_spec: str
    options: Mapping[str, str]
    given: frozenset[str] = frozenset()
    secrets: tuple[str, ...] = ()

    @property
    def server(self) -> bool:
        return self.location.startswith(SERVER_PREFIXES)

    @property
    def who(self) -> str:
        """How messages name the store: ``qdrant ./index``."""
        return f"{self.scheme} {self.shown}"

    def hide(self, text: str) -> str:
        """``text`` with this spec's secrets (and any other password, token or key) hidden."""
        return redact(text, self.secrets)


def parse_target(spec: str, scheme: str, defaults: Mapping[str, str], options: RetrieverOptions | None = None, *,
                 required: Iterable[str] = (), example: str, servers: bool = False) -> StoreTarget:
    """``spec`` (``SCHEME:LOCATION?options``, or a bare LOCATION) parsed against ``defaults`` (every
    option the adapter knows, with its default); InputError for a missing location, a URL where
    only a path will do (``servers`` False), an unknown option, or an empty ``required`` one."""
    rest = spec[len(scheme) + 1:] if spec.startswith(scheme + ":") else spec
    location, _, query = rest.partition("?")
    secrets = tuple(dict.fromkeys(url_secrets(rest)))
    shown_spec = redact(rest, secrets)
    if not location:
        raise InputError(f"{scheme}: needs a {'path or an http(s):// URL' if servers else 'path'}",
                         hint=f"e.g. {example}")
    if "://" in location and not (servers and location.startswith(SERVER_PREFIXES)):
        kind = "a local path or an http(s):// URL" if servers else "a local path"
        raise InputError(f"{scheme} reads {kind}, got {redact(location, secrets)!r}", hint=f"e.g. {example}")
    settings: dict[str, str] = {}
    config = options.config if options else {}
    section = config.get(scheme, config) if isinstance(config, Mapping) else {}
    if isinstance(section, Mapping):
        settings.update({k: str(v) for k, v in section.items() if k in defaults})
    settings.update({k: v for k, v in (options.extra if options else {}).items() if k in defaults})
    params = dict(parse_qsl(query, keep_blank_values=True))
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise InputError(f"unknown {scheme} option(s) {', '.join(unknown)} in {shown_spec!r}",
                         hint=f"known: {', '.join(sorted(defaults))}")
    settings.update(params)
    merged = {key: settings.get(key, default) for key, default in defaults.items()}
    for key in required:
        if not merged[key]:
            raise InputError(f"{scheme} option {key!r} must not be empty in {shown_spec!r}")
    return StoreTarget(scheme, location, redact(location, secrets), shown_spec, merged, frozenset(settings), secrets)


def existing_path(target: StoreTarget, path: str | Path, what: str, hint: str | None = None) -> Path:
    """``path`` when it exists; else InputError saying how to build one (libraries would create an
    empty store there and search it without complaint)."""
    found = Path(path)
    if not found.exists():
        raise InputError(f"{target.scheme}: {what} not found", where=str(found), hint=hint or (
            f"check the path, or index a corpus there: ragauge index {target.scheme} CORPUS {found}"))
    return found


def record(embedder_name: str, embedder: Embedder) -> dict[str, Any]:
    """What an index records about the vectors it holds."""
    return {"embedder": canonical_name(embedder_name), "dim": embedder.dim, "format": RECORD_FORMAT}


def read_record(value: Any) -> tuple[str | None, int | None]:
    """The embedder name and dimension of a record (a dict or its JSON text); (None, None) for
    anything else (a store built without ragauge)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None, None
    if not isinstance(value, Mapping):
        return None, None
    name, dim = value.get("embedder"), value.get("dim")
    return (name if isinstance(name, str) and name else None,
            dim if isinstance(dim, int) and not isinstance(dim, bool) and dim > 0 else None)


def choose_embedder(target: StoreTarget, recorded: str | None, stored_dim: int | None,
                    holder: str) -> tuple[Embedder, str]:
    """The embedder for questions: the one ``?embedder=`` names, else the recorded one, else
    ``minilm``; InputError when the spec and the record disagree, or when the store's vectors
    (``stored_dim``, None when unknown) have another dimension than the embedder makes."""
    asked = target.options.get("embedder") or None
    if asked and recorded and canonical_name(asked) != canonical_name(recorded):
        raise InputError(f"{target.who}: {holder} was indexed with the {recorded!r} embedder, the spec asks for "
                         f"{asked!r}", hint=f"drop ?embedder= or use embedder={recorded}")
    name = asked or recorded or DEFAULT_EMBEDDER
    embedder = get_embedder(name)
    if stored_dim is not None and stored_dim != embedder.dim:
        raise InputError(f"{target.who}: {holder} holds {stored_dim}-dimension vectors but the {name!r} embedder "
                         f"makes {embedder.dim}",
                         hint="query with the embedder the index was built with (?embedder=, e.g. hash-N for N "
                              "dimensions)")
    return embedder, canonical_name(name)


def hit(target: StoreTarget, doc_id: Any, chunk_id: Any, score: float, record_id: Any) -> Hit:
    """A Hit from a stored record's fields; InputError when the record has no document id."""
    if doc_id is None or doc_id == "":
        raise InputError(f"{target.who}: record {record_id!r} has no {target.options.get('doc_id', 'doc_id')!r} field",
                         hint="name the field holding the document id with ?doc_id=")
    return Hit(str(doc_id), None if chunk_id is None or chunk_id == "" else str(chunk_id), float(score))


class StoreRetriever(RetrieverBase):
    """The skeleton every store adapter fills in: ``nearest`` (the store's search for one embedded
    question), ``stored_ids`` (every record's document and chunk id) and ``settings`` (what
    ``describe`` adds). Questions with nothing to compare (no word the embedder knows) get no
    hits rather than a similarity of NaN."""

    def __init__(self, target: StoreTarget, embedder: Embedder, embedder_name: str) -> None:
        self.target = target
        self.spec = f"{target.scheme}:{target.shown_spec}"
        self.embedder, self.embedder_name = embedder, embedder_name

    def nearest(self, vector: np.ndarray, n: int) -> Sequence[Hit]:
        raise NotImplementedError

    def stored_ids(self) -> Iterable[tuple[Any, Any]]:
        raise NotImplementedError

    def settings(self) -> dict[str, Any]:
        return {}

    def search(self, query: str, n: int) -> Retrieved:
        vector = self.embedder.embed([query])[0]
        if n < 1 or not vector.any():
            return Retrieved(hits=())
        return Retrieved(hits=tuple(self.nearest(vector, n)))

    def describe(self) -> dict[str, Any]:
        return {"retriever": self.target.scheme, "location": self.target.shown, "embedder": self.embedder_name,
                "dim": self.embedder.dim, **self.settings()}

    def _ids(self) -> list[tuple[str, str]]:
        return sorted((str(d), "" if c is None else str(c)) for d, c in self.stored_ids() if d is not None)

    def documents(self) -> set[str]:
        return {d for d, _ in self._ids()}

    def fingerprint(self) -> str:
        """Record count and a digest of the sorted ids, with the embedder: changes when records are
        added, removed or renamed, or the embedder changes; NOT when vectors are rewritten in place."""
        ids = self._ids()
        digest = hashlib.sha256()
        for doc_id, chunk_id in ids:
            digest.update(f"{doc_id}\x1f{chunk_id}\x1e".encode())
        return content_hash({"rows": len(ids), "ids_sha256": digest.hexdigest(), "embedder": self.embedder_name,
                             "dim": self.embedder.dim})


# -- loading ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexResult:
    """What a ``load_*`` function wrote: the spec that searches it (secrets hidden), the rows
    (passages) and documents stored, passages ``skipped`` because the embedder found no word in
    them (a zero vector has no cosine to anything), the embedder, the index kind and the time."""

    spec: str
    rows: int
    documents: int
    skipped: int
    dim: int
    embedder: str
    index: str
    seconds: float


def read_passages(corpus: str | Path | Sequence[Passage], chunking: Chunking | None = None) -> list[Passage]:
    """The passages of a corpus path (JSONL, BEIR corpus.jsonl.gz or a folder, cut by ``chunking``)
    or the given passages; InputError when two passages share an id (chunk id, else doc id)."""
    from ragauge.retrieve.corpus import Chunking, chunk, read_documents

    if isinstance(corpus, (str, Path)):
        passages = chunk(read_documents(corpus), chunking or Chunking())
    else:
        if chunking is not None and chunking.size:
            raise InputError("chunking applies to a corpus path; these passages are already cut",
                             hint="pass the corpus path, or chunk the passages first")
        passages = list(corpus)
    seen: set[str] = set()
    for passage in passages:
        key = passage.chunk_id or passage.doc_id
        if key in seen:
            raise InputError(f"two passages share the id {key!r}", hint="give every passage a distinct chunk id")
        seen.add(key)
    return passages


def embedded(passages: Sequence[Passage], embedder: Embedder, batch_size: int,
             progress: Callable[[int], None] | None) -> Iterator[tuple[list[Passage], np.ndarray, int]]:
    """Batches of up to ``batch_size`` passages as (kept passages, their vectors, how many were left
    out for want of a nonzero vector: see ``IndexResult.skipped``); ``progress(k)`` after each batch
    of k passages. ``batch_size`` is checked at once, not at the first batch."""
    size = int(check_number(batch_size, flag("batch_size"), COUNT))

    def batches() -> Iterator[tuple[list[Passage], np.ndarray, int]]:
        for at in range(0, len(passages), size):
            batch = passages[at:at + size]
            vectors = embedder.embed([p.indexed_text for p in batch])
            keep = [bool(row.any()) for row in vectors]
            yield [p for p, k in zip(batch, keep) if k], vectors[keep], keep.count(False)
            if progress:
                progress(len(batch))

    return batches()


class Tally:
    """Counts what a loader stored, for its IndexResult."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.rows = self.skipped = 0
        self.docs: set[str] = set()

    def add(self, kept: Sequence[Passage], skipped: int) -> None:
        self.rows += len(kept)
        self.skipped += skipped
        self.docs.update(p.doc_id for p in kept)

    def result(self, spec: str, name: str, embedder: Embedder, index: str) -> IndexResult:
        return IndexResult(spec, self.rows, len(self.docs), self.skipped, embedder.dim, canonical_name(name), index,
                           time.perf_counter() - self.start)
