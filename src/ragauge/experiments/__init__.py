"""Experiments: sweeps over retriever configurations, compared with paired tests and their costs.

The defaults the commands show live here, light to import (``--help`` reads them)."""

SWEEP_OUTPUT = "ragauge-sweep"
"""The folder a sweep writes its index cache, every configuration's run and sweep.json to (``-o``)."""
DEFAULT_FACTOR = 3
"""Successive halving keeps the best 1/factor of the configurations each round (``--factor``, ``[sweep] factor``)."""
