"""Prediction-powered metrics (``--auto-labels``): a golden set in which only some questions carry human
labels, an assessor's automatic labels for every question, and estimates that combine the two with
intervals that stay honest (``ragauge.stats.ppi``). An evaluation (``predicted.evaluate``), and the
paired difference of two runs that ``compare`` and the gate read (``predicted.difference``)."""

METHOD = "betting"
"""The prediction-powered interval reported: ``stats.ppi``'s betting interval, valid at every n."""
