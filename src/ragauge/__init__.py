"""ragauge: measure the retrieval stage of RAG systems.

The public API is imported lazily so that ``ragauge --help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragauge._version import __version__

if TYPE_CHECKING:
    from ragauge.data.golden import GoldenQuery, GoldenSet
    from ragauge.data.run import Hit, QueryResult, Run
    from ragauge.errors import GateFailure, InputError, MissingExtra, RagaugeError
    from ragauge.evaluation.evaluate import evaluate_run
    from ragauge.evaluation.result import Evaluation
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import read_run
    from ragauge.metrics.spec import MetricSpec, parse_metric
    from ragauge.retrieve.live import evaluate
    from ragauge.treceval.runner import TrecEvalOptions, trec_eval

_EXPORTS = {
    "load_golden": "ragauge.formats.golden", "GoldenSet": "ragauge.data.golden", "GoldenQuery": "ragauge.data.golden",
    "read_run": "ragauge.formats.runs", "Run": "ragauge.data.run", "Hit": "ragauge.data.run",
    "QueryResult": "ragauge.data.run",
    "evaluate": "ragauge.retrieve.live", "evaluate_run": "ragauge.evaluation.evaluate",
    "Evaluation": "ragauge.evaluation.result",
    "MetricSpec": "ragauge.metrics.spec", "parse_metric": "ragauge.metrics.spec",
    "trec_eval": "ragauge.treceval.runner", "TrecEvalOptions": "ragauge.treceval.runner",
    "RagaugeError": "ragauge.errors", "InputError": "ragauge.errors", "GateFailure": "ragauge.errors",
    "MissingExtra": "ragauge.errors",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ragauge' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
