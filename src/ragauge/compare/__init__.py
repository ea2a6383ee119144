"""Fair comparison of two evaluations: per question, with intervals, tests and what got worse."""

from ragauge.compare.compare import compare
from ragauge.compare.result import Comparison

__all__ = ["Comparison", "compare"]
