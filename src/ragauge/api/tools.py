"""``trec_eval`` (trec_eval's own command line, ragauge's numbers) and ``init_project`` (a new
project's config, golden-set template and CI workflow)."""

from __future__ import annotations

from ragauge.scaffold import DEFAULT_RETRIEVER as DEFAULT_RETRIEVER
from ragauge.scaffold import init_project as init_project
from ragauge.treceval.runner import trec_eval as trec_eval

__all__ = ["init_project", "trec_eval"]  # and DEFAULT_RETRIEVER, the spec init writes
