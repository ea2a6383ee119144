"""Power of the test ragauge runs (``stats.paired``: betting), by simulation: the smallest effect a
golden set can detect, and the questions an effect needs.

No formula gives the power of the betting test, so it is simulated from a population of
per-question differences (``Differences``): the observed differences of two runs, or, from one run,
the changes its own values allow (``Differences.one_run``). A true effect delta is made by
exponential tilting: the population's questions are reweighted by exp(eta d) so that their mean
is delta, which keeps every difference inside its own support (0/1 metrics stay -1/0/+1). Each
figure draws ``REPLICATES`` golden sets of n questions from the tilted population and runs the very
test ``compare`` and the gate run (same bets, same permutations), with a fixed seed: the same inputs
give the same figure. Monte-Carlo error: about +-2.3 points of power at 80 %.

Above ``SIMULATED_UP_TO`` questions the mean is normal to a good approximation and the test's
log-capital is lambda S - lambda^2 n s^2 / 2 to second order, so the test rejects when the mean of
y exceeds the null by log(1/a) / (lambda n) + lambda s^2 / 2 (lambda the bet, truncated as the
test truncates it): the power is the normal chance of that (``_large_n_power``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ragauge.stats import DEFAULT_ALPHA as DEFAULT_ALPHA
from ragauge.stats import DEFAULT_CORRELATION as DEFAULT_CORRELATION
from ragauge.stats import DEFAULT_POWER as DEFAULT_POWER
from ragauge.stats import betting
from ragauge.stats.paired import smallest_exact_p

MAX_QUESTIONS = 100_000
"""Above this many questions ``required_questions`` answers None ("more than 100,000")."""
REPLICATES = 300
SIMULATED_UP_TO = 1000
"""Above this many questions the betting test's power has a closed form (``_large_n_power``)."""
SEED = 5
POPULATION = 4000


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
    standard deviation ``sd`` and correlate ``correlation``: sqrt(2 (1 - rho)) sd."""
    return math.sqrt(2.0 * (1.0 - correlation)) * sd


@dataclass(frozen=True)
class Differences:
    """A population of per-question differences (new - base) in [-1, 1] that a change of a
    golden set's questions is drawn from; ``source`` says where it came from; ``floor`` marks the
    stand-in of ``best`` for values that do not vary (assumed, not measured: a report says so)."""

    values: np.ndarray
    source: str
    floor: bool = False

    @property
    def sd(self) -> float:
        return float(self.values.std()) if len(self.values) else 0.0

    @classmethod
    def observed(cls, d: np.ndarray) -> Differences:
        return cls(np.clip(np.asarray(d, dtype=np.float64), -1.0, 1.0), "observed differences")

    @classmethod
    def one_run(cls, values: np.ndarray, correlation: float = DEFAULT_CORRELATION) -> Differences:
        """The changes one run's ``values`` allow: each question keeps its value with chance
        ``correlation`` and otherwise takes another question's (so the difference's spread is
        ``sd_from_one_run``; 0/1 values give -1/0/+1)."""
        v = np.asarray(values, dtype=np.float64)
        rng = np.random.default_rng(SEED)
        i = rng.integers(0, len(v), POPULATION)
        j = rng.integers(0, len(v), POPULATION)
        moved = rng.random(POPULATION) >= correlation
        return cls(np.where(moved, v[j] - v[i], 0.0), f"one run, per-question correlation {correlation}")

    @classmethod
    def best(cls, n: int, observed: np.ndarray | None = None, values: np.ndarray | None = None,
             correlation: float = DEFAULT_CORRELATION) -> Differences:
        """The observed differences when some question changed; else the one-run model of
        ``values`` when they vary; else one question in ``n`` moving by 1 either way (a set that
        shows no variation never claims to detect everything)."""
        if observed is not None and len(observed) and np.any(np.abs(observed) > 1e-12):
            return cls.observed(observed)
        if values is not None and len(values) > 1 and float(np.std(values)) > 0.0:
            return cls.one_run(values, correlation)
        n = max(n, 2)
        return cls(np.r_[1.0, -1.0, np.zeros(max(2 * n - 2, 0))], f"one question in {n} changing by 1", floor=True)


def _tilt(d: np.ndarray, effect: float) -> np.ndarray | None:
    """Weights exp(eta d) / Z with mean difference ``effect``; None when it is out of reach (the
    population holds no difference beyond it)."""
    lo, hi = float(d.min()), float(d.max())
    if not lo < effect < hi:
        return None
    a, b = -1.0, 1.0
    while float(_tilted_mean(d, a)) > effect:
        a *= 2.0
    while float(_tilted_mean(d, b)) < effect:
        b *= 2.0
    for _ in range(80):
        mid = (a + b) / 2.0
        if _tilted_mean(d, mid) < effect:
            a = mid
        else:
            b = mid
    return _tilted_weights(d, (a + b) / 2.0)


def _tilted_weights(d: np.ndarray, eta: float) -> np.ndarray:
    """exp(eta d) / Z, shifted so the exponent's largest term is 0 (no overflow at any eta)."""
    w = np.exp(eta * (d - (d.max() if eta > 0 else d.min())))
    return np.asarray(w / w.sum())


