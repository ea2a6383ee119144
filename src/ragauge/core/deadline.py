"""A deadline on a call that cannot be interrupted: the call runs in a reusable daemon thread and
the caller stops waiting after ``timeout`` seconds.

Daemon threads, because Python cannot stop a thread and a non-daemon thread stuck in a call that
never returns keeps the process from exiting; a daemon thread is abandoned when the process exits.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")


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
