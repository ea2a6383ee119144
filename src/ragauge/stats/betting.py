"""Inference for a bounded mean by betting (Waudby-Smith & Ramdas, JRSS-B 2024): valid at every n.

The values (per-question differences of a metric, in [-1, 1]; or one metric's values, in [0, 1])
are mapped to y in [0, 1]. For a candidate mean m a gambler bets against "the mean is m": the
capital K(m) = prod_i (1 + lambda_i (y_i - m)) is a nonnegative martingale when the mean is m, so
by Markov's inequality P(K(m) >= 1 / a) <= a, for *any* distribution on [0, 1], at any n, with no
assumption of normality, symmetry or a large sample. Ties, skew and a few large moves are fine.

- **Bets** (the "predictable plug-in" of WSR section 4): lambda_i = sqrt(2 log(1/a) / (n s2_{i-1}))
  for a fixed-size interval, or sqrt(2 log(1/a) / (s2_{i-1} i log(1 + i))) for a confidence
  sequence; s2_{i-1} is the running variance of the values seen before i, shrunk towards
  ``PRIOR_VARIANCE`` by ``PRIOR_WEIGHT`` pseudo-values, and each bet is truncated to
  ``TRUNCATION`` / m (upwards) or ``TRUNCATION`` / (1 - m) (downwards) so the capital never hits 0.
- **Order**: the capital of one order depends on the order. The capital used here is the mean
  over ``PERMUTATIONS`` orders of the sorted values, drawn once from a fixed seed, independently of
  any data. A uniformly random order of i.i.d. questions is i.i.d., so over the draw of the orders
  each capital is a nonnegative martingale under the null and their mean an e-value: validity holds
  as for a randomised test whose seed is fixed in advance (one fixed order of *sorted* values alone
  is not an e-value; measured over 16 orders: E[K] 0.99 under the null, false rejections at most
  0.8 % at alpha 0.05). The result is a function of the values alone: the same set of questions in
  another order gives the same interval.
- **Two-sided**: an upward and a downward gambler, each at level a / 2: the interval is
  {m : K+(m) < 2/a and K-(m) < 2/a}; its lower end is where the upward capital crosses 2/a
  (bisection: the capital is monotone in m). One-sided bounds use one gambler at level a.
- **p-values**: 1 / K is a valid p-value at every level (Markov); the two-sided one is
  min(1, 2 / max(K+(m0), K-(m0))), so the interval excludes m0 exactly when p < a.
- The interval is never a single point: with n values all equal it still spans what the unseen
  questions could do (about the rule of three: with 100 tied questions, roughly +-0.04).

Cost: O(PERMUTATIONS x n) per capital, ~50 capitals per interval end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

METHOD = "betting (Waudby-Smith & Ramdas hedged capital, valid for any bounded values at every n)"
PERMUTATIONS = 16
"""Seeded orders the capital is averaged over (the interval is then a function of the values)."""
TRUNCATION = 0.75
"""A bet risks at most this share of the capital on one value (the capital then never reaches 0)."""
PRIOR_VARIANCE = 0.25
PRIOR_WEIGHT = 1.0
SEED = 20240101
BISECTIONS = 48


@dataclass(frozen=True)
class Bets:
    """Values y in [0, 1] in ``PERMUTATIONS`` seeded orders (rows), with each order's bet sizes
    before truncation for the level ``alpha`` of one gambler (fixed n, or a sequence)."""

    y: np.ndarray
    size: np.ndarray
    alpha: float

    @property
    def n(self) -> int:
        return int(self.y.shape[-1])


def _orders(n: int, permutations: int) -> np.ndarray:
    """``permutations`` seeded random orders of n positions (the same for every call with this n)."""
    return _cached_orders(n, permutations) if n else np.zeros((permutations, 0), dtype=np.int64)


@lru_cache(maxsize=64)
def _cached_orders(n: int, permutations: int) -> np.ndarray:
    """Half drawn, half their mirror images (position i of the sorted values read as n - 1 - i), so the
    set of orders is the same read from either end: negated values (base and new swapped) meet the
    same orders and give the mirrored interval and the same p-value. Each mirror is itself a uniformly
    random order, so every capital stays an e-value."""
    rng = np.random.default_rng(SEED + n)
    drawn = np.stack([rng.permutation(n) for _ in range(permutations - permutations // 2)])
    order = np.concatenate([drawn, n - 1 - drawn[:permutations // 2]])
    order.setflags(write=False)
    return order


def running_variance(y: np.ndarray) -> np.ndarray:
    """Per row, the shrunk variance of the values before each position (``PRIOR_VARIANCE`` at the
    first): (w v0 + sum_{j<i} (y_j - mu_j)^2) / (w + i - 1), mu_j the shrunk running mean."""
    t = np.arange(1, y.shape[-1] + 1, dtype=np.float64)
    mu = (PRIOR_WEIGHT * 0.5 + np.cumsum(y, axis=-1)) / (t + PRIOR_WEIGHT)
    s2 = (PRIOR_WEIGHT * PRIOR_VARIANCE + np.cumsum((y - mu) ** 2, axis=-1)) / (t + PRIOR_WEIGHT)
    before = np.empty_like(s2)
    before[..., 0] = PRIOR_VARIANCE
    before[..., 1:] = s2[..., :-1]
    return np.maximum(before, 1e-6)


def bets(values: np.ndarray, low: float, high: float, alpha: float, *, sequence: bool = False,
         permutations: int = PERMUTATIONS) -> Bets:
    """The bets of one gambler at level ``alpha`` on ``values`` in [low, high]: fixed-n bets over
    ``permutations`` seeded orders of the sorted values (so the order given does not matter), or,
    when ``sequence``, a confidence sequence's bets on the values in their own order."""
    y = _scaled(values, low, high)
    rows = y[None, :] if sequence else np.sort(y)[_orders(len(y), permutations)]
    return bets_in_order(rows, alpha, sequence=sequence)


