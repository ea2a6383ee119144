"""``compare`` two runs (or two retrievers), fixed-n or sequential, and ``power``: what a golden set
of this size can detect."""

from __future__ import annotations

from ragauge.comparison.compare import compare as compare
from ragauge.comparison.power import power as power
from ragauge.comparison.sequential import compare_sequential as compare_sequential

__all__ = ["compare", "compare_sequential", "power"]
