"""Running a retriever over a golden set: the executor, its worker pools (threads, an event loop,
Ray), resume and shards."""
