"""Daemon worker threads: the executor's pool, and the deadline on a ``python:`` retriever's call.

Both use daemon threads for one reason: Python cannot stop a thread, and a non-daemon thread
stuck in a call that never returns keeps the process from exiting (``concurrent.futures`` joins
its workers at exit, so a hung retriever turned Ctrl-C into a hang). A daemon thread is abandoned
when the process exits.
"""

from __future__ import annotations

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

    def submit(self, item: T) -> None:
        self._tasks.put(item)

    def get(self, timeout: float | None = None) -> R | BaseException:
        """The next result; ``queue.Empty`` after ``timeout`` seconds. Waits in short slices so
        Ctrl-C reaches the main thread at once."""
        waited = 0.0
        while True:
            step = 0.1 if timeout is None else min(0.1, timeout - waited)
            try:
                return self._results.get(timeout=max(step, 0.0))
            except queue.Empty:
                waited += step
                if timeout is not None and waited >= timeout:
                    raise

    def stop(self) -> None:
        """Idle threads end; a thread still in a call ends after it (or with the process)."""
        for _ in range(self._n):
            self._tasks.put(None)


class Deadline:
    """Calls ``fn(*args)`` in a reusable daemon thread and stops waiting after ``timeout`` seconds,
    raising TimeoutError; the overrunning call is abandoned (it runs on, its result is dropped)
    and counted in ``abandoned``. Thread-safe."""

    def __init__(self, timeout: float, name: str = "ragauge-call") -> None:
        self.timeout = timeout
        self.abandoned = 0
        self._name = name
        self._idle: list[queue.SimpleQueue[Any]] = []
        self._lock = threading.Lock()

    def call(self, fn: Callable[..., R], *args: Any) -> R:
        with self._lock:
            jobs = self._idle.pop() if self._idle else self._start()
        done = threading.Event()
        box: list[Any] = []

        def job() -> None:
            try:
                box.append((True, fn(*args)))
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                box.append((False, exc))
            done.set()

        jobs.put(job)
        if not done.wait(self.timeout):
            jobs.put(None)  # the thread ends once the call returns, if it ever does
            with self._lock:
                self.abandoned += 1
            raise TimeoutError(f"no answer within {self.timeout:g} s (the call was abandoned: "
                               "Python cannot stop a running function)")
        with self._lock:
            self._idle.append(jobs)
        ok, value = box[0]
        if not ok:
            raise value
        return value  # type: ignore[no-any-return]

    def _start(self) -> queue.SimpleQueue[Any]:
        jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()

        def loop() -> None:
            while (job := jobs.get()) is not None:
                job()
        threading.Thread(target=loop, name=self._name, daemon=True).start()
        return jobs

    def close(self) -> None:
        with self._lock:
            for jobs in self._idle:
                jobs.put(None)
            self._idle.clear()
