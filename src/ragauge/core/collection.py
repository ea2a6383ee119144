"""Building many small Python objects at once without the cycle collector walking the heap.

CPython's cycle collector runs every few hundred container allocations, and from time to time
walks every tracked object: while an evaluation of thousands of questions makes its rows, row
dicts or golden questions (hundreds of thousands of tuples and dicts, none in a reference cycle),
those walks cost about as much as the building itself. Such objects are freed by reference
counting as ever; :func:`no_cycle_collection` only holds the collector back while they are made.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Hold the cycle collector back inside the block (for code that makes no reference cycles),
    and let it run again after it if it ran before. Nested blocks, or blocks in two threads, leave
    it as the outermost found it."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
