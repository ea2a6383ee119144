"""Scoring a run against a golden set: per question, overall, by tag, and no-answer questions."""
