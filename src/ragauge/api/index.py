"""``index``: load a corpus into any store an adapter can fill (``Adapter.index``), one call for every
``ragauge index STORE`` command."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError, flag
from ragauge.retrieve.registry import adapter as adapter

if TYPE_CHECKING:
    from ragauge.retrieve.adapter import Adapter
    from ragauge.retrieve.corpus import Passage
    from ragauge.retrieve.stores.common import IndexResult

__all__ = ["adapter", "index", "indexable"]


def indexable() -> list[Adapter]:
    """The adapters whose store ragauge can fill, built-in ones first, then plugins."""
    from ragauge.retrieve.registry import adapters

    return [a for a in adapters() if a.index is not None]


def index(store: str, corpus: str | Path | Sequence[Passage], target: str, *, embedder: str = "minilm",
          chunk_size: int = 0, chunk_overlap: int = 0, chunk_unit: str = "words", recreate: bool = False,
          batch_size: int = 256, progress: Callable[[int, int], None] | None = None, **options: Any) -> IndexResult:
    """Embed ``corpus`` (a JSONL / BEIR corpus or a folder, cut into chunks of ``chunk_size`` words or
    characters with ``chunk_overlap``; or passages already cut) with ``embedder`` and load it into
    ``store`` (a scheme: pgvector, qdrant, chroma, lancedb, faiss, sqlite-vec or a plugin's) at
    ``target``. ``options`` are the store's own (``Adapter.index.options``, e.g. ``collection=``);
    an unknown one is an InputError. ``recreate`` replaces what exists (else that is refused).
    ``progress(done, total)`` after each batch of ``batch_size`` passages. The target and the numbers
    are checked before the corpus is read. Returns what was written and the spec that searches it."""
    from ragauge.core.numbers import COUNT, check_number
    from ragauge.retrieve.corpus import Chunking
    from ragauge.retrieve.registry import adapter
    from ragauge.retrieve.stores.common import read_passages

    found = adapter(store)
    if found.index is None:
        raise InputError(f"ragauge cannot load a corpus into {store}",
                         hint="stores it can fill: " + ", ".join(a.name for a in indexable()))
    known = {option.name for option in found.index.options}
    unknown = sorted(set(options) - known)
    if unknown:
        raise InputError(f"{store} has no index option {', '.join(unknown)}",
                         hint=f"its options: {', '.join(sorted(known)) or 'none'}")
    if found.index.check is not None:
        found.index.check(target)
    check_number(batch_size, flag("batch_size"), COUNT)
    chunking = Chunking(chunk_size, chunk_overlap, chunk_unit)
    passages = read_passages(corpus, chunking)
    total, done = len(passages), 0

    def advance(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, total)

    result: IndexResult = found.index.load(target, passages, embedder, recreate=recreate, batch_size=batch_size,
                                           progress=advance, **options)
    return result
