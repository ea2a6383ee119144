"""``run_retriever`` and ``merge_shards``: produce a run file by calling a retriever, and join the
shards of one run; the progress a caller can watch. Light to import: nothing columnar until a
function needs it (``ragauge run`` against an HTTP retriever never loads numpy)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragauge.runner.calls import Progress as Progress
from ragauge.runner.executor import terminal_progress as terminal_progress
from ragauge.runner.live import retrieve_all as retrieve_all
from ragauge.runner.live import run_retriever as run_retriever
from ragauge.runner.ray_workers import RaySetup as RaySetup

if TYPE_CHECKING:
    from ragauge.data.run import Run
    from ragauge.retrieve.base import Retriever

__all__ = ["Progress", "RaySetup", "merge_shards", "open_retriever", "retrieve_all", "run_retriever",
           "terminal_progress"]


def open_retriever(spec: str, *, timeout: float | None = None) -> Retriever:
    """Open the retriever ``spec`` (any spec ``ragauge run --retriever`` takes: ``bm25:corpus.jsonl``,
    ``http://...``, a store) for your own code, such as an agent's search tool: ``search(query, n)``
    returns a ``Retrieved`` whose ``hits`` are in rank order; ``close()`` frees it. ``timeout``
    bounds each call (seconds; default ``RetrieverOptions.timeout``)."""
    from ragauge.retrieve.registry import open_retriever as open_spec
    from ragauge.runner.live import call_options

    return open_spec(spec, call_options(timeout=timeout))


def merge_shards(paths: Sequence[str | Path], output: str | Path) -> Run:
    """Check that the files ``paths`` are the shards of one ``run --shard I/N`` (the same golden set,
    retriever, settings and index; every shard once; every question once), write their answers to
    ``output`` (atomically) and return the merged run (``runner.shards.merge_shards``)."""
    from ragauge.runner.shards import merge_shards as merge

    return merge(paths, output)
