"""Run a piece of work in a second thread while the caller goes on (numpy, Arrow and hashlib
release the GIL on large inputs, so two such pieces share the cores)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


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


def begun(items: Iterable[T]) -> Iterator[T]:
    """``items`` in order, the making of the first begun now in a thread while the caller goes on
    (the rest made as they are asked for). What making the first raised is raised where it would
    have come."""
    source = iter(items)
    end = object()
    first = start(lambda: next(source, end))

    def rest() -> Iterator[T]:
        item = first()
        if item is end:
            return
        yield item  # type: ignore[misc]
        yield from source

    return rest()


def prefetch(items: Iterable[T]) -> Iterator[T]:
    """``items`` in order, the next one made in a second thread while the caller works on the
    current one (reading and parsing the next block of a file while this one is evaluated). What
    making an item raised is raised where that item would have come. Closing the iterator early
    stops the thread after the item it is making."""
    handoff: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()
    done = object()

    def offer(entry: tuple[bool, Any]) -> bool:
        while not stop.is_set():
            try:
                handoff.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        source = iter(items)
        try:
            for item in source:
                if not offer((True, item)):
                    return
            offer((True, done))
        except BaseException as exc:  # handed to the consumer, which raises it
            offer((False, exc))
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()

    thread = threading.Thread(target=produce, name="ragauge-prefetch", daemon=True)
    thread.start()
    try:
        while True:
            ok, item = handoff.get()
            if not ok:
                raise item
            if item is done:
                return
            yield item
    finally:
        stop.set()
        thread.join()


def ahead(work: Callable[[T], R], items: Iterable[T], workers: int) -> Iterator[tuple[T, Callable[[], R]]]:
    """``(item, result)`` for each of ``items``, in order, where ``result()`` gives ``work(item)``
    or raises what it raised. ``work`` runs in ``workers`` threads of its own, on the items after the
    one the caller holds (parsing the next blocks of a file, each in one thread, while this one is
    used). Closing the iterator early drops the work not yet started and waits for the rest."""
    from collections import deque
    from concurrent.futures import Future, ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="ragauge-ahead")
    running: deque[tuple[T, Future[R]]] = deque()
    try:
        for item in items:
            running.append((item, pool.submit(work, item)))
            if len(running) > workers:
                done, future = running.popleft()
                yield done, future.result
        while running:
            done, future = running.popleft()
            yield done, future.result
    finally:
        for _, future in running:
            future.cancel()
        pool.shutdown(wait=True)
