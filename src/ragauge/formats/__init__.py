"""Readers and writers for file formats: TREC runs and qrels, BEIR, ragauge JSONL runs."""
