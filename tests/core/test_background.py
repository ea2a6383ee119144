"""Work in a second thread: results and errors come back where the caller asks for them."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from ragauge.core.background import prefetch, start


def test_start_gives_the_result_or_raises_its_error() -> None:
    assert start(lambda: 6 * 7)() == 42
    assert start(lambda: 6 * 7, background=False)() == 42

    def fail() -> int:
        raise ValueError("no")

    with pytest.raises(ValueError, match="no"):
        start(fail)()


def test_prefetch_keeps_the_order_and_runs_ahead_in_another_thread() -> None:
    made: list[tuple[int, str]] = []

    def items() -> Iterator[int]:
        for i in range(20):
            made.append((i, threading.current_thread().name))
            yield i

    assert list(prefetch(items())) == list(range(20))
    assert {name for _, name in made} == {"ragauge-prefetch"}


def test_prefetch_raises_an_error_where_its_item_would_have_come() -> None:
    def items() -> Iterator[int]:
        yield 1
        yield 2
        raise ValueError("broken third item")

    got = []
    with pytest.raises(ValueError, match="broken third item"):
        for item in prefetch(items()):
            got.append(item)
    assert got == [1, 2]


def test_closing_early_stops_the_thread_and_closes_the_source() -> None:
    closed = threading.Event()

    def items() -> Iterator[int]:
        try:
            i = 0
            while True:
                yield i
                i += 1
        finally:
            closed.set()

    stream = prefetch(items())
    assert [next(stream), next(stream)] == [0, 1]
    stream.close()  # type: ignore[attr-defined]
    assert closed.is_set()
    assert not [t for t in threading.enumerate() if t.name == "ragauge-prefetch"]
