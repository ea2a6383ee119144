"""Embedding and reranking models, and tokenizers: the model code adapters and metrics share."""
