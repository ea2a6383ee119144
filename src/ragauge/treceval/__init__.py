"""``ragauge trec-eval``: trec_eval's measures, flags and output format over the shared engine."""

from ragauge.treceval.runner import TrecEvalOptions, trec_eval

__all__ = ["TrecEvalOptions", "trec_eval"]
