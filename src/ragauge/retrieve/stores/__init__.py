"""Adapters for the vector stores RAG teams keep their chunks in, one module each: ``qdrant:``,
``chroma:``, ``lancedb:``, ``faiss:`` and ``sqlite-vec:`` (``sqlite_vec``). Each module has
``open(spec, options)`` (the retriever) and a ``load_*`` function (``ragauge index STORE``), and
imports its library only when called, so a missing library is an install hint for that store
alone. What they share (spec parsing, the embedder record, the retriever skeleton, the loader's
batches) is in ``common``."""
