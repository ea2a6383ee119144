"""Metrics: parsed specs (``ndcg@10``), one registry, a vectorized engine, one file per family."""

from ragauge.metrics.spec import MetricSpec, parse_metric, parse_metrics

__all__ = ["MetricSpec", "parse_metric", "parse_metrics"]
