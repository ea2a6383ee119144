"""Power of the paired t-test: the smallest effect a golden set can detect, and the questions an
effect needs.

All figures are for a two-sided paired t-test at ``alpha`` with power ``power`` (the chance of a
significant result when the true mean difference is the effect), from the standard deviation of the
per-question differences, through the noncentral t distribution. For 0/1 metrics they approximate
McNemar's test. A set of fewer than ``min_questions(alpha)`` questions detects nothing at all: no
exact test can reach ``alpha`` with so few questions changing (see ``paired.smallest_exact_p``).
"""

from __future__ import annotations

import math

from ragauge.stats.paired import smallest_exact_p

DEFAULT_POWER = 0.8
DEFAULT_CORRELATION = 0.5
MAX_QUESTIONS = 10**9


def min_questions(alpha: float) -> int:
    """The fewest changed questions with which an exact test can be significant at ``alpha``
    (ValueError for an alpha outside (0, 1): there would be none)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    n = 1
    while smallest_exact_p(n) >= alpha:
        n += 1
    return n


def sd_from_one_run(sd: float, correlation: float = DEFAULT_CORRELATION) -> float:
    """The standard deviation of paired differences between two runs that each have per-question
    standard deviation ``sd`` and correlate ``correlation`` per question: sqrt(2 (1 - rho)) sd.
    The model ``power`` uses when only one run is known (rho = 0.5: the new run is as different
    from the old per question as the questions are from each other)."""
    return math.sqrt(2.0 * (1.0 - correlation)) * sd


def noise_sd(n: int, sd_diff: float = 0.0, sd_values: float = 0.0,
             correlation: float = DEFAULT_CORRELATION) -> float:
    """The spread of per-question differences the power figures use: the observed ``sd_diff`` of two
    runs' paired differences when positive; else ``sd_from_one_run(sd_values)`` when one run's values
    vary; else, when nothing varies, the spread of one question of ``n`` changing by 1 (1 / sqrt n)
    so that a set that happens to show no variation does not claim to detect everything."""
    if sd_diff > 0.0:
        return sd_diff
    if sd_values > 0.0:
        return sd_from_one_run(sd_values, correlation)
    return 1.0 / math.sqrt(max(n, 1))


def minimum_detectable_effect(sd_diff: float, n: int, alpha: float = 0.05,
                              power: float = DEFAULT_POWER) -> float | None:
    """The smallest |mean difference| the two-sided paired t-test on ``n`` questions detects with
    probability ``power``; None when ``n`` is below ``min_questions(alpha)`` (nothing is
    detectable), 0 when the differences do not vary."""
    from scipy import special

    if n < max(2, min_questions(alpha)):
        return None
    if sd_diff <= 0.0:
        return 0.0
    df = n - 1
    critical = float(special.stdtrit(df, 1.0 - alpha / 2.0))
    noncentrality = float(special.nctdtrinc(df, 1.0 - power, critical))
    return noncentrality * sd_diff / math.sqrt(n)


def required_questions(sd_diff: float, effect: float, alpha: float = 0.05,
                       power: float = DEFAULT_POWER) -> int | None:
    """The fewest questions whose ``minimum_detectable_effect`` is at most |``effect``|; None
    when more than a billion would be needed (or the effect is 0)."""
    effect = abs(effect)
    if effect == 0.0:
        return None
    lo = max(2, min_questions(alpha))
    if sd_diff <= 0.0:
        return lo

    def enough(n: int) -> bool:
        mde = minimum_detectable_effect(sd_diff, n, alpha, power)
        return mde is not None and mde <= effect

    if not enough(MAX_QUESTIONS):
        return None
    hi = lo
    while not enough(hi):
        hi *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def noise_exceedance(allowed: float, sd_diff: float, n: int) -> float:
    """The chance that a change of equal quality (true mean difference 0) still shows a drop larger
    than ``allowed`` in the mean over ``n`` questions: P(t_{n-1} < -allowed / (sd / sqrt n))."""
    from scipy import special

    if n < 2 or sd_diff <= 0.0:
        return 0.0
    return float(special.stdtr(n - 1, -allowed / (sd_diff / math.sqrt(n))))


def noise_allowance(sd_diff: float, n: int, alpha: float = 0.05) -> float:
    """The smallest allowed drop that a change of equal quality exceeds with chance at most
    ``alpha`` on ``n`` questions (the inverse of ``noise_exceedance``)."""
    from scipy import special

    if n < 2:
        return math.inf
    return float(-special.stdtrit(n - 1, alpha)) * sd_diff / math.sqrt(n)


def questions_for_allowance(allowed: float, sd_diff: float, alpha: float = 0.05) -> int | None:
    """The fewest questions on which a change of equal quality exceeds a drop of ``allowed`` with
    chance at most ``alpha``; None above a billion (or for an allowance of 0)."""
    if sd_diff <= 0.0:
        return 2
    if allowed <= 0.0 or noise_exceedance(allowed, sd_diff, MAX_QUESTIONS) > alpha:
        return None
    lo, hi = 2, 2
    while noise_exceedance(allowed, sd_diff, hi) > alpha:
        hi *= 2
    while lo < hi:
        mid = (lo + hi) // 2
        if noise_exceedance(allowed, sd_diff, mid) <= alpha:
            hi = mid
        else:
            lo = mid + 1
    return lo


def one_sided_power(shift: float, sd_diff: float, n: int, alpha: float = 0.05) -> float:
    """The chance that a one-sided paired t-test at ``alpha`` on ``n`` questions rejects when the
    truth lies ``shift`` beyond its null: 1 - F(t(1 - alpha, n - 1); n - 1, shift sqrt(n) / sd),
    with F the noncentral t distribution. It serves both gate cases: catching a true drop of the
    allowance, and showing an unchanged run no worse than a margin. 0 below ``min_questions``."""
    from scipy import special

    if n < max(2, min_questions(alpha)):
        return 0.0
    if sd_diff <= 0.0:
        return 1.0
    df = n - 1
    critical = float(special.stdtrit(df, 1.0 - alpha))
    return float(1.0 - special.nctdtr(df, shift * math.sqrt(n) / sd_diff, critical))