def _tilted_mean(d: np.ndarray, eta: float) -> float:
    return float((_tilted_weights(d, eta) * d).sum())


def _reachable(model: Differences, effect: float) -> np.ndarray:
    """The population an effect is made from: the model's, or, when the effect lies outside what its
    differences reach (every change a drop, and an improvement or no change is asked about), the
    model made symmetric (each difference and its opposite): the same spread, either direction."""
    d = model.values
    if len(d) and float(d.min()) < effect < float(d.max()):
        return d
    return np.concatenate([d, -d])


def _samples(model: Differences, n: int, effect: float) -> np.ndarray | None:
    d = _reachable(model, effect)
    w = _tilt(d, effect)
    if w is None:
        return None
    rng = np.random.default_rng(SEED + n)
    return np.asarray(d[rng.choice(len(d), size=(REPLICATES, n), p=w)])


def power_at(model: Differences, n: int, effect: float, alpha: float = DEFAULT_ALPHA, test: str = "two-sided",
             null: float = 0.0) -> float:
    """The simulated chance that the betting test on ``n`` questions rejects when the true mean
    difference is ``effect``: ``test`` "two-sided" (compare: p < alpha), "drop" (the gate: the
    one-sided test of "no drop" rejects) or "no-worse" (non-inferiority: "the difference is at most
    ``null``" is rejected). An effect the population cannot reach has power 0."""
    if n < 2:
        return 0.0
    if n > SIMULATED_UP_TO:
        return _large_n_power(model, n, effect, alpha, test, null)
    x = _samples(model, n, effect)
    if x is None:
        return 0.0
    if test == "two-sided":  # the gambler on the effect's side (the other rejects in the wrong direction)
        cap = betting.batch_log_capital(x, -1.0, 1.0, null, alpha / 2.0, effect >= null)
        reject = cap >= math.log(2.0 / alpha)
    else:
        cap = betting.batch_log_capital(x, -1.0, 1.0, null, alpha, test == "no-worse")
        reject = cap >= math.log(1.0 / alpha)
    return float(reject.mean())


