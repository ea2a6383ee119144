"""core.collection: the cycle collector held back inside the block, and as it was after it."""

from __future__ import annotations

import gc
import threading

import pytest

from ragauge.core.collection import no_cycle_collection


def test_the_collector_is_held_back_inside_and_runs_again_after() -> None:
    assert gc.isenabled()
    with no_cycle_collection():
        assert not gc.isenabled()
        with no_cycle_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer block still holds it back
    assert gc.isenabled()


def test_an_error_inside_lets_it_run_again() -> None:
    with pytest.raises(ValueError), no_cycle_collection():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_held_back_by_the_caller_stays_so() -> None:
    gc.disable()
    try:
        with no_cycle_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_blocks_in_two_threads_leave_it_running() -> None:
    inside, leave = threading.Event(), threading.Event()

    def other() -> None:
        with no_cycle_collection():
            inside.set()
            leave.wait(5)

    thread = threading.Thread(target=other)
    with no_cycle_collection():
        thread.start()
        inside.wait(5)
    leave.set()
    thread.join(5)
    assert gc.isenabled()
