"""core.progress: plain progress lines in a log (count, rate, ETA every interval), a bar on a terminal."""

from __future__ import annotations

import io

import pytest

from ragauge.core.progress import Progress, duration, progress


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("seconds, text", [(0, "0s"), (59.4, "59s"), (61, "1m01s"), (3599, "59m59s"),
                                           (3720, "1h02m"), (-3, "0s")])
def test_duration(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_a_log_gets_a_line_with_count_rate_and_eta_every_interval() -> None:
    stream, clock = io.StringIO(), Clock()
    with progress(1000, "embedding 1000 texts", stream=stream, interval=10, clock=clock) as bar:
        assert isinstance(bar, Progress)
        for _ in range(4):  # 250 items in 5 s: no line yet
            clock.now += 1.25
            bar.update(62)
        bar.update(2)
        assert stream.getvalue() == ""
        clock.now += 5.0  # 10 s in, 250 done: 25/s, 750 to go: 30 s
        bar.update(0)
        clock.now += 2.0  # within the interval of the last line: silent
        bar.update(250)
        clock.now += 8.0  # 20 s, 500 done: 25/s, ETA 20 s
        bar.update(0)
        clock.now += 20.0
        bar.update(500)  # done: no progress line, the closing line says it
    assert stream.getvalue().splitlines() == [
        "embedding 1000 texts: 250/1,000 (25%), 25.0/s, ETA 30s",
        "embedding 1000 texts: 500/1,000 (50%), 25.0/s, ETA 20s",
        "embedding 1000 texts: 1,000 done in 40s (25.0/s)",
    ]


def test_a_job_shorter_than_the_interval_prints_nothing() -> None:
    stream, clock = io.StringIO(), Clock()
    with progress(10, "quick", stream=stream, interval=10, clock=clock) as bar:
        clock.now += 9.9
        bar.update(10)
    assert stream.getvalue() == ""


def test_an_error_inside_leaves_no_closing_line() -> None:
    stream, clock = io.StringIO(), Clock()
    with pytest.raises(KeyboardInterrupt), progress(10, "job", stream=stream, interval=1, clock=clock) as bar:
        clock.now += 2
        bar.update(1)
        raise KeyboardInterrupt
    assert stream.getvalue().splitlines() == ["job: 1/10 (10%), 0.5/s, ETA 18s"]


def test_a_terminal_gets_clicks_bar() -> None:
    stream = Terminal()
    with progress(3, "drawing", stream=stream) as bar:
        assert not isinstance(bar, Progress)
        bar.update(3)
    assert "drawing" in stream.getvalue() and "3/3" in stream.getvalue()