def _large_n_power(model: Differences, n: int, effect: float, alpha: float, test: str, null: float) -> float:
    """The power of ``power_at`` for large n in closed form (see the module docstring)."""
    from scipy import special

    d = _reachable(model, effect)
    w = _tilt(d, effect)
    if w is None:
        return 0.0
    sd_y = math.sqrt(float((w * (d - effect) ** 2).sum())) / 2.0  # y = (d + 1) / 2
    if sd_y <= 0.0:
        return 0.0
    m = betting.to_y(null, -1.0, 1.0)
    shift = (effect - null) / 2.0

    def chance(level: float, upward: bool) -> float:
        s2 = sd_y * sd_y
        edge = m if upward else 1.0 - m
        lam = math.sqrt(2.0 * math.log(1.0 / level) / (n * s2))
        if edge > 0:
            lam = min(lam, betting.TRUNCATION / edge)
        needed = math.log(1.0 / level) / (lam * n) + lam * s2 / 2.0
        gain = shift if upward else -shift
        return float(special.ndtr((gain - needed) * math.sqrt(n) / sd_y))

    if test == "two-sided":
        return min(1.0, chance(alpha / 2.0, True) + chance(alpha / 2.0, False))
    return chance(alpha, test == "no-worse")


def minimum_detectable_effect(model: Differences, n: int, alpha: float = DEFAULT_ALPHA,
                              power: float = DEFAULT_POWER) -> float | None:
    """The smallest |mean difference| the two-sided betting test on ``n`` questions detects with
    probability ``power``, to 0.002, as an improvement of the population oriented so its mean is not
    negative (``oriented``: the same figure with base and new swapped); None when no effect the
    population can reach is detected that often."""
    return _mde(oriented(model.values).tobytes(), model.source, n, alpha, power)


def oriented(values: np.ndarray) -> np.ndarray:
    """``values`` or their negation, whichever has the larger sum (on a tie, the larger sorted
    sequence): one orientation for a population and its mirror image (every change a drop reads as
    the same magnitudes of improvement)."""
    total = float(np.sum(values))
    if total < 0.0 or (total == 0.0 and tuple(np.sort(-values)) > tuple(np.sort(values))):
        return -values
    return values


@lru_cache(maxsize=512)
def _mde(key: bytes, source: str, n: int, alpha: float, power: float) -> float | None:
    model = Differences(np.frombuffer(key), source)
    top = float(model.values.max()) - 1e-6
    if top <= 0 or power_at(model, n, top, alpha) < power:
        return None

    def bisect(lo: float, hi: float, chance: Callable[[float], float], tolerance: float) -> float:
        while hi - lo > tolerance:
            mid = (lo + hi) / 2.0
            if chance(mid) >= power:
                hi = mid
            else:
                lo = mid
        return hi

    # the closed form brackets the simulated answer, so the simulation runs a few times only
    guess = bisect(0.0, top, lambda e: _large_n_power(model, n, e, alpha, "two-sided", 0.0), 1e-4)
    lo, hi = 0.5 * guess, min(top, 1.5 * guess)
    while lo > 1e-4 and power_at(model, n, lo, alpha) >= power:
        lo /= 2.0
    while hi < top and power_at(model, n, hi, alpha) < power:
        hi = min(top, hi * 1.5)
    return round(bisect(lo, hi, lambda e: power_at(model, n, e, alpha), 0.002), 4)


def required_questions(model: Differences, effect: float, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER,
                       test: str = "two-sided", null: float = 0.0) -> int | None:
    """The fewest questions on which the test detects a true difference ``effect`` with
    probability ``power`` (to within 2 %); None above ``MAX_QUESTIONS`` or for an effect of 0."""
    if effect == 0.0:
        return None
    effect = abs(effect) if test in ("two-sided", "no-worse") else -abs(effect)

    def enough(n: int) -> bool:
        return power_at(model, n, effect, alpha, test, null) >= power

    # the closed form finds the region; the simulation settles it where it applies
    guess = _fewest(lambda n: _large_n_power(model, n, effect, alpha, test, null) >= power, 1, MAX_QUESTIONS)
    if guess is not None and guess > 2 * SIMULATED_UP_TO:
        return guess
    lo, hi = 1, min(MAX_QUESTIONS, 2 * (guess or SIMULATED_UP_TO))
    if guess is not None and guess > 8:
        lo = guess // 2
        while lo > 1 and enough(lo):
            lo //= 2
    return _fewest(enough, lo, hi)


