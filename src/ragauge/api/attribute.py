"""``attribute``: search or model? Retrieval joined to answer verdicts."""

from __future__ import annotations

from ragauge.attribution.run import attribute as attribute
from ragauge.formats.answers import read_answers as read_answers

__all__ = ["attribute", "read_answers"]
