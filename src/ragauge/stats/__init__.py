"""Statistics for comparing runs: paired tests with the intervals that invert them, power, multiple testing.

The defaults every test and power figure starts from live here, light to import (the CLI shows them in
``--help``)."""

DEFAULT_ALPHA = 0.05
"""The significance level of every test and interval unless a caller gives another (95% intervals)."""
DEFAULT_POWER = 0.8
"""The chance of detecting an effect that the MDE and the questions needed are computed for."""
DEFAULT_CORRELATION = 0.5
"""With one run: the per-question correlation assumed between the two runs a comparison will pair."""
