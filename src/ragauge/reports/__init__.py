"""Renderers: one Evaluation (or Comparison, or gate result) in; text, JSON, Markdown, HTML or JUnit out."""

DEFAULT_FORMAT = "text"
"""The format a result is rendered in unless told (``--format``)."""
WORST = 15
"""How many of the worst questions the text and Markdown reports list unless told (``--worst``)."""
