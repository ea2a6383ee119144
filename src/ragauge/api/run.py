"""``run_retriever`` and ``merge_shards``: produce a run file by calling a retriever, and join the
shards of one run."""

from __future__ import annotations

from ragauge.runner.live import run_retriever as run_retriever
from ragauge.runner.shards import merge_shards as merge_shards

__all__ = ["merge_shards", "run_retriever"]
