"""One question's call: retried on transient failures with backoff and jitter, stopped at the first
Ctrl-C, and what a failure means (stop the run, record it, or try again); the counts a caller
watches. The executor's pools (threads, an event loop, Ray actors) all run these."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ragauge.data.golden import GoldenQuery
from ragauge.data.hits import QueryResult
from ragauge.errors import RagaugeError
from ragauge.redact import redact
from ragauge.retrieve.base import Retriever, RetryableError, check_answer
from ragauge.runner.options import ExecutorOptions


@dataclass
class Progress:
    """Counts the executor reports; ``on_result`` is called from the main thread only."""

    total: int = 0
    done: int = 0
    errors: int = 0
    retried: int = 0
    resumed: int = 0
    abandoned: int = 0
    """Calls that overran the timeout and were left running (``python:`` callables), set when the run ends."""
    on_result: Callable[[Progress], None] | None = field(default=None, repr=False)


class Abandoned(Exception):  # noqa: N818 - not an error: a retry not made after Ctrl-C
    """A call that would have been retried after the first Ctrl-C: it is not, and counts as abandoned."""


def call(retriever: Retriever, q: GoldenQuery, opts: ExecutorOptions, rng: random.Random,
          progress: Progress, lock: threading.Lock, halted: threading.Event) -> QueryResult:
    """One question, retried on transient failures until ``halted`` (the first Ctrl-C). A failed
    call records no latency (its time says nothing about the retriever's speed and must not enter
    p50/p95)."""
    attempt = 0
    while True:
        start = time.perf_counter()
        try:
            return answered(q, retriever.search(q.query, opts.fetch), start)
        except Exception as exc:  # noqa: BLE001 - failed sorts it: stop, record, or try again
            outcome = failed(q, exc, attempt, opts, rng, progress, lock)
        if isinstance(outcome, QueryResult):
            return outcome
        if halted.wait(outcome):
            raise Abandoned(q.id)
        attempt += 1


async def acall(retriever: Any, q: GoldenQuery, opts: ExecutorOptions, rng: random.Random,
                 progress: Progress, lock: threading.Lock, halted: threading.Event) -> QueryResult:
    """``call`` for a retriever with ``asearch``, on the executor's event loop."""
    import asyncio

    attempt = 0
    while True:
        start = time.perf_counter()
        try:
            return answered(q, await retriever.asearch(q.query, opts.fetch), start)
        except Exception as exc:  # noqa: BLE001 - failed sorts it: stop, record, or try again
            outcome = failed(q, exc, attempt, opts, rng, progress, lock)
        if isinstance(outcome, QueryResult):
            return outcome
        end = time.monotonic() + outcome
        while not halted.is_set() and (left := end - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.05))
        if halted.is_set():
            raise Abandoned(q.id)
        attempt += 1


def answered(q: GoldenQuery, got: Any, start: float) -> QueryResult:
    latency = (time.perf_counter() - start) * 1000.0
    check_answer(got, q.id)
    return QueryResult(q.id, tuple(got.hits), round(latency, 3), got.cost)


def failed(q: GoldenQuery, exc: Exception, attempt: int, opts: ExecutorOptions, rng: random.Random,
            progress: Progress, lock: threading.Lock) -> QueryResult | float:
    """What a failed call means: a fatal, user-correctable problem (bad URL, 401, malformed
    response) is raised to stop the run; a transient one (RetryableError, a timeout, a lost
    connection) returns the backoff before the next attempt, or the failed result once the
    retries are spent; anything else the retriever (user code) raised is a failed result."""
    if isinstance(exc, RagaugeError) and not isinstance(exc, RetryableError):
        if exc.where is None:
            exc.where = f"question {q.id!r}"
        raise exc
    if isinstance(exc, (RetryableError, TimeoutError, ConnectionError)):
        if attempt >= opts.retries:
            return QueryResult(q.id, (), None, None,
                               redact(f"{type(exc).__name__}: {exc} (after {attempt + 1} "
                                      f"attempt{'s' if attempt else ''})"))
        with lock:
            progress.retried += 1
        return rng.uniform(0, min(opts.max_backoff, opts.backoff * 2 ** attempt))
    return QueryResult(q.id, (), None, None, redact(f"{type(exc).__name__}: {exc}"))
