"""Retrievers: a protocol, one adapter a module, and an executor that runs them over a golden set."""