def _scaled(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Values in [low, high] mapped to y in [0, 1] (clipped: rounding may step past an end)."""
    return np.clip((np.asarray(values, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def bets_in_order(y: np.ndarray, alpha: float, *, sequence: bool = False) -> Bets:
    """The bets on values already in [0, 1], one row per order (the last axis), taken in the
    rows' order; leading axes beyond one (replicates x orders) are kept."""
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    s2 = running_variance(y)
    if sequence:
        t = np.arange(1, y.shape[-1] + 1, dtype=np.float64)
        size = np.sqrt(2.0 * math.log(1.0 / alpha) / (s2 * t * np.log1p(t)))
    else:
        size = np.sqrt(2.0 * math.log(1.0 / alpha) / (max(y.shape[-1], 1) * s2))
    return Bets(y, size, alpha)


def log_steps(b: Bets, m: float, upward: bool) -> np.ndarray:
    """Each order's log capital gained value by value against "the mean of y is m" (y scale); the
    upward gambler wins when the mean is above m."""
    if upward:
        lam = np.minimum(b.size, TRUNCATION / m) if m > 0 else b.size
        steps = np.log1p(lam * (b.y - m))
    else:
        lam = np.minimum(b.size, TRUNCATION / (1.0 - m)) if m < 1 else b.size
        steps = np.log1p(-lam * (b.y - m))
    return np.asarray(steps)


def log_capital(b: Bets, m: float, upward: bool) -> float:
    """log of the final capital against "the mean of y is m", averaged over the orders."""
    per_order = log_steps(b, m, upward).sum(axis=-1)
    return float(_log_mean_exp(per_order)) if per_order.size else 0.0


def _log_mean_exp(x: np.ndarray) -> np.ndarray:
    """log(mean(exp(x))) over the last axis, without overflow (the mean of the orders' capitals)."""
    top = x.max(axis=-1, keepdims=True)
    return np.asarray((top + np.log(np.mean(np.exp(x - top), axis=-1, keepdims=True)))[..., 0])


def _crossing(b: Bets, upward: bool, threshold: float) -> float:
    """For the upward gambler, the smallest m whose capital is below ``threshold`` (a lower bound
    on the mean); for the downward, the largest (an upper bound). Bisection on m in [0, 1]: the
    capital falls as m moves towards the gambler's side, rounded outwards (the last m rejected)."""
    edge = 0.0 if upward else 1.0
    if log_capital(b, edge, upward) < threshold:
        return edge
    accepted, rejected = 1.0 - edge, edge
    for _ in range(BISECTIONS):
        mid = (accepted + rejected) / 2.0
        if log_capital(b, mid, upward) < threshold:
            accepted = mid
        else:
            rejected = mid
    return rejected


def to_y(m: float, low: float, high: float) -> float:
    """A mean on [low, high] as a mean of y on [0, 1] (clipped)."""
    return min(1.0, max(0.0, (m - low) / (high - low)))


def _from_y(y: float, low: float, high: float) -> float:
    return low + y * (high - low)


def interval(values: np.ndarray, low: float, high: float, confidence: float = 0.95, *,
             sequence: bool = False) -> tuple[float, float]:
    """The two-sided betting interval for the mean of ``values`` (each in [low, high]) at
    ``confidence`` (with ``sequence``, the confidence sequence's interval after the values in their
    order); (low, high) for no values."""
    alpha = 1.0 - confidence
    if len(values) == 0:
        return (low, high)
    b = bets(values, low, high, alpha / 2.0, sequence=sequence)
    threshold = math.log(2.0 / alpha)
    return (_from_y(_crossing(b, True, threshold), low, high), _from_y(_crossing(b, False, threshold), low, high))


def lower_bound(values: np.ndarray, low: float, high: float, alpha: float) -> float:
    """The one-sided (1 - alpha) lower confidence bound for the mean (one upward gambler)."""
    if len(values) == 0:
        return low
    return _from_y(_crossing(bets(values, low, high, alpha), True, math.log(1.0 / alpha)), low, high)


def upper_bound(values: np.ndarray, low: float, high: float, alpha: float) -> float:
    """The one-sided (1 - alpha) upper confidence bound for the mean (one downward gambler)."""
    if len(values) == 0:
        return high
    return _from_y(_crossing(bets(values, low, high, alpha), False, math.log(1.0 / alpha)), low, high)


def p_value(values: np.ndarray, low: float, high: float, null: float, alpha: float,
            alternative: str = "two-sided") -> float:
    """The p-value of "the mean is ``null``" from the same bets as ``interval`` at level ``alpha``
    (``alternative``: "two-sided", "greater" — the mean is above ``null`` — or "less"): 1 / K,
    valid at every level; ``interval``/``lower_bound``/``upper_bound`` exclude ``null`` exactly when
    it is below ``alpha``."""
    if len(values) == 0:
        return 1.0
    m = to_y(null, low, high)
    if alternative == "two-sided":
        b = bets(values, low, high, alpha / 2.0)
        best = max(log_capital(b, m, True), log_capital(b, m, False))
        return float(min(1.0, 2.0 * math.exp(-best)))
    b = bets(values, low, high, alpha)
    return float(min(1.0, math.exp(-log_capital(b, m, alternative == "greater"))))


def batch_log_capital(values: np.ndarray, low: float, high: float, null: float, alpha: float,
                      upward: bool) -> np.ndarray:
    """``log_capital`` of each row of ``values`` (replicates x n) against the mean ``null``, with
    the bets ``bets`` would place at level ``alpha``: the test ``p_value`` runs, for many samples
    at once (power by simulation). Rows are processed in blocks to bound memory."""
    x = np.asarray(values, dtype=np.float64)
    reps, n = x.shape
    out = np.zeros(reps)
    if n == 0:
        return out
    order = _orders(n, PERMUTATIONS)
    m = to_y(null, low, high)
    block = max(1, 4_000_000 // (PERMUTATIONS * n))
    for start in range(0, reps, block):
        rows = np.sort(_scaled(x[start:start + block], low, high), axis=1)[:, order]  # (replicates, orders, n)
        out[start:start + block] = _log_mean_exp(log_steps(bets_in_order(rows, alpha), m, upward).sum(axis=-1))
    return out
