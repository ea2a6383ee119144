"""Statistics for comparing runs: paired tests with the intervals that invert them, power, multiple testing.

The defaults every test and power figure starts from, and the seed of every random draw, live here, light to
import (the CLI shows them in ``--help``)."""

DEFAULT_ALPHA = 0.05
"""The significance level of every test and interval unless a caller gives another (95% intervals)."""
DEFAULT_POWER = 0.8
"""The chance of detecting an effect that the MDE and the questions needed are computed for."""
DEFAULT_CORRELATION = 0.5
"""With one run: the per-question correlation assumed between the two runs a comparison will pair."""
DEFAULT_SEED = 0
"""The seed of every random draw a caller does not seed: the question order of a sequential comparison and
gate, the sections ``golden draft`` samples. The same inputs and seed give the same draw."""
SEQUENTIAL_METRIC = "ndcg@10"
"""The metric a sequential comparison decides on unless a caller names another."""
