"""Paired tests of a mean difference (new - base), each with the interval that inverts it.

Two methods, chosen per metric from the data (``method_for``):

- **paired t** for metrics with graded values (recall, RR, nDCG, AP, precision): Student's t on the
  per-question differences, df = n - 1; the interval is mean +- t(1 - a/2, n - 1) * sd / sqrt(n).
- **paired proportions** when every value of both runs is 0 or 1 (hit@k; recall@k with one relevant
  document): McNemar's score test on the discordant questions (b improved, c worsened), and Tango's
  score interval (Tango 1998), the set of differences its score statistic does not reject. Valid at
  small n where a bootstrap or Wald interval is not (Fagerland, Lydersen & Laake 2014).

In both the interval is the set of differences the test does not reject at the same level, so an
interval that excludes 0 holds exactly when the two-sided p-value is below alpha.

When graded differences do not vary at all (every question moved by the same amount c, or none
moved) Student's t has no variance to work with; the exact sign-flip test takes over: p = 2 * 0.5 ** n
for c != 0 (1 for c = 0), and the interval is c alone when that p is below alpha, else [-1, 1]
(with so few questions no difference can be ruled out). Differences within 1e-12 of 0 count as 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

T_METHOD = "paired t"
PROPORTIONS_METHOD = "paired proportions (McNemar score test, Tango interval)"
EPS = 1e-12
"""Two values closer than this are equal: a question within it did not change."""


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison: ``diff`` = mean(new - base) over ``n`` questions, its ``ci``
    at ``confidence``, the two-sided ``p_value`` of "no difference", and the questions that
    went up, down or stayed (within 1e-12)."""

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

    @property
    def changed(self) -> int:
        return self.better + self.worse


def is_binary(base: np.ndarray, new: np.ndarray) -> bool:
    """Whether every value of both runs is exactly 0 or 1."""
    return bool(np.all((base == 0.0) | (base == 1.0)) and np.all((new == 0.0) | (new == 1.0)))


def method_for(base: np.ndarray, new: np.ndarray) -> str:
    return PROPORTIONS_METHOD if len(base) and is_binary(base, new) else T_METHOD


def paired_test(base: np.ndarray, new: np.ndarray, confidence: float = 0.95) -> PairedTest:
    """The paired test and interval of ``method_for(base, new)``. With fewer than 2 questions the
    interval is (nan, nan) and p = 1: nothing can be told. Graded differences that do not vary
    get the exact sign-flip test (see the module docstring)."""
    base = np.asarray(base, dtype=np.float64)
    new = np.asarray(new, dtype=np.float64)
    d = new - base
    d[np.abs(d) <= EPS] = 0.0  # rounding noise is no change
    n = len(d)
    better, worse = int((d > EPS).sum()), int((d < -EPS).sum())
    method = method_for(base, new)
    nan = math.nan
    if n == 0:
        return PairedTest(method, 0, nan, nan, nan, (nan, nan), confidence, 1.0, 0, 0, 0, nan)
    mean = float(d.mean())
    sd = float(d.std(ddof=1)) if n > 1 else nan
    if n < 2:
        ci, p = (nan, nan), 1.0
    elif method == PROPORTIONS_METHOD:
        ci, p = tango_interval(better, worse, n, confidence), mcnemar_p(better, worse, n)
    elif sd <= EPS:
        p = 1.0 if mean == 0.0 else smallest_exact_p(n)
        ci = (mean, mean) if smallest_exact_p(n) < 1.0 - confidence else (-1.0, 1.0)
    else:
        ci, p = t_interval(mean, sd, n, confidence), t_p(mean, sd, n)
    return PairedTest(method, n, float(base.mean()), float(new.mean()), mean, ci, confidence, p, better, worse,
                      n - better - worse, sd)


def one_sided_p(test: PairedTest, null: float, alternative: Literal["less", "greater"]) -> float:
    """One-sided p-value of H0 "mean difference = ``null``" against ``alternative`` "less" (the
    difference is below ``null``) or "greater"; computed by ``test.method``'s own statistic, so it
    agrees with ``test.ci``'s one-sided bounds. 1.0 with fewer than 2 questions."""
    from scipy import special

    if test.n < 2:
        return 1.0
    if test.method == PROPORTIONS_METHOD:
        z = _tango_z(test.better, test.worse, test.n, null)
        return float(special.ndtr(z) if alternative == "less" else special.ndtr(-z))
    shifted = test.diff - null
    if test.sd_diff <= EPS:  # no variance: the exact sign-flip test, one-sided
        below = shifted < -EPS if alternative == "less" else shifted > EPS
        return 0.5 ** test.n if below else 1.0
    stat = _t_statistic(shifted, test.sd_diff, test.n)
    df = test.n - 1
    return float(special.stdtr(df, stat) if alternative == "less" else special.stdtr(df, -stat))


def t_p(mean: float, sd: float, n: int) -> float:
    """Two-sided p-value of Student's t for ``mean`` = 0 from n paired differences."""
    from scipy import special

    stat = _t_statistic(mean, sd, n)
    return float(min(1.0, 2.0 * special.stdtr(n - 1, -abs(stat))))


def t_interval(mean: float, sd: float, n: int, confidence: float) -> tuple[float, float]:
    from scipy import special

    half = float(special.stdtrit(n - 1, 0.5 + confidence / 2.0)) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def _t_statistic(shifted_mean: float, sd: float, n: int) -> float:
    return shifted_mean / (sd / math.sqrt(n))


def mcnemar_p(better: int, worse: int, n: int) -> float:
    """Two-sided p of McNemar's score test (no continuity correction): Tango's statistic at 0."""
    from scipy import special

    return float(min(1.0, 2.0 * special.ndtr(-abs(_tango_z(better, worse, n, 0.0)))))


def _tango_z(better: int, worse: int, n: int, delta: float) -> float:
    """Tango's score statistic for H0 "p(better) - p(worse) = delta" with n pairs, of which
    ``better`` went 0 -> 1 and ``worse`` 1 -> 0; the nuisance discordance is its restricted MLE."""
    observed = better - worse - n * delta
    a = 2.0 * n
    b = -better - worse + (2.0 * n - better + worse) * delta
    c = -worse * delta * (1.0 - delta)
    q = (math.sqrt(max(b * b - 4.0 * a * c, 0.0)) - b) / (2.0 * a)
    variance = n * (2.0 * q + delta * (1.0 - delta))
    if variance <= EPS:
        return 0.0 if abs(observed) <= EPS else math.copysign(math.inf, observed)
    return observed / math.sqrt(variance)


def tango_interval(better: int, worse: int, n: int, confidence: float) -> tuple[float, float]:
    """Tango's score interval: every delta in [-1, 1] whose |score statistic| stays within the
    normal quantile (the statistic decreases in delta, so each end is found by bisection)."""
    from scipy import special

    z = float(special.ndtri(0.5 + confidence / 2.0))
    centre = (better - worse) / n

    def bound(end: float) -> float:
        if abs(_tango_z(better, worse, n, end)) <= z:
            return end
        inside, outside = centre, end
        for _ in range(60):
            mid = (inside + outside) / 2.0
            if abs(_tango_z(better, worse, n, mid)) <= z:
                inside = mid
            else:
                outside = mid
        return inside

    return (bound(-1.0), bound(1.0))


def smallest_exact_p(changed: int) -> float:
    """The smallest two-sided p-value any exact sign-flip test can reach with ``changed``
    questions that moved: 2 * 0.5 ** changed (all moved the same way). When it is not below
    alpha, no distribution-free test can tell the change from noise."""
    return min(1.0, 2.0 * 0.5 ** changed)
