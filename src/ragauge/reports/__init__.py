"""Renderers: one Evaluation (or Comparison, or gate result) in; text, JSON, Markdown, HTML or JUnit out."""
