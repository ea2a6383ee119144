"""Readers and writers for file formats: TREC runs and qrels, BEIR, ragauge JSONL runs.

The defaults the commands show live here, light to import (``--help`` reads them)."""

BEIR_SPLIT = "test"
"""The BEIR split a golden set is imported from (``qrels/<split>.tsv``; ``golden import-beir --split``)."""
TOPIC_FIELD = "title"
"""The TREC topic field that is the question (``golden import --topic-field``)."""
