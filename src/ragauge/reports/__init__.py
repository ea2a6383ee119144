"""Renderers: one Evaluation in, text / JSON out."""
