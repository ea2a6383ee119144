"""Daemon worker threads: the executor's pools (threads, or one event loop). The deadline on one
call is ``core.deadline``.

Daemon threads for one reason: Python cannot stop a thread, and a non-daemon thread
stuck in a call that never returns keeps the process from exiting (``concurrent.futures`` joins
its workers at exit, so a hung retriever turned Ctrl-C into a hang). A daemon thread is abandoned
when the process exits.
"""

from __future__ import annotations

import collections
import queue
import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Workers(Generic[T, R]):
    """``n`` daemon threads applying ``fn`` to submitted items; ``get`` returns each result, or
    the exception ``fn`` raised, in completion order."""

    def __init__(self, n: int, fn: Callable[[T], R], name: str = "ragauge-retrieve") -> None:
        self._tasks: queue.SimpleQueue[T | None] = queue.SimpleQueue()
        self._results: queue.SimpleQueue[R | BaseException] = queue.SimpleQueue()
        self._fn = fn
        self._n = n
        for i in range(n):
            threading.Thread(target=self._loop, name=f"{name}-{i}", daemon=True).start()

    def _loop(self) -> None:
        while (item := self._tasks.get()) is not None:
            try:
                self._results.put(self._fn(item))
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which decides
                self._results.put(exc)

    def submit(self, items: list[T]) -> None:
        for item in items:
            self._tasks.put(item)

    def get(self, timeout: float | None = None) -> R | BaseException:
        """The next result; ``queue.Empty`` after ``timeout`` seconds."""
        return _next(self._results, timeout)

    def ready(self) -> list[R | BaseException]:
        """The results there already, without waiting."""
        return _ready(self._results)

    def stop(self) -> None:
        """Idle threads end; a thread still in a call ends after it (or with the process)."""
        for _ in range(self._n):
            self._tasks.put(None)


def _ready(results: queue.SimpleQueue[R | BaseException]) -> list[R | BaseException]:
    out = []
    while True:
        try:
            out.append(results.get_nowait())
        except queue.Empty:
            return out


def _next(results: queue.SimpleQueue[R | BaseException], timeout: float | None) -> R | BaseException:
    """The next result, waiting in short slices so Ctrl-C reaches the main thread at once;
    ``queue.Empty`` after ``timeout`` seconds."""
    waited = 0.0
    while True:
        step = 0.1 if timeout is None else min(0.1, timeout - waited)
        try:
            return results.get(timeout=max(step, 0.0))
        except queue.Empty:
            waited += step
            if timeout is not None and waited >= timeout:
                raise


class LoopWorkers(Generic[T, R]):
    """``Workers`` for coroutines: one event loop in a daemon thread runs ``fn(item)`` for each
    submitted item, at most ``n`` at once; ``get`` returns each result, or the exception the
    coroutine raised, in completion order. Items submitted beyond ``n`` wait in a backlog and
    start on the loop as calls finish (``backlog = True``: the caller may submit ahead, so the
    loop never waits for it); ``halt`` drops the backlog, and once ``halted`` is set (from any thread,
    at once: a signal handler may set it) none of it starts. ``stop`` cancels what is still running,
    awaits ``closing()`` (e.g. an HTTP session's close) on the loop, and ends the thread."""

    backlog = True

    def __init__(self, n: int, fn: Callable[[T], Any], closing: Callable[[], Any] | None = None,
                 name: str = "ragauge-loop", halted: threading.Event | None = None) -> None:
        import asyncio

        self._asyncio = asyncio
        self._results: queue.SimpleQueue[R | BaseException] = queue.SimpleQueue()
        self._fn = fn
        self._closing = closing
        self._loop = asyncio.new_event_loop()
        self._n = n
        self._running = 0  # touched on the loop only
        self._waiting: collections.deque[T] = collections.deque()
        self._lock = threading.Lock()  # the backlog: filled and halted from the caller's thread
        self._tasks: set[Any] = set()
        self._halted = halted or threading.Event()
        threading.Thread(target=self._loop.run_forever, name=name, daemon=True).start()

    async def _run(self, item: T) -> None:
        try:
            self._results.put(await self._fn(item))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which decides
            self._results.put(exc)
        finally:
            self._running -= 1
            self._start()

    def _start(self) -> None:
        """On the loop: start backlog items while fewer than ``n`` run."""
        while self._running < self._n and not self._halted.is_set():
            with self._lock:
                if not self._waiting:
                    return
                item = self._waiting.popleft()
            self._running += 1
            task = self._loop.create_task(self._run(item))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def submit(self, items: list[T]) -> None:
        """Queue the items; one wake-up of the loop starts those that fit."""
        with self._lock:
            self._waiting.extend(items)
        self._loop.call_soon_threadsafe(self._start)

    def halt(self) -> int:
        """Drop the items not started yet (none starts after this); returns how many."""
        with self._lock:
            dropped = len(self._waiting)
            self._waiting.clear()
        return dropped

    def get(self, timeout: float | None = None) -> R | BaseException:
        """The next result; ``queue.Empty`` after ``timeout`` seconds."""
        return _next(self._results, timeout)

    def ready(self) -> list[R | BaseException]:
        """The results there already, without waiting."""
        return _ready(self._results)

    def stop(self) -> None:
        self.halt()

        async def wind_down() -> None:
            for task in list(self._tasks):
                task.cancel()
            await self._asyncio.gather(*self._tasks, return_exceptions=True)
            if self._closing is not None:
                await self._closing()

        if self._loop.is_running():
            future = self._asyncio.run_coroutine_threadsafe(wind_down(), self._loop)
            try:
                future.result(timeout=10)
            except Exception:  # noqa: BLE001 - a close that fails or hangs must not keep the run alive
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
