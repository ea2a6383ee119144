"""The mean of a finite population from a uniformly random sample of it, by betting, valid at every n: sampling
without replacement (Waudby-Smith & Ramdas, "Confidence sequences for sampling without replacement", NeurIPS
2020), optionally with a control variate known for every member (what ``stats.ppi`` does for a golden set).

**Setting.** A population of ``N`` values x_1..x_N in [low, high] (a metric of every question of a golden set,
as human labels of every one would give it); a uniformly random subset of n of them is observed (the split may
not depend on the values). The estimand is theta = their mean over all N: nothing beyond the population is
claimed, and the unobserved members' values are the only uncertainty.

**The test.** Taken in a uniformly random order, the j-th observed value has, given those before it, the
conditional mean m_j(theta) = (N theta - sum_{i<j} x_i) / (N - j + 1), the mean of the members not yet drawn.
The hedged capital of ``stats.betting`` (its bets, truncation, two gamblers at alpha / 2, the mean over
``betting.PERMUTATIONS`` seeded orders of the sorted pairs) against m_j instead of a fixed m is a test
martingale for theta, so the interval {theta : both capitals < 2 / alpha} covers with chance >= 1 - alpha. A
theta that puts some m_j outside what the members not yet drawn can average is impossible: rejected at once.
The closer n is to N, the narrower: nothing is uncertain of members already seen. With no control
variate, this is confseq's ``betting_mart(x, m, N=N)`` (``tests/stats/test_finite.py`` holds it to
confseq's capitals).

**Control variate** (``c``, known for all N members: an assessor's value of each question). For any lambda,
z_i = x_i - lambda (c_i - c_bar), c_bar the mean of c over all N, has population mean theta too. lambda_j may
change from draw to draw if it depends on the pairs before j only (predictable): m_j is then computed with
lambda_j, z_j - m_j has conditional mean 0 at the true theta, and the capital stays a test martingale. z of a
member not yet drawn lies in [low - lambda (c_high - c_bar), high - lambda (c_low - c_bar)], c_low and c_high
the least and greatest c over all N. lambda_j (``slopes``) is 0 for the first ``WARM_UP`` pairs, then the
value on a grid over [0, 1] that makes the interval's rough half-width the smallest, judged on the pairs
before j: a control variate lowers the spread of z and widens its range, and a bet is limited by both (by
the spread where it is of the plug-in size, by the range where it is truncated to keep the capital
positive), so lambda stays 0 where the values barely vary (a paired difference of mostly tied questions)
and grows with the correlation elsewhere. lambda = 0 throughout is the plain interval: a control variate
costs width at worst, never validity.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ragauge.stats import betting

WARM_UP = 10
"""The first pairs of an order are bet on with lambda 0 (too few to estimate a slope on)."""
GRID = 20
"""lambda_j is chosen on a grid of this many steps over [0, 1]."""


def sums_before(x: np.ndarray) -> np.ndarray:
    """Per position (last axis), the sum of ``x`` over the positions before it (0 at the first)."""
    out = np.zeros_like(x)
    out[..., 1:] = np.cumsum(x, axis=-1)[..., :-1]
    return out


def means_before(x: np.ndarray) -> np.ndarray:
    """Per position (last axis), the mean of ``x`` over the positions before it (0 at the first): what a
    predictable bet may read."""
    return sums_before(x) / np.maximum(np.arange(x.shape[-1], dtype=np.float64), 1.0)


def slopes(x: np.ndarray, c: np.ndarray, c_variance: float,
           bounds: Callable[[float], tuple[float, float]], alpha: float) -> np.ndarray:
    """The predictable lambda of each position of each order (rows), on a grid over [0, 1]: the one that
    makes the interval's rough half-width, max(sd sqrt(2 L / n), gap L / (n ``betting.TRUNCATION``)), the
    smallest (L = log(2 / alpha); sd of x - lambda c from the pairs before the position, c's variance
    over all N; gap the farther of what z can be, ``bounds(lambda)``, from the mean of x so far); 0 for
    the first ``WARM_UP``. The first term is what a bet of the plug-in size needs, the second what a bet
    truncated to keep the capital positive needs: a control variate lowers the first and widens the
    second, so lambda stays 0 where the values barely vary (module docstring)."""
    n = x.shape[-1]
    mx, mc = means_before(x), means_before(c)
    vx = np.maximum(means_before(x * x) - mx * mx, 0.0)
    cov = means_before(x * c) - mx * mc
    level = math.log(2.0 / alpha)
    best = np.full(x.shape, math.inf)
    lam = np.zeros_like(x)
    for g in np.linspace(0.0, 1.0, GRID + 1):
        floor, ceiling = bounds(float(g))
        sd = np.sqrt(np.maximum(vx - 2.0 * g * cov + g * g * c_variance, 0.0))
        gap = np.maximum(mx - floor, ceiling - mx)
        proxy = np.maximum(sd * math.sqrt(2.0 * level / n), gap * level / (n * betting.TRUNCATION))
        better = proxy < best - 1e-15
        best = np.where(better, proxy, best)
        lam = np.where(better, g, lam)
    lam[..., :WARM_UP] = 0.0
    return np.asarray(lam)


def log_capital_of(xs: np.ndarray, population: int, low: float, high: float, alpha: float, *,
                   cs: np.ndarray | None = None, c_mean: float = 0.0, c_variance: float = 0.0,
                   c_low: float | None = None, c_high: float | None = None) -> Callable[[float, bool], float]:
    """The log capital (the mean over the rows' orders, each row an order of the sample as drawn) of the
    upward or downward gambler at level ``alpha`` / 2 against "the population mean is theta": a function of
    (theta, upward); inf where theta is impossible. ``cs``: each drawn member's control variate, in the
    same orders (module docstring)."""
    xs = np.atleast_2d(np.asarray(xs, dtype=np.float64))
    n = xs.shape[-1]
    c_low, c_high = low if c_low is None else c_low, high if c_high is None else c_high

    def bounds(lam: Any) -> Any:  # what z of a member not yet drawn can be, at lambda (a number or an array)
        return low - lam * (c_high - c_mean), high - lam * (c_low - c_mean)

    if cs is None:
        lam, ds = np.zeros_like(xs), np.zeros_like(xs)
    else:
        cs = np.atleast_2d(np.asarray(cs, dtype=np.float64))
        lam = slopes(xs, cs, c_variance, bounds, alpha)
        ds = cs - c_mean
    z = xs - lam * ds
    past = sums_before(xs) - lam * sums_before(ds)  # the sum of z (with this position's lambda) over the draws before
    left = population - np.arange(n, dtype=np.float64)  # members not yet drawn, this one among them
    floor, ceiling = bounds(lam)
    spread = high - low
    s2 = betting.running_variance((z - low) / spread)
    size = np.sqrt(2.0 * math.log(2.0 / alpha) / (n * s2)) / spread
    slack = 1e-12 * max(1.0, spread)

    def log_capital(theta: float, upward: bool) -> float:
        m = (population * theta - past) / left
        if upward:
            if np.any(m < floor - slack):
                return math.inf  # the members not yet drawn cannot average this little
            gap = m - floor
            bet = np.where(gap > 0, np.minimum(size, betting.TRUNCATION / np.maximum(gap, 1e-300)), size)
            steps = np.log1p(bet * (z - m))
        else:
            if np.any(m > ceiling + slack):
                return math.inf
            gap = ceiling - m
            bet = np.where(gap > 0, np.minimum(size, betting.TRUNCATION / np.maximum(gap, 1e-300)), size)
            steps = np.log1p(-bet * (z - m))
        per_order = steps.sum(axis=-1)
        top = float(per_order.max())
        return top + math.log(float(np.mean(np.exp(per_order - top))))

    return log_capital


def interval(x: np.ndarray, population: int, low: float, high: float, confidence: float = 0.95, *,
             c: np.ndarray | None = None, c_mean: float = 0.0, c_variance: float = 0.0, c_low: float | None = None,
             c_high: float | None = None) -> tuple[float, float]:
    """The (``confidence``) interval for the mean of a population of ``population`` values in [low, high],
    from ``x``, a uniformly random sample of them without replacement; with ``c`` (each sampled member's
    control variate, in [low, high]) and ``c_mean`` / ``c_variance`` (its mean and variance over the whole
    population), the prediction-powered one (module docstring). (low, high) for no values."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if population < n:
        raise ValueError(f"a sample of {n} from a population of {population}: the population holds the sample")
    if n == 0:
        return (low, high)
    alpha = 1.0 - confidence
    cs = np.zeros(n) if c is None else np.asarray(c, dtype=np.float64)
    rows = betting._orders(n, betting.PERMUTATIONS)
    order = np.lexsort((cs, x))  # the pairs sorted, then the seeded orders of stats.betting
    log_capital = log_capital_of(x[order][rows], population, low, high, alpha,
                                 cs=None if c is None else cs[order][rows], c_mean=c_mean, c_variance=c_variance,
                                 c_low=c_low, c_high=c_high)
    threshold = math.log(2.0 / alpha)

    def end(upward: bool) -> float:
        """The lower end (upward: the smallest theta not rejected) or the upper, rounded outwards."""
        edge = low if upward else high
        if log_capital(edge, upward) < threshold:
            return edge
        accepted, rejected = (high, low) if upward else (low, high)
        for _ in range(betting.BISECTIONS):
            mid = (accepted + rejected) / 2.0
            if log_capital(mid, upward) < threshold:
                accepted = mid
            else:
                rejected = mid
        return rejected

    return end(True), end(False)
