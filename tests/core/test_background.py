"""Work in a second thread: results and errors come back where the caller asks for them."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from ragauge.core.background import ahead, begun, prefetch, start


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


def test_ahead_keeps_the_order_and_works_in_threads_of_its_own() -> None:
    names: set[str] = set()

    def work(i: int) -> int:
        names.add(threading.current_thread().name)
        return i * i

    got = [(i, result()) for i, result in ahead(work, range(30), 3)]
    assert got == [(i, i * i) for i in range(30)]
    assert names and all(name.startswith("ragauge-ahead") for name in names)


def test_ahead_raises_an_error_where_its_result_is_asked_for() -> None:
    def work(i: int) -> int:
        if i == 2:
            raise ValueError("broken third item")
        return i

    got = []
    with pytest.raises(ValueError, match="broken third item"):
        for _, result in ahead(work, range(6), 2):
            got.append(result())
    assert got == [0, 1]


def test_closing_ahead_early_waits_for_its_threads() -> None:
    started: list[int] = []

    def work(i: int) -> int:
        started.append(i)
        return i

    stream = ahead(work, range(1000), 2)
    assert next(stream)[1]() == 0
    stream.close()  # type: ignore[attr-defined]
    assert len(started) < 10
    assert not [t for t in threading.enumerate() if t.name.startswith("ragauge-ahead")]


def test_begun_makes_the_first_item_before_it_is_asked_for() -> None:
    first_made = threading.Event()
    made: list[tuple[int, str]] = []

    def items() -> Iterator[int]:
        for i in range(5):
            made.append((i, threading.current_thread().name))
            if i == 0:
                first_made.set()
            yield i

    stream = begun(items())
    assert first_made.wait(10)  # made while nothing asked for it
    assert list(stream) == list(range(5))
    caller = threading.current_thread().name
    assert made[0][1] != caller and {name for _, name in made[1:]} == {caller}
    assert list(begun(iter([]))) == []


@pytest.mark.parametrize("bad", [0, 2])
def test_begun_raises_an_error_where_its_item_would_have_come(bad: int) -> None:
    def items() -> Iterator[int]:
        for i in range(4):
            if i == bad:
                raise ValueError(f"broken item {i}")
            yield i

    stream = begun(items())  # nothing raised yet
    got = []
    with pytest.raises(ValueError, match=f"broken item {bad}"):
        for item in stream:
            got.append(item)
    assert got == list(range(bad))
