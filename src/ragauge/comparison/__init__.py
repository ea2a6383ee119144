"""Fair comparison of two evaluations: per question, with intervals, tests and what got worse."""

from ragauge.comparison.compare import compare
from ragauge.comparison.result import Comparison

__all__ = ["Comparison", "compare"]
