"""The lowest layer: Arrow/numpy helpers, files, strict JSON, numbers, hashing, escapers.

Nothing here imports from ragauge but ``ragauge.errors``; everything above may import from here.
"""
