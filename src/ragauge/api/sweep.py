"""``sweep`` a grid of retriever settings with an honest winner, and ``read_sweep`` a saved one."""

from __future__ import annotations

from ragauge.experiments.sweep import read_sweep as read_sweep
from ragauge.experiments.sweep import sweep as sweep

__all__ = ["read_sweep", "sweep"]
