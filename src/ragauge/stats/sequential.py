"""An anytime-valid sequential comparison: a confidence sequence for the mean difference by betting.

Questions are asked one at a time (in a seeded random order); after each, two gamblers bet against
"the mean difference is ``null``" with bets that depend on the questions before only (the confidence
sequence bets of ``stats.betting``: lambda_t ~ sqrt(2 log(2/a) / (s2_{t-1} t log(1 + t)))). By
Ville's inequality the chance that either capital *ever* reaches 2 / a while the null holds is at most
a, so the comparison may look after every question and stop the first time a capital crosses: the
error rate stays at most alpha however often it looks (continuous monitoring is what it is built for).
At any time t the set of means neither gambler has ruled out is a (1 - a) confidence sequence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ragauge.stats import DEFAULT_ALPHA, betting


@dataclass(frozen=True)
class SequentialTest:
    """Where a sequential comparison stands after ``asked`` questions: the running mean difference,
    the confidence sequence's interval ``ci`` at that time, and ``decided`` ("better": the mean
    difference is above ``null``, "worse": below, None: not yet), reached at question ``stopped_at``
    (None while undecided)."""

    asked: int
    diff: float
    ci: tuple[float, float]
    decided: str | None
    stopped_at: int | None
    alpha: float
    null: float = 0.0


def crossing(differences: np.ndarray, alpha: float = DEFAULT_ALPHA, null: float = 0.0) -> tuple[int | None, str | None]:
    """The first question (1-based) after which a gambler's capital against ``null`` reaches
    2 / ``alpha`` (each gambler a one-sided test at alpha / 2), and the direction it shows;
    (None, None) when none does."""
    up = first_crossing(differences, null, alpha / 2.0, upward=True)
    down = first_crossing(differences, null, alpha / 2.0, upward=False)
    if up is None and down is None:
        return None, None
    if down is None or (up is not None and up <= down):
        return up, "better"
    return down, "worse"


def sequence_interval(differences: np.ndarray, alpha: float = DEFAULT_ALPHA) -> tuple[float, float]:
    """The confidence sequence's interval after the values given (in their order)."""
    return betting.interval(np.asarray(differences, dtype=np.float64), -1.0, 1.0, 1.0 - alpha, sequence=True)


def sequential_test(differences: np.ndarray, alpha: float = DEFAULT_ALPHA, null: float = 0.0) -> SequentialTest:
    """The comparison of the differences in their order, stopped at the first crossing: its figures
    at the stop (or after every question, when none crossed)."""
    d = np.asarray(differences, dtype=np.float64)
    stop, direction = crossing(d, alpha, null)
    seen = d[:stop] if stop is not None else d
    return SequentialTest(len(seen), float(seen.mean()) if len(seen) else math.nan, sequence_interval(seen, alpha),
                          direction, stop, alpha, null)


def first_crossing(differences: np.ndarray, null: float, level: float, upward: bool) -> int | None:
    """The first question (1-based) after which one gambler's capital against "the mean difference
    is ``null``" reaches 1 / ``level`` (upward: the mean is above ``null``; else below), with the
    confidence sequence's bets: a one-sided anytime-valid test at ``level``. None: never."""
    d = np.asarray(differences, dtype=np.float64)
    if len(d) == 0:
        return None
    b = betting.bets(d, -1.0, 1.0, level, sequence=True)
    path = np.cumsum(betting.log_steps(b, betting.to_y(null, -1.0, 1.0), upward)[0])
    crossed = path >= math.log(1.0 / level)
    return int(np.argmax(crossed)) + 1 if bool(crossed.any()) else None
