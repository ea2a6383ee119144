"""retrieve.workers: the executor's pools."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

import pytest

from ragauge.runner.workers import LoopWorkers


def _next(workers: LoopWorkers[int, int]) -> int:
    got = workers.get(timeout=5)
    assert isinstance(got, int), got
    return got


def _gated(started: list[int], release: threading.Event) -> Any:
    async def call(item: int) -> int:
        import asyncio

        started.append(item)
        while not release.is_set():
            await asyncio.sleep(0.001)
        return item * 10
    return call


def test_loop_workers_start_the_backlog_in_order_as_calls_finish() -> None:
    started: list[int] = []
    release = threading.Event()
    release.set()
    workers: LoopWorkers[int, int] = LoopWorkers(2, _gated(started, release))
    try:
        workers.submit([1, 2, 3, 4, 5])
        got = sorted(_next(workers) for _ in range(5))
    finally:
        workers.stop()
    assert got == [10, 20, 30, 40, 50] and started == [1, 2, 3, 4, 5]


def test_halt_drops_the_backlog_so_no_call_starts_after_it() -> None:
    """After ``halt`` (the executor's first Ctrl-C) no new call starts; it returns how many were
    dropped, so the run counts only the calls really in flight as abandoned."""
    started: list[int] = []
    release = threading.Event()
    workers: LoopWorkers[int, int] = LoopWorkers(2, _gated(started, release))
    try:
        workers.submit([1, 2, 3, 4, 5])
        deadline = time.monotonic() + 5
        while len(started) < 2 and time.monotonic() < deadline:
            time.sleep(0.001)
        assert workers.halt() == 3
        release.set()
        assert {workers.get(timeout=5), workers.get(timeout=5)} == {10, 20}
        with pytest.raises(queue.Empty):
            workers.get(timeout=0.2)
    finally:
        workers.stop()
    assert started == [1, 2]


def test_loop_workers_run_at_most_n_at_once() -> None:
    running = [0, 0]  # now, most

    async def call(item: int) -> int:
        import asyncio

        running[0] += 1
        running[1] = max(running[1], running[0])
        await asyncio.sleep(0.002)
        running[0] -= 1
        return item

    workers: LoopWorkers[int, int] = LoopWorkers(3, call)
    try:
        workers.submit(list(range(20)))
        got = sorted(_next(workers) for _ in range(20))
    finally:
        workers.stop()
    assert got == list(range(20)) and running[1] == 3
