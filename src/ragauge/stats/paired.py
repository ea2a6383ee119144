"""The paired test of a mean difference (new - base), with the interval that inverts it.

Every metric's per-question difference lies in [-1, 1]. The test and interval are the betting ones
of ``stats.betting`` (Waudby-Smith & Ramdas 2024): valid for any distribution of differences on
[-1, 1] at every number of questions — most questions tied, skew, a few questions moving a lot,
0/1 values — with no normal approximation. What they assume: the questions are independent draws
from the questions you care about (nothing about the shape of the differences).

- The interval at ``confidence`` is {m : neither gambler's capital against "the mean difference is
  m" reaches 2 / alpha}; it excludes 0 exactly when the two-sided p-value is below alpha (up to
  the bisection's 2^-48).
- It is never a single point: when no question changed it still spans what the questions not
  asked could do (with 20 tied questions +-0.22; with 100, +-0.05; with 300, +-0.017).
- p-values are 1 / capital, valid at every level, so Holm's correction applies to them as it
  does to any valid p-values. The bets are tuned to the comparison's alpha.
- One-sided p-values (the gate: "a drop", non-inferiority "no worse than -margin") use one
  gambler at level alpha and agree with the one-sided bounds.

Differences within 1e-12 of 0 count as 0 (a question that did not change).

A count (the trajectory metrics: calls made) is not a share in [0, 1]: its comparison passes
``scale``, the largest value the two runs hold, and the test runs on the differences divided by it
(in [-1, 1]), its interval and bounds scaled back. That bound is read from the data, so for counts
the guarantee holds for questions whose values do not exceed it (the output names the scale).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ragauge.stats import betting

METHOD = betting.METHOD
EPS = 1e-12
"""Two values closer than this are equal: a question within it did not change."""


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison: ``diff`` = mean(new - base) over ``n`` questions, its ``ci``
    at ``confidence``, the two-sided ``p_value`` of "no difference", and the questions that
    went up, down or stayed (within 1e-12). ``differences`` are the per-question differences the
    one-sided tests read."""

    method: str
    n: int
    base: float
    new: float
    diff: float
    ci: tuple[float, float]
    confidence: float
    p_value: float
    better: int
    worse: int
    tied: int
    sd_diff: float
    differences: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False, compare=False)
    scale: float = 1.0
    """The differences lie in [-scale, scale]: 1 for a share, the largest value for a count."""

    @property
    def changed(self) -> int:
        return self.better + self.worse


def differences(base: np.ndarray, new: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """new - base per question, with rounding noise (|d| <= 1e-12) set to 0 and every value
    clipped to [-scale, scale] (a metric's range)."""
    d = np.asarray(new, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    d[np.abs(d) <= EPS] = 0.0
    return np.asarray(np.clip(d, -scale, scale))


def count_scale(*values: np.ndarray) -> float:
    """The scale of a count's differences: its largest value in ``values`` (at least 1)."""
    return float(max([1.0] + [float(np.max(v)) for v in values if len(v)]))


def paired_test(base: np.ndarray, new: np.ndarray, confidence: float = 0.95, scale: float = 1.0) -> PairedTest:
    """The betting test and interval of the mean difference, the values lying in [0, ``scale``].
    With no questions the interval is (nan, nan) and p = 1; with one, the interval is what one
    question can show (wide)."""
    base = np.asarray(base, dtype=np.float64)
    new = np.asarray(new, dtype=np.float64)
    missing = int(np.isnan(base).sum() + np.isnan(new).sum())
    if missing:  # a missing value would turn the interval inside out and p into 1, in silence
        from ragauge.errors import InputError

        raise InputError(f"{missing} value(s) to compare are missing (NaN): no test can use them",
                         hint="compare results scored on the same metrics for every question")
    d = differences(base, new, scale)
    n = len(d)
    better, worse = int((d > EPS).sum()), int((d < -EPS).sum())
    nan = math.nan
    if n == 0:
        return PairedTest(METHOD, 0, nan, nan, nan, (nan, nan), confidence, 1.0, 0, 0, 0, nan, d, scale)
    alpha = 1.0 - confidence
    lo, hi = betting.interval(d / scale, -1.0, 1.0, confidence)
    p = betting.p_value(d / scale, -1.0, 1.0, 0.0, alpha)
    sd = float(d.std(ddof=1)) if n > 1 else nan
    return PairedTest(METHOD, n, float(base.mean()), float(new.mean()), float(d.mean()), (lo * scale, hi * scale),
                      confidence, p, better, worse, n - better - worse, sd, d, scale)


def one_sided_p(test: PairedTest, null: float, alternative: Literal["less", "greater"],
                alpha: float | None = None) -> float:
    """One-sided p-value of H0 "mean difference = ``null``" against ``alternative`` "less" (the
    difference is below ``null``) or "greater", from one gambler tuned to ``alpha`` (default: the
    test's 1 - confidence); below alpha exactly when the one-sided (1 - alpha) bound excludes
    ``null``. 1.0 with no questions."""
    if test.n == 0:
        return 1.0
    level = 1.0 - test.confidence if alpha is None else alpha
    return betting.p_value(test.differences / test.scale, -1.0, 1.0, null / test.scale, level, alternative)


def one_sided_bound(test: PairedTest, side: Literal["lower", "upper"], alpha: float) -> float:
    """The one-sided (1 - alpha) lower or upper confidence bound of the mean difference."""
    if side == "lower":
        return betting.lower_bound(test.differences / test.scale, -1.0, 1.0, alpha) * test.scale
    return betting.upper_bound(test.differences / test.scale, -1.0, 1.0, alpha) * test.scale


def smallest_exact_p(changed: int) -> float:
    """The smallest two-sided p-value any exact sign-flip test can reach with ``changed``
    questions that moved: 2 * 0.5 ** changed (all moved the same way). When it is not below
    alpha, no distribution-free test can tell the change from noise."""
    return min(1.0, 2.0 * 0.5 ** changed)
