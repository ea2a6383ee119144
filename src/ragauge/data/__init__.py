"""The data model: golden sets, runs and their hashes."""
