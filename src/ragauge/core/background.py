"""Run a piece of work in a second thread while the caller goes on (numpy, Arrow and hashlib
release the GIL on large inputs, so two such pieces share the cores)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def start(work: Callable[[], T], background: bool = True) -> Callable[[], T]:
    """Run ``work`` now, or in a thread when ``background``; the returned callable gives its
    result, re-raising what it raised."""
    if not background:
        value = work()
        return lambda: value
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(work)
    pool.shutdown(wait=False)
    return future.result