def _fewest(ok: Callable[[int], bool], lo: int, hi: int) -> int | None:
    """The smallest n in (lo, MAX_QUESTIONS] with ``ok(n)``, to 2 % (``ok`` is taken as monotone):
    ``hi`` is doubled until it is enough, then (lo, hi] is bisected. None above ``MAX_QUESTIONS``."""
    while not ok(hi):
        if hi >= MAX_QUESTIONS:
            return None
        lo, hi = hi, min(MAX_QUESTIONS, hi * 2)
    while hi - lo > max(1, lo // 50):
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def noise_exceedance(allowed: float, model: Differences, n: int) -> float:
    """The chance that a change of equal quality (the population made symmetric: each difference
    and its opposite equally likely) still shows a drop larger than ``allowed`` in the mean over
    ``n`` questions; simulated up to ``SIMULATED_UP_TO`` questions, above from the normal law of the
    mean (sd sqrt(mean(d^2) / n))."""
    if n < 1:
        return 0.0
    if n > SIMULATED_UP_TO:
        from scipy import special

        spread = _null_spread(model, n)
        return float(special.ndtr(-allowed / spread)) if spread > 0 else 0.0
    return float((_null_means(model, n) < -allowed - 1e-12).mean())


def _null_spread(model: Differences, n: int) -> float:
    """The standard deviation of the mean of ``n`` questions under the symmetric null: sqrt(mean(d^2) / n)."""
    return math.sqrt(float(np.mean(model.values ** 2)) / n)


def _null_means(model: Differences, n: int) -> np.ndarray:
    rng = np.random.default_rng(SEED + 7 * n)
    d = model.values
    x = d[rng.integers(0, len(d), (REPLICATES * 4, n))] * rng.choice([-1.0, 1.0], (REPLICATES * 4, n))
    return np.asarray(x.mean(axis=1))


def noise_allowance(model: Differences, n: int, alpha: float = DEFAULT_ALPHA) -> float:
    """The smallest allowed drop that a change of equal quality exceeds with chance at most
    ``alpha`` on ``n`` questions (the inverse of ``noise_exceedance``)."""
    if n < 1:
        return math.inf
    if n > SIMULATED_UP_TO:
        from scipy import special

        return float(-special.ndtri(alpha) * _null_spread(model, n))
    return float(max(0.0, -np.quantile(_null_means(model, n), alpha)))


def questions_for_allowance(allowed: float, model: Differences, n: int, alpha: float = DEFAULT_ALPHA) -> int | None:
    """The fewest questions, ``n`` or more, on which a change of equal quality drops the mean by more
    than ``allowed`` with chance at most ``alpha``: ``noise_exceedance`` on the same model (``n`` when
    ``n`` suffices), taken as falling from ``n`` on and found to 2 % (a metric of few values falls in
    a sawtooth: the mean moves in steps of 1/size). Smaller sets are not asked: where questions rarely
    move (0/1 values, the ``floor`` model) a few questions rarely move at all, so they exceed less
    often than ``n`` do. None when no size up to ``MAX_QUESTIONS`` is enough (none is, for an
    allowance of 0 on a population that moves)."""

    def enough(size: int) -> bool:
        return size >= n and noise_exceedance(allowed, model, size) <= alpha

    return n if enough(n) else _fewest(enough, 1, 2)


def one_sided_power(shift: float, model: Differences, n: int, alpha: float = DEFAULT_ALPHA,
                    test: str = "drop") -> float:
    """The gate's tested rules: for ``test`` "drop", the chance that the one-sided betting test
    catches a true drop of ``shift``; for "no-worse", the chance that an unchanged run (true
    difference 0) is shown no worse than -``shift``."""
    if test == "drop":
        return power_at(model, n, -abs(shift), alpha, "drop")
    return power_at(model, n, 0.0, alpha, "no-worse", null=-abs(shift))
