"""Logging results to experiment trackers (MLflow): what a result logs (``records``), the names it
logs them under (``names``), and the one module that talks to the tracker (``mlflow``).

A result becomes a :class:`~ragauge.tracking.records.Record` first (parameters, metrics, tags,
artifacts, child records), a pure value built without the tracker, so what is logged is tested and
documented apart from how.
"""
