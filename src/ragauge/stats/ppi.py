"""Prediction-powered inference (PPI) for the mean of a metric over questions, and for the paired difference
of two runs: many automatic labels and a few human ones, combined into an estimate with an honest interval.

**Setting.** Questions are drawn i.i.d. from the population the golden set stands for; a random subset of
``n`` is human-labelled, independently of everything else (the split may not depend on the questions, the
runs or the assessor's labels), the other ``N`` are not. For each question, ``Y`` is the metric computed
from the human labels (known on the n labelled questions only) and ``Yhat`` the same metric computed from
the automatic labels (known on all n + N). The estimand is theta = E[Y], the mean the human labels would
give over the population. Nothing is assumed of the assessor: a bad one costs width, never validity.

**PPI++ (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, Science 2023; Angelopoulos, Duchi & Zrnic,
"PPI++", 2023).** For any lambda, theta = lambda E[Yhat] + E[Y - lambda Yhat], estimated by

    theta_hat = lambda mean(Yhat over the N unlabelled) + mean(Y - lambda Yhat over the n labelled).

lambda = 0 is the classical mean of the human labels; lambda = 1 is PPI; PPI++ tunes lambda to minimise the
variance, lambda_hat = cov(Y, Yhat) / ((1 + n/N) var(Yhat)) clipped to [0, 1] (covariance over the n
labelled pairs with divisor n, variance over all n + N predictions with divisor n + N - 1), exactly as
the authors' ``ppi_py.ppi_mean_ci`` computes it (``tests/stats/test_ppi.py`` holds this module to it).
The *effective number of human labels* is n times the classical variance over the PPI one: how many
human labels the classical mean would need for the same precision.

Two intervals (``method``):

- ``"clt"``: ppi_py's, the normal approximation theta_hat +- z_(1-alpha/2) sqrt(s_f^2 / N + s_r^2 / n)
  (s_f the standard deviation of lambda Yhat over the unlabelled, s_r of Y - lambda Yhat over the
  labelled, divisors N and n). Asymptotic: it assumes both sums are near normal, which a handful of
  0/1-like per-question values are not, and lambda is tuned on the same data; it undercovers at small n
  (``benchmarks/ppi_coverage.py`` measures by how much).
- ``"t"``: the same with the small-sample corrections of a one-sample t interval: variances with divisors
  n - 1 and N - 1, and Student's t quantile with n - 1 degrees of freedom. Still approximate.
- ``"betting"`` (the default): valid at every n, for any distribution of values in [low, high], in the
  sense of ``stats.betting``. The level alpha is split: ``UNLABELLED_SHARE`` alpha for a betting interval
  [mu_lo, mu_hi] for mu = E[Yhat] from the N unlabelled predictions alone, the rest for the labelled
  pairs. Taken in a seeded random order, pair i gives W_i(mu) = Y_i - lambda_i (Yhat_i - mu), where
  lambda_i depends on the pairs before i only (and the unlabelled predictions): predictable, so at the
  true mu, E[W_i | the past] = theta, and the hedged
  capital of ``stats.betting`` on the W_i (range [low - R, high + R], R = high - low) is a test
  martingale for theta. The interval is [lower end at mu_lo, upper end at mu_hi] (the lower end grows
  with mu, the upper too, so this holds every mu in [mu_lo, mu_hi]); by a union bound it fails with
  chance at most alpha. As in ``stats.betting``, the capital is averaged over ``betting.PERMUTATIONS``
  seeded orders of the sorted pairs, so the interval is a function of the pairs, not of their order.
  Its lambda_i is not PPI++'s: the two parts of this interval add up (a union bound) where the normal
  one's add in quadrature, so lambda_i minimises a_n sd(Y - lambda Yhat) + lambda a_N sd(Yhat) over the
  pairs before i (a_n, a_N the betting half-width factors sqrt(2 log(2/level) / size) of the two parts):
  an assessor too weak to pay for the uncertainty its own mean adds gets lambda 0, and the interval is
  then the human-only betting interval at level 0.9 alpha (about 1 % wider than at alpha).

**Target** (``target``). ``"population"`` (the above): theta = E[Y] over the questions the golden set
stands for. ``"golden-set"``: theta = the mean of Y over the golden set's own n + N questions, the value
human labels of every one of them would give; the labelled questions a uniformly random subset of them.
Yhat is then known for every member, so its mean over all n + N is no estimate: theta = lambda
mean(Yhat over all) + mean(Y - lambda Yhat over all), and the second mean is estimated from the labelled
questions, a sample without replacement. The estimate's lambda_hat = cov(Y, Yhat) / var(Yhat over all
n + N), clipped to [0, 1] (covariance over the n labelled pairs with divisor n, variance with divisor n + N):
the variance-minimising lambda for this target, without PPI++'s 1 + n/N, which prices an estimated mean of
Yhat (derivation: ``_golden_set``). Written as PPI++ writes it, over the N unlabelled, the same estimate has
lambda N / (n + N) = cov / ((1 + n/N) var), PPI++'s lambda but for its variance's divisor (n + N - 1): the
two targets' point estimates all but agree, and the lambda reported is the coefficient of the mean over all
n + N. The interval (``betting`` only) is ``stats.finite``'s, with Yhat as the control variate and its
lambda_j chosen pair by pair there (no union bound, no share of alpha spent on the unlabelled); the
human-only interval beside it is ``stats.finite``'s without the control variate, for the same mean.
Nothing is claimed beyond the golden set: it is the figure a fully labelled golden set would show, not
what other questions would.

For the paired difference of two runs A and B, Y = Y_A - Y_B and Yhat = Yhat_A - Yhat_B per question,
values in [-1, 1]: the same estimator on the differences.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ragauge.stats import DEFAULT_ALPHA, betting, finite

METHODS = ("betting", "clt", "t")
TARGETS = ("population", "golden-set")
"""What an estimate is of (module docstring): the mean over the questions the golden set stands for, or
over the golden set's own questions."""
UNLABELLED_SHARE = 0.1
"""The share of alpha the betting interval spends on E[Yhat] from the unlabelled predictions."""
GRID = 20
"""The betting interval's lambda is chosen on a grid of this many steps over [0, 1]."""
WARM_UP = 3
"""The betting interval's lambda is 0 for the first pairs of an order (too few to tune it on)."""


