"""Experiments: sweeps over retriever configurations, compared with paired tests and their costs."""
