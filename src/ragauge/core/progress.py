"""Progress of a long job on stderr: a live bar on a terminal, plain lines in a log.

``progress(total, label)`` is a context manager whose ``update(n)`` counts finished items. On a
terminal it draws click's bar (count, rate, ETA). Anywhere else (CI logs, a file, a pipe) it prints a
plain line every ``interval`` seconds (10 by default), "LABEL: 1,024/5,183 (20%), 41.3/s, ETA 1m41s",
and a closing line when at least one line was printed, so a job of minutes is never silent and a job
of seconds writes nothing.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any, TextIO

__all__ = ["Progress", "duration", "progress"]


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``1h02m``: short, for an ETA."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Progress:
    """Counts finished items and prints a plain line at most every ``interval`` seconds."""

    def __init__(self, total: int, label: str, stream: IO[str], interval: float,
                 clock: Callable[[], float]) -> None:
        self.total, self.label, self.stream, self.interval, self.clock = total, label, stream, interval, clock
        self.done = 0
        self.lines = 0
        self.start = clock()
        self.last = self.start

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if self.lines and kind is None:
            elapsed = self.clock() - self.start
            self._write(f"{self.label}: {self.done:,} done in {duration(elapsed)}"
                        f" ({self.done / elapsed if elapsed > 0 else 0.0:,.1f}/s)")

    def update(self, n: int) -> None:
        self.done += n
        now = self.clock()
        if now - self.last >= self.interval and self.done < self.total:
            self.last = now
            self._write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = now - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = duration((self.total - self.done) / rate) if rate > 0 else "?"
        share = 100 * self.done // self.total if self.total else 100
        return f"{self.label}: {self.done:,}/{self.total:,} ({share}%), {rate:,.1f}/s, ETA {eta}"

    def _write(self, text: str) -> None:
        self.lines += 1
        print(text, file=self.stream, flush=True)


def progress(total: int, label: str, *, stream: TextIO | None = None, interval: float = 10.0,
             clock: Callable[[], float] = time.monotonic) -> Any:
    """The progress display of ``total`` items on ``stream`` (stderr): click's bar on a terminal,
    else a :class:`Progress` printing a plain line every ``interval`` seconds."""
    stream = stream if stream is not None else sys.stderr
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        import click

        return click.progressbar(length=total, label=label, file=stream, show_pos=True, show_eta=True)
    return Progress(total, label, stream, interval, clock)