@dataclass(frozen=True)
class PPIEstimate:
    """The prediction-powered estimate of a mean and its (1 - ``alpha``) ``interval`` by ``method``, with
    the tuned ``lam`` (the whole-sample PPI++ lambda; the betting interval tunes it question by question),
    the classical (human-only) mean and its interval by the same method, and ``effective_n``."""

    estimate: float
    interval: tuple[float, float]
    lam: float
    n: int
    unlabelled: int
    classical: float
    classical_interval: tuple[float, float]
    effective_n: float
    method: str
    alpha: float
    target: str = "population"

    @property
    def width_ratio(self) -> float:
        """The PPI interval's width over the human-only one's (below 1: PPI is narrower)."""
        w = self.classical_interval[1] - self.classical_interval[0]
        return (self.interval[1] - self.interval[0]) / w if w > 0 else math.nan


def _arrays(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> tuple[np.ndarray, ...]:
    y, yhat, u = (np.asarray(v, dtype=np.float64).ravel() for v in (y, yhat, yhat_unlabelled))
    if len(y) != len(yhat):
        raise ValueError(f"{len(y)} human values and {len(yhat)} predictions for them: one each per question")
    if len(y) < 2 or len(u) < 1:
        raise ValueError(f"PPI needs at least 2 labelled and 1 unlabelled question, got {len(y)} and {len(u)}")
    if not (np.isfinite(y).all() and np.isfinite(yhat).all() and np.isfinite(u).all()):
        raise ValueError("PPI takes finite values only")
    return y, yhat, u


def power_tuning(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """PPI++'s lambda: cov(Y, Yhat) / ((1 + n/N) var(Yhat over all n + N)), clipped to [0, 1] (module
    docstring; 0 when the predictions do not vary)."""
    y, yhat, u = _arrays(y, yhat, yhat_unlabelled)
    n, big = len(y), len(u)
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    var = float(np.var(np.concatenate([yhat, u]), ddof=1))
    if var <= 0.0:
        return 0.0
    return float(np.clip(cov / ((1.0 + n / big) * var), 0.0, 1.0))


def _variances(y: np.ndarray, yhat: np.ndarray, u: np.ndarray, lam: float) -> tuple[float, float]:
    """(PPI variance of the estimate, classical variance of the human mean), divisors as ppi_py's."""
    return float(np.var(lam * u) / len(u) + np.var(y - lam * yhat) / len(y)), float(np.var(y) / len(y))


def ppi_mean(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, *, alpha: float = DEFAULT_ALPHA,
             method: str = "betting", low: float = 0.0, high: float = 1.0, lam: float | None = None,
             target: str = "population") -> PPIEstimate:
    """The PPI++ estimate of the mean of Y and its interval (module docstring): ``y`` the human values of
    the labelled questions, ``yhat`` the automatic ones of the same questions, ``yhat_unlabelled`` those of
    the unlabelled questions; every value in [``low``, ``high``]. ``lam`` fixes lambda (0: classical, 1:
    plain PPI) for ``"clt"``; None tunes it. ``target``: the mean over the population the questions stand
    for, or over the golden set's own questions (``"golden-set"``, betting only)."""
    if method not in METHODS:
        raise ValueError(f"unknown PPI method {method!r}: one of {', '.join(METHODS)}")
    if target not in TARGETS:
        raise ValueError(f"unknown PPI target {target!r}: one of {', '.join(TARGETS)}")
    y, yhat, u = _arrays(y, yhat, yhat_unlabelled)
    if target == "golden-set":
        if method != "betting":
            raise ValueError(f"the golden-set target has the betting interval only, not {method!r}")
        return _golden_set(y, yhat, u, alpha, low, high)
    tuned = power_tuning(y, yhat, u) if lam is None else float(lam)
    estimate = float(tuned * u.mean() + np.mean(y - tuned * yhat))
    var_ppi, var_classical = _variances(y, yhat, u, tuned)
    effective = len(y) * var_classical / var_ppi if var_ppi > 0 else math.inf
    if method in ("clt", "t"):
        from scipy import special, stats

        if method == "t":  # divisors n - 1 and N - 1, Student's t with n - 1 degrees of freedom
            z = float(stats.t.ppf(1.0 - alpha / 2.0, len(y) - 1))
            var_ppi = float(np.var(tuned * u, ddof=1) / len(u) + np.var(y - tuned * yhat, ddof=1) / len(y))
            var_classical = float(np.var(y, ddof=1) / len(y))
        else:
            z = float(-special.ndtri(alpha / 2.0))
        half, classical_half = z * math.sqrt(var_ppi), z * math.sqrt(var_classical)
        interval = (estimate - half, estimate + half)
        classical_interval = (float(y.mean()) - classical_half, float(y.mean()) + classical_half)
    else:
        interval = _betting_interval(y, yhat, u, alpha, low, high)
        classical_interval = betting.interval(y, low, high, 1.0 - alpha)
    return PPIEstimate(estimate, interval, tuned, len(y), len(u), float(y.mean()), classical_interval, effective,
                       method, alpha)


def _golden_set(y: np.ndarray, yhat: np.ndarray, u: np.ndarray, alpha: float, low: float,
                high: float) -> PPIEstimate:
    """:func:`ppi_mean` of the golden set's own mean (module docstring, ``target``).

    lambda: the M = n + N questions are a finite population, c = Yhat known on all, y on a sample S of n
    drawn uniformly without replacement; theta = mean(y). For a fixed lambda, theta_hat = lambda mean(c) +
    mean_S(y - lambda c) is unbiased with variance (1 - n/M) S2(y - lambda c) / n (S2: the population
    variance, divisor M - 1). mean(c) is exact, not estimated, so no lambda^2 var(Yhat) / N term enters (the
    one that gives PPI++ its 1 + n/N), and 1 - n/M scales every lambda alike: the variance is least at
    lambda* = S(y, c) / S2(c). Plugged in: cov(y, c) over S (divisor n) over var(c) over all M (divisor M,
    exact), clipped to [0, 1]. Unbiased divisors (n - 1 over M - 1) would give n (M - 1) / ((n - 1) M) times
    it (1.06 at n = 12, M = 40); a lambda off by a factor k costs (1 - k)^2 rho^2 / (1 - rho^2) of the least
    variance (0.4 % there at correlation 0.7), so the plain moments stay. The lambda reported is this one;
    mean_S(y) + lambda N/M (mean(Yhat over the N) - mean_S(Yhat)) is the same estimate in PPI++'s form."""
    every = np.concatenate([yhat, u])
    total, c_mean, c_variance = len(every), float(every.mean()), float(every.var())
    cov = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    tuned = float(np.clip(cov / c_variance, 0.0, 1.0)) if c_variance > 0 else 0.0
    estimate = float(tuned * c_mean + np.mean(y - tuned * yhat))
    var_ppi, var_classical = float(np.var(y - tuned * yhat)), float(np.var(y))
    effective = len(y) * var_classical / var_ppi if var_ppi > 0 else math.inf
    confidence = 1.0 - alpha
    interval = finite.interval(y, total, low, high, confidence, c=yhat, c_mean=c_mean, c_variance=c_variance,
                               c_low=float(every.min()), c_high=float(every.max()))
    classical_interval = finite.interval(y, total, low, high, confidence)
    return PPIEstimate(estimate, interval, tuned, len(y), len(u), float(y.mean()), classical_interval, effective,
                       "betting", alpha, "golden-set")


def ppi_difference(y_a: np.ndarray, y_b: np.ndarray, yhat_a: np.ndarray, yhat_b: np.ndarray,
                   unlabelled_a: np.ndarray, unlabelled_b: np.ndarray, *, alpha: float = DEFAULT_ALPHA,
                   method: str = "betting", target: str = "population") -> PPIEstimate:
    """The PPI++ estimate of the mean of Y_A - Y_B, the paired difference of two runs' metric, each value in
    [0, 1]: :func:`ppi_mean` on the per-question differences, in [-1, 1]."""
    return ppi_mean(np.asarray(y_a, dtype=np.float64) - np.asarray(y_b, dtype=np.float64),
                    np.asarray(yhat_a, dtype=np.float64) - np.asarray(yhat_b, dtype=np.float64),
                    np.asarray(unlabelled_a, dtype=np.float64) - np.asarray(unlabelled_b, dtype=np.float64),
                    alpha=alpha, method=method, low=-1.0, high=1.0, target=target)


def _predictable_lambdas(y: np.ndarray, yhat: np.ndarray, sd_u: float, a_n: float, a_u: float) -> np.ndarray:
    """Per row (an order of the labelled pairs) and position i: the lambda in [0, 1] (a grid of step
    1/``GRID``) that minimises the half-width the betting interval will roughly have,
    a_n sd(Y - lambda Yhat) + lambda a_u sd_u, with sd(Y - lambda Yhat) from the pairs before i only (0
    before ``WARM_UP`` pairs): predictable, and 0 for an assessor that does not pay for its own
    uncertainty (module docstring)."""
    before = finite.means_before
    my, mh = before(y), before(yhat)
    vy, vh, cov = before(y * y) - my * my, before(yhat * yhat) - mh * mh, before(y * yhat) - my * mh
    grid = np.linspace(0.0, 1.0, GRID + 1)[:, None, None]
    spread = np.sqrt(np.maximum(vy - 2.0 * grid * cov + grid * grid * vh, 0.0))
    best = grid[np.argmin(a_n * spread + grid * a_u * sd_u, axis=0), 0, 0]
    best[..., :WARM_UP] = 0.0
    return np.asarray(best)


def _betting_interval(y: np.ndarray, yhat: np.ndarray, u: np.ndarray, alpha: float, low: float,
                      high: float) -> tuple[float, float]:
    """The finite-sample interval of the module docstring."""
    alpha_u, alpha_l = UNLABELLED_SHARE * alpha, (1.0 - UNLABELLED_SHARE) * alpha
    mu_lo, mu_hi = betting.interval(u, low, high, 1.0 - alpha_u)
    spread = high - low
    order = np.lexsort((yhat, y))  # the pairs sorted, then the seeded orders of stats.betting
    rows = betting._orders(len(y), betting.PERMUTATIONS)
    ys, hs = y[order][rows], yhat[order][rows]
    a_n = math.sqrt(2.0 * math.log(2.0 / alpha_l) / len(y))
    a_u = math.sqrt(2.0 * math.log(2.0 / alpha_u) / len(u))
    lam = _predictable_lambdas(ys, hs, float(np.std(u)), a_n, a_u)
    # bet sizes from the values before each pair, in units of the metric's range (stats.betting's plug-in)
    center = (ys - lam * (hs - float(u.mean())) - low) / spread
    s2 = betting.running_variance(center)
    size = np.sqrt(2.0 * math.log(2.0 / alpha_l) / (len(y) * s2)) / spread
    threshold = math.log(2.0 / alpha_l)

    def log_capital(m: float, mu: float, upward: bool) -> float:
        w = ys - lam * (hs - mu)
        if upward:  # W_i >= low - lam_i (high - mu): the bet keeps the capital positive below that
            gap = m - (low - lam * (high - mu))
            bet = np.where(gap > 0, np.minimum(size, betting.TRUNCATION / np.maximum(gap, 1e-300)), size)
            steps = np.log1p(bet * (w - m))
        else:  # W_i <= high + lam_i (mu - low)
            gap = (high + lam * (mu - low)) - m
            bet = np.where(gap > 0, np.minimum(size, betting.TRUNCATION / np.maximum(gap, 1e-300)), size)
            steps = np.log1p(-bet * (w - m))
        per_order = steps.sum(axis=-1)
        top = float(per_order.max())
        return top + math.log(float(np.mean(np.exp(per_order - top))))

    def end(mu: float, upward: bool) -> float:
        """The lower end (upward: the smallest m whose capital stays below the threshold) or the upper."""
        edge = low if upward else high
        if log_capital(edge, mu, upward) < threshold:
            return edge
        accepted, rejected = (high, low) if upward else (low, high)
        for _ in range(betting.BISECTIONS):
            mid = (accepted + rejected) / 2.0
            if log_capital(mid, mu, upward) < threshold:
                accepted = mid
            else:
                rejected = mid
        return rejected

    return end(mu_lo, True), end(mu_hi, False)
